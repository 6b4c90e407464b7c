/**
 * Dual-stack provisioning (provisioning.ipv6 next to an IPv4 provisioning.cidr): what each Ironic
 * serves on its IPv6 side. Ironic's API, http_url and JSON-RPC stay on IPv4 (the ironic image serves
 * one family per Ironic); Ironic learns its IPv6 address as [DEFAULT]my_ipv6 (its DHCP options for
 * IPv6 hosts name it), dnsmasq serves DHCPv6 with IPv6 boot URLs on it, and the certificates name
 * it. Multi: the IPv6 range is cut into the slots of the IPv4 range; a conductor serves slot k of both.
 */
import type { StackConfig } from "../config";
import { osloEnvName } from "../contract";
import { cidrParts, rangeSize, sizeNumber, urlOf } from "../ip";
import type { Ipv6Side } from "../render/dnsmasq";
import { sliceBounds } from "./slices";
import type { EnvMap, SizedRange } from "./types";

/** Ironic's own IPv6 address option: the image's IPV=4 template sets my_ip only. */
export const MY_IPV6 = ["default", "my_ipv6"] as const;

/** The image's environment for Ironic's IPv6 address (none on a one-family network). */
export function ipv6Env(config: StackConfig, ip: string | undefined): EnvMap {
    return config.provisioning.ipv6 && ip !== undefined ? { [osloEnvName(...MY_IPV6)]: ip } : {};
}

/** The whole DHCPv6 range (single), or slot `k` of `slots` of it (multi). Takes the config or the plan. */
export function ipv6Range({ provisioning }: Pick<StackConfig, "provisioning">, slice?: { slots: number; k: number }): SizedRange | undefined {
    const v6 = provisioning.ipv6;
    const d = v6?.dhcp;
    if (!v6 || !d || !provisioning.dhcp) return undefined;
    const { prefixLength } = cidrParts(v6.cidr);
    if (!slice) return { start: d.rangeStart, end: d.rangeEnd, prefixLength, leaseTime: d.leaseTime, size: sizeNumber(rangeSize(d.rangeStart, d.rangeEnd)) };
    const b = sliceBounds(d.rangeStart, d.rangeEnd, slice.slots, slice.k);
    return { start: b.start, end: b.end, prefixLength, leaseTime: d.leaseTime, size: b.size };
}

/** dnsmasq's IPv6 side for a conductor on `ip` (absent on a one-family network). */
export function ipv6Side(config: StackConfig, ip: string, range: SizedRange | undefined): Ipv6Side | undefined {
    const v6 = config.provisioning.ipv6;
    if (!v6) return undefined;
    const dns = v6.dhcp?.dns;
    return { serverIp: ip, httpUrl: urlOf("http", ip, config.ports.http, 6), ...(range ? { range } : {}), ...(dns !== undefined ? { dns } : {}) };
}
