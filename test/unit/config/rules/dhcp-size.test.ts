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
        { name: "multi: slices of 25 addresses", raw: withDhcp({ slots: 8 }, haRaw), key: "provisioning.dhcp", message: "per conductor", reported: false },
        {
            name: "multi without slots: too few addresses even with one slot per conductor",
            raw: withDhcp({ rangeEnd: "172.22.0.30" }, haRaw),
            key: "provisioning.dhcp",
            message: "range 172.22.0.10-172.22.0.30 (21 addresses) cannot give each of the 3 conductors 8 addresses (7 each even with one slot per conductor)",
            reported: true,
        },
        // 24 addresses: 8 each with 3 slots, so some layout fits; the planner checks the count actually used.
        { name: "multi without slots: enough with one slot per conductor", raw: withDhcp({ rangeEnd: "172.22.0.33" }, haRaw), key: "provisioning.dhcp", message: "cannot give", reported: false },
        { name: "multi: more conductors than slots", raw: withDhcp({ slots: 2 }, haRaw), key: "provisioning.dhcp.slots", message: "3 conductors but only 2 slots; raise provisioning.dhcp.slots", reported: true },
        { name: "multi: as many slots as conductors", raw: withDhcp({ slots: 3 }, haRaw), key: "provisioning.dhcp.slots", message: "conductors but only", reported: false },
        {
            name: "multi: a pin beyond the configured slots",
            raw: { ...withDhcp({ slots: 4 }, haRaw), conductors: [{ name: "cp-0", ip: "172.22.0.2", slot: 4 }] },
            key: "conductors[0].slot",
            message: "slot 4 does not exist: slots are 0-3 (provisioning.dhcp.slots = 4)",
            reported: true,
        },
        { name: "multi: a pin beyond any slot count", raw: { ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.2", slot: 64 }] }, key: "conductors[0].slot", message: "slot 64 does not exist: slots are numbered from 0 and at most 64 exist", reported: true },
        // Whether slot 9 exists depends on the count the planner resolves (maybe the previous run's).
        { name: "multi: a pin that some count allows", raw: { ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.2", slot: 9 }] }, key: "conductors[0].slot", message: "does not exist", reported: false },
        { name: "single with slots", raw: withDhcp({ slots: 4 }), key: "provisioning.dhcp.slots", message: 'only used with topology "multi"', reported: true },
        { name: "multi with slots", raw: withDhcp({ slots: 4 }, haRaw), key: "provisioning.dhcp.slots", message: 'only used with topology "multi"', reported: false },
        { name: "single with reslice", raw: withDhcp({ reslice: false }), key: "provisioning.dhcp.reslice", message: 'only used with topology "multi"', reported: true },
        { name: "multi with reslice", raw: withDhcp({ reslice: true }, haRaw), key: "provisioning.dhcp.reslice", message: 'only used with topology "multi"', reported: false },
    ]);
});
