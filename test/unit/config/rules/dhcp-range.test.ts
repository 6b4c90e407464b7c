/** rules/dhcp-range.ts: the range is usable, ordered, and free of Ironic's own addresses and the gateway. */
import { dhcpRangeRule } from "../../../../core/config/rules/dhcp-range";
import { devRaw, haRaw, hasIssue, issues, ruleTable, withDhcp } from "../support";

describe("config rule: DHCP range", function () {
    it("rejects a DHCP range outside the CIDR", function () {
        const list = issues(withDhcp({ rangeStart: "172.22.1.10", rangeEnd: "172.22.1.100" }));
        hasIssue(list, "provisioning.dhcp.rangeStart", /not a usable host address/);
        hasIssue(list, "provisioning.dhcp.rangeEnd", /not a usable host address/);
    });

    it("rejects a reversed DHCP range", function () {
        hasIssue(issues(withDhcp({ rangeStart: "172.22.0.100", rangeEnd: "172.22.0.10" })), "provisioning.dhcp", /reversed.*swap/);
    });

    it("rejects a DHCP range containing the provisioning IP or the gateway", function () {
        const list = issues(withDhcp({ rangeStart: "172.22.0.1", rangeEnd: "172.22.0.100" }));
        hasIssue(list, "provisioning.dhcp", /contains the provisioning IP 172\.22\.0\.2/);
        hasIssue(list, "provisioning.dhcp.gateway", /inside the DHCP range/);
    });

    ruleTable(dhcpRangeRule, [
        { name: "starting on the network address", raw: withDhcp({ rangeStart: "172.22.0.0" }), key: "provisioning.dhcp.rangeStart", message: "172.22.0.0 is not a usable host address", reported: true },
        { name: "the dev range", raw: devRaw, key: "provisioning.dhcp.rangeStart", message: "not a usable host address", reported: false },
        { name: "ending outside the CIDR", raw: withDhcp({ rangeEnd: "172.22.1.100" }), key: "provisioning.dhcp.rangeEnd", message: "172.22.1.100 is not a usable host address", reported: true },
        { name: "ending on the last host address", raw: withDhcp({ rangeEnd: "172.22.0.254" }), key: "provisioning.dhcp.rangeEnd", message: "not a usable host address", reported: false },
        { name: "start after end", raw: withDhcp({ rangeStart: "172.22.0.100", rangeEnd: "172.22.0.10" }), key: "provisioning.dhcp", message: "range is reversed", reported: true },
        { name: "a one-address range", raw: withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.10", minSize: 1 }), key: "provisioning.dhcp", message: "range is reversed", reported: false },
        { name: "a range holding provisioning.ip", raw: withDhcp({ rangeStart: "172.22.0.2" }), key: "provisioning.dhcp", message: "contains the provisioning IP 172.22.0.2", reported: true },
        { name: "a range next to provisioning.ip", raw: withDhcp({ rangeStart: "172.22.0.3" }), key: "provisioning.dhcp", message: "contains the provisioning IP", reported: false },
        {
            name: "a reversed range around provisioning.ip (only the order is reported)",
            raw: withDhcp({ rangeStart: "172.22.0.100", rangeEnd: "172.22.0.1" }),
            key: "provisioning.dhcp",
            message: "contains the provisioning IP",
            reported: false,
        },
        { name: "a range holding a conductor's IP", raw: withDhcp({ rangeStart: "172.22.0.4" }, haRaw), key: "conductors[2].ip", message: "contains the conductor IP 172.22.0.4", reported: true },
        { name: "the ha range", raw: haRaw, key: "conductors[2].ip", message: "contains the conductor IP", reported: false },
        { name: "a gateway inside the range", raw: withDhcp({ gateway: "172.22.0.50" }), key: "provisioning.dhcp.gateway", message: "gateway 172.22.0.50 lies inside the DHCP range", reported: true },
        { name: "a gateway outside the range", raw: withDhcp({ gateway: "172.22.0.101" }), key: "provisioning.dhcp.gateway", message: "lies inside the DHCP range", reported: false },
    ]);
});
