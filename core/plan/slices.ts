/**
 * The DHCP planner of the multi-conductor topology: splits the configured range into `slots`
 * equal, disjoint slices and gives each conductor one.
 *
 * Stability is by construction: a conductor's slice depends only on the range, the slot count
 * and its own slot, and its slot is either pinned in config or derived from its own node name.
 * Adding, removing or replacing another node therefore never moves it. Two auto slots that
 * collide are an error asking to pin one, never a silent re-shuffle.
 */
import { createHash } from "crypto";

import { ipToNumber, numberToIp } from "../ip";

export interface SliceRequest {
    rangeStart: string;
    rangeEnd: string;
    slots: number;
    minSize: number;
    conductors: { name: string; slot?: number }[];
}

export interface Slice {
    node: string;
    slot: number;
    /** Whether the slot was derived from the node name (not pinned in config). */
    auto: boolean;
    start: string;
    end: string;
    size: number;
}

export interface SlicePlan {
    sliceSize: number;
    /** Addresses at the end of the range that belong to no slice (range size not divisible). */
    unused: number;
    slices: Slice[];
    issues: { key: string; message: string }[];
}

/** The slot a node gets when none is pinned: a hash of its name, so it depends on nothing else. */
export function autoSlot(node: string, slots: number): number {
    const digest = createHash("sha256").update(node).digest();
    return digest.readUInt32BE(0) % slots;
}

/** Addresses of slot `slot` when `total` addresses from `start` are cut into `slots` slices. */
export function sliceBounds(rangeStart: string, rangeEnd: string, slots: number, slot: number): { start: string; end: string; size: number } {
    const first = ipToNumber(rangeStart);
    const total = ipToNumber(rangeEnd) - first + 1;
    const size = Math.floor(total / slots);
    const start = first + slot * size;
    return { start: numberToIp(start), end: numberToIp(start + size - 1), size };
}

export function planSlices(req: SliceRequest): SlicePlan {
    const issues: { key: string; message: string }[] = [];
    const total = ipToNumber(req.rangeEnd) - ipToNumber(req.rangeStart) + 1;
    const sliceSize = Math.floor(total / req.slots);
    const unused = total - sliceSize * req.slots;

    if (req.conductors.length > req.slots) {
        issues.push({
            key: "provisioning.dhcp.slots",
            message: `${req.conductors.length} conductors but only ${req.slots} slots; raise provisioning.dhcp.slots (each slot is a disjoint slice of the range; keep room for a replacement node)`,
        });
    }
    if (sliceSize < req.minSize) {
        issues.push({
            key: "provisioning.dhcp",
            message: `range ${req.rangeStart}-${req.rangeEnd} (${total} addresses) cut into ${req.slots} slots gives ${sliceSize} per conductor; at least ${req.minSize} are needed. Widen the range, lower provisioning.dhcp.slots, or lower provisioning.dhcp.minSize`,
        });
    }

    const slotOf = req.conductors.map((c) => (c.slot !== undefined ? c.slot : autoSlot(c.name, req.slots)));
    const owner = new Map<number, number>();
    req.conductors.forEach((c, i) => {
        const slot = slotOf[i];
        if (c.slot !== undefined && c.slot >= req.slots) {
            issues.push({ key: `conductors[${i}].slot`, message: `slot ${c.slot} does not exist: slots are 0-${req.slots - 1} (provisioning.dhcp.slots = ${req.slots})` });
            return;
        }
        const j = owner.get(slot);
        if (j === undefined) {
            owner.set(slot, i);
            return;
        }
        const taken = new Set(slotOf.filter((s) => s < req.slots));
        const free = [...Array(req.slots).keys()].filter((s) => !taken.has(s));
        const other = req.conductors[j];
        const how = (k: number) => (req.conductors[k].slot !== undefined ? "pinned to" : "derived from its name as");
        issues.push({
            key: `conductors[${i}].slot`,
            message:
                `node ${c.name} (slot ${how(i)} ${slot}) and node ${other.name} (conductors[${j}], slot ${how(j)} ${slot}) would share a DHCP slice. ` +
                `Pin the node that is new with an explicit slot (free: ${free.length > 0 ? free.join(", ") : "none; raise provisioning.dhcp.slots"}) and keep the other's slot ${slot} unchanged`,
        });
    });

    const slices: Slice[] = req.conductors
        .map((c, i) => ({ c, slot: slotOf[i] }))
        .filter(({ slot }) => slot < req.slots)
        .map(({ c, slot }) => ({ node: c.name, slot, auto: c.slot === undefined, ...sliceBounds(req.rangeStart, req.rangeEnd, req.slots, slot) }));
    return { sliceSize, unused, slices, issues };
}
