/**
 * The DHCP layout of a multi-conductor stack from one run to the next.
 *
 * The layout is the range and the slot count. The count is `provisioning.dhcp.slots` when set,
 * else the previous run's count (remembered in the stack's `state` output), else one per
 * conductor plus one (defaultDhcpSlots). While the layout is the previous run's, every node the
 * previous run had keeps its slot (core/plan/slices.ts). A different layout moves every slice, so
 * it is refused unless `provisioning.dhcp.reslice: true`, which allocates every node afresh. The
 * flag left on with an unchanged layout changes nothing.
 */
import { type ConductorConfig, type ConfigIssue, type DhcpConfig, defaultDhcpSlots } from "../config";
import { ipFamily, rangeSize, sameIp, sizeNumber } from "../ip";
import { type Slice, planSlices } from "./slices";

/** DHCP slots as allocated, with the layout they were cut from (the `state` output, multi with DHCP only). */
export interface DhcpSlotsState {
    rangeStart: string;
    rangeEnd: string;
    slots: number;
    /** Node name → slot. */
    nodes: Record<string, number>;
}

/** The slots of this run: the resolved layout, each conductor's slice, and what forbids it. */
export interface DhcpSlotPlan {
    rangeStart: string;
    rangeEnd: string;
    slots: number;
    /** Where the count came from: config, the previous run, or the default. */
    slotsFrom: "config" | "previous" | "default";
    /** This run cuts the range anew (re-slice asked for and the layout changed). */
    resliced: boolean;
    sliceSize: number;
    unused: number;
    /** In config order; a conductor without a slot (refused pin) has none. */
    slices: Slice[];
    /** Problems that refuse the run (layout changed without the flag, too few slots, pins). */
    issues: ConfigIssue[];
}

const RESLICE_HOW =
    "re-slicing cuts the range anew and moves every conductor's slice: hosts get addresses from new slices on their next DHCP request, and a host that is provisioning or inspecting meanwhile may fail its network boot. " +
    "To re-slice, wait until no host is provisioning, set provisioning.dhcp.reslice: true, run pulumi up, then remove the flag";

/** One issue per layout key that differs from the previous run's. */
function layoutChanges(dhcp: DhcpConfig, slots: number, prev: DhcpSlotsState): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    const differs = (a: string, b: string) => ipFamily(b) === undefined || !sameIp(a, b);
    const change = (key: string, was: string | number, now: string | number, undo: string) =>
        issues.push({ key, message: `was ${was} in the previous run, now ${now}; ${RESLICE_HOW}. Or ${undo} to keep every slice where it is` });
    if (differs(dhcp.rangeStart, prev.rangeStart)) change("provisioning.dhcp.rangeStart", prev.rangeStart, dhcp.rangeStart, `set it back to ${prev.rangeStart}`);
    if (differs(dhcp.rangeEnd, prev.rangeEnd)) change("provisioning.dhcp.rangeEnd", prev.rangeEnd, dhcp.rangeEnd, `set it back to ${prev.rangeEnd}`);
    if (slots !== prev.slots) change("provisioning.dhcp.slots", prev.slots, slots, `set it to ${prev.slots} (or unset it: the previous count is kept)`);
    return issues;
}

/** The slots of `conductors` in `dhcp`'s range, given the previous run's slots (undefined on a first run). */
export function planDhcpSlots(dhcp: DhcpConfig, conductors: ConductorConfig[], previous?: DhcpSlotsState, ipv6Range?: { rangeStart: string; rangeEnd: string }): DhcpSlotPlan {
    const slotsFrom = dhcp.slots !== undefined ? "config" : previous ? "previous" : "default";
    const slots = dhcp.slots ?? previous?.slots ?? defaultDhcpSlots(conductors.length);
    const changes = previous ? layoutChanges(dhcp, slots, previous) : [];
    const resliced = changes.length > 0 && dhcp.reslice;
    // A changed layout keeps nothing: refused without the flag, allocated afresh with it.
    const remembered = previous && changes.length === 0 ? previous.nodes : {};
    const sp = planSlices({
        rangeStart: dhcp.rangeStart,
        rangeEnd: dhcp.rangeEnd,
        slots,
        minSize: dhcp.minSize,
        conductors,
        remembered,
        slotsFrom,
        deployed: previous !== undefined && !resliced,
    });
    const issues = [...(resliced ? [] : changes), ...sp.issues, ...extraRangeIssues(dhcp, slots, slotsFrom, ipv6Range)];
    return { rangeStart: dhcp.rangeStart, rangeEnd: dhcp.rangeEnd, slots, slotsFrom, resliced, sliceSize: sp.sliceSize, unused: sp.unused, slices: sp.slices, issues };
}

/** Each relayed subnet's range (and the dual-stack IPv6 range) is cut into the same slots: each slice must hold minSize addresses too. */
function extraRangeIssues(dhcp: DhcpConfig, slots: number, slotsFrom: DhcpSlotPlan["slotsFrom"], ipv6Range?: { rangeStart: string; rangeEnd: string }): ConfigIssue[] {
    const from = slotsFrom === "config" ? `provisioning.dhcp.slots = ${slots}` : `${slots} slots, ${slotsFrom === "previous" ? "the previous run's count" : "the default"}`;
    const v6 = ipv6Range ? sizeNumber(rangeSize(ipv6Range.rangeStart, ipv6Range.rangeEnd) / BigInt(slots)) : undefined;
    const v6Issue: ConfigIssue[] =
        v6 !== undefined && v6 < dhcp.minSize
            ? [{ key: "provisioning.ipv6.dhcp", message: `range ${ipv6Range!.rangeStart}-${ipv6Range!.rangeEnd} cut into ${slots} slots (${from}) gives ${v6} per conductor; at least ${dhcp.minSize} are needed (every conductor serves its slot of the IPv6 range too). Widen the IPv6 range` }]
            : [];
    return [...v6Issue, ...dhcp.extraRanges.flatMap((r, i) => {
        const total = sizeNumber(rangeSize(r.rangeStart, r.rangeEnd));
        const per = sizeNumber(rangeSize(r.rangeStart, r.rangeEnd) / BigInt(slots));
        if (per >= dhcp.minSize) return [];
        return [
            {
                key: `provisioning.dhcp.extraRanges[${i}]`,
                message: `range ${r.rangeStart}-${r.rangeEnd} (${total} addresses) cut into ${slots} slots (${from}) gives ${per} per conductor; at least ${dhcp.minSize} are needed (every conductor serves its slot of every relayed range). Widen the range or lower provisioning.dhcp.minSize`,
            },
        ];
    })];
}
