/**
 * Random schedules of faults for DHCP slot agents (assets/dhcp-slot-agent.py) on the fast fake
 * Lease API: each run draws, from its seed, a few agents and slots and, for a short spell of chaos,
 * answers that are late, lost, cut, torn or dribbled in, requests that never arrive, agents killed
 * alone or with their children, stopped and continued, stopped cleanly, restarted, Leases deleted
 * or touched. Then the faults end, and every slot must be served again within the takeover bound
 * (docs/topologies.md) plus a restart's start-up; a seed that misses it among the runs at once is
 * run again alone, and must meet it then. Throughout, from the children's own records, no two
 * children may ever run for one slot: that is never run again.
 *
 * Reproducible by seed (the schedule, not the machine's timing): a failure prints its seed, its
 * schedule and every agent's log. SLOT_SCHEDULE_SEED=<first seed>, SLOT_SCHEDULE_RUNS=<runs>,
 * SLOT_SCHEDULE_PARALLEL=<runs at a time> (the defaults: a seed from the clock, 200, 8).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { monitorEventLoopDelay } from "perf_hooks";

import type { Fault } from "../helpers/lease-faults";
import { FakeHost, FaultWindow } from "../helpers/lease-fake-host";
import { AGENT_SCRIPT, PYTHON, SlotAgentLab, SlotTimings, sleep, takeoverBound } from "../helpers/slot-agents";
import { requireOrSkip, tmpDir, which } from "../helpers/sys";

const NS = "slots";
const TOKEN = "fake-token";
/**
 * A Lease of 1 s (the API's unit); the rest short, with room for a busy machine: every request may
 * take the agent's limit of half the renew deadline (0.4 s) and still count.
 */
const TIMING: SlotTimings = { leaseDuration: 1, renewDeadline: 0.8, retryPeriod: 0.2, claimMargin: 0.5, stopGrace: 0.25 };
const CHAOS = 1.2;
/**
 * After the faults end: the bound, then a retry period for an agent that had given up a slot, and
 * 4 s for an agent restarted then to start (Python on a busy 2-core machine, eight runs at once and
 * CI's other lane beside them: 3.95 s of the 4.45 s allowed before was measured at load 10). This
 * allowance is the harness's start-up, not the agent's promise: the takeover bound itself is
 * checked, with the backend's slack only, by the cases of test/helpers/fencing-cases.ts.
 */
const RECOVERY = takeoverBound(TIMING) + TIMING.retryPeriod + 4;

const RUNS = Number(process.env.SLOT_SCHEDULE_RUNS || 200);
const PARALLEL = Number(process.env.SLOT_SCHEDULE_PARALLEL || 8);
const FIRST_SEED = process.env.SLOT_SCHEDULE_SEED ? Number(process.env.SLOT_SCHEDULE_SEED) : Date.now() % 1000000;

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

type Step =
    | { at: number; what: "fault"; agent: string; fault: Fault; p: number; until: number }
    | { at: number; what: "kill" | "kill-group" | "term" | "stop" | "restart"; agent: string }
    | { at: number; what: "cont"; agent: string }
    | { at: number; what: "delete" | "touch"; slot: number };

interface Schedule {
    seed: number;
    agents: string[];
    slots: number;
    steps: Step[];
}

function faultOf(r: () => number): Fault {
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
    const kind = pick(["delay", "drop", "blackhole", "lose", "stall", "trickle", "slow", "tear"] as const);
    switch (kind) {
        case "delay":
            return { kind, ms: Math.round(r() * 800) };
        case "slow":
            return { kind, ms: Math.round(100 + r() * 900) };
        case "trickle":
            return { kind, everyMs: Math.round(20 + r() * 100) };
        case "tear":
            return { kind, how: pick(["status", "body", "json", "not-lease"] as const) };
        default:
            return { kind };
    }
}

export function schedule(seed: number): Schedule {
    const r = prng(seed);
    const n = 2 + Math.floor(r() * 3);
    const slots = 1 + Math.floor(r() * Math.min(3, n));
    const agents = [...Array(n).keys()].map((i) => String.fromCharCode(97 + i));
    const steps: Step[] = [];
    const at = () => Math.round(r() * CHAOS * 1000) / 1000;
    for (const a of agents) {
        for (let k = Math.floor(r() * 4); k > 0; k--) {
            const from = at();
            steps.push({ at: from, what: "fault", agent: a, fault: faultOf(r), p: [0.3, 0.7, 1][Math.floor(r() * 3)], until: Math.min(CHAOS, from + 0.1 + r() * 0.9) });
        }
        if (r() < 0.6) {
            const what = (["kill", "kill-group", "term", "stop"] as const)[Math.floor(r() * 4)];
            const t = at();
            steps.push({ at: t, what, agent: a });
            if (what === "stop") steps.push({ at: Math.min(CHAOS, t + 0.2 + r() * 1.0), what: "cont", agent: a });
            else if (r() < 0.5) steps.push({ at: Math.min(CHAOS, t + 0.1 + r() * 0.7), what: "restart", agent: a });
        }
    }
    if (r() < 0.3) steps.push({ at: at(), what: "delete", slot: Math.floor(r() * slots) });
    if (r() < 0.3) {
        const slot = Math.floor(r() * slots);
        for (let t = at(); t < CHAOS; t += 0.2) steps.push({ at: t, what: "touch", slot });
    }
    steps.sort((x, y) => x.at - y.at);
    return { seed, agents, slots, steps };
}

/** A slot not served again in time: liveness, which a busy machine can delay (safety never is excused). */
class LateError extends Error {}

interface Outcome {
    seed: number;
    error?: string;
    /** The error was liveness only (LateError): the seed is run once more, alone. */
    late?: boolean;
    recovered: number;
    faults: number;
}

async function runOne(host: FakeHost, dir: string, seed: number, again = false): Promise<Outcome> {
    const s = schedule(seed);
    const fake = await host.open(NS, TOKEN, seed ^ 0x5eed);
    const lab = new SlotAgentLab(dir, { url: (id) => fake.url(id), tokenFile: path.join(dir, "token"), namespace: NS, prefix: `s${seed}${again ? "r" : ""}-`, count: s.slots, timing: TIMING });
    const windows: FaultWindow[] = s.steps.flatMap((x) => (x.what === "fault" ? [{ agent: x.agent, fault: x.fault, p: x.p, from: x.at, until: x.until }] : []));
    const gone = (id: string) => {
        const a = lab.agents.get(id);
        if (!a) return true;
        try {
            process.kill(-a.pid, 0);
            return false;
        } catch {
            return true;
        }
    };
    // A dead agent comes back as its container would: with the same identity, once all of its old processes are gone.
    const restart = (id: string) => {
        const a = lab.agents.get(id);
        if (a?.running || !gone(id)) return false;
        lab.start(id);
        return true;
    };
    const t0 = Date.now();
    const stopped = new Set<string>();
    try {
        await fake.faults(windows, t0);
        for (const a of s.agents) lab.start(a);
        for (const step of s.steps) {
            const wait = t0 + step.at * 1000 - Date.now();
            if (wait > 0) await sleep(wait);
            if (step.what === "fault") continue;
            else if (step.what === "delete") await fake.delete(`${lab.o.prefix}${step.slot}`);
            else if (step.what === "touch") await fake.touch(`${lab.o.prefix}${step.slot}`);
            else if (step.what === "restart") restart(step.agent);
            else if ("agent" in step) {
                const a = lab.agent(step.agent);
                if (step.what === "kill") a.signal("SIGKILL");
                else if (step.what === "kill-group") lab.killGroup(step.agent);
                else if (step.what === "term") a.signal("SIGTERM");
                else if (step.what === "stop") {
                    a.signal("SIGSTOP");
                    stopped.add(step.agent);
                } else if (step.what === "cont") {
                    a.signal("SIGCONT");
                    stopped.delete(step.agent);
                }
            }
        }
        const left = t0 + CHAOS * 1000 - Date.now();
        if (left > 0) await sleep(left);
        // The faults end: answers come whole and at once, stopped agents continue, dead ones restart.
        await fake.calm();
        // When the faults ended, on the worker's clock (this thread's may lag behind its forks).
        const healed = (await fake.heal()) / 1000;
        for (const a of stopped) lab.agent(a).signal("SIGCONT");
        let served = 0;
        for (;;) {
            // Every agent runs again (one still stopping cleanly is restarted once it has ended).
            const pending = s.agents.filter((a) => !lab.agent(a).running && !restart(a));
            lab.assertNeverTwo();
            const serving = [...Array(s.slots).keys()].map((k) => lab.running(k));
            if (serving.every((r) => r.length === 1) && pending.length === 0) {
                // The last slot served again: when its child started, by the child's own record.
                served = Math.max(0, ...serving.map(([r]) => r.from - healed));
                break;
            }
            if (Date.now() / 1000 - healed > RECOVERY + 2) {
                throw new LateError(`${serving.filter((r) => r.length === 1).length} of ${s.slots} slots served ${(RECOVERY + 2).toFixed(2)} s after the faults ended (bound ${takeoverBound(TIMING).toFixed(2)} s; restarts pending: ${pending.join(", ") || "none"}); holders: ${JSON.stringify(await fake.holders())}`);
            }
            await sleep(50);
        }
        // A little longer: nothing starts twice once it has settled (checked before liveness, which a rerun may excuse).
        await sleep(TIMING.retryPeriod * 3000);
        lab.assertNeverTwo();
        if (served > RECOVERY) throw new LateError(`every slot served again ${served.toFixed(2)} s after the faults ended: more than the bound ${takeoverBound(TIMING).toFixed(2)} s + ${(RECOVERY - takeoverBound(TIMING)).toFixed(2)} s`);
        return { seed, recovered: served, faults: await fake.faulted() };
    } catch (e) {
        // Late only if also safe up to now: two children on one slot is never excused.
        let error = e as Error;
        if (e instanceof LateError) {
            try {
                lab.assertNeverTwo();
            } catch (unsafe) {
                error = unsafe as Error;
            }
        }
        return { seed, error: `${error.message}\nschedule: ${JSON.stringify(s)}\n${lab.dump()}`, late: error instanceof LateError, recovered: NaN, faults: await fake.faulted() };
    } finally {
        lab.cleanup();
        await fake.close();
    }
}

describe("DHCP slot agents under random schedules of faults, on a fake Lease API (seeded)", function () {
    this.timeout(30 * 60 * 1000);
    let dir = "";
    let host: FakeHost | undefined;

    before(function () {
        requireOrSkip(this, !!which(PYTHON) && !!which("bash"), "python3, bash");
        dir = tmpDir("schedule");
        fs.writeFileSync(path.join(dir, "token"), TOKEN, { mode: 0o600 });
        host = new FakeHost();
    });
    after(async function () {
        await host?.close();
        if (dir && process.env.KEEP_WORK !== "1") fs.rmSync(dir, { recursive: true, force: true });
    });

    it("the same schedule from the same seed", function () {
        assert.deepEqual(schedule(4242), schedule(4242));
        assert.notDeepEqual(schedule(4242), schedule(4243));
    });

    it(`${RUNS} random schedules (seeds from SLOT_SCHEDULE_SEED or the clock): never two children on one slot; every slot served again within the bound once the faults end (a seed that came late, run again alone)`, async function () {
        const seeds = [...Array(RUNS).keys()].map((i) => FIRST_SEED + i);
        console.log(`      agent ${AGENT_SCRIPT}; seeds ${seeds[0]}..${seeds[seeds.length - 1]}, ${PARALLEL} at a time; rerun one: SLOT_SCHEDULE_SEED=<seed> SLOT_SCHEDULE_RUNS=1`);
        const t0 = Date.now();
        const lag = monitorEventLoopDelay({ resolution: 10 });
        lag.enable();
        const outcomes: Outcome[] = [];
        let next = 0;
        await Promise.all(
            [...Array(Math.min(PARALLEL, seeds.length)).keys()].map(async () => {
                while (next < seeds.length) {
                    const seed = seeds[next++];
                    const o = await runOne(host!, dir, seed);
                    if (o.error) console.log(`      seed ${seed} FAILED: ${o.error}`);
                    outcomes.push(o);
                }
            }),
        );
        lag.disable();
        console.log(`      event loop delay: p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`);
        // A seed that only came late (every slot served once, never two) runs once more, alone: eight
        // runs at once beside CI's other lanes can starve agents of the CPU for longer than the
        // bound. It must then meet the bound; a safety failure is never run again.
        for (const [i, o] of outcomes.entries()) {
            if (!o.late) continue;
            const again = await runOne(host!, dir, o.seed, true);
            console.log(`      seed ${o.seed} came late among ${PARALLEL} at once; alone: ${again.error ? `FAILED: ${again.error.split("\n")[0]}` : `served again after ${again.recovered.toFixed(2)} s`}`);
            outcomes[i] = again.error ? { ...again, error: `late among ${PARALLEL} at once (${o.error!.split("\n")[0]}), and alone: ${again.error}` } : again;
        }
        const failed = outcomes.filter((o) => o.error);
        const ok = outcomes.filter((o) => !o.error);
        const worst = Math.max(0, ...ok.map((o) => o.recovered));
        console.log(`      ${outcomes.length} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${outcomes.reduce((n, o) => n + o.faults, 0)} faulted answers; slots served again at most ${worst.toFixed(2)} s after the faults ended (allowed: bound ${takeoverBound(TIMING).toFixed(2)} s + ${(RECOVERY - takeoverBound(TIMING)).toFixed(2)} s); failed: ${failed.length}${failed.length ? ` (seeds ${failed.map((o) => o.seed).join(", ")})` : ""}`);
        assert.deepEqual(
            failed.map((o) => o.seed),
            [],
            `failed seeds (rerun: SLOT_SCHEDULE_SEED=<seed> SLOT_SCHEDULE_RUNS=1): ${failed.map((o) => `${o.seed}: ${o.error!.split("\n")[0]}`).join("; ")}`,
        );
    });
});
