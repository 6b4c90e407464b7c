/** The `topology` stack output (core/plan/summary.ts). */
import { strict as assert } from "assert";

import { topologySummary } from "../../../core/plan/summary";
import { devNoDhcpRaw, devRaw, haNoDhcpRaw, haRaw, planOf } from "./support";

describe("plan/summary: topologySummary", function () {
    it("single: one conductor on any node, with the whole range", function () {
        assert.deepEqual(topologySummary(planOf(devRaw)), {
            topology: "single",
            namespace: "metal3",
            conductors: [{ node: "(any node)", ip: "172.22.0.2", dhcpRange: "172.22.0.10-172.22.0.100 (91 addresses)" }],
        });
    });

    it("single without DHCP: no range (null), no slot", function () {
        assert.deepEqual(topologySummary(planOf(devNoDhcpRaw)).conductors, [{ node: "(any node)", ip: "172.22.0.2", dhcpRange: null }]);
    });

    it("multi: every node with its slot and slice", function () {
        assert.deepEqual(topologySummary(planOf(haRaw)), {
            topology: "multi",
            namespace: "metal3",
            conductors: [
                { node: "cp-0", ip: "172.22.0.2", slot: 0, dhcpRange: "172.22.0.10-172.22.0.59 (50 addresses)" },
                { node: "cp-1", ip: "172.22.0.3", slot: 1, dhcpRange: "172.22.0.60-172.22.0.109 (50 addresses)" },
                { node: "cp-2", ip: "172.22.0.4", slot: 2, dhcpRange: "172.22.0.110-172.22.0.159 (50 addresses)" },
            ],
        });
    });

    it("multi without DHCP: no slot key at all, and no range", function () {
        const s = topologySummary(planOf(haNoDhcpRaw));
        assert.deepEqual(s.conductors, [
            { node: "cp-0", ip: "172.22.0.2", dhcpRange: null },
            { node: "cp-1", ip: "172.22.0.3", dhcpRange: null },
        ]);
        assert.ok(!("slot" in s.conductors[0]));
    });
});
