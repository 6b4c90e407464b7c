/** The provisioning network as numbers (either family), shared by the address rules (provisioning and DHCP). Not a rule. */
import * as ipaddr from "ipaddr.js";

import { bigIntToIp, type IpFamily, ipFamily, ipToBigInt } from "../../ip";
import type { RuleInput } from "./rule";

export interface ProvisioningNetwork {
    family: IpFamily;
    prefix: number;
    /** The address part of `provisioning.cidr`, in its canonical spelling. */
    written: string;
    /** The network address of that prefix: `written` unless host bits are set. */
    networkAddr: string;
    /** Inside the network (an address of the other family never is). */
    inNet(ip: string): boolean;
    /** Inside the network, and neither its network address nor (IPv4) its broadcast address. */
    usable(ip: string): boolean;
}

/** `cidr` must have parsed (the schema's `cidr` block). */
export function provisioningNetwork(cidr: string): ProvisioningNetwork {
    const [net, prefix] = ipaddr.parseCIDR(cidr);
    const family: IpFamily = net.kind() === "ipv4" ? 4 : 6;
    const bits = BigInt(family === 4 ? 32 : 128);
    const n = ipToBigInt(net);
    const hostSpan = 1n << (bits - BigInt(prefix));
    const first = n - (n % hostSpan);
    const last = first + hostSpan - 1n;
    const inNet = (ip: string) => ipFamily(ip) === family && ipToBigInt(ip) >= first && ipToBigInt(ip) <= last;
    return {
        family,
        prefix,
        written: bigIntToIp(n, family),
        networkAddr: bigIntToIp(first, family),
        inNet,
        // IPv6 has no broadcast address; its all-zero host part is the subnet-router anycast address.
        usable: (ip) => inNet(ip) && ipToBigInt(ip) > first && (family === 6 || ipToBigInt(ip) < last),
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
    return net.usable(d.rangeStart) && net.usable(d.rangeEnd) && ipToBigInt(d.rangeStart) <= ipToBigInt(d.rangeEnd);
}

/**
 * Every address of the provisioning network the user gave, with its key (the family rule checks
 * each is of provisioning.cidr's family; the other address rules skip the config when one is not).
 */
export function provisioningAddresses({ parsed }: RuleInput): [string, string][] {
    const prov = parsed.provisioning;
    const out: [string, string][] = [];
    const push = (key: string, v: string | undefined) => v !== undefined && out.push([key, v]);
    push("provisioning.ip", prov?.ip);
    push("provisioning.dhcp.rangeStart", prov?.dhcp?.rangeStart);
    push("provisioning.dhcp.rangeEnd", prov?.dhcp?.rangeEnd);
    push("provisioning.dhcp.gateway", prov?.dhcp?.gateway);
    push("provisioning.dhcp.dns", prov?.dhcp?.dns);
    (parsed.conductors ?? []).forEach((cd, i) => push(`conductors[${i}].ip`, cd.ip));
    return out;
}

/** Some provisioning address is not of provisioning.cidr's family (reported by the family rule alone). */
export function mixedFamilies(input: RuleInput): boolean {
    const cidr = input.parsed.provisioning?.cidr;
    if (!cidr) return false;
    const family = provisioningNetwork(cidr).family;
    return provisioningAddresses(input).some(([, ip]) => ipFamily(ip) !== family);
}
