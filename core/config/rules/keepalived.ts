/**
 * keepalived beyond its one VIP (`keepalived`): extra VIPs, the VRRP router id and password. What
 * Debian's keepalived 2.2 does with the rendered keepalived.conf decides the rules: every VIP sits in
 * one VRRP instance whose family is provisioning.ip's (an address of the other family is ignored,
 * "address family must match VRRP instance"), and an IPv6 instance speaks VRRP version 3, which has
 * no authentication (the password is ignored, "VRRP version 3 does not support authentication").
 */
import * as ipaddr from "ipaddr.js";

import { ipToBigInt } from "../../ip";
import type { StackConfig } from "../types";
import { provisioningNetwork } from "./network";
import type { AddIssue, Rule } from "./rule";

export const keepalivedRule: Rule = ({ config: c, parsed }, add) => {
    const k = parsed.keepalived;
    // {} is what the CLI fills in for an unset key.
    if (!k || Object.values(k).every((v) => v === undefined)) return;
    if (!c.provisioning.keepalived) {
        add("keepalived", "needs provisioning.keepalived: true (these settings extend the keepalived that holds provisioning.ip); set it, or remove this section");
        return;
    }
    const vip = c.provisioning.ip;
    const family = ipaddr.isValid(vip) ? ipaddr.parse(vip).kind() : undefined;
    if (family === "ipv6" && c.keepalived.passwordSecret) {
        add(
            "keepalived.passwordSecret",
            `provisioning.ip ${vip} is IPv6, and keepalived speaks VRRP version 3 for an IPv6 VIP: VRRPv3 has no authentication (RFC 5798), keepalived ignores the password ("VRRP version 3 does not support authentication. Ignoring."), so it would protect nothing; remove keepalived.passwordSecret (keep VRRP on a link only your nodes reach, and give each keepalived group its own keepalived.virtualRouterId)`,
        );
    }
    extraVipIssues(c, family, add);
};

/** Each extra VIP once, of provisioning.ip's family, with a prefix of its family, an interface, outside the DHCP range. */
function extraVipIssues(c: StackConfig, family: string | undefined, add: AddIssue): void {
    // Normalized: one IPv6 address has many spellings.
    const seen = new Map<string, string>(ipaddr.isValid(c.provisioning.ip) ? [[ipaddr.parse(c.provisioning.ip).toNormalizedString(), "provisioning.ip"]] : []);
    const net = c.provisioning.cidr ? provisioningNetwork(c.provisioning.cidr) : undefined;
    const dhcp = c.provisioning.dhcp;
    c.keepalived.extraVips.forEach((v, i) => {
        const key = `keepalived.extraVips[${i}]`;
        if (!ipaddr.isValid(v.ip)) return;
        const addr = ipaddr.parse(v.ip);
        const norm = addr.toNormalizedString();
        const other = seen.get(norm);
        if (other) add(`${key}.ip`, `${v.ip} is already ${other}: each VIP once`);
        seen.set(norm, key);
        const kind = addr.kind();
        if (v.prefix !== undefined && kind === "ipv4" && v.prefix > 32) add(`${key}.prefix`, `${v.prefix} is not an IPv4 prefix: 1-32`);
        if (!v.interface && !c.provisioning.interface) add(`${key}.interface`, "required: the interface keepalived puts this VIP on (provisioning.interface is not set)");
        if (family && kind !== family) {
            const [mine, theirs] = [kind === "ipv4" ? "IPv4" : "IPv6", family === "ipv4" ? "IPv4" : "IPv6"];
            add(
                `${key}.ip`,
                `${v.ip} is ${mine} but provisioning.ip ${c.provisioning.ip} is ${theirs}: keepalived holds every VIP in one VRRP instance of provisioning.ip's family and ignores an address of the other ("address family must match VRRP instance"), so this VIP would never come up; give an ${theirs} address, or remove it`,
            );
            return;
        }
        if (net?.inNet(v.ip) && dhcp && ipaddr.isValid(dhcp.rangeStart) && ipaddr.isValid(dhcp.rangeEnd)) {
            const n = ipToBigInt(addr);
            if (n >= ipToBigInt(dhcp.rangeStart) && n <= ipToBigInt(dhcp.rangeEnd)) add(`${key}.ip`, `${v.ip} lies in the DHCP range ${dhcp.rangeStart}-${dhcp.rangeEnd}: dnsmasq could hand it to a host; pick an address outside the range`);
        }
    });
}
