/** rules/dual-stack.ts: an IPv4 provisioning network with its IPv6 side in provisioning.ipv6, both topologies. */
import { strict as assert } from "assert";
import * as path from "path";

import { validateConfig } from "../../../../core/config";
import { dualStackRule } from "../../../../core/config/rules/dual-stack";
import { readStackConfig } from "../../../../tools/render";
import { devRaw, listing, ruleTable } from "../support";

const V6 = { cidr: "fd00:1:2:3::/64", ip: "fd00:1:2:3::2", dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1fff" } };
const prov = devRaw.provisioning as Record<string, unknown>;
/** The dev stack with an IPv6 side. */
const single = (v6: Record<string, unknown> = V6, extra: Record<string, unknown> = {}) => ({ ...devRaw, provisioning: { ...prov, ...extra, ipv6: v6 } });
/** The dual-stack example stack (multi, three conductors), with changes. */
const multiRaw = readStackConfig(path.join(__dirname, "..", "..", "..", "fixtures", "Pulumi.dualstack.yaml"));
const multiProv = multiRaw.provisioning as Record<string, unknown>;
const multi = (v6: Record<string, unknown>, conductors = multiRaw.conductors) => ({ ...multiRaw, provisioning: { ...multiProv, ipv6: { ...(multiProv.ipv6 as object), ...v6 } }, conductors });
const node = (i: number, ipv6: string | undefined) => (multiRaw.conductors as Record<string, unknown>[]).map((c, j) => (j === i ? { ...c, ipv6 } : c));

describe("config rule: dual-stack (provisioning.ipv6, conductors[].ipv6)", function () {
    it("accepts dual-stack in both topologies: the dev stack with provisioning.ipv6 and the dual-stack example stack", function () {
        for (const raw of [single(), multiRaw, multi({ dhcp: undefined }), single({ cidr: V6.cidr, ip: V6.ip })]) {
            const r = validateConfig(raw);
            assert.ok(r.ok, r.ok ? "" : listing(r.issues));
        }
    });

    it("a node without conductors[].ipv6 is fine (it finds its address on the node)", function () {
        const r = validateConfig({ ...multiRaw, conductors: node(2, undefined) });
        assert.ok(r.ok, r.ok ? "" : listing(r.issues));
    });

    ruleTable(dualStackRule, [
        { name: "provisioning.cidr already IPv6 (the second family must be the other one)", raw: { ...devRaw, provisioning: { interface: "eth1", ip: "fd00:9::2", cidr: "fd00:9::/64", ipv6: V6 } }, key: "provisioning.ipv6", message: "is IPv6 already", reported: true },
        { name: "an IPv4 CIDR as the IPv6 side", raw: single({ ...V6, cidr: "172.30.0.0/24" }), key: "provisioning.ipv6.cidr", message: "172.30.0.0/24 is IPv4", reported: true },
        { name: "a link-local prefix", raw: single({ cidr: "fe80::/64", ip: "fe80::2" }), key: "provisioning.ipv6.cidr", message: "link-local", reported: true },
        { name: "a prefix wider than a link", raw: single({ ...V6, cidr: "fd00:1:2::/48" }), key: "provisioning.ipv6.cidr", message: "/48 is wider than a link", reported: true },
        { name: "a prefix with no room for hosts", raw: single({ cidr: "fd00:1:2:3::/127", ip: "fd00:1:2:3::1" }), key: "provisioning.ipv6.cidr", message: "no room for hosts", reported: true },
        { name: "host bits set", raw: single({ ...V6, cidr: "fd00:1:2:3::1/64" }), key: "provisioning.ipv6.cidr", message: "did you mean fd00:1:2:3::/64", reported: true },
        { name: "keepalived (no IPv6 VIP)", raw: single(V6, { keepalived: true }), key: "provisioning.keepalived", message: "dual-stack with keepalived is not supported", reported: true },
        { name: "single without provisioning.ipv6.ip", raw: single({ cidr: V6.cidr }), key: "provisioning.ipv6.ip", message: "required with topology single", reported: true },
        { name: "provisioning.ipv6.ip outside the IPv6 prefix", raw: single({ ...V6, ip: "fd00:9::2" }), key: "provisioning.ipv6.ip", message: "not inside provisioning.ipv6.cidr", reported: true },
        { name: "provisioning.ipv6.ip IPv4", raw: single({ ...V6, ip: "172.22.0.5" }), key: "provisioning.ipv6.ip", message: "172.22.0.5 is IPv4", reported: true },
        { name: "provisioning.ipv6.ip not canonical", raw: single({ ...V6, ip: "fd00:1:2:3:0::2" }), key: "provisioning.ipv6.ip", message: "write fd00:1:2:3::2", reported: true },
        { name: "provisioning.ipv6.ip with multi", raw: multi({ ip: "fd00:1:2:3::9" }), key: "provisioning.ipv6.ip", message: 'not used with topology "multi"', reported: true },
        { name: "conductors[].ipv6 with single", raw: { ...single(), conductors: [{ name: "cp-0", ipv6: "fd00:1:2:3::5" }] }, key: "conductors[0].ipv6", message: 'only used with topology "multi"', reported: true },
        { name: "conductors[].ipv6 without provisioning.ipv6", raw: { ...multiRaw, provisioning: { ...multiProv, ipv6: undefined } }, key: "conductors[1].ipv6", message: "set provisioning.ipv6", reported: true },
        { name: "conductors[].ipv6 outside the prefix", raw: multi({}, node(1, "fd00:9::3")), key: "conductors[1].ipv6", message: "not inside provisioning.ipv6.cidr", reported: true },
        { name: "conductors[].ipv6 link-local", raw: multi({ cidr: "fe80::/64" }, node(0, "fe80::2")), key: "provisioning.ipv6.cidr", message: "link-local", reported: true },
        { name: "conductors[].ipv6 inside the DHCPv6 range", raw: multi({}, node(2, "fd00:1:2:3::1004")), key: "conductors[2].ipv6", message: "contains Ironic's own address fd00:1:2:3::1004", reported: true },
        { name: "provisioning.ipv6.ip inside the DHCPv6 range", raw: single({ ...V6, ip: "fd00:1:2:3::1004" }), key: "provisioning.ipv6.dhcp", message: "contains Ironic's own address", reported: true },
        { name: "DHCPv6 range outside the prefix", raw: single({ ...V6, dhcp: { rangeStart: "fd00:9::1000", rangeEnd: "fd00:1:2:3::1fff" } }), key: "provisioning.ipv6.dhcp.rangeStart", message: "not a usable host address of provisioning.ipv6.cidr", reported: true },
        { name: "DHCPv6 range reversed", raw: single({ ...V6, dhcp: { rangeStart: "fd00:1:2:3::1fff", rangeEnd: "fd00:1:2:3::1000" } }), key: "provisioning.ipv6.dhcp", message: "range is reversed", reported: true },
        { name: "an IPv4 DNS server for DHCPv6", raw: single({ ...V6, dhcp: { ...V6.dhcp, dns: "8.8.8.8" } }), key: "provisioning.ipv6.dhcp.dns", message: "8.8.8.8 is IPv4", reported: true },
        { name: "DHCPv6 without DHCPv4", raw: { ...devRaw, provisioning: { interface: "eth1", ip: "172.22.0.2", cidr: "172.22.0.0/24", ipv6: V6 } }, key: "provisioning.ipv6.dhcp", message: "set provisioning.dhcp", reported: true },
        { name: "a DHCPv6 range too small (single)", raw: single({ ...V6, dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1003" } }), key: "provisioning.ipv6.dhcp", message: "smaller than 8", reported: true },
        { name: "a DHCPv6 range too small to slice (multi)", raw: multi({ dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1013" } }), key: "provisioning.ipv6.dhcp", message: "gives 6 per conductor", reported: true },
        { name: "a DHCPv6 range that slices", raw: multiRaw, key: "provisioning.ipv6.dhcp", message: "per conductor", reported: false },
        { name: "my_ipv6 set by hand", raw: { ...single(), ironic: { config: { "default.my_ipv6": "fd00:1:2:3::9" } } }, key: "ironic.config.default.my_ipv6", message: "set by this program from provisioning.ipv6", reported: true },
    ]);

    it("the family rule points an IPv6 address under provisioning.dhcp at provisioning.ipv6", function () {
        const r = validateConfig({ ...devRaw, provisioning: { ...prov, dhcp: { ...(prov.dhcp as object), dns: "fd00::53" } } });
        assert.ok(!r.ok);
        const i = r.issues.find((x) => x.key === "provisioning.dhcp.dns")!;
        assert.match(i.message, /For dual-stack, keep those IPv4 and put the IPv6 side under provisioning.ipv6/);
    });
});
