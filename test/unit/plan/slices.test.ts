/**
 * DHCP slots (core/plan/slices.ts, core/plan/slots.ts): property tests with fast-check, then the
 * worked examples.
 *
 * The main property replays a stack's life: random sequences of operations (add, remove, replace
 * a node, reorder, pin, change the range or the slot count with or without the re-slice flag)
 * applied run after run through buildPlan, each run's previous state being the last accepted
 * run's `state` output (persistedState → JSON → parsePreviousState), as the program does. A
 * refused run leaves the stack as it was (the user fixes the config). Every accepted run: slices
 * disjoint and inside the range, one slot per node and no two alike, pins respected, a node's
 * slot unchanged while it stays (unless a re-slice was asked for), new nodes first-fit. Every run:
 * exactly the refusals an independent model predicts, so unpinned nodes are never refused for a
 * collision. Runs are bounded (NUM_RUNS); on failure fast-check prints the seed and the shrunk
 * counterexample. Re-run one with FC_SEED=<seed> (and FC_RUNS=<n> to search longer).
 */
import { strict as assert } from "assert";
import { dhcpSlotsOf, listedConductors } from "../../../core/plan/read";
import * as fc from "fast-check";

import { ConductorConfig, DhcpConfig, StackConfig, defaultDhcpSlots } from "../../../core/config";
import { ipToNumber, numberToIp } from "../../../core/ip";
import { buildPlan } from "../../../core/plan";
import { PREVIOUS_OUTPUTS, PreviousState, parsePreviousState, persistedState, previousStateIssues } from "../../../core/plan/previous";
import { planSlices, sliceBounds, SliceRequest } from "../../../core/plan/slices";
import { DhcpSlotsState, planDhcpSlots } from "../../../core/plan/slots";
import { configOf, haRaw } from "./support";

const NUM_RUNS = Number(process.env.FC_RUNS ?? 300);
const params = (runs = NUM_RUNS): fc.Parameters<unknown> => ({ numRuns: runs, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) });

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Highest address a range may end on: validation keeps ranges inside the CIDR's usable hosts. */
const MAX_IP = 2 ** 32 - 2;

/** A DHCP range as (first address, number of addresses): tiny, typical and huge; anywhere in IPv4. */
const rangeArb = fc
    .oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 16, max: 2048 }), fc.integer({ min: 1, max: 1 << 22 }))
    .chain((size) => fc.record({ start: fc.integer({ min: 1, max: MAX_IP - size + 1 }), size: fc.constant(size) }))
    .map(({ start, size }) => ({ rangeStart: numberToIp(start), rangeEnd: numberToIp(start + size - 1), first: start, total: size }));

/** provisioning.dhcp.slots (the schema allows 1-64), biased towards small counts. */
const slotsArb = fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 64 }));

/** Kubernetes node names. */
const nameArb = fc.oneof(fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/), fc.nat(60).map((n) => `cp-${n}`));

/** A pin for a layout of about `slots` slots: mostly none; some name a slot that does not exist. */
const pinArb = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 13 }), weight: 1 });

type Op =
    | { op: "add"; name: string; pin?: number }
    | { op: "remove"; at: number }
    | { op: "replace"; at: number; name: string; takeOver: boolean }
    | { op: "reverse" }
    | { op: "slots"; slots?: number; reslice: boolean }
    | { op: "rangeEnd"; delta: number; reslice: boolean }
    | { op: "reslice"; reslice: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
    { arbitrary: fc.record({ op: fc.constant("add" as const), name: nameArb, pin: pinArb }), weight: 5 },
    { arbitrary: fc.record({ op: fc.constant("remove" as const), at: fc.nat() }), weight: 3 },
    { arbitrary: fc.record({ op: fc.constant("replace" as const), at: fc.nat(), name: nameArb, takeOver: fc.boolean() }), weight: 3 },
    { arbitrary: fc.constant({ op: "reverse" as const }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant("slots" as const), slots: fc.option(slotsArb, { nil: undefined }), reslice: fc.boolean() }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant("rangeEnd" as const), delta: fc.integer({ min: -20, max: 20 }), reslice: fc.boolean() }), weight: 1 },
    { arbitrary: fc.record({ op: fc.constant("reslice" as const), reslice: fc.boolean() }), weight: 1 },
);

const base: StackConfig = configOf(haRaw);

/** The ha stack with this DHCP layout and these conductors (buildPlan does not validate). */
function stackConfig(dhcp: DhcpConfig, conductors: ConductorConfig[]): StackConfig {
    return { ...base, provisioning: { ...base.provisioning, dhcp }, conductors };
}

const lifeArb = fc.record({
    range: rangeArb,
    minSize: fc.integer({ min: 1, max: 8 }),
    slots: fc.option(slotsArb, { nil: undefined, freq: 3 }),
    initial: fc.uniqueArray(fc.record({ name: nameArb, pin: pinArb }), { selector: (c) => c.name, maxLength: 6 }),
    ops: fc.array(opArb, { minLength: 1, maxLength: 12 }),
});

/** Apply `op` to the last accepted config; undefined when it does not apply (e.g. a name taken). */
function apply(op: Op, dhcp: DhcpConfig, conductors: ConductorConfig[], slotOf: (node: string) => number | undefined): { dhcp: DhcpConfig; conductors: ConductorConfig[] } | undefined {
    const taken = (n: string) => conductors.some((c) => c.name === n);
    const node = (name: string, pin?: number): ConductorConfig => ({ name, ip: "172.22.0.2", ...(pin !== undefined ? { slot: pin } : {}) });
    switch (op.op) {
        case "add":
            return taken(op.name) ? undefined : { dhcp, conductors: [...conductors, node(op.name, op.pin)] };
        case "remove":
            return conductors.length === 0 ? undefined : { dhcp, conductors: conductors.filter((_, i) => i !== op.at % conductors.length) };
        case "replace": {
            if (conductors.length === 0 || taken(op.name)) return undefined;
            const v = op.at % conductors.length;
            // The replacement takes over the old node's slot (pinned to it) or gets its own.
            const pin = op.takeOver ? slotOf(conductors[v].name) : undefined;
            return { dhcp, conductors: conductors.map((c, i) => (i === v ? node(op.name, pin) : c)) };
        }
        case "reverse":
            return { dhcp, conductors: [...conductors].reverse() };
        case "slots":
            return { dhcp: { ...dhcp, slots: op.slots, reslice: op.reslice }, conductors };
        case "rangeEnd": {
            const end = ipToNumber(dhcp.rangeEnd) + op.delta;
            if (end < ipToNumber(dhcp.rangeStart) || end > MAX_IP) return undefined;
            return { dhcp: { ...dhcp, rangeEnd: numberToIp(end), reslice: op.reslice }, conductors };
        }
        case "reslice":
            return { dhcp: { ...dhcp, reslice: op.reslice }, conductors };
    }
}

// ---------------------------------------------------------------------------------------------
// An independent model of the rules

/** The issue keys a run must be refused with, sorted (empty: accepted). */
function expectedKeys(dhcp: DhcpConfig, conductors: ConductorConfig[], prev: DhcpSlotsState | undefined): string[] {
    const keys: string[] = [];
    const slots = dhcp.slots ?? prev?.slots ?? Math.min(64, Math.max(4, conductors.length + 1));
    const changed: string[] = [];
    if (prev && prev.rangeStart !== dhcp.rangeStart) changed.push("provisioning.dhcp.rangeStart");
    if (prev && prev.rangeEnd !== dhcp.rangeEnd) changed.push("provisioning.dhcp.rangeEnd");
    if (prev && prev.slots !== slots) changed.push("provisioning.dhcp.slots");
    if (!dhcp.reslice) keys.push(...changed);
    if (conductors.length > slots) keys.push("provisioning.dhcp.slots");
    const total = ipToNumber(dhcp.rangeEnd) - ipToNumber(dhcp.rangeStart) + 1;
    if (Math.floor(total / slots) < dhcp.minSize) keys.push("provisioning.dhcp");
    // Slots held by unpinned nodes the previous run had (only while its layout is this one).
    const memory = prev && changed.length === 0 ? prev.nodes : {};
    const held = new Set<number>();
    for (const c of conductors) {
        const r = memory[c.name];
        if (c.slot === undefined && r !== undefined && r < slots) held.add(r);
    }
    const pinnedBefore = new Set<number>();
    conductors.forEach((c, i) => {
        if (c.slot === undefined) return;
        if (c.slot >= slots || held.has(c.slot) || pinnedBefore.has(c.slot)) keys.push(`conductors[${i}].slot`);
        pinnedBefore.add(c.slot);
    });
    return keys.sort();
}

const interval = (s: { start: string; end: string }) => [ipToNumber(s.start), ipToNumber(s.end)] as const;

/** What the next run reads back: the `state` output through JSON, as the engine stores it. */
function nextPrevious(config: StackConfig, previous: PreviousState): PreviousState {
    const plan = buildPlan(config, previous);
    return parsePreviousState(JSON.parse(JSON.stringify({ [PREVIOUS_OUTPUTS.state]: persistedState(plan) })));
}

describe("DHCP slots: a stack's life, run after run (fast-check)", function () {
    this.timeout(120000);

    it("accepted runs: disjoint slices inside the range, pins respected, nodes never move, new nodes first-fit; refusals exactly as modelled", function () {
        let accepted = 0;
        let refused = 0;
        let kept = 0;
        let resliced = 0;
        fc.assert(
            fc.property(lifeArb, ({ range, minSize, slots, initial, ops }) => {
                let dhcp: DhcpConfig = { rangeStart: range.rangeStart, rangeEnd: range.rangeEnd, leaseTime: "1h", minSize, slots, reslice: false, extraRanges: [] };
                let conductors: ConductorConfig[] = initial.map((c) => ({ name: c.name, ip: "172.22.0.2", ...(c.pin !== undefined ? { slot: c.pin } : {}) }));
                let previous: PreviousState = {};
                let history: string[] = [];
                // The first run, then each operation applied to the last accepted config.
                for (const [k, op] of [undefined, ...ops].entries()) {
                    const run = op === undefined ? { dhcp, conductors } : apply(op, dhcp, conductors, (n) => previous.dhcpSlots?.nodes[n]);
                    if (!run) continue;
                    const config = stackConfig(run.dhcp, run.conductors);
                    const plan = buildPlan(config, previous);
                    const issues = previousStateIssues(plan, previous);
                    const where = `run ${k} of ${JSON.stringify({ history, config: { dhcp: run.dhcp, conductors: run.conductors }, previous: previous.dhcpSlots })}`;
                    const prev = previous.dhcpSlots;
                    assert.deepEqual(issues.map((i) => i.key).sort(), expectedKeys(run.dhcp, run.conductors, prev), `issues ${JSON.stringify(issues)} at ${where}`);
                    history = [...history, JSON.stringify(run.conductors.map((c) => c.name + (c.slot !== undefined ? `@${c.slot}` : "")))];
                    if (issues.length > 0) {
                        refused++;
                        continue; // refused: the stack and the config stay as they were
                    }
                    accepted++;
                    const sp = dhcpSlotsOf(plan)!;
                    const slotOf = new Map(listedConductors(plan).map((c) => [c.node, c.slot?.index]));
                    // One slot per conductor, all distinct, inside 0..slots-1.
                    assert.equal(sp.slices.length, run.conductors.length, where);
                    assert.equal(new Set(sp.slices.map((s) => s.slot)).size, sp.slices.length, `two nodes share a slot at ${where}`);
                    // Disjoint, inside the range, of the plan's size.
                    const [first, last] = [ipToNumber(run.dhcp.rangeStart), ipToNumber(run.dhcp.rangeEnd)];
                    const ivs = sp.slices.map(interval).sort((a, b) => a[0] - b[0]);
                    ivs.forEach(([s, e], i) => {
                        assert.ok(s >= first && e <= last && e - s + 1 === sp.sliceSize && sp.sliceSize >= run.dhcp.minSize, `slice ${s}-${e} at ${where}`);
                        if (i > 0) assert.ok(s > ivs[i - 1][1], `overlap at ${where}`);
                    });
                    // Pins respected.
                    for (const c of run.conductors) if (c.slot !== undefined) assert.equal(slotOf.get(c.name), c.slot, `${c.name}'s pin at ${where}`);
                    // A node the previous run had keeps its slot, unless a re-slice was asked for.
                    if (sp.resliced) {
                        resliced++;
                        assert.ok(run.dhcp.reslice && prev, `re-sliced without the flag at ${where}`);
                    } else if (prev) {
                        assert.equal(sp.slots, prev.slots, `the layout changed without a re-slice at ${where}`);
                        for (const c of run.conductors) {
                            const was: number | undefined = prev.nodes[c.name];
                            if (was === undefined || (c.slot !== undefined && c.slot !== was)) continue;
                            kept++;
                            assert.equal(slotOf.get(c.name), was, `${c.name} moved from slot ${was} at ${where}`);
                        }
                    }
                    // First-fit: every slot below a new node's is held by a node that is not new, or by an earlier new one.
                    sp.slices.forEach((s, i) => {
                        if (s.source !== "new") return;
                        const holders = new Map(sp.slices.filter((x, j) => x.source !== "new" || j < i).map((x) => [x.slot, x.node]));
                        for (let lower = 0; lower < s.slot; lower++) assert.ok(holders.has(lower), `${s.node} took ${s.slot} while ${lower} was free at ${where}`);
                    });
                    // A first run without slots uses the default count.
                    if (!prev && run.dhcp.slots === undefined) assert.equal(sp.slots, defaultDhcpSlots(run.conductors.length), where);
                    previous = nextPrevious(config, previous);
                    assert.deepEqual(previous.dhcpSlots!.nodes, Object.fromEntries([...slotOf].sort(([a], [b]) => a.localeCompare(b))), `state written at ${where}`);
                    dhcp = run.dhcp;
                    conductors = run.conductors;
                }
            }),
            params(),
        );
        assert.ok(accepted > NUM_RUNS && refused > NUM_RUNS / 10 && kept > NUM_RUNS && resliced > 0, `exercised: ${accepted} accepted, ${refused} refused, ${kept} kept slots, ${resliced} re-slices`);
    });

    it("unpinned nodes are never refused for a collision: with room for them, every add/remove/replace sequence is accepted", function () {
        const arb = fc.record({
            names: fc.uniqueArray(nameArb, { minLength: 1, maxLength: 30 }),
            steps: fc.array(fc.record({ add: fc.boolean(), at: fc.nat() }), { maxLength: 20 }),
            initial: fc.integer({ min: 1, max: 5 }),
        });
        fc.assert(
            fc.property(arb, ({ names, steps, initial }) => {
                // A range large enough for 64 slices of 8: only collisions could refuse a run.
                const dhcp: DhcpConfig = { rangeStart: "10.0.0.1", rangeEnd: "10.0.8.0", leaseTime: "1h", minSize: 8, slots: 16, reslice: false, extraRanges: [] };
                const pool = [...names];
                let nodes = pool.splice(0, Math.min(initial, pool.length));
                let previous: PreviousState = {};
                const seen = new Map<string, number>();
                for (const step of [{ add: false, at: -1 }, ...steps]) {
                    if (step.at >= 0 && step.add && pool.length > 0 && nodes.length < 15) nodes = [...nodes, pool.shift()!];
                    else if (step.at >= 0 && !step.add && nodes.length > 1) nodes = nodes.filter((_, i) => i !== step.at % nodes.length);
                    const config = stackConfig(dhcp, nodes.map((name) => ({ name, ip: "172.22.0.2" })));
                    const plan = buildPlan(config, previous);
                    assert.deepEqual(previousStateIssues(plan, previous), [], `refused: ${JSON.stringify(nodes)}`);
                    for (const c of listedConductors(plan)) {
                        if (seen.has(c.node)) assert.equal(c.slot?.index, seen.get(c.node), `${c.node} moved`);
                        seen.set(c.node, c.slot!.index);
                    }
                    for (const gone of [...seen.keys()].filter((n) => !nodes.includes(n))) seen.delete(gone);
                    previous = nextPrevious(config, previous);
                }
            }),
            params(),
        );
    });

    it("the default count: 3 nodes use 3 of 4 slices (≥ 75 % of the range up to the < 4 addresses no slice holds), and a replacement always fits", function () {
        const arb = fc.record({ range: rangeArb.filter((r) => r.total >= 32), n: fc.integer({ min: 1, max: 12 }), victim: fc.nat(), inOneRun: fc.boolean() });
        fc.assert(
            fc.property(arb, ({ range, n, victim, inOneRun }) => {
                const dhcp: DhcpConfig = { rangeStart: range.rangeStart, rangeEnd: range.rangeEnd, leaseTime: "1h", minSize: 1, reslice: false, extraRanges: [] };
                const nodes = [...Array(n).keys()].map((i) => ({ name: `cp-${i}`, ip: "172.22.0.2" }));
                const first = planDhcpSlots(dhcp, nodes);
                assert.deepEqual(first.issues, []);
                assert.equal(first.slots, Math.max(4, n + 1));
                const used = first.slices.length * first.sliceSize;
                if (n === 3) assert.ok(used >= 0.75 * range.total - 3 && used / (first.slots * first.sliceSize) === 0.75, `3 nodes use ${used} of ${range.total}`);
                // Replace one node: remove it and add the new one in one run, or add first and remove after.
                const prev: DhcpSlotsState = { rangeStart: dhcp.rangeStart, rangeEnd: dhcp.rangeEnd, slots: first.slots, nodes: Object.fromEntries(first.slices.map((s) => [s.node, s.slot])) };
                const v = victim % n;
                const replaced = nodes.map((c, i) => (i === v ? { name: "new-node", ip: "172.22.0.9" } : c));
                const steps = inOneRun ? [replaced] : [[...nodes, { name: "new-node", ip: "172.22.0.9" }], replaced];
                let state = prev;
                for (const list of steps) {
                    const p = planDhcpSlots(dhcp, list, state);
                    assert.deepEqual(p.issues, [], `replacing cp-${v}: ${JSON.stringify(p.issues)}`);
                    for (const s of p.slices) if (s.node !== "new-node") assert.equal(s.slot, prev.nodes[s.node], `${s.node} moved`);
                    state = { ...state, nodes: Object.fromEntries(p.slices.map((s) => [s.node, s.slot])) };
                }
            }),
            params(),
        );
    });

    it("the slots tile the range: slot k starts k * sliceSize after rangeStart, the unused rest is at the end", function () {
        fc.assert(
            fc.property(rangeArb, slotsArb, (range, slots) => {
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
});

// ---------------------------------------------------------------------------------------------
// Worked examples

const RANGE = { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209" };
const dhcpOf = (over: Partial<DhcpConfig> = {}): DhcpConfig => ({ ...RANGE, leaseTime: "1h", minSize: 8, reslice: false, ...over, extraRanges: over.extraRanges ?? [] });
const nodes = (...spec: (string | [string, number])[]): ConductorConfig[] =>
    spec.map((s) => (typeof s === "string" ? { name: s, ip: "172.22.0.2" } : { name: s[0], ip: "172.22.0.2", slot: s[1] }));
const table = (p: { slices: { node: string; slot: number; source: string; start: string; end: string }[] }) => p.slices.map((s) => `${s.node}:${s.slot}:${s.source} ${s.start}-${s.end}`);
const stateOf = (p: ReturnType<typeof planDhcpSlots>): DhcpSlotsState => ({ rangeStart: p.rangeStart, rangeEnd: p.rangeEnd, slots: p.slots, nodes: Object.fromEntries(p.slices.map((s) => [s.node, s.slot])) });

describe("DHCP slots: examples", function () {
    it("a first run without slots: one per node plus one, first-fit in config order, 75 % of the range for three nodes", function () {
        const p = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2"));
        assert.deepEqual(p.issues, []);
        assert.deepEqual([p.slots, p.slotsFrom, p.sliceSize, p.unused], [4, "default", 50, 0]);
        assert.deepEqual(table(p), ["cp-0:0:new 172.22.0.10-172.22.0.59", "cp-1:1:new 172.22.0.60-172.22.0.109", "cp-2:2:new 172.22.0.110-172.22.0.159"]);
        assert.deepEqual([defaultDhcpSlots(0), defaultDhcpSlots(1), defaultDhcpSlots(3), defaultDhcpSlots(63), defaultDhcpSlots(80)], [4, 4, 4, 64, 64]);
    });

    it("a 4th node takes the free slot without changing the layout; a 5th needs more slots and a re-slice", function () {
        const first = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2"));
        const four = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2", "cp-3"), stateOf(first));
        assert.deepEqual(four.issues, []);
        assert.deepEqual([four.slots, four.slotsFrom], [4, "previous"]);
        assert.deepEqual(table(four), [...table(first).map((t) => t.replace(":new", ":kept")), "cp-3:3:new 172.22.0.160-172.22.0.209"]);
        const five = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2", "cp-3", "cp-4"), stateOf(four));
        assert.equal(five.issues.length, 1);
        assert.equal(five.issues[0].key, "provisioning.dhcp.slots");
        assert.match(five.issues[0].message, /^5 conductors but only 4 slots \(provisioning\.dhcp\.slots is unset: the count of the previous run, kept\); set provisioning\.dhcp\.slots to at least 6 .* together with provisioning\.dhcp\.reslice: true/);
        // Asked for: every node allocated afresh in the new layout.
        const resliced = planDhcpSlots(dhcpOf({ slots: 8, reslice: true }), nodes("cp-0", "cp-1", "cp-2", "cp-3", "cp-4"), stateOf(four));
        assert.deepEqual(resliced.issues, []);
        assert.equal(resliced.resliced, true);
        assert.deepEqual(resliced.slices.map((s) => `${s.node}:${s.slot}:${s.source}:${s.end}`), ["cp-0:0:new:172.22.0.34", "cp-1:1:new:172.22.0.59", "cp-2:2:new:172.22.0.84", "cp-3:3:new:172.22.0.109", "cp-4:4:new:172.22.0.134"]);
    });

    it("a changed slot count or range is refused without the flag, naming the key, what re-slicing does and how to ask for it", function () {
        const prev = stateOf(planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2")));
        const slots = planDhcpSlots(dhcpOf({ slots: 8 }), nodes("cp-0", "cp-1", "cp-2"), prev);
        assert.deepEqual(slots.issues.map((i) => i.key), ["provisioning.dhcp.slots"]);
        assert.match(slots.issues[0].message, /^was 4 in the previous run, now 8; re-slicing cuts the range anew and moves every conductor's slice: .*a host that is provisioning or inspecting meanwhile may fail its network boot\. To re-slice, wait until no host is provisioning, set provisioning\.dhcp\.reslice: true, run pulumi up, then remove the flag\. Or set it to 4/);
        const range = planDhcpSlots({ ...dhcpOf(), rangeStart: "172.22.0.20", rangeEnd: "172.22.0.250" }, nodes("cp-0", "cp-1", "cp-2"), prev);
        assert.deepEqual(range.issues.map((i) => i.key), ["provisioning.dhcp.rangeStart", "provisioning.dhcp.rangeEnd"]);
        assert.match(range.issues[0].message, /^was 172\.22\.0\.10 in the previous run, now 172\.22\.0\.20; .*Or set it back to 172\.22\.0\.10/);
        // Unset slots keep the previous count: no change, no refusal.
        assert.deepEqual(planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1"), { ...prev, slots: 8 }).issues, []);
    });

    it("the flag left on with an unchanged layout changes nothing", function () {
        const prev: DhcpSlotsState = { ...RANGE, slots: 4, nodes: { "cp-0": 3, "cp-1": 1, "cp-2": 0 } };
        const off = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2"), prev);
        const on = planDhcpSlots(dhcpOf({ reslice: true }), nodes("cp-0", "cp-1", "cp-2"), prev);
        assert.deepEqual(on, off);
        assert.equal(on.resliced, false);
        assert.deepEqual(on.slices.map((s) => [s.node, s.slot, s.source]), [["cp-0", 3, "kept"], ["cp-1", 1, "kept"], ["cp-2", 0, "kept"]]);
    });

    it("removing a node frees its slot for the next new node; a pin wins for its own node", function () {
        const prev: DhcpSlotsState = { ...RANGE, slots: 4, nodes: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } };
        const p = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-2", "cp-9"), prev);
        assert.deepEqual(p.slices.map((s) => [s.node, s.slot, s.source]), [["cp-0", 0, "kept"], ["cp-2", 2, "kept"], ["cp-9", 1, "new"]]);
        const moved = planDhcpSlots(dhcpOf(), nodes(["cp-0", 3], "cp-1", "cp-2"), prev);
        assert.deepEqual(moved.issues, []);
        assert.deepEqual(moved.slices.map((s) => [s.node, s.slot, s.source]), [["cp-0", 3, "pinned"], ["cp-1", 1, "kept"], ["cp-2", 2, "kept"]]);
    });

    it("refuses a pin on a slot another present node keeps, or another pin holds, naming conductors[i].slot and the free slots", function () {
        const prev: DhcpSlotsState = { ...RANGE, slots: 4, nodes: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } };
        const p = planDhcpSlots(dhcpOf(), nodes("cp-0", "cp-1", "cp-2", ["cp-3", 1]), prev);
        assert.deepEqual(p.issues.map((i) => i.key), ["conductors[3].slot"]);
        assert.equal(
            p.issues[0].message,
            "slot 1 is held by node cp-1 (conductors[1]) since the previous run; pinning node cp-3 there would move cp-1's slice and the leases in it. Pin cp-3 to a free slot (free: 3), or remove cp-1 from conductors in an earlier run",
        );
        assert.equal(p.slices.find((s) => s.node === "cp-1")!.slot, 1, "cp-1 is not moved");
        const twice = planSlices({ ...RANGE, slots: 8, minSize: 8, conductors: [{ name: "a", slot: 4 }, { name: "b", slot: 4 }] });
        assert.deepEqual(twice.issues.map((i) => i.key), ["conductors[1].slot"]);
        assert.match(twice.issues[0].message, /^node b and node a \(conductors\[0\]\) are both pinned to slot 4; .*\(free: 0, 1, 2, 3, 5, 6, 7\)$/);
        const missing = planDhcpSlots(dhcpOf(), nodes("cp-0", ["cp-1", 5]));
        assert.deepEqual(missing.issues.map((i) => [i.key, i.message]), [["conductors[1].slot", "slot 5 does not exist: slots are 0-3 (provisioning.dhcp.slots is unset: the default for 2 listed conductors, 4 or one more than their number)"]]);
    });

    it("replacing a node by one pinned to its slot, in one run, hands the slice over", function () {
        const prev: DhcpSlotsState = { ...RANGE, slots: 4, nodes: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } };
        const p = planDhcpSlots(dhcpOf(), nodes("cp-0", ["cp-1-new", 1], "cp-2"), prev);
        assert.deepEqual(p.issues, []);
        assert.deepEqual(table(p), ["cp-0:0:kept 172.22.0.10-172.22.0.59", "cp-1-new:1:pinned 172.22.0.60-172.22.0.109", "cp-2:2:kept 172.22.0.110-172.22.0.159"]);
    });

    it("slices too small for minSize are reported with the count's origin", function () {
        const small = planSlices({ ...RANGE, slots: 64, minSize: 8, conductors: [{ name: "a" }] } as SliceRequest);
        assert.deepEqual(small.issues.map((i) => [i.key, i.message]), [
            ["provisioning.dhcp", "range 172.22.0.10-172.22.0.209 (200 addresses) cut into 64 slots (provisioning.dhcp.slots = 64) gives 3 per conductor; at least 8 are needed. Widen the range, lower provisioning.dhcp.slots, or lower provisioning.dhcp.minSize"],
        ]);
    });
});

describe("plan/slices: IPv6 ranges", function () {
    it("cuts an IPv6 range into disjoint, contiguous, stable slices, even a whole /64 (beyond 2^53 addresses)", function () {
        const req = { rangeStart: "fd00:1::1000", rangeEnd: "fd00:1::1fff", slots: 4, minSize: 8, conductors: [{ name: "a" }, { name: "b" }, { name: "c" }] };
        const p = planSlices(req);
        assert.deepEqual(p.issues, []);
        assert.deepEqual(p.slices.map((s) => [s.node, s.start, s.end, s.size]), [
            ["a", "fd00:1::1000", "fd00:1::13ff", 1024],
            ["b", "fd00:1::1400", "fd00:1::17ff", 1024],
            ["c", "fd00:1::1800", "fd00:1::1bff", 1024],
        ]);
        assert.deepEqual(planSlices({ ...req, remembered: { c: 3 } }).slices.find((s) => s.node === "c")!.start, "fd00:1::1c00", "a remembered slot keeps its slice");
        const wide = sliceBounds("fd00:1::", "fd00:1::ffff:ffff:ffff:ffff", 4, 3);
        assert.deepEqual([wide.start, wide.end], ["fd00:1:0:0:c000::", "fd00:1::ffff:ffff:ffff:ffff"]);
    });
});
