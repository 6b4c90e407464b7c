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
                { node: "cp-0", ip: "172.22.0.2", slot: 4, dhcpRange: "172.22.0.110-172.22.0.134 (25 addresses)" },
                { node: "cp-1", ip: "172.22.0.3", slot: 6, dhcpRange: "172.22.0.160-172.22.0.184 (25 addresses)" },
                { node: "cp-2", ip: "172.22.0.4", slot: 0, dhcpRange: "172.22.0.10-172.22.0.34 (25 addresses)" },
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
