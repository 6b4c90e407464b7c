/** The provisioning network: a real network prefix, Ironic's own addresses inside it, keepalived's interface. */
import { mixedFamilies, provisioningNetwork } from "./network";
import type { Rule } from "./rule";

export const provisioningRule: Rule = (input, add) => {
    const { config: c, parsed } = input;
    const prov = parsed.provisioning;
    if (!prov) return;
    const net = provisioningNetwork(prov.cidr);
    if (net.written !== net.networkAddr) {
        add("provisioning.cidr", `${prov.cidr} has host bits set; did you mean ${net.networkAddr}/${net.prefix}?`);
    }
    const maxPrefix = net.family === 4 ? 30 : 126;
    if (net.prefix > maxPrefix) add("provisioning.cidr", `a /${net.prefix} network has no room for hosts; use the real prefix of the provisioning network (e.g. ${net.family === 4 ? "/24" : "/64"})`);

    const multi = c.topology === "multi";
    // An address of the other family is reported by the family rule (ip-family.ts) alone.
    const mixed = mixedFamilies(input);
    const checkHostIp = (key: string, ip: string) => {
        if (mixed) return;
        if (!net.inNet(ip)) add(key, `${ip} is not inside provisioning.cidr ${prov.cidr}`);
        else if (!net.usable(ip)) add(key, `${ip} is the network or broadcast address of ${prov.cidr}`);
    };
    if (prov.ip === undefined) {
        if (!multi) add("provisioning.ip", "required with topology single: Ironic's address on the provisioning network, e.g. 172.22.0.2 (or fd00:1::2 on an IPv6 network)");
    } else if (multi) {
        add("provisioning.ip", 'not used with topology "multi": each conductor serves on its own conductors[].ip; remove it');
    } else {
        checkHostIp("provisioning.ip", prov.ip);
    }
    (parsed.conductors ?? []).forEach((cd, i) => cd.ip !== undefined && checkHostIp(`conductors[${i}].ip`, cd.ip));

    if (prov.keepalived && !prov.interface) {
        add("provisioning.interface", "required with provisioning.keepalived: true (keepalived puts the VIP provisioning.ip on this interface)");
    }
};
