/**
 * The fencing cases of the DHCP slot agent, run by the fast fake (test/integration/slot-fencing.test.ts)
 * and, through a TLS proxy, by the real kube-apiserver of the local cluster (test/e2e/slot-leases.test.ts):
 * a holder whose answers trickle, are late, lost or torn, an agent SIGKILLed alone or stopped, a
 * Lease deleted while held or touched all the time, two waiters racing. Each case asserts, from
 * the children's own records, that no two children ever ran for one slot, and that the slot was
 * taken over within the bound docs/topologies.md derives from the timings (takeoverBound) plus the
 * backend's answer times (`slack`) and the machine's measured scheduling delay (`livenessAllowance`).
 */
import { strict as assert } from "assert";

import type { Fault, FaultPolicy } from "./lease-faults";
import type { LeaseFake } from "./lease-fake";
import { SlotAgent, SlotAgentLab, sleep, SlotTimings, takeoverBound, waitFor } from "./slot-agents";

export interface AppliedWrite {
    t: number;
    agent: string;
    kind: string;
    name: string;
}

export interface FencingBackend {
    namespace: string;
    tokenFile: string;
    caFile?: string;
    /** Seconds a takeover may take beyond the bound: the answers of the requests in its chain, and scheduling. */
    slack: number;
    url(agent: string): string;
    setPolicy(p: FaultPolicy): void;
    /** Writes that were applied (arrival time), oldest first. */
    writes(): AppliedWrite[];
    /** Arrival time of `agent`'s first request (of any verb, answered or not), undefined before it made one. */
    firstRequest(agent: string): number | undefined;
    deleteLease(name: string): Promise<void>;
    touchLease(name: string): Promise<void>;
    /** Holder of Lease `name`, "" when none or no Lease. */
    holder(name: string): Promise<string>;
    /** Ends faulted answers still held open (stalled, trickling). */
    heal(): void;
}

export interface FencingContext {
    backend: FencingBackend;
    lab: SlotAgentLab;
    timing: SlotTimings;
    prefix: string;
}

export interface FencingCase {
    name: string;
    run(c: FencingContext): Promise<void>;
}

const lease = (c: FencingContext, slot = 0) => `${c.prefix}${slot}`;

/** Time of the last applied write (claim or renewal) of `agent`'s to `name`. */
export function lastWrite(c: FencingContext, agent: string, name: string): number {
    const w = c.backend.writes().filter((x) => x.agent === agent && x.name === name && x.kind !== "get" && x.kind !== "release");
    assert.ok(w.length > 0, `${agent} wrote ${name}`);
    return w[w.length - 1].t;
}

/** A holds slot 0 (its child runs), B waits for it. */
async function holderAndWaiter(c: FencingContext, a = "a", b = "b"): Promise<[SlotAgent, SlotAgent]> {
    const A = c.lab.start(a);
    const t = c.timing;
    const bound = (t.renewDeadline + t.stopGrace + t.claimMargin + 2 * t.retryPeriod) * 1000 + 5000;
    await waitFor(`${a} to run its child on slot 0`, () => c.lab.running(0).some((r) => r.id === a), bound);
    const B = c.lab.start(b);
    await waitFor(`${b} to wait`, () => B.status() === "waiting", 5000 + t.retryPeriod * 4000);
    return [A, B];
}

/** Steps of a takeover that wait for the CPU like a probe sample (a wake-up, then a process to start): the waiter's claim and its child's start. */
const SCHEDULED_STEPS = 2;
/**
 * Past this the machine is too busy for a liveness bound to mean anything: the check fails rather
 * than excuse more. Half a second: a takeover a whole retry period or more late still fails on a
 * machine this busy.
 */
export const MAX_SCHEDULING_ALLOWANCE = 0.5;

/**
 * What a liveness bound allows beyond the takeover bound over [from, to]: the backend's answers
 * (`slack`) and the machine's scheduling, measured by the lab's probe (SlotAgentLab.probe: a
 * scheduled wake-up that starts bash, apart from the agents) over that window: `steps` times its
 * worst sample, at most `cap`. Only liveness gets it: that no two children ever run for one slot
 * and that a fence stops its child in time are checked with no allowance at all.
 */
export async function livenessAllowance(lab: SlotAgentLab, slack: number, from: number, to: number, steps = SCHEDULED_STEPS, cap = MAX_SCHEDULING_ALLOWANCE): Promise<{ allowed: number; why: string }> {
    if (!lab.probe) throw new Error("livenessAllowance: the lab runs no scheduling probe (SlotAgentLab option probe)");
    const late = await lab.probe.worst(from, to);
    const scheduling = Math.min(cap, steps * late);
    return { allowed: slack + scheduling, why: `answers ${slack} s + scheduling ${scheduling.toFixed(2)} s (a probe sample up to ${(late * 1000).toFixed(0)} ms late)` };
}

/**
 * Waits for `who` (anyone when undefined) to run a child on `slot` started at or after `since`, and
 * asserts that it started within the takeover bound (plus the liveness allowance) of `from`.
 */
export async function takenWithin(c: FencingContext, who: string | undefined, slot: number, since: number, from: number, what: string) {
    const bound = takeoverBound(c.timing);
    const r = await waitFor(`${what}: a new child on slot ${slot}`, () => c.lab.runs().find((x) => x.slot === slot && x.from >= since && (who === undefined || x.id === who)), (bound + c.backend.slack + MAX_SCHEDULING_ALLOWANCE + 5) * 1000);
    const took = r.from - from;
    const { allowed, why } = await livenessAllowance(c.lab, c.backend.slack, from, r.from);
    assert.ok(took <= bound + allowed, `${what}: slot ${slot} taken over by ${r.id} ${took.toFixed(2)} s after the reference point; bound ${bound.toFixed(2)} s + ${why}`);
    console.log(`      ${what}: taken ${took.toFixed(2)} s after the reference point; allowed: bound ${bound.toFixed(2)} s + ${why}`);
    return { run: r, took };
}

const renewalsOf =
    (agent: string, f: Fault): FaultPolicy =>
    (r) =>
        r.agent === agent && r.kind === "renew" ? f : undefined;

export const FENCING_CASES: FencingCase[] = [
    {
        name: "trickled answers: a renewal whose answer dribbles in a byte at a time (the holder then cut off) is cut off at the renew deadline, its child stopped before the slot is taken over",
        async run(c) {
            const [, B] = await holderAndWaiter(c);
            const t = c.timing;
            // The next renewal lands and its answer comes a byte at a time, each well within a read
            // timeout; nothing of the holder's gets through after it.
            let trickled = false;
            c.backend.setPolicy((r) => {
                if (r.agent !== "a") return undefined;
                if (trickled) return { kind: "blackhole" };
                if (r.kind !== "renew") return undefined;
                trickled = true;
                return { kind: "trickle", everyMs: (t.renewDeadline * 1000) / 5 };
            });
            const since = Date.now() / 1000;
            // A's trickled renewal landed (the API applied it): B counts from there.
            await waitFor("a trickled renewal", () => c.backend.writes().some((w) => w.agent === "a" && w.t >= since), 10000);
            const { took } = await takenWithin(c, B.id, 0, since, lastWrite(c, "a", lease(c)), "trickle");
            c.lab.assertNeverTwo();
            const stopped = c.lab.runs().find((r) => r.id === "a")!;
            assert.ok(stopped.to !== Infinity && stopped.to - since <= t.renewDeadline + t.stopGrace + c.backend.slack, `a's child stopped ${(stopped.to - since).toFixed(2)} s after its answers began to trickle`);
            console.log(`      trickle: holder's child stopped ${(stopped.to - since).toFixed(2)} s after its answers began to trickle; slot taken ${took.toFixed(2)} s after its last renewal landed`);
        },
    },
    {
        name: "delayed claim answers: a create answered slowly never serves past the renew deadline counted from when the create was sent",
        async run(c) {
            const t = c.timing;
            // A's create lands at once and its answer comes in slowly, whole this late; every later request of A's hangs (it is cut off).
            const late = (t.leaseDuration + t.claimMargin - t.renewDeadline + 3 * t.retryPeriod) * 1000;
            let claimed = false;
            c.backend.setPolicy((r) => {
                if (r.agent !== "a") return undefined;
                if (claimed) return { kind: "blackhole" };
                if (r.kind === "create" || r.kind === "claim") {
                    claimed = true;
                    return { kind: "slow", ms: late };
                }
                return undefined;
            });
            c.lab.start("a");
            await waitFor("a's create", () => claimed && c.backend.writes().some((w) => w.agent === "a"), 10000);
            const created = lastWrite(c, "a", lease(c));
            const B = c.lab.start("b");
            // The bound counts from the create or, if later, from b's first look: b is started only
            // now, and its interpreter's start is no part of the promise (under two suites at once it
            // took 0.6 s, which failed this case when it counted from the create).
            const looked = await waitFor("b's first request", () => c.backend.firstRequest("b"), 10000);
            const from = Math.max(created, looked);
            const { took } = await takenWithin(c, B.id, 0, created, from, "delayed create answer");
            await sleep(t.retryPeriod * 2000);
            c.lab.assertNeverTwo();
            console.log(`      delayed create answer (${(late / 1000).toFixed(2)} s): slot taken ${took.toFixed(2)} s after the create landed; the late holder ran ${c.lab.runs().filter((r) => r.id === "a").length} children`);
        },
    },
    {
        name: "lost renewal answers: renewals that land with their answers lost never let a child outlive its fence, and the holder serves again once answers come back",
        async run(c) {
            const [A] = await holderAndWaiter(c);
            const t = c.timing;
            c.backend.setPolicy(renewalsOf("a", { kind: "lose" }));
            const since = Date.now() / 1000;
            await sleep((t.leaseDuration + t.claimMargin) * 2000);
            c.backend.setPolicy(() => undefined);
            const healed = Date.now() / 1000;
            c.lab.assertNeverTwo();
            // Whoever holds it, slot 0 is served again within the bound.
            // The run that was seen serving, kept: read again, it may have stopped since (a loaded machine).
            const back = await waitFor(
                "slot 0 served again",
                () => {
                    const runs = c.lab.running(0);
                    return runs.length === 1 && runs[0].from >= since - 1 ? runs[0] : undefined;
                },
                (takeoverBound(t) + c.backend.slack + MAX_SCHEDULING_ALLOWANCE + 5) * 1000,
            );
            const { allowed, why } = await livenessAllowance(c.lab, c.backend.slack, healed, back.from);
            assert.ok(back.from - healed <= takeoverBound(t) + allowed || back.from < healed, `served again ${(back.from - healed).toFixed(2)} s after answers came back; bound ${takeoverBound(t).toFixed(2)} s + ${why}`);
            assert.ok(A.running, "the holder kept running");
            c.lab.assertNeverTwo();
        },
    },
    {
        name: "torn answers: cut status lines, short bodies, cut JSON and answers that are no Lease neither crash an agent nor let two children run",
        async run(c) {
            const [A, B] = await holderAndWaiter(c);
            const t = c.timing;
            const hows = ["status", "body", "json", "not-lease"] as const;
            let n = 0;
            // Every other request of both agents is torn, each way in turn.
            c.backend.setPolicy((r) => (r.agent === "a" || r.agent === "b") && n++ % 2 === 0 ? { kind: "tear", how: hows[Math.floor(n / 2) % hows.length] } : undefined);
            await sleep((t.leaseDuration + t.claimMargin) * 2000);
            c.backend.setPolicy(() => undefined);
            c.lab.assertNeverTwo();
            assert.ok(A.running, `a survived torn answers:\n${A.log().slice(-2000)}`);
            assert.ok(B.running, `b survived torn answers:\n${B.log().slice(-2000)}`);
            await waitFor("slot 0 served", () => c.lab.running(0).length === 1, (takeoverBound(t) + c.backend.slack + MAX_SCHEDULING_ALLOWANCE + 5) * 1000);
            c.lab.assertNeverTwo();
        },
    },
    {
        name: "an agent SIGKILLed alone (its container; dnsmasq's runs on): its fence stops the child at the renew deadline of its last renewal, before the slot is taken over",
        async run(c) {
            const [A, B] = await holderAndWaiter(c);
            const t = c.timing;
            A.signal("SIGKILL");
            const killed = Date.now() / 1000;
            const { took } = await takenWithin(c, B.id, 0, killed, lastWrite(c, "a", lease(c)), "SIGKILL alone");
            c.lab.assertNeverTwo();
            const a = c.lab.runs().find((r) => r.id === "a")!;
            const last = lastWrite(c, "a", lease(c));
            assert.ok(a.to - last <= t.renewDeadline + t.stopGrace + c.backend.slack, `a's child stopped ${(a.to - last).toFixed(2)} s after its agent's last renewal landed`);
            assert.ok(A.fence.running, "the fence (dnsmasq's container) runs on, idle");
            console.log(`      agent SIGKILLed: its child stopped ${(a.to - killed).toFixed(2)} s after the kill, ${(a.to - last).toFixed(2)} s after its last renewal; slot taken ${took.toFixed(2)} s after that renewal landed`);
        },
    },
    {
        name: "an agent restarted alone (its container; dnsmasq's runs on): it takes its own Lease back at once, not after expiry, and its fence serves the slot on; never two children",
        async run(c) {
            const [A, B] = await holderAndWaiter(c);
            const t = c.timing;
            const first = c.lab.running(0)[0];
            A.signal("SIGKILL");
            assert.notEqual(await A.exited(5000), "running");
            const restarted = Date.now() / 1000;
            const again = c.lab.start("a");
            await waitFor("a to hold slot 0 again", () => again.status() === "slot 0", (t.leaseDuration + 5) * 1000);
            const back = Date.now() / 1000 - restarted;
            assert.ok(back < t.leaseDuration + t.claimMargin, `a held slot 0 again ${back.toFixed(2)} s after its restart: its own Lease, not a takeover after expiry`);
            await sleep((t.leaseDuration + t.claimMargin + 2 * t.retryPeriod) * 1000);
            c.lab.assertNeverTwo();
            assert.equal(await c.backend.holder(lease(c)), "a");
            assert.equal(B.status(), "waiting");
            assert.ok(c.lab.runs().every((r) => r.id === "a"), "b never ran a child");
            const now = c.lab.running(0);
            assert.equal(now.length, 1, "slot 0 served");
            // Restarted within the renew deadline, the same child runs on; later, the fence stopped it and starts it anew.
            console.log(`      agent restarted: slot 0 held again after ${back.toFixed(2)} s; ${now[0].pid === first.pid ? "the same child ran on" : "its child was started again"}`);
        },
    },
    {
        name: "SIGSTOP/SIGCONT: a stopped agent's child is stopped at the renew deadline by its fence; continued, the agent does not serve again while another holds the slot",
        async run(c) {
            const [A, B] = await holderAndWaiter(c);
            const t = c.timing;
            A.signal("SIGSTOP");
            const stoppedAt = Date.now() / 1000;
            try {
                const { took } = await takenWithin(c, B.id, 0, stoppedAt, lastWrite(c, "a", lease(c)), "SIGSTOP");
                const a = c.lab.runs().find((r) => r.id === "a")!;
                assert.ok(a.to - lastWrite(c, "a", lease(c)) <= t.renewDeadline + t.stopGrace + c.backend.slack, `a's child stopped ${(a.to - stoppedAt).toFixed(2)} s after its agent was stopped`);
                console.log(`      agent stopped: its child stopped ${(a.to - stoppedAt).toFixed(2)} s later; slot taken ${took.toFixed(2)} s after its last renewal landed`);
            } finally {
                A.signal("SIGCONT");
            }
            await sleep((t.renewDeadline + 2 * t.retryPeriod) * 1000);
            c.lab.assertNeverTwo();
            assert.equal(c.lab.runs().filter((r) => r.id === "a").length, 1, "a did not start a child again");
            assert.equal(await c.backend.holder(lease(c)), "b");
        },
    },
    {
        name: "a Lease deleted while held (its holder's network slow): the agent that creates it anew serves only once the old holder's fence has fired",
        async run(c) {
            const [, B] = await holderAndWaiter(c);
            c.backend.setPolicy((r) => (r.agent === "a" ? { kind: "blackhole" } : undefined));
            const deleted = Date.now() / 1000;
            await c.backend.deleteLease(lease(c));
            // Nobody waits for a deleted Lease's holder: the bound counts from the delete.
            const { took } = await takenWithin(c, B.id, 0, deleted, deleted, "deleted Lease");
            c.lab.assertNeverTwo();
            console.log(`      deleted while held: slot taken ${took.toFixed(2)} s after the delete`);
        },
    },
    {
        name: "metadata churn: a dead holder's Lease touched (annotations) all the time is still taken over within the bound",
        async run(c) {
            const [, B] = await holderAndWaiter(c);
            const t = c.timing;
            c.lab.killGroup("a");
            const killed = Date.now() / 1000;
            const last = lastWrite(c, "a", lease(c));
            let churning = true;
            const churn = (async () => {
                while (churning) {
                    await c.backend.touchLease(lease(c)).catch(() => undefined);
                    await sleep(((t.leaseDuration + t.claimMargin) * 1000) / 4);
                }
            })();
            try {
                const { took } = await takenWithin(c, B.id, 0, killed, last, "metadata churn");
                console.log(`      touched every ${((t.leaseDuration + t.claimMargin) / 4).toFixed(2)} s: slot taken ${took.toFixed(2)} s after the dead holder's last renewal`);
            } finally {
                churning = false;
                await churn;
            }
            c.lab.assertNeverTwo();
        },
    },
    {
        name: "two waiters racing for a dead holder's slot: one takes it, within the bound; never two children",
        async run(c) {
            const [, B] = await holderAndWaiter(c);
            const C = c.lab.start("c");
            await waitFor("c to wait", () => C.status() === "waiting", 10000);
            c.lab.killGroup("a");
            const killed = Date.now() / 1000;
            const { run } = await takenWithin(c, undefined, 0, killed, lastWrite(c, "a", lease(c)), "two waiters");
            assert.ok([B.id, C.id].includes(run.id));
            await sleep(c.timing.retryPeriod * 4000);
            c.lab.assertNeverTwo();
            assert.equal(c.lab.running(0).length, 1);
            assert.equal(await c.backend.holder(lease(c)), run.id);
        },
    },
];

/** The fake's answers take well under a millisecond; this is scheduling on a busy 2-core machine. */
export const FAKE_SLACK = 0.4;

/** The fast fake (lease-fake.ts) as a fencing backend. */
export function fakeBackend(fake: LeaseFake, tokenFile: string): FencingBackend {
    return {
        namespace: fake.namespace,
        tokenFile,
        slack: FAKE_SLACK,
        url: (id) => fake.url(id),
        setPolicy: (p) => (fake.policy = p),
        writes: () => fake.log.filter((r) => r.method !== "GET" && r.status >= 200 && r.status < 300).map((r) => ({ t: r.t, agent: r.agent, kind: r.kind, name: r.name })),
        firstRequest: (agent) => fake.log.find((r) => r.agent === agent)?.t,
        deleteLease: async (n) => fake.delete(n),
        touchLease: async (n) => fake.touch(n),
        holder: async (n) => fake.get(n)?.spec.holderIdentity ?? "",
        heal: () => fake.heal(),
    };
}
