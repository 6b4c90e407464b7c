/**
 * The DHCP slot allocator of the multi-conductor topology: the range is cut into `slots` equal,
 * disjoint slices and each conductor gets one slot.
 *
 * Allocation is first-fit and remembered. A node the previous run had keeps its slot
 * (`remembered`, given only while the layout is unchanged: core/plan/slots.ts); a pinned slot
 * (`conductors[i].slot`) wins for its own node; every other node takes the lowest free slot. So a
 * node's slice never moves while it stays, and two unpinned nodes can never collide. A pin on a
 * slot another present node holds is an error naming the free slots, never a silent move.
 */
import { bigIntToIp, ipFamily, ipToBigInt, rangeSize, sizeNumber } from "../ip";

/** Where a conductor's slot came from: its pin, the previous run, or first-fit now. */
export type SlotSource = "pinned" | "kept" | "new";

export interface SliceRequest {
    rangeStart: string;
    rangeEnd: string;
    slots: number;
    minSize: number;
    conductors: { name: string; slot?: number }[];
    /** Node → slot of the previous run, when that run's layout (range, slot count) is this one. */
    remembered?: Record<string, number>;
    /** How `slots` was chosen (messages only); "config" unless said. */
    slotsFrom?: "config" | "previous" | "default";
    /** A previous run's layout is deployed: changing range or count needs provisioning.dhcp.reslice. */
    deployed?: boolean;
}

export interface Slice {
    node: string;
    slot: number;
    source: SlotSource;
    start: string;
    end: string;
    size: number;
}

export interface SlicePlan {
    sliceSize: number;
    /** Addresses at the end of the range that belong to no slice (range size not divisible). */
    unused: number;
    /** One per conductor that got a slot, in config order. */
    slices: Slice[];
    issues: { key: string; message: string }[];
}

/** Addresses of slot `slot` when `total` addresses from `start` are cut into `slots` slices. */
export function sliceBounds(rangeStart: string, rangeEnd: string, slots: number, slot: number): { start: string; end: string; size: number } {
    // BigInt: an IPv6 range can hold more than 2^53 addresses.
    const family = ipFamily(rangeStart) ?? 4;
    const size = rangeSize(rangeStart, rangeEnd) / BigInt(slots);
    const start = ipToBigInt(rangeStart) + BigInt(slot) * size;
    return { start: bigIntToIp(start, family), end: bigIntToIp(start + size - 1n, family), size: sizeNumber(size) };
}

/** "(provisioning.dhcp.slots = 8)", "(remembered from the previous run)", ... */
function countNote(req: SliceRequest): string {
    switch (req.slotsFrom ?? "config") {
        case "config":
            return `provisioning.dhcp.slots = ${req.slots}`;
        case "previous":
            return "provisioning.dhcp.slots is unset: the count of the previous run, kept";
        case "default":
            return `provisioning.dhcp.slots is unset: the default for ${req.conductors.length} listed conductors, 4 or one more than their number`;
    }
}

/** How to change the layout: on a deployed stack only with the re-slice flag. */
const RESLICE = " together with provisioning.dhcp.reslice: true for one run (re-slicing moves every conductor's slice; see docs/topologies.md, Re-slicing)";

function layoutIssues(req: SliceRequest, total: number, sliceSize: number): { key: string; message: string }[] {
    const issues: { key: string; message: string }[] = [];
    const n = req.conductors.length;
    const reslice = req.deployed ? RESLICE : "";
    if (n > req.slots) {
        issues.push({
            key: "provisioning.dhcp.slots",
            message: `${n} conductors but only ${req.slots} slots (${countNote(req)}); set provisioning.dhcp.slots to at least ${n + 1} (each conductor needs a slot of its own; keep one free for a replacement node)${reslice}`,
        });
    }
    if (sliceSize < req.minSize) {
        issues.push({
            key: "provisioning.dhcp",
            message: `range ${req.rangeStart}-${req.rangeEnd} (${total} addresses) cut into ${req.slots} slots (${countNote(req)}) gives ${sliceSize} per conductor; at least ${req.minSize} are needed. Widen the range, lower provisioning.dhcp.slots, or lower provisioning.dhcp.minSize${reslice}`,
        });
    }
    return issues;
}

type Conflict = { i: number; slot: number } & ({ kind: "missing" } | { kind: "pinned" | "kept"; j: number });

/** Slot of each conductor index (absent: none) and the pins that could not be honoured. */
function allocate(req: SliceRequest): { given: Map<number, { slot: number; source: SlotSource }>; conflicts: Conflict[] } {
    const { slots, conductors } = req;
    const remembered = req.remembered ?? {};
    const holder = new Map<number, number>();
    const given = new Map<number, { slot: number; source: SlotSource }>();
    const take = (i: number, slot: number, source: SlotSource) => {
        holder.set(slot, i);
        given.set(i, { slot, source });
    };
    // 1. Unpinned nodes the previous run had keep their slot.
    conductors.forEach((c, i) => {
        const r = Object.prototype.hasOwnProperty.call(remembered, c.name) ? remembered[c.name] : undefined;
        if (c.slot === undefined && r !== undefined && r < slots && !holder.has(r)) take(i, r, "kept");
    });
    // 2. Pins, unless the slot does not exist or another node holds it.
    const conflicts: Conflict[] = [];
    conductors.forEach((c, i) => {
        if (c.slot === undefined) return;
        const j = holder.get(c.slot);
        if (c.slot >= slots) conflicts.push({ kind: "missing", i, slot: c.slot });
        else if (j !== undefined) conflicts.push({ kind: given.get(j)!.source === "kept" ? "kept" : "pinned", i, j, slot: c.slot });
        else take(i, c.slot, "pinned");
    });
    // 3. Everyone else, in config order: the lowest free slot.
    let next = 0;
    conductors.forEach((c, i) => {
        if (c.slot !== undefined || given.has(i)) return;
        while (holder.has(next)) next++;
        if (next < slots) take(i, next, "new");
    });
    return { given, conflicts };
}

function conflictMessage(req: SliceRequest, c: Conflict, free: number[]): string {
    const node = req.conductors[c.i].name;
    if (c.kind === "missing") return `slot ${c.slot} does not exist: slots are 0-${req.slots - 1} (${countNote(req)})`;
    const freeText = `free: ${free.length > 0 ? free.join(", ") : `none; raise provisioning.dhcp.slots${req.deployed ? RESLICE : ""}`}`;
    const other = `node ${req.conductors[c.j].name} (conductors[${c.j}])`;
    if (c.kind === "pinned") return `node ${node} and ${other} are both pinned to slot ${c.slot}; two conductors would share a DHCP slice. Pin ${node} to a free slot (${freeText})`;
    return (
        `slot ${c.slot} is held by ${other} since the previous run; pinning node ${node} there would move ${req.conductors[c.j].name}'s slice and the leases in it. ` +
        `Pin ${node} to a free slot (${freeText}), or remove ${req.conductors[c.j].name} from conductors in an earlier run`
    );
}

export function planSlices(req: SliceRequest): SlicePlan {
    const all = rangeSize(req.rangeStart, req.rangeEnd);
    const total = sizeNumber(all);
    const sliceSize = sizeNumber(all / BigInt(req.slots));
    const unused = sizeNumber(all % BigInt(req.slots));
    const issues = layoutIssues(req, total, sliceSize);
    const { given, conflicts } = allocate(req);
    const used = new Set([...given.values()].map((g) => g.slot));
    const free = [...Array(req.slots).keys()].filter((s) => !used.has(s));
    for (const c of conflicts) issues.push({ key: `conductors[${c.i}].slot`, message: conflictMessage(req, c, free) });
    const slices: Slice[] = [];
    req.conductors.forEach((c, i) => {
        const g = given.get(i);
        if (g) slices.push({ node: c.name, slot: g.slot, source: g.source, ...sliceBounds(req.rangeStart, req.rangeEnd, req.slots, g.slot) });
    });
    return { sliceSize, unused, slices, issues };
}
