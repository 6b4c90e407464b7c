/** Enough addresses: the whole range (single), or each conductor's slice of it (multi, `provisioning.dhcp.slots`). */
import { ipToNumber } from "../../ip";
import { planSlices } from "../../plan/slices";
import { DEFAULT_DHCP_SLOTS, DEFAULT_MIN_DHCP_RANGE } from "../defaults";
import { isUsableRange, provisioningNetwork } from "./network";
import type { Rule } from "./rule";

export const dhcpSizeRule: Rule = ({ config: c, parsed }, add) => {
    const d = parsed.provisioning?.dhcp;
    if (!parsed.provisioning || !d) return;
    const multi = c.topology === "multi";
    if (isUsableRange(provisioningNetwork(parsed.provisioning.cidr), d)) {
        const size = ipToNumber(d.rangeEnd) - ipToNumber(d.rangeStart) + 1;
        const min = d.minSize ?? DEFAULT_MIN_DHCP_RANGE;
        if (!multi && size < min) {
            add("provisioning.dhcp", `range ${d.rangeStart}-${d.rangeEnd} offers only ${size} address${size === 1 ? "" : "es"}; at least ${min} are needed (each host being provisioned or inspected holds a lease). Widen the range or lower provisioning.dhcp.minSize`);
        }
        if (multi && parsed.conductors) {
            const sp = planSlices({ rangeStart: d.rangeStart, rangeEnd: d.rangeEnd, slots: d.slots ?? DEFAULT_DHCP_SLOTS, minSize: min, conductors: parsed.conductors });
            for (const iss of sp.issues) add(iss.key, iss.message);
        }
    }
    if (!multi && d.slots !== undefined) add("provisioning.dhcp.slots", 'only used with topology "multi" (the single topology serves the whole range)');
};
