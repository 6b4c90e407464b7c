/** The provisioning network as numbers, shared by the address rules (provisioning and DHCP). Not a rule. */
import * as ipaddr from "ipaddr.js";

import { ipToNumber, numberToIp } from "../../ip";
import type { RuleInput } from "./rule";

export interface ProvisioningNetwork {
    prefix: number;
    /** The address part of `provisioning.cidr`, as a dotted quad. */
    written: string;
    /** The network address of that prefix: `written` unless host bits are set. */
    networkAddr: string;
    inNet(ip: string): boolean;
    /** Inside the network, and neither its network nor its broadcast address. */
    usable(ip: string): boolean;
}

/** `cidr` must have parsed (the schema's `cidr` block). */
export function provisioningNetwork(cidr: string): ProvisioningNetwork {
    const [net, prefix] = ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number];
    const first = ipToNumber(net) - (ipToNumber(net) % 2 ** (32 - prefix));
    const broadcast = first + 2 ** (32 - prefix) - 1;
    return {
        prefix,
        written: numberToIp(ipToNumber(net)),
        networkAddr: numberToIp(first),
        inNet: (ip) => ipToNumber(ip) >= first && ipToNumber(ip) <= broadcast,
        usable: (ip) => ipToNumber(ip) > first && ipToNumber(ip) < broadcast,
    };
}

/** Addresses Ironic itself serves on, with their keys: DHCP must never hand them out. */
export function serverIps({ config: c, parsed }: RuleInput): [string, string][] {
    if (c.topology === "multi") return (parsed.conductors ?? []).flatMap((cd, i) => (cd.ip !== undefined ? [[`conductors[${i}].ip`, cd.ip] as [string, string]] : []));
    const ip = parsed.provisioning?.ip;
    return ip ? [["provisioning.ip", ip]] : [];
}

/** A DHCP range whose ends are usable addresses, in order: the rules about its contents and size apply. */
export function isUsableRange(net: ProvisioningNetwork, d: { rangeStart: string; rangeEnd: string }): boolean {
    return net.usable(d.rangeStart) && net.usable(d.rangeEnd) && ipToNumber(d.rangeStart) <= ipToNumber(d.rangeEnd);
}
