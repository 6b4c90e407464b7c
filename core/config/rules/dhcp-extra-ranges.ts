/**
 * Relayed subnets (`provisioning.dhcp.extraRanges[]`): each is another network whose hosts reach
 * dnsmasq through a DHCP relay. Each range is checked like the main one: a real network prefix,
 * ends usable and in order, the router inside the subnet but outside the range, enough addresses
 * (single; multi: per slice, checked by the planner once the slot count is resolved), and no
 * subnet that overlaps the provisioning network or another relayed subnet (dnsmasq picks a range
 * by the relay's address: two candidates would make the answer depend on file order).
 */
import { ipFamily, ipToNumber } from "../../ip";
import { DEFAULT_MIN_DHCP_RANGE } from "../defaults";
import { provisioningNetwork } from "./network";
import type { Rule } from "./rule";

export const dhcpExtraRangesRule: Rule = ({ config: c, parsed }, add) => {
    const prov = parsed.provisioning;
    const ranges = prov?.dhcp?.extraRanges;
    // IPv6 anywhere here is refused by the family rule (ip-family.ts): relayed ranges are IPv4 only.
    if (!prov || !ranges || provisioningNetwork(prov.cidr).family === 6 || ranges.some((r) => ipFamily(r.subnet.split("/")[0]) === 6)) return;
    const provNet = provisioningNetwork(prov.cidr);
    const min = prov.dhcp!.minSize ?? DEFAULT_MIN_DHCP_RANGE;
    ranges.forEach((r, i) => {
        const key = `provisioning.dhcp.extraRanges[${i}]`;
        const net = provisioningNetwork(r.subnet);
        if (net.written !== net.networkAddr) add(`${key}.subnet`, `${r.subnet} has host bits set; did you mean ${net.networkAddr}/${net.prefix}?`);
        if (net.prefix > 30) {
            add(`${key}.subnet`, `a /${net.prefix} network has no room for hosts; use the relayed subnet's real prefix (e.g. /24)`);
            return;
        }
        if (overlaps(net, provNet)) {
            add(`${key}.subnet`, `${r.subnet} overlaps provisioning.cidr ${prov.cidr}: a relayed subnet is another network; hosts on the provisioning network itself get addresses from provisioning.dhcp.rangeStart-rangeEnd`);
        }
        for (let j = 0; j < i; j++) {
            if (overlaps(net, provisioningNetwork(ranges[j].subnet))) {
                add(`${key}.subnet`, `${r.subnet} overlaps provisioning.dhcp.extraRanges[${j}].subnet ${ranges[j].subnet}; each relayed subnet must be listed once (merge the two entries or fix the prefix)`);
            }
        }
        let ok = true;
        for (const end of ["rangeStart", "rangeEnd"] as const) {
            if (!net.usable(r[end])) {
                add(`${key}.${end}`, `${r[end]} is not a usable host address of ${key}.subnet ${r.subnet}`);
                ok = false;
            }
        }
        if (ok && ipToNumber(r.rangeStart) > ipToNumber(r.rangeEnd)) {
            add(key, `range is reversed: rangeStart ${r.rangeStart} comes after rangeEnd ${r.rangeEnd}; swap them`);
            ok = false;
        }
        if (!net.usable(r.gateway)) {
            const what = net.inNet(r.gateway) ? "is the network or broadcast address of" : "is not inside";
            add(`${key}.gateway`, `${r.gateway} ${what} ${key}.subnet ${r.subnet}: the gateway is the subnet's router (usually the relay), a host address its hosts reach directly`);
        } else if (ok && ipToNumber(r.gateway) >= ipToNumber(r.rangeStart) && ipToNumber(r.gateway) <= ipToNumber(r.rangeEnd)) {
            add(`${key}.gateway`, `gateway ${r.gateway} lies inside the range ${r.rangeStart}-${r.rangeEnd}; a client could be given the router's address. Move the range or the gateway`);
        }
        const size = ipToNumber(r.rangeEnd) - ipToNumber(r.rangeStart) + 1;
        if (ok && c.topology === "single" && size < min) {
            add(key, `range ${r.rangeStart}-${r.rangeEnd} offers only ${size} address${size === 1 ? "" : "es"}; at least ${min} are needed (provisioning.dhcp.minSize applies to every range). Widen the range or lower provisioning.dhcp.minSize`);
        }
    });
};

function overlaps(a: ReturnType<typeof provisioningNetwork>, b: ReturnType<typeof provisioningNetwork>): boolean {
    return a.inNet(b.networkAddr) || b.inNet(a.networkAddr);
}
