/**
 * The DHCP slice planner (core/plan/slices.ts): property tests with fast-check, in the manner of
 * awsx's subnetDistributorNew.test.ts, then the worked examples.
 *
 * The properties are the planner's contract: slices of different slots never overlap, lie inside
 * the range and all have the plan's sliceSize; a conductor's slice depends only on the range, the
 * slot count and its own name/slot (other conductors never move it); pinned slots are kept; a
 * clean plan gives every conductor exactly one slot of its own; and every collision is reported
 * on `conductors[i].slot` with the free slots. Runs are bounded (NUM_RUNS) so the file takes a few
 * seconds; on failure fast-check prints the seed and the shrunk counterexample. Re-run one with
 * FC_SEED=<seed> (and FC_RUNS=<n> to search longer).
 */
import { strict as assert } from "assert";
import * as fc from "fast-check";

import { ipToNumber, numberToIp } from "../../../core/ip";
import { autoSlot, planSlices, Slice, SlicePlan, SliceRequest, sliceBounds } from "../../../core/plan/slices";

const NUM_RUNS = Number(process.env.FC_RUNS ?? 1000);
const params = (): fc.Parameters<unknown> => ({ numRuns: NUM_RUNS, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) });

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Highest address a range may end on: validation keeps ranges inside the CIDR's usable hosts, so never the broadcast 255.255.255.255 (nor the network address 0.0.0.0 at the start). */
const MAX_IP = 2 ** 32 - 2;

interface Conductor {
    name: string;
    slot?: number;
}

/** A DHCP range as (first address, number of addresses): tiny ones (fewer addresses than slots, slices below minSize), typical ones, and huge ones; anywhere in the IPv4 space. */
const rangeArb = fc
    .oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 1, max: 2048 }), fc.integer({ min: 1, max: 1 << 22 }))
    .chain((size) => fc.record({ start: fc.integer({ min: 1, max: MAX_IP - size + 1 }), size: fc.constant(size) }))
    .map(({ start, size }) => ({ rangeStart: numberToIp(start), rangeEnd: numberToIp(start + size - 1), first: start, total: size }));

/** provisioning.dhcp.slots (the schema allows 1-64), biased towards the small counts where collisions are frequent. */
const slotsArb = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 64 }));

/** provisioning.dhcp.minSize (the schema allows >= 1). */
const minSizeArb = fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 256 }));

/** Kubernetes node names: DNS labels and subdomains, plus the cp-N / worker-N shapes clusters use. */
const nameArb = fc.oneof(
    fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,12}[a-z0-9])?$/),
    fc.nat(40).map((n) => `cp-${n}`),
    fc.nat(40).map((n) => `worker-${n}.metal3.example.com`),
);

/** A pinned slot or none (mostly none); pins reach up to slots + 1, so some name a slot that does not exist. */
const pinArb = (slots: number) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: slots + 1 }), weight: 1 });

const conductor = (name: string, slot: number | undefined): Conductor => (slot === undefined ? { name } : { name, slot });

/** Conductor lists with unique names (validation rejects duplicate names), some pinned. */
const conductorsArb = (slots: number, maxLength = 10, exclude: string[] = []) =>
    fc
        .uniqueArray(fc.record({ name: nameArb.filter((n) => !exclude.includes(n)), slot: pinArb(slots) }), { selector: (c) => c.name, maxLength })
        .map((list) => list.map((c) => conductor(c.name, c.slot)));

interface Scenario {
    req: SliceRequest;
    first: number;
    total: number;
}

/** Range, slots and minSize, without conductors. */
const shapeArb = fc.record({ range: rangeArb, slots: slotsArb, minSize: minSizeArb });

const scenarioArb: fc.Arbitrary<Scenario> = shapeArb.chain(({ range, slots, minSize }) =>
    conductorsArb(slots).map((conductors) => ({
        req: { rangeStart: range.rangeStart, rangeEnd: range.rangeEnd, slots, minSize, conductors },
        first: range.first,
        total: range.total,
    })),
);

// ---------------------------------------------------------------------------------------------
// A model of the rules, written independently of slices.ts

/** Slot each conductor ends up on: its pin, else the hash of its name. */
const slotOf = (c: Conductor, slots: number) => (c.slot !== undefined ? c.slot : autoSlot(c.name, slots));

/** The issue keys the planner must report, in order, and for each colliding conductor the index of the earlier conductor on its slot. */
function expectedIssues(req: SliceRequest, total: number): { keys: string[]; collisions: Map<number, number> } {
    const keys: string[] = [];
    if (req.conductors.length > req.slots) keys.push("provisioning.dhcp.slots");
    if (Math.floor(total / req.slots) < req.minSize) keys.push("provisioning.dhcp");
    const owner = new Map<number, number>();
    const collisions = new Map<number, number>();
    req.conductors.forEach((c, i) => {
        const s = slotOf(c, req.slots);
        if (s >= req.slots) {
            keys.push(`conductors[${i}].slot`);
        } else if (owner.has(s)) {
            keys.push(`conductors[${i}].slot`);
            collisions.set(i, owner.get(s)!);
        } else {
            owner.set(s, i);
        }
    });
    return { keys, collisions };
}

/** Slots no conductor is on (what the collision message must offer for pinning). */
function freeSlots(req: SliceRequest): number[] {
    const taken = new Set(req.conductors.map((c) => slotOf(c, req.slots)));
    return [...Array(req.slots).keys()].filter((s) => !taken.has(s));
}

const interval = (s: Slice) => [ipToNumber(s.start), ipToNumber(s.end)] as const;
const sliceOf = (plan: SlicePlan, node: string) => plan.slices.find((s) => s.node === node);
const describePlan = (req: SliceRequest, plan: SlicePlan) => JSON.stringify({ req, plan });

/** Puts `c` at position `at` (mod length + 1) of `list`. */
const insertAt = <T>(list: T[], c: T, at: number) => {
    const i = at % (list.length + 1);
    return [...list.slice(0, i), c, ...list.slice(i)];
};

describe("DHCP slice planner: properties (fast-check)", function () {
    this.timeout(60000);

    it("slices of different slots are pairwise disjoint, and with no issues all slices are", function () {
        fc.assert(
            fc.property(scenarioArb, ({ req }) => {
                const plan = planSlices(req);
                for (let a = 0; a < plan.slices.length; a++) {
                    for (let b = a + 1; b < plan.slices.length; b++) {
                        const [x, y] = [plan.slices[a], plan.slices[b]];
                        if (x.slot === y.slot) {
                            assert.notEqual(plan.issues.length, 0, `${x.node} and ${y.node} share slot ${x.slot} without an issue: ${describePlan(req, plan)}`);
                            continue;
                        }
                        if (x.size === 0) continue; // empty slices hold no address (sliceSize 0 is always reported)
                        const [[xs, xe], [ys, ye]] = [interval(x), interval(y)];
                        assert.ok(xe < ys || ye < xs, `${x.node} ${x.start}-${x.end} overlaps ${y.node} ${y.start}-${y.end}: ${describePlan(req, plan)}`);
                    }
                }
            }),
            params(),
        );
    });

    it("the slots tile the range: slot k starts k * sliceSize after rangeStart, the unused rest is at the end", function () {
        fc.assert(
            fc.property(shapeArb, ({ range, slots }) => {
                const size = Math.floor(range.total / slots);
                let next = range.first;
                for (let k = 0; k < slots; k++) {
                    const b = sliceBounds(range.rangeStart, range.rangeEnd, slots, k);
                    assert.equal(b.size, size);
                    if (size === 0) continue;
                    assert.equal(ipToNumber(b.start), next, `slot ${k} starts right after slot ${k - 1}`);
                    next = ipToNumber(b.end) + 1;
                }
                if (size > 0) assert.equal(range.first + range.total - next, range.total - size * slots, "only the remainder is left unused");
            }),
            params(),
        );
    });

    it("every slice lies inside the range and has the plan's sliceSize; sliceSize and unused split the range exactly", function () {
        fc.assert(
            fc.property(scenarioArb, ({ req, first, total }) => {
                const plan = planSlices(req);
                assert.equal(plan.sliceSize, Math.floor(total / req.slots));
                assert.equal(plan.sliceSize * req.slots + plan.unused, total);
                assert.ok(plan.unused >= 0 && plan.unused < req.slots, `unused ${plan.unused} with ${req.slots} slots`);
                if (plan.sliceSize === 0) assert.ok(plan.issues.some((i) => i.key === "provisioning.dhcp"), "a range with fewer addresses than slots is reported");
                for (const s of plan.slices) {
                    assert.equal(s.size, plan.sliceSize, `${s.node}'s slice has the plan's size`);
                    assert.ok(s.slot >= 0 && s.slot < req.slots && Number.isInteger(s.slot), `${s.node} on slot ${s.slot} of ${req.slots}`);
                    if (s.size === 0) continue;
                    const [start, end] = interval(s);
                    assert.equal(end - start + 1, s.size, `${s.node}: ${s.start}-${s.end} holds ${s.size} addresses`);
                    assert.ok(start >= first && end <= first + total - 1 - plan.unused, `${s.node}: ${s.start}-${s.end} outside ${req.rangeStart}-${req.rangeEnd}: ${describePlan(req, plan)}`);
                }
            }),
            params(),
        );
    });

    it("a conductor's slice depends only on the range, the slot count and its own name/slot", function () {
        // `me` in two unrelated crowds of other conductors, at arbitrary positions, and alone.
        const arb = shapeArb.chain(({ range, slots, minSize }) =>
            fc.record({ me: fc.record({ name: nameArb, slot: pinArb(slots) }), at: fc.nat(), at2: fc.nat() }).chain(({ me, at, at2 }) =>
                fc.record({
                    req: fc.constant({ rangeStart: range.rangeStart, rangeEnd: range.rangeEnd, slots, minSize }),
                    me: fc.constant(conductor(me.name, me.slot)),
                    crowdA: conductorsArb(slots, 10, [me.name]).map((others) => insertAt(others, conductor(me.name, me.slot), at)),
                    crowdB: conductorsArb(slots, 10, [me.name]).map((others) => insertAt(others, conductor(me.name, me.slot), at2)),
                }),
            ),
        );
        fc.assert(
            fc.property(arb, ({ req, me, crowdA, crowdB }) => {
                const alone = sliceOf(planSlices({ ...req, conductors: [me] }), me.name);
                const a = sliceOf(planSlices({ ...req, conductors: crowdA }), me.name);
                const b = sliceOf(planSlices({ ...req, conductors: crowdB }), me.name);
                assert.deepEqual(a, alone, `${me.name} moved among ${JSON.stringify(crowdA)}`);
                assert.deepEqual(b, alone, `${me.name} moved among ${JSON.stringify(crowdB)}`);
            }),
            params(),
        );
    });

    it("adding, removing or replacing other conductors never moves a conductor's slice", function () {
        const arb = scenarioArb.chain((sc) =>
            fc.record({
                sc: fc.constant(sc),
                added: fc.record({ name: nameArb.filter((n) => !sc.req.conductors.some((c) => c.name === n)), slot: pinArb(sc.req.slots) }),
                victim: fc.nat(),
                // The replacement takes over the victim's slot (the README's procedure) or gets its own.
                takeOver: fc.boolean(),
                at: fc.nat(),
            }),
        );
        fc.assert(
            fc.property(arb, ({ sc, added, victim, takeOver, at }) => {
                const { req } = sc;
                const before = planSlices(req);
                const list = req.conductors;
                const v = list.length > 0 ? victim % list.length : -1;
                const newcomer = conductor(added.name, added.slot);
                const replacement = v >= 0 && takeOver ? conductor(added.name, slotOf(list[v], req.slots)) : newcomer;
                const variants: [string, Conductor[], number][] = [
                    ["adding " + added.name, insertAt(list, newcomer, at), -1],
                    ["removing conductors[" + v + "]", list.filter((_, i) => i !== v), v],
                    ["replacing conductors[" + v + "] by " + added.name, list.map((c, i) => (i === v ? replacement : c)), v],
                    ["reversing the list", [...list].reverse(), -1],
                ];
                for (const [what, conductors, gone] of variants) {
                    const after = planSlices({ ...req, conductors });
                    list.forEach((c, i) => {
                        if (i === gone) return;
                        assert.deepEqual(sliceOf(after, c.name), sliceOf(before, c.name), `${c.name}'s slice moved after ${what}: ${describePlan(req, before)}`);
                    });
                }
            }),
            params(),
        );
    });

    it("pinned slots are respected, auto slots come from the name; a pin outside 0..slots-1 is reported and gets no slice", function () {
        let pinnedRuns = 0;
        let badPins = 0;
        fc.assert(
            fc.property(scenarioArb, ({ req }) => {
                const plan = planSlices(req);
                req.conductors.forEach((c, i) => {
                    const mine = plan.slices.filter((s) => s.node === c.name);
                    const s = slotOf(c, req.slots);
                    assert.ok(Number.isInteger(s) && s >= 0, `slot ${s}`);
                    if (c.slot === undefined) assert.ok(s < req.slots, `autoSlot(${c.name}, ${req.slots}) = ${s}`);
                    if (s >= req.slots) {
                        badPins++;
                        assert.deepEqual(mine, [], `${c.name} pinned to missing slot ${s} has no slice`);
                        assert.ok(
                            plan.issues.some((iss) => iss.key === `conductors[${i}].slot` && iss.message.includes(`slot ${s} does not exist: slots are 0-${req.slots - 1}`)),
                            `missing-slot issue for conductors[${i}]: ${describePlan(req, plan)}`,
                        );
                        return;
                    }
                    if (c.slot !== undefined) pinnedRuns++;
                    assert.equal(mine.length, 1, `${c.name} has one slice`);
                    assert.deepEqual(mine[0], { node: c.name, slot: s, auto: c.slot === undefined, ...sliceBounds(req.rangeStart, req.rangeEnd, req.slots, s) });
                });
            }),
            params(),
        );
        assert.ok(pinnedRuns > NUM_RUNS / 10 && badPins > 0, `the generator pins enough conductors (${pinnedRuns} pinned, ${badPins} to missing slots)`);
    });

    it("autoSlot is a function of (name, slots) with values in 0..slots-1", function () {
        fc.assert(
            fc.property(nameArb, slotsArb, (name, slots) => {
                const s = autoSlot(name, slots);
                assert.ok(Number.isInteger(s) && s >= 0 && s < slots);
                assert.equal(autoSlot(name, slots), s);
                assert.equal(planSlices({ rangeStart: "10.0.0.1", rangeEnd: "10.0.255.254", slots, minSize: 1, conductors: [{ name }] }).slices[0].slot, s);
            }),
            params(),
        );
    });

    it("with no issues every conductor has exactly one slice and no two share a slot", function () {
        let clean = 0;
        fc.assert(
            fc.property(scenarioArb, ({ req }) => {
                const plan = planSlices(req);
                if (plan.issues.length > 0) return;
                clean++;
                assert.deepEqual(plan.slices.map((s) => s.node).sort(), req.conductors.map((c) => c.name).sort(), "one slice per conductor");
                assert.equal(new Set(plan.slices.map((s) => s.slot)).size, plan.slices.length, `slots are distinct: ${describePlan(req, plan)}`);
                assert.ok(req.conductors.length <= req.slots && plan.sliceSize >= req.minSize);
            }),
            params(),
        );
        assert.ok(clean > NUM_RUNS / 10, `only ${clean} of ${NUM_RUNS} generated plans were clean; the property was barely exercised`);
    });

    it("reports exactly the expected issues; every collision names conductors[i].slot, both nodes and the free slots", function () {
        let autoCollisions = 0;
        fc.assert(
            fc.property(scenarioArb, ({ req, total }) => {
                const plan = planSlices(req);
                const { keys, collisions } = expectedIssues(req, total);
                assert.deepEqual(plan.issues.map((i) => i.key).sort(), [...keys].sort(), `issue keys: ${describePlan(req, plan)}`);
                const free = freeSlots(req);
                const freeText = free.length > 0 ? free.join(", ") : "none; raise provisioning.dhcp.slots";
                for (const [i, j] of collisions) {
                    const [c, other] = [req.conductors[i], req.conductors[j]];
                    if (c.slot === undefined || other.slot === undefined) autoCollisions++;
                    const issue = plan.issues.find((iss) => iss.key === `conductors[${i}].slot` && iss.message.includes("would share a DHCP slice"));
                    assert.ok(issue, `collision of conductors[${i}] (${c.name}) and conductors[${j}] (${other.name}) not reported: ${describePlan(req, plan)}`);
                    assert.ok(issue.message.includes(`node ${c.name} (`) && issue.message.includes(`node ${other.name} (conductors[${j}]`), issue.message);
                    assert.ok(issue.message.includes(`(free: ${freeText})`), `free slots ${freeText} in: ${issue.message}`);
                }
            }),
            params(),
        );
        assert.ok(autoCollisions > NUM_RUNS / 10, `only ${autoCollisions} auto-slot collisions generated`);
    });
});

// ---------------------------------------------------------------------------------------------
// Worked examples (moved from test/components/multi.test.ts)

function req(conductors: Conductor[], over: Partial<SliceRequest> = {}): SliceRequest {
    return { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 8, minSize: 8, conductors, ...over };
}

function sliceMap(conductors: Conductor[]) {
    const p = planSlices(req(conductors));
    assert.deepEqual(p.issues, []);
    return Object.fromEntries(p.slices.map((s) => [s.node, `${s.start}-${s.end}`]));
}

describe("DHCP slice planner: examples", function () {
    const three = [{ name: "cp-0" }, { name: "cp-1" }, { name: "cp-2", slot: 0 }];

    it("cuts the range into equal, disjoint slices inside the range", function () {
        const p = planSlices(req(three));
        assert.equal(p.sliceSize, 25);
        assert.equal(p.unused, 0);
        assert.deepEqual(
            p.slices.map((s) => [s.node, s.slot, s.start, s.end, s.size]),
            [
                ["cp-0", 4, "172.22.0.110", "172.22.0.134", 25],
                ["cp-1", 6, "172.22.0.160", "172.22.0.184", 25],
                ["cp-2", 0, "172.22.0.10", "172.22.0.34", 25],
            ],
        );
        // All 8 slots together cover the range exactly, without overlap.
        const all = planSlices(req([...Array(8).keys()].map((i) => ({ name: `n${i}`, slot: i }))));
        const sorted = all.slices.map((s) => [ipToNumber(s.start), ipToNumber(s.end)]).sort((a, b) => a[0] - b[0]);
        assert.equal(sorted[0][0], ipToNumber("172.22.0.10"));
        assert.equal(sorted[7][1], ipToNumber("172.22.0.209"));
        for (let i = 1; i < sorted.length; i++) assert.equal(sorted[i][0], sorted[i - 1][1] + 1, "adjacent, disjoint");
    });

    it("adding, removing or replacing a node never moves another node's slice", function () {
        const before = sliceMap(three);
        const added = sliceMap([...three, { name: "cp-3" }]);
        const removed = sliceMap(three.filter((c) => c.name !== "cp-0"));
        const replaced = sliceMap([{ name: "cp-0" }, { name: "cp-1-new", slot: 6 }, { name: "cp-2", slot: 0 }]);
        const reordered = sliceMap([...three].reverse());
        for (const n of ["cp-0", "cp-1", "cp-2"]) assert.equal(added[n], before[n], `${n} after adding cp-3`);
        for (const n of ["cp-1", "cp-2"]) assert.equal(removed[n], before[n], `${n} after removing cp-0`);
        for (const n of ["cp-0", "cp-2"]) assert.equal(replaced[n], before[n], `${n} after replacing cp-1`);
        assert.equal(replaced["cp-1-new"], before["cp-1"], "the replacement pinned to the old slot takes over its slice");
        assert.deepEqual(reordered, before, "list order does not matter");
    });

    it("derives auto slots from the node name alone", function () {
        assert.equal(autoSlot("cp-0", 8), 4);
        assert.equal(autoSlot("cp-0", 8), planSlices(req([{ name: "cp-0" }, { name: "zzz", slot: 0 }])).slices[0].slot);
    });

    it("rejects two nodes on one slice, naming the free slots to pin", function () {
        const p = planSlices(req([{ name: "master-1" }, { name: "master-2" }]));
        assert.equal(autoSlot("master-1", 8), autoSlot("master-2", 8), "these two names collide with 8 slots");
        assert.equal(p.issues.length, 1);
        assert.equal(p.issues[0].key, "conductors[1].slot");
        assert.match(p.issues[0].message, /would share a DHCP slice.*Pin the node that is new with an explicit slot \(free: 0, 1, 2, 3, 5, 6, 7\)/);
        const pinned = planSlices(req([{ name: "master-1", slot: 4 }, { name: "master-1b", slot: 4 }]));
        assert.match(pinned.issues[0].message, /pinned to 4/);
    });

    it("rejects more nodes than slots, slots that do not exist, and slices too small", function () {
        const many = planSlices(req([...Array(3).keys()].map((i) => ({ name: `n${i}`, slot: i })), { slots: 2 }));
        assert.ok(many.issues.some((i) => i.key === "provisioning.dhcp.slots" && /3 conductors but only 2 slots/.test(i.message)));
        assert.ok(many.issues.some((i) => i.key === "conductors[2].slot" && /slot 2 does not exist: slots are 0-1/.test(i.message)));
        const small = planSlices(req([{ name: "a", slot: 0 }], { slots: 64 }));
        assert.ok(small.issues.some((i) => i.key === "provisioning.dhcp" && /gives 3 per conductor; at least 8/.test(i.message)));
    });
});
