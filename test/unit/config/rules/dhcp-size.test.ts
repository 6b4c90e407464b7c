/** rules/dhcp-size.ts: enough addresses in the range (single) or in each slice (multi); slots only with multi. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../../core/config";
import { dhcpSizeRule } from "../../../../core/config/rules/dhcp-size";
import { haRaw, hasIssue, issues, ruleTable, withDhcp } from "../support";

describe("config rule: DHCP range size and slices", function () {
    it("rejects a range too small to be useful, naming the size", function () {
        hasIssue(issues(withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12" })), "provisioning.dhcp", /only 3 addresses; at least 8/);
        assert.ok(validateConfig(withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12", minSize: 3 })).ok);
    });

    ruleTable(dhcpSizeRule, [
        { name: "3 addresses, 8 needed", raw: withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12" }), key: "provisioning.dhcp", message: "offers only 3 addresses; at least 8 are needed", reported: true },
        { name: "1 address, 2 needed", raw: withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.10", minSize: 2 }), key: "provisioning.dhcp", message: "offers only 1 address;", reported: true },
        { name: "3 addresses, minSize 3", raw: withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12", minSize: 3 }), key: "provisioning.dhcp", message: "offers only", reported: false },
        { name: "a small but reversed range (only the order is reported)", raw: withDhcp({ rangeStart: "172.22.0.12", rangeEnd: "172.22.0.10" }), key: "provisioning.dhcp", message: "offers only", reported: false },
        { name: "multi: slices of 3 addresses", raw: withDhcp({ slots: 64 }, haRaw), key: "provisioning.dhcp", message: "cut into 64 slots gives 3 per conductor; at least 8 are needed", reported: true },
        { name: "multi: slices of 25 addresses", raw: haRaw, key: "provisioning.dhcp", message: "per conductor", reported: false },
        {
            name: "multi: two nodes on one derived slot",
            raw: { ...haRaw, conductors: [{ name: "master-1", ip: "172.22.0.2" }, { name: "master-2", ip: "172.22.0.3" }] },
            key: "conductors[1].slot",
            message: "would share a DHCP slice. Pin the node that is new with an explicit slot (free: 0, 1, 2, 3, 5, 6, 7)",
            reported: true,
        },
        { name: "multi: the ha conductors", raw: haRaw, key: "conductors[1].slot", message: "would share a DHCP slice", reported: false },
        { name: "single with slots", raw: withDhcp({ slots: 4 }), key: "provisioning.dhcp.slots", message: 'only used with topology "multi"', reported: true },
        { name: "multi with slots", raw: haRaw, key: "provisioning.dhcp.slots", message: 'only used with topology "multi"', reported: false },
    ]);
});
