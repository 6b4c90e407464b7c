/** The DHCP router option: an address of the provisioning network, and not one Ironic serves on. */
import { sameIp } from "../../ip";
import { mixedFamilies, provisioningNetwork, serverIps } from "./network";
import type { Rule } from "./rule";

export const dhcpGatewayRule: Rule = (input, add) => {
    const prov = input.parsed.provisioning;
    const gateway = prov?.dhcp?.gateway;
    if (!prov || !gateway || mixedFamilies(input)) return;
    if (!provisioningNetwork(prov.cidr).usable(gateway)) add("provisioning.dhcp.gateway", `${gateway} is not inside provisioning.cidr ${prov.cidr}`);
    for (const [key, ip] of serverIps(input)) {
        if (sameIp(gateway, ip)) add("provisioning.dhcp.gateway", `the gateway cannot be Ironic's own address ${ip} (${key})`);
    }
};
