/**
 * Dual-stack provisioning: an IPv4 provisioning network (provisioning.cidr, the family of Ironic's
 * API, http_url and JSON-RPC: the ironic image serves one family per Ironic) with its IPv6 side in
 * provisioning.ipv6 (my_ipv6, DHCPv6 and IPv6 boot URLs from dnsmasq, the certificates). Multi:
 * each conductor's IPv6 address (conductors[].ipv6, else found on the node) and the same DHCP slot
 * in both ranges.
 */
import { ipFamily, ipToBigInt } from "../../ip";
import { DEFAULT_MIN_DHCP_RANGE } from "../defaults";
import { provisioningNetwork } from "./network";
import { refusedV6 } from "./ip-family";
import type { AddIssue, Rule, RuleInput } from "./rule";

type V6 = NonNullable<NonNullable<RuleInput["parsed"]["provisioning"]>["ipv6"]>;

export const dualStackRule: Rule = (input, add) => {
    const prov = input.parsed.provisioning;
    const v6 = prov?.ipv6;
    const listed = (input.parsed.conductors ?? []).flatMap((cd, i) => (cd.ipv6 !== undefined ? [[`conductors[${i}].ipv6`, cd.ipv6] as [string, string]] : []));
    if (!prov || !v6) {
        for (const [key] of listed) add(key, "an IPv6 conductor address needs a dual-stack provisioning network: set provisioning.ipv6 (cidr, and dhcp for DHCPv6), or remove it");
        return;
    }
    if (provisioningNetwork(prov.cidr).family === 6) {
        add("provisioning.ipv6", `provisioning.cidr ${prov.cidr} is IPv6 already: provisioning.ipv6 adds IPv6 to an IPv4 provisioning network. For dual-stack give provisioning.cidr (and provisioning.ip, dhcp, conductors[].ip) the IPv4 network; for IPv6 only remove provisioning.ipv6`);
        return;
    }
    if (ipFamily(v6.cidr.split("/")[0]) !== 6) {
        add("provisioning.ipv6.cidr", `${v6.cidr} is IPv4: provisioning.ipv6.cidr is the IPv6 prefix of the provisioning link, e.g. fd00:1:2:3::/64 (the IPv4 network is provisioning.cidr)`);
        return;
    }
    if (!cidrOk(v6.cidr, add)) return;
    if (prov.keepalived) {
        add("provisioning.keepalived", "keepalived holds provisioning.ip (IPv4) as its VIP and no IPv6 VIP is implemented, so provisioning.ipv6.ip would not move with it: dual-stack with keepalived is not supported. Remove provisioning.keepalived (or provisioning.ipv6)");
    }
    hostIps(input, v6, listed, add);
    dhcpRules(input, v6, listed, add);
    if (input.parsed.ironic?.config?.["default.my_ipv6"] !== undefined) {
        add("ironic.config.default.my_ipv6", "set by this program from provisioning.ipv6 (single: provisioning.ipv6.ip; multi: each node's conductors[].ipv6 or found address); remove it");
    }
};

/** A /64 or longer global or unique-local prefix, written as its network address. */
function cidrOk(cidr: string, add: AddIssue): boolean {
    const net = provisioningNetwork(cidr);
    let ok = true;
    const fail = (m: string) => {
        ok = false;
        add("provisioning.ipv6.cidr", m);
    };
    refusedV6("provisioning.ipv6.cidr", net.networkAddr, (_k, m) => fail(m));
    if (net.prefix < 64) fail(`/${net.prefix} is wider than a link: dnsmasq's DHCPv6 ranges take a prefix length of at least 64 (man dnsmasq, --dhcp-range); give the provisioning link's /64 (e.g. ${net.networkAddr}/64)`);
    else if (net.prefix > 126) fail(`a /${net.prefix} network has no room for hosts; use the real prefix of the provisioning link (e.g. /64)`);
    if (net.written !== net.networkAddr) fail(`${cidr} has host bits set; did you mean ${net.networkAddr}/${net.prefix}?`);
    return ok;
}

/** Ironic's IPv6 addresses: provisioning.ipv6.ip (single, required) or conductors[].ipv6 (multi). */
function hostIps({ config }: RuleInput, v6: V6, listed: [string, string][], add: AddIssue): void {
    const net = provisioningNetwork(v6.cidr);
    const check = (key: string, ip: string) => {
        if (ipFamily(ip) !== 6) return add(key, `${ip} is IPv4: give an IPv6 address of provisioning.ipv6.cidr ${v6.cidr}`);
        if (!net.inNet(ip)) return add(key, `${ip} is not inside provisioning.ipv6.cidr ${v6.cidr}`);
        if (!net.usable(ip)) return add(key, `${ip} is the subnet-router anycast address of ${v6.cidr}; give a host address`);
        refusedV6(key, ip, add);
    };
    if (config.topology === "multi") {
        if (v6.ip !== undefined) add("provisioning.ipv6.ip", 'not used with topology "multi": each conductor serves on its own conductors[].ipv6 (or the address found on its node in provisioning.ipv6.cidr); remove it');
        for (const [key, ip] of listed) check(key, ip);
    } else {
        if (v6.ip === undefined) add("provisioning.ipv6.ip", `required with topology single and provisioning.ipv6: Ironic's IPv6 address on the provisioning link, inside ${v6.cidr}`);
        else check("provisioning.ipv6.ip", v6.ip);
        for (const [key] of listed) add(key, 'only used with topology "multi"; the single topology serves on provisioning.ipv6.ip');
    }
}

/** DHCPv6 next to DHCPv4: usable, ordered, inside the IPv6 prefix, free of Ironic's own addresses. */
function dhcpRules({ config, parsed }: RuleInput, v6: V6, listed: [string, string][], add: AddIssue): void {
    const d = v6.dhcp;
    if (!d) return;
    if (!parsed.provisioning?.dhcp) {
        add("provisioning.ipv6.dhcp", "DHCPv6 is served next to DHCPv4 (multi: both ranges are cut into provisioning.dhcp's slots): set provisioning.dhcp (the IPv4 range) too, or remove provisioning.ipv6.dhcp");
    }
    const net = provisioningNetwork(v6.cidr);
    let ok = true;
    for (const key of ["rangeStart", "rangeEnd"] as const) {
        const ip = d[key];
        if (!net.usable(ip)) {
            ok = false;
            add(`provisioning.ipv6.dhcp.${key}`, `${ip} is not a usable host address of provisioning.ipv6.cidr ${v6.cidr}`);
        }
    }
    if (d.dns !== undefined && ipFamily(d.dns) !== 6) add("provisioning.ipv6.dhcp.dns", `${d.dns} is IPv4: DHCPv6 hands out IPv6 DNS servers only (the IPv4 one is provisioning.dhcp.dns)`);
    if (!ok) return;
    const [s, e] = [ipToBigInt(d.rangeStart), ipToBigInt(d.rangeEnd)];
    if (s > e) return add("provisioning.ipv6.dhcp", `range is reversed: rangeStart ${d.rangeStart} comes after rangeEnd ${d.rangeEnd}; swap them`);
    const own: [string, string][] = config.topology === "multi" ? listed : v6.ip !== undefined ? [["provisioning.ipv6.ip", v6.ip]] : [];
    for (const [key, ip] of own) {
        if (ipFamily(ip) === 6 && ipToBigInt(ip) >= s && ipToBigInt(ip) <= e) {
            add(key === "provisioning.ipv6.ip" ? "provisioning.ipv6.dhcp" : key, `range ${d.rangeStart}-${d.rangeEnd} contains Ironic's own address ${ip}; move the range or the address so that DHCPv6 never hands it out`);
        }
    }
    sizeRule(config, parsed, d, e - s + 1n, add);
}

/** Enough addresses: the whole IPv6 range (single) or each slot's slice of it (multi; the planner checks the resolved count again). */
function sizeRule(config: RuleInput["config"], parsed: RuleInput["parsed"], d: NonNullable<V6["dhcp"]>, size: bigint, add: AddIssue): void {
    const min = BigInt(config.provisioning.dhcp?.minSize ?? DEFAULT_MIN_DHCP_RANGE);
    const range = `range ${d.rangeStart}-${d.rangeEnd} (${size} addresses)`;
    if (config.topology !== "multi") {
        if (size < min) add("provisioning.ipv6.dhcp", `${range} is smaller than ${min} (provisioning.dhcp.minSize); widen the range`);
        return;
    }
    // At least one slot per conductor, whatever the count resolves to.
    const slots = BigInt(parsed.provisioning?.dhcp?.slots ?? Math.max(1, parsed.conductors?.length ?? 1));
    if (size / slots < min) {
        add("provisioning.ipv6.dhcp", `${range} cut into ${slots} slots (the same slots as provisioning.dhcp's range) gives ${size / slots} per conductor; at least ${min} are needed. Widen the IPv6 range (a /64 has room for any), or lower provisioning.dhcp.slots or minSize`);
    }
}
