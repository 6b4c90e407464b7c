/** The DHCP range: usable addresses of the network, in order, and free of Ironic's own addresses and the gateway. */
import { ipToBigInt } from "../../ip";
import { mixedFamilies, provisioningNetwork, serverIps } from "./network";
import type { Rule } from "./rule";

export const dhcpRangeRule: Rule = (input, add) => {
    const prov = input.parsed.provisioning;
    const d = prov?.dhcp;
    if (!prov || !d || mixedFamilies(input)) return;
    const net = provisioningNetwork(prov.cidr);
    const sn = ipToBigInt(d.rangeStart);
    const en = ipToBigInt(d.rangeEnd);
    let rangeOk = true;
    if (!net.usable(d.rangeStart)) {
        add("provisioning.dhcp.rangeStart", `${d.rangeStart} is not a usable host address of provisioning.cidr ${prov.cidr}`);
        rangeOk = false;
    }
    if (!net.usable(d.rangeEnd)) {
        add("provisioning.dhcp.rangeEnd", `${d.rangeEnd} is not a usable host address of provisioning.cidr ${prov.cidr}`);
        rangeOk = false;
    }
    if (sn > en) {
        add("provisioning.dhcp", `range is reversed: rangeStart ${d.rangeStart} comes after rangeEnd ${d.rangeEnd}; swap them`);
        rangeOk = false;
    }
    if (!rangeOk) return;

    const inRange = (ip: string) => ipToBigInt(ip) >= sn && ipToBigInt(ip) <= en;
    for (const [key, ip] of serverIps(input)) {
        if (inRange(ip)) {
            const own = key === "provisioning.ip";
            add(own ? "provisioning.dhcp" : key, `range ${d.rangeStart}-${d.rangeEnd} contains the ${own ? "provisioning IP" : "conductor IP"} ${ip}; move the range or the IP so that DHCP never hands out Ironic's own address`);
        }
    }
    if (d.gateway && inRange(d.gateway)) {
        add("provisioning.dhcp.gateway", `gateway ${d.gateway} lies inside the DHCP range ${d.rangeStart}-${d.rangeEnd}; a client could be given the router's address`);
    }
};
