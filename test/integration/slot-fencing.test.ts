/**
 * The DHCP slot agent's fencing under faults, on the fast fake Lease API (test/helpers/lease-fake.ts):
 * the real agent (assets/dhcp-slot-agent.py, Python) supervising a dnsmasq stand-in that records
 * its own start and stop. The shared cases (test/helpers/fencing-cases.ts) also run against the
 * real kube-apiserver in test/e2e/slot-leases.test.ts; the ones here need the fake's control: a pin removed while waiting, a
 * slot refused for good, a claim answered slowly while the agent is asked to stop, the exact moment
 * a waiter saw a dead holder's last renewal, and every request the agents made (their verbs).
 *
 * Timings are short (a Lease of 1 s) so that each case takes seconds; the agent refuses timings
 * that break the fencing inequality, and these keep its proportions.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { slotRole } from "../../core/manifests/slots";
import { fakeBackend, FAKE_SLACK, FENCING_CASES, lastWrite, livenessAllowance, MAX_SCHEDULING_ALLOWANCE, takenWithin } from "../helpers/fencing-cases";
import { LeaseFake } from "../helpers/lease-fake";
import { AGENT_SCRIPT, FAST, PYTHON, SlotAgentLab, SlotTimings, sleep, takeoverBound, waitFor } from "../helpers/slot-agents";
import { requireOrSkip, tmpDir, which } from "../helpers/sys";

const NS = "slots";
const TOKEN = "fake-token";
/** Answer times and scheduling on a busy 2-core machine, on top of the bound. */
const SLACK = FAKE_SLACK;

describe("DHCP slot agent fencing under faults, on a fake Lease API (dhcp-slot-agent.py)", function () {
    this.timeout(60000);
    let dir = "";
    let fake: LeaseFake;
    const labs: SlotAgentLab[] = [];
    let n = 0;
    const methods = new Set<string>();

    before(function () {
        requireOrSkip(this, !!which(PYTHON) && !!which("bash"), "python3, bash");
        dir = tmpDir("fencing");
        fs.writeFileSync(path.join(dir, "token"), TOKEN, { mode: 0o600 });
        console.log(`      agent: ${AGENT_SCRIPT}`);
    });
    beforeEach(async function () {
        fake = new LeaseFake(NS, TOKEN);
        await fake.listen();
    });
    afterEach(async function () {
        if (this.currentTest?.state === "failed") for (const l of labs) console.log(l.dump());
        // Every lab of the test, not only the last: a test with two labs left the first one's
        // agent running, which kept mocha (and CI's lane) waiting for good.
        for (const l of labs.splice(0)) l.cleanup();
        for (const r of fake.log) methods.add(r.method);
        await fake.close();
    });
    after(function () {
        if (dir && process.env.KEEP_WORK !== "1") fs.rmSync(dir, { recursive: true, force: true });
    });

    const newLab = (count: number, timing: SlotTimings = FAST) => {
        const l = new SlotAgentLab(dir, { url: (id) => fake.url(id), tokenFile: path.join(dir, "token"), namespace: NS, prefix: `f${n++}-`, count, timing, probe: true });
        labs.push(l);
        return l;
    };

    for (const c of FENCING_CASES) {
        it(c.name, async function () {
            const l = newLab(1);
            await c.run({ backend: fakeBackend(fake, path.join(dir, "token")), lab: l, timing: FAST, prefix: l.o.prefix });
        });
    }

    it("the takeover check is no formality: a waiter that claims a dead holder's slot 2 s later than its timings allow fails it, scheduling allowance and all", async function () {
        const l = newLab(1);
        const c = { backend: fakeBackend(fake, path.join(dir, "token")), lab: l, timing: FAST, prefix: l.o.prefix };
        l.start("a");
        await waitFor("a to run its child on slot 0", () => l.running(0).some((r) => r.id === "a"), 10000);
        // The late waiter: it waits CLAIM_MARGIN + 2 s where the bound counts CLAIM_MARGIN.
        const B = l.start("b", { timing: { claimMargin: FAST.claimMargin + 2 } });
        await waitFor("b to wait", () => B.status() === "waiting", 5000);
        l.killGroup("a");
        const killed = Date.now() / 1000;
        const last = lastWrite(c, "a", `${l.o.prefix}0`);
        await assert.rejects(takenWithin(c, "b", 0, killed, last, "late waiter"), /late waiter: slot 0 taken over by b [\d.]+ s after the reference point; bound 1\.60 s \+ answers 0\.4 s \+ scheduling [\d.]+ s/);
        // It failed on time, not for want of a takeover: b did take the slot, late.
        const taken = l.firstStart(0, killed);
        assert.ok(taken && taken.id === "b" && taken.from - last > takeoverBound(FAST) + 1.5, `b took slot 0 ${taken ? (taken.from - last).toFixed(2) : "never"} s after a's last renewal`);
        l.assertNeverTwo();
    });

    it("a waiting agent re-reads its preferences: once its pin is removed it takes a free slot", async function () {
        const l = newLab(2);
        l.start("x", { node: "nx", preferences: { pinned: {}, remembered: { nx: 1 } } });
        await waitFor("x on slot 1", () => l.running(1).length === 1, 10000);
        const p = l.start("p", { node: "np", preferences: { pinned: { np: 1 }, remembered: {} } });
        await waitFor("p to wait for its pinned slot", () => p.status() === "waiting", 5000);
        await sleep(FAST.retryPeriod * 5000);
        assert.equal(l.running(0).length, 0, "slot 0 stays free while p is pinned to slot 1");
        p.setPreferences({ pinned: {}, remembered: {} });
        const unpinned = Date.now() / 1000;
        const bound = 2 * FAST.retryPeriod + FAST.renewDeadline + FAST.stopGrace + FAST.claimMargin;
        const r = await waitFor("p to take the free slot 0", () => l.runs().find((x) => x.id === "p"), (bound + SLACK + MAX_SCHEDULING_ALLOWANCE + 5) * 1000);
        assert.equal(r.slot, 0);
        const { allowed, why } = await livenessAllowance(l, SLACK, unpinned, r.from);
        assert.ok(r.from - unpinned <= bound + allowed, `p served slot 0 ${(r.from - unpinned).toFixed(2)} s after its pin was removed; bound ${bound.toFixed(2)} s + ${why}`);
        l.assertNeverTwo();
    });

    it("a slot that always fails (403) does not keep an agent from the others: one known to be another node's is skipped at once; one that may be its own is asked for alone as long as a Lease takes to expire, then skipped", async function () {
        // Two slots released by other nodes; a webhook refuses every write to slot 0.
        const l = newLab(2);
        fake.seed(`${l.o.prefix}0`, "n-x");
        fake.seed(`${l.o.prefix}1`, "n-y");
        fake.readOnly.add(`${l.o.prefix}0`);
        const started = Date.now() / 1000;
        l.start("f");
        const bound = 2 * FAST.retryPeriod + SLACK;
        const r = await waitFor("f to serve slot 1", () => l.runs().find((x) => x.id === "f"), (bound + MAX_SCHEDULING_ALLOWANCE + 5) * 1000);
        assert.equal(r.slot, 1);
        // 0.5 s for the agent's own start (Python), as the two checks below.
        const first = await livenessAllowance(l, 0.5, started, r.from);
        assert.ok(r.from - started <= bound + first.allowed, `served slot 1 ${(r.from - started).toFixed(2)} s after it started; bound ${bound.toFixed(2)} s + start-up ${first.why}`);
        // A slot it cannot even read (it may be this node's own, as is the one remembered for it):
        // asked for alone first, for as long as a Lease takes to expire (a passing API error must
        // not move a node's slice), then skipped.
        const m = newLab(2);
        fake.forbidden.add(`${m.o.prefix}0`);
        const t0 = Date.now() / 1000;
        m.start("g", { node: "ng", preferences: { pinned: {}, remembered: { ng: 0 } } });
        const patience = FAST.leaseDuration + FAST.claimMargin + 2 * FAST.retryPeriod;
        const created = FAST.renewDeadline + FAST.stopGrace + FAST.claimMargin;
        const g = await waitFor("g to serve slot 1", () => m.runs().find((x) => x.id === "g"), (patience + created + MAX_SCHEDULING_ALLOWANCE + 5) * 1000);
        assert.equal(g.slot, 1);
        assert.ok(g.from - t0 >= patience, `g moved to slot 1 ${(g.from - t0).toFixed(2)} s after it started: too soon for its own slot`);
        const second = await livenessAllowance(m, 0.5, t0, g.from);
        assert.ok(g.from - t0 <= patience + created + bound + second.allowed, `g served slot 1 ${(g.from - t0).toFixed(2)} s after it started; bound ${(patience + created + bound).toFixed(2)} s + start-up ${second.why}`);
    });

    it("SIGTERM while a claim is on its way never starts the child; the Lease got is released", async function () {
        // A retry period (a claim's time limit) long enough for a slow answer to still count.
        const l = newLab(1, { leaseDuration: 2, renewDeadline: 1.2, retryPeriod: 0.6, claimMargin: 0.5, stopGrace: 0.25 });
        let asked = 0;
        fake.policy = (r) => (r.kind === "create" || r.kind === "claim" ? (asked++, { kind: "slow", ms: 450 }) : undefined);
        const a = l.start("a");
        await waitFor("a's claim", () => asked > 0, 5000, 5);
        a.signal("SIGTERM");
        const code = await a.exited(10000);
        assert.equal(code, 0, a.log());
        // A child TERMed as it starts may die before it writes a record: its start is in the agent's log.
        assert.deepEqual(l.runs(), [], "no child ran");
        assert.doesNotMatch(a.log(), /held: started/, "no child started");
        assert.equal(fake.get(`${l.o.prefix}0`)?.spec.holderIdentity, undefined, "released");
    });

    it("a dead holder's slot is taken the Lease's duration plus the margin after a waiter first saw its last renewal, not a retry period later; within the bound of its last renewal", async function () {
        // A retry period that does not divide duration + margin: a waiter that looks only every retry period comes late.
        const timing: SlotTimings = { leaseDuration: 1, renewDeadline: 0.5, retryPeriod: 0.4, claimMargin: 0.3, stopGrace: 0.25 };
        const l = newLab(1, timing);
        l.start("a");
        await waitFor("a to serve", () => l.running(0).length === 1, 10000);
        const b = l.start("b");
        await waitFor("b to wait", () => b.status() === "waiting", 5000);
        const renewals = () => fake.log.filter((r) => r.agent === "a" && r.kind === "renew" && r.status === 200).length;
        const before = renewals();
        await waitFor("a renewal", () => renewals() > before, 5000, 2);
        l.killGroup("a");
        const last = fake.log.filter((r) => r.agent === "a" && r.status === 200 && r.method === "PUT").pop()!.t;
        const run = await waitFor("b to serve", () => l.runs().find((r) => r.id === "b"), 10000);
        const seen = fake.log.find((r) => r.agent === "b" && r.method === "GET" && r.t > last)!.t;
        const claim = fake.log.find((r) => r.agent === "b" && r.kind === "claim")!.t;
        const expiry = timing.leaseDuration + timing.claimMargin;
        console.log(`      b first saw a's last renewal ${(seen - last).toFixed(2)} s after it landed, claimed ${(claim - seen).toFixed(3)} s after that (duration + margin ${expiry} s), served ${(run.from - last).toFixed(2)} s after the last renewal (bound ${takeoverBound(timing).toFixed(2)} s)`);
        assert.ok(claim - seen >= expiry, "not before the Lease expired on b's clock");
        // One wake-up late at most (the machine's, measured, at most 0.1 s more): a waiter that looked only every retry period would be up to 0.4 s late.
        const wake = await livenessAllowance(l, 0.1, seen, claim, 1, 0.1);
        assert.ok(claim - seen <= expiry + wake.allowed, `claimed ${(claim - seen - expiry).toFixed(3)} s after the Lease expired on b's clock; allowed ${wake.why}`);
        const { allowed, why } = await livenessAllowance(l, SLACK, last, run.from);
        assert.ok(run.from - last <= takeoverBound(timing) + allowed, `served ${(run.from - last).toFixed(2)} s after a's last renewal; bound ${takeoverBound(timing).toFixed(2)} s + ${why}`);
        l.assertNeverTwo();
    });

    it("the agents used only the verbs the rendered Role grants (get, create, update)", function () {
        const verbs = new Set((slotRole({ namespace: NS, name: "x", leaseNames: [], labels: {} }).rules as { verbs: string[] }[]).flatMap((r) => r.verbs));
        const used = new Set([...methods].map((m) => ({ GET: "get", POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" })[m] ?? m));
        assert.deepEqual([...used].sort(), ["create", "get", "update"]);
        assert.deepEqual([...verbs].sort(), [...used].sort(), "the Role grants exactly what the agents use");
    });
});
