/** rules/ip-family.ts: one family per provisioning network (dual-stack refused with its key), and the IPv6 rules. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../../core/config";
import { ipFamilyRule } from "../../../../core/config/rules/ip-family";
import { devRaw, haRaw, hasIssue, issues, listing, ruleTable, withDhcp, withProvisioning } from "../support";

const v6Prov = { interface: "eth1", ip: "fd00:1:2:3::2", cidr: "fd00:1:2:3::/64", dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1fff", leaseTime: "1h" } };
const v6Single = { ...devRaw, provisioning: v6Prov };
const v6Multi = {
    ...haRaw,
    provisioning: { interface: "eth1", cidr: "fd00:1:2:3::/64", dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1fff", leaseTime: "1h" } },
    conductors: [
        { name: "cp-0", ip: "fd00:1:2:3::2" },
        { name: "cp-1", ip: "fd00:1:2:3::3" },
        { name: "cp-2", ip: "fd00:1:2:3::4" },
    ],
};

describe("config rule: IP family (IPv6, dual-stack)", function () {
    it("accepts IPv6-only stacks in both topologies", function () {
        for (const raw of [v6Single, v6Multi]) {
            const r = validateConfig(raw);
            assert.ok(r.ok, r.ok ? "" : listing(r.issues));
        }
    });

    it("refuses dual-stack with the key of every address of the other family, never a parser error", function () {
        const list = issues(withProvisioning({ ip: "172.22.0.2" }, v6Single));
        hasIssue(list, "provisioning.ip", /172\.22\.0\.2 is an IPv4 address but provisioning.cidr fd00:1:2:3::\/64 is IPv6: .*For dual-stack, keep those IPv4 and put the IPv6 side under provisioning.ipv6/);
        assert.equal(list.length, 1, `only the family issue, no follow-up range or CIDR noise:\n${listing(list)}`);
        const v4cidr = issues(withDhcp({ rangeStart: "fd00::10" }));
        hasIssue(v4cidr, "provisioning.dhcp.rangeStart", /fd00::10 is an IPv6 address but provisioning.cidr 172\.22\.0\.0\/24 is IPv4: .*provisioning.ipv6/);
    });

    it("IPv6 addresses obey the same range rules as IPv4 ones (inside the CIDR, out of the range, ordered)", function () {
        hasIssue(issues(withProvisioning({ ip: "fd00:9::2" }, v6Single)), "provisioning.ip", /not inside provisioning.cidr fd00:1:2:3::\/64/);
        hasIssue(issues(withProvisioning({ ip: "fd00:1:2:3::1800" }, v6Single)), "provisioning.dhcp", /contains the provisioning IP fd00:1:2:3::1800/);
        hasIssue(issues(withDhcp({ rangeStart: "fd00:1:2:3::2000" }, v6Single)), "provisioning.dhcp", /range is reversed/);
        hasIssue(issues(withProvisioning({ cidr: "fd00:1:2:3::1/64" }, v6Single)), "provisioning.cidr", /did you mean fd00:1:2:3::\/64/);
        hasIssue(issues(withProvisioning({ ip: "fd00:1:2:3::" }, v6Single)), "provisioning.ip", /network or broadcast address/);
    });

    it("multi: an IPv6 range too small to slice across the conductors is refused with the fix", function () {
        const small = { ...v6Multi, provisioning: { ...v6Multi.provisioning, dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1010", leaseTime: "1h" } } };
        hasIssue(issues(small), "provisioning.dhcp", /\(17 addresses\) cannot give each of the 3 conductors 8 addresses .* Widen the range or lower provisioning.dhcp.minSize/);
    });

    ruleTable(ipFamilyRule, [
        { name: "a link-local provisioning.cidr", raw: withProvisioning({ cidr: "fe80::/64", ip: "fe80::2", dhcp: { rangeStart: "fe80::1000", rangeEnd: "fe80::1fff" } }, v6Single), key: "provisioning.cidr", message: "link-local address (fe80::/10) is not routable", reported: true },
        { name: "a link-local conductor address", raw: { ...v6Multi, conductors: [{ name: "cp-0", ip: "fe80::2" }] }, key: "conductors[0].ip", message: "link-local", reported: true },
        { name: "a unique-local /64", raw: v6Single, key: "provisioning.cidr", message: "link-local", reported: false },
        { name: "an IPv6 prefix shorter than /64", raw: withProvisioning({ cidr: "fd00:1:2::/48" }, v6Single), key: "provisioning.cidr", message: "dnsmasq's DHCPv6 ranges take a prefix length of at least 64", reported: true },
        { name: "a /64", raw: v6Single, key: "provisioning.cidr", message: "prefix length of at least 64", reported: false },
        { name: "an IPv6 gateway", raw: withDhcp({ gateway: "fd00:1:2:3::1" }, v6Single), key: "provisioning.dhcp.gateway", message: "DHCPv6 has no router option", reported: true },
        { name: "an IPv4 gateway", raw: devRaw, key: "provisioning.dhcp.gateway", message: "DHCPv6", reported: false },
        { name: "relayed ranges on IPv6", raw: withDhcp({ extraRanges: [{ subnet: "172.23.0.0/24", rangeStart: "172.23.0.10", rangeEnd: "172.23.0.200", gateway: "172.23.0.1" }] }, v6Single), key: "provisioning.dhcp.extraRanges", message: "IPv4 provisioning networks only", reported: true },
        { name: "an IPv6 relayed subnet on IPv4", raw: withDhcp({ extraRanges: [{ subnet: "fd00:9::/64", rangeStart: "172.23.0.10", rangeEnd: "172.23.0.200", gateway: "172.23.0.1" }] }), key: "provisioning.dhcp.extraRanges[0].subnet", message: "For dual-stack", reported: true },
        { name: "an IPv4-mapped conductor", raw: { ...v6Multi, conductors: [{ name: "cp-0", ip: "::ffff:172.22.0.2" }] }, key: "conductors[0].ip", message: "IPv4-mapped", reported: true },
        { name: "an IPv6 address not in canonical spelling", raw: withProvisioning({ ip: "FD00:1:2:3:0::2" }, v6Single), key: "provisioning.ip", message: "write fd00:1:2:3::2", reported: true },
        { name: "an IPv4 DNS server on IPv6", raw: withDhcp({ dns: "8.8.8.8" }, v6Single), key: "provisioning.dhcp.dns", message: "For dual-stack", reported: true },
    ]);
});
