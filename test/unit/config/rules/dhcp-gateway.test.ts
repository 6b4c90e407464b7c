/** rules/dhcp-gateway.ts: the router option is an address of the network, and not Ironic's own. */
import { dhcpGatewayRule } from "../../../../core/config/rules/dhcp-gateway";
import { devRaw, haRaw, ruleTable, withDhcp } from "../support";

describe("config rule: DHCP gateway", function () {
    ruleTable(dhcpGatewayRule, [
        { name: "outside the CIDR", raw: withDhcp({ gateway: "10.1.1.1" }), key: "provisioning.dhcp.gateway", message: "10.1.1.1 is not inside provisioning.cidr 172.22.0.0/24", reported: true },
        { name: "the broadcast address", raw: withDhcp({ gateway: "172.22.0.255" }), key: "provisioning.dhcp.gateway", message: "is not inside provisioning.cidr", reported: true },
        { name: "a host of the network", raw: devRaw, key: "provisioning.dhcp.gateway", message: "is not inside provisioning.cidr", reported: false },
        { name: "provisioning.ip", raw: withDhcp({ gateway: "172.22.0.2" }), key: "provisioning.dhcp.gateway", message: "the gateway cannot be Ironic's own address 172.22.0.2 (provisioning.ip)", reported: true },
        { name: "a conductor's IP", raw: withDhcp({ gateway: "172.22.0.3" }, haRaw), key: "provisioning.dhcp.gateway", message: "cannot be Ironic's own address 172.22.0.3 (conductors[1].ip)", reported: true },
        { name: "another address (single)", raw: devRaw, key: "provisioning.dhcp.gateway", message: "cannot be Ironic's own address", reported: false },
        { name: "another address (multi)", raw: haRaw, key: "provisioning.dhcp.gateway", message: "cannot be Ironic's own address", reported: false },
    ]);
});
