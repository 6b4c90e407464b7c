/**
 * Enough addresses: the whole range (single), or each conductor's slice of it (multi).
 *
 * Multi: only what the config alone decides is checked here (enough slots for the conductors,
 * slices large enough, pinned slots that can exist). The slot count actually used may come from
 * the stack's previous run, so the exact layout (remembered count, kept slots, re-slicing) is
 * checked by the planner with that run's state (core/plan/slots.ts), still before any resource.
 */
import { rangeSize, sizeNumber } from "../../ip";
import { DEFAULT_MIN_DHCP_RANGE } from "../defaults";
import { MAX_DHCP_SLOTS, type Sections } from "../schema";
import { isUsableRange, mixedFamilies, provisioningNetwork } from "./network";
import type { AddIssue, Rule } from "./rule";

type Dhcp = NonNullable<Sections["provisioning"]["dhcp"]>;

export const dhcpSizeRule: Rule = (input, add) => {
    const { config: c, parsed } = input;
    const d = parsed.provisioning?.dhcp;
    if (!parsed.provisioning || !d) return;
    const multi = c.topology === "multi";
    if (!mixedFamilies(input) && isUsableRange(provisioningNetwork(parsed.provisioning.cidr), d)) {
        const size = sizeNumber(rangeSize(d.rangeStart, d.rangeEnd));
        const min = d.minSize ?? DEFAULT_MIN_DHCP_RANGE;
        if (!multi && size < min) {
            add("provisioning.dhcp", `range ${d.rangeStart}-${d.rangeEnd} offers only ${size} address${size === 1 ? "" : "es"}; at least ${min} are needed (each host being provisioned or inspected holds a lease). Widen the range or lower provisioning.dhcp.minSize`);
        }
        if (multi && parsed.conductors) sliceIssues(d, size, min, parsed.conductors, add);
    }
    const multiOnly = 'only used with topology "multi" (the single topology serves the whole range)';
    if (!multi && d.slots !== undefined) add("provisioning.dhcp.slots", multiOnly);
    if (!multi && d.reslice !== undefined) add("provisioning.dhcp.reslice", multiOnly);
};

/** Multi: problems no previous run can fix (see the file comment). */
function sliceIssues(d: Dhcp, total: number, min: number, conductors: Sections["conductors"], add: AddIssue): void {
    const n = conductors.length;
    const range = `range ${d.rangeStart}-${d.rangeEnd} (${total} addresses)`;
    if (d.slots !== undefined) {
        if (n > d.slots) {
            add("provisioning.dhcp.slots", `${n} conductors but only ${d.slots} slots; raise provisioning.dhcp.slots (each conductor needs a slot of its own; keep one free for a replacement node)`);
        }
        const size = Math.floor(total / d.slots);
        if (size < min) {
            add("provisioning.dhcp", `${range} cut into ${d.slots} slots gives ${size} per conductor; at least ${min} are needed. Widen the range, lower provisioning.dhcp.slots, or lower provisioning.dhcp.minSize`);
        }
    } else if (n > MAX_DHCP_SLOTS) {
        add("provisioning.dhcp.slots", `${n} conductors but at most ${MAX_DHCP_SLOTS} DHCP slots exist; use fewer conductors`);
    } else if (n > 0 && Math.floor(total / n) < min) {
        // Whatever the slot count resolves to, it is at least one per conductor.
        add("provisioning.dhcp", `${range} cannot give each of the ${n} conductors ${min} addresses (${Math.floor(total / n)} each even with one slot per conductor). Widen the range or lower provisioning.dhcp.minSize`);
    }
    const slots = d.slots ?? MAX_DHCP_SLOTS;
    conductors.forEach((cd, i) => {
        if (cd.slot === undefined || cd.slot < slots) return;
        const which = d.slots !== undefined ? `slots are 0-${slots - 1} (provisioning.dhcp.slots = ${slots})` : `slots are numbered from 0 and at most ${MAX_DHCP_SLOTS} exist`;
        add(`conductors[${i}].slot`, `slot ${cd.slot} does not exist: ${which}`);
    });
}
