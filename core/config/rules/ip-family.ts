/**
 * One IP family for every address under provisioning.* (and conductors[].ip), and the IPv6 rules
 * dnsmasq's DHCPv6 and the ironic image need. Dual-stack takes its IPv6 side from provisioning.ipv6
 * (rules/dual-stack.ts): the image serves Ironic's API, http_url and JSON-RPC in one family
 * (ironic-image PR #1060, IRONIC_IPV4/IRONIC_IPV6, is open), so every other provisioning address
 * must be of provisioning.cidr's family. The other address rules skip a config this rule refuses.
 */
import * as ipaddr from "ipaddr.js";

import { ipFamily } from "../../ip";
import { provisioningAddresses, provisioningNetwork } from "./network";
import type { AddIssue, Rule, RuleInput } from "./rule";

const DUAL_STACK =
    "give every address of provisioning.ip, provisioning.dhcp and conductors[].ip in the family of provisioning.cidr (Ironic's API, http_url and JSON-RPC serve one family). For dual-stack, keep those IPv4 and put the IPv6 side under provisioning.ipv6 (cidr, ip, dhcp) and conductors[].ipv6 (docs/networks-and-trust.md, Dual-stack)";

/** Address ranges that can never be a provisioning address or network (ipaddr.js range names). */
const REFUSED_V6: Record<string, string> = {
    linkLocal: "a link-local address (fe80::/10) is not routable and every interface has one of its own: use the provisioning link's global or unique-local (fd00::/8) prefix",
    multicast: "a multicast address cannot be a host or network address",
    loopback: "the loopback address is not on the provisioning network",
    unspecified: "the unspecified address :: cannot be a host address",
    ipv4Mapped: "an IPv4-mapped address (::ffff:a.b.c.d) is IPv4: write the IPv4 address and an IPv4 provisioning.cidr",
};

export const ipFamilyRule: Rule = (input, add) => {
    const prov = input.parsed.provisioning;
    if (!prov) return;
    const net = provisioningNetwork(prov.cidr);
    for (const [key, ip] of provisioningAddresses(input)) {
        const f = ipFamily(ip);
        if (f !== net.family) add(key, `${ip} is an IPv${f} address but provisioning.cidr ${prov.cidr} is IPv${net.family}: ${DUAL_STACK}`);
        else if (f === 6) refusedV6(key, ip, add);
    }
    if (net.family === 6) ipv6Rules(input, add);
    else {
        (prov.dhcp?.extraRanges ?? []).forEach((r, i) => {
            if (ipFamily(r.subnet.split("/")[0]) === 6) add(`provisioning.dhcp.extraRanges[${i}].subnet`, `${r.subnet} is IPv6 but provisioning.cidr ${prov.cidr} is IPv4: ${DUAL_STACK}`);
        });
    }
};

export function refusedV6(key: string, ip: string, add: AddIssue): void {
    const addr = ipaddr.IPv6.parse(ip);
    const why = REFUSED_V6[addr.range()];
    if (why) add(key, `${ip}: ${why}`);
    // The address is compared as text where it runs (`ip addr` output, Ironic's conductor host names).
    else if (addr.toString() !== ip) add(key, `${ip} is not in the canonical spelling (RFC 5952: lower case, no leading zeros, the longest run of zero groups as ::) that \`ip addr\` and Ironic show; write ${addr.toString()}`);
}

/** An IPv6 provisioning network: what dnsmasq's DHCPv6 and the image accept. */
function ipv6Rules({ parsed }: RuleInput, add: AddIssue): void {
    const prov = parsed.provisioning!;
    const net = provisioningNetwork(prov.cidr);
    refusedV6("provisioning.cidr", net.networkAddr, add);
    if (net.prefix < 64) {
        add(
            "provisioning.cidr",
            `/${net.prefix} is wider than a link: dnsmasq's DHCPv6 ranges take a prefix length of at least 64 (man dnsmasq, --dhcp-range), and the range must lie in the link's own prefix; give the provisioning link's /64 (e.g. ${net.networkAddr}/64)`,
        );
    }
    const d = prov.dhcp;
    if (!d) return;
    if (d.gateway !== undefined) {
        add("provisioning.dhcp.gateway", "DHCPv6 has no router option: IPv6 hosts learn their default route from the network router's advertisements; remove provisioning.dhcp.gateway (the rendered dnsmasq advertises the prefix with router lifetime 0, so it never becomes the default router)");
    }
    if (d.extraRanges !== undefined && d.extraRanges.length > 0) {
        add("provisioning.dhcp.extraRanges", "relayed subnets are supported on IPv4 provisioning networks only for now (a DHCPv6 relay has no router option to give); remove provisioning.dhcp.extraRanges or use an IPv4 provisioning.cidr");
    }
}
