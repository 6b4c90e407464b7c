/**
 * Real DHCP slot agents (assets/dhcp-slot-agent.py) for the fencing tests, each with its fence (the
 * same script with --fence, as dnsmasq's container runs it: another process, sharing only the grant
 * and state directories) supervising a stand-in for dnsmasq that writes its own start and stop
 * records (slot, holder, wall-clock time, pid) to one file: from those, `runs()` rebuilds when each
 * child ran, and `assertNeverTwo()` checks the promise that no two children ever run for one slot.
 * A child SIGKILLed with its fence's process group (the pod's death) cannot write its stop: the
 * test records it (`killGroup`).
 *
 * SLOT_AGENT_UNDER_TEST=<file> runs another agent (e.g. `git show main:assets/dhcp-slot-agent.py`)
 * through the same cases, to see which of them an earlier agent fails.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { slotTakeoverBound, SlotTimings } from "../../core/timings";
import { SLOT_AGENT_ENV } from "../../core/slot-agent";
import { Daemon } from "./sys";
import { SCRIPT_FILES } from "../../core/scripts";

export const AGENT_SCRIPT = process.env.SLOT_AGENT_UNDER_TEST || path.join(__dirname, "..", "..", "assets", SCRIPT_FILES.slotAgent);
/** Debian's python3, not a version manager's shim (which costs 100 ms a start). */
export const PYTHON = fs.existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";

export type { SlotTimings };

/** Short timings for the fake (a Lease of 1 s) with the production ones' proportions; each case takes seconds. */
export const FAST: SlotTimings = { leaseDuration: 1, renewDeadline: 0.5, retryPeriod: 0.1, claimMargin: 0.5, stopGrace: 0.25 };

/** From the holder's last renewal landing (or its Lease's deletion): core/timings.ts. */
export const takeoverBound = slotTakeoverBound;

/**
 * The dnsmasq stand-in: records its start and, on TERM, its stop (the trap is set before the start
 * record, so a TERM at once still leaves a stop). The records are the children's own. The trap
 * stops its background sleep by the job table, not by `$!` saved after the fork: bash may run the
 * trap between `sleep &` and that assignment, which left the sleep running in the agent's process
 * group (seen under load: the group never emptied, so the test never restarted that agent).
 */
export const CHILD = `#!/bin/bash
trap 'echo "stop $DHCP_SLOT $SLOT_IDENTITY $EPOCHREALTIME $$" >>"$CHILD_LOG"; kill $(jobs -p) 2>/dev/null; exit 0' TERM INT
echo "start $DHCP_SLOT $SLOT_IDENTITY $EPOCHREALTIME $$" >>"$CHILD_LOG"
sleep 86400 &
wait
`;

export interface ChildEvent {
    kind: "start" | "stop" | "killed";
    slot: number;
    id: string;
    t: number;
    pid: number;
}

export interface Run {
    slot: number;
    id: string;
    pid: number;
    from: number;
    to: number;
}

export interface AgentOptions {
    node?: string;
    preferences?: object;
    timing?: Partial<SlotTimings>;
}

/** The agent's grant directory and its fence's state directory (two emptyDirs in the pod), made if missing. */
export function slotDirs(dir: string, name: string): { grantDir: string; fenceDir: string } {
    const grantDir = path.join(dir, `${name}.grant`);
    const fenceDir = path.join(dir, `${name}.fence`);
    for (const d of [grantDir, fenceDir]) fs.mkdirSync(d, { recursive: true });
    return { grantDir, fenceDir };
}

/** The fence, as dnsmasq's container runs it, in front of `child` (the dnsmasq stand-in); its env names no API. */
export function startFence(o: { id: string; child: string; childLog: string; grantDir: string; fenceDir: string; timing: SlotTimings; logFile: string }): Daemon {
    return new Daemon(PYTHON, [AGENT_SCRIPT, "--fence", "bash", o.child], o.logFile, {
        PATH: process.env.PATH,
        CHILD_LOG: o.childLog,
        [SLOT_AGENT_ENV.identity]: o.id,
        [SLOT_AGENT_ENV.grantDir]: o.grantDir,
        [SLOT_AGENT_ENV.fenceDir]: o.fenceDir,
        [SLOT_AGENT_ENV.renewDeadline]: String(o.timing.renewDeadline),
        [SLOT_AGENT_ENV.stopGrace]: String(o.timing.stopGrace),
    });
}

/**
 * SIGKILL the process group `pid` leads. Just after its start the process may not have made its
 * group yet (setsid has not run): then the process itself, which has no child yet.
 */
export function killGroupOf(pid: number): void {
    try {
        process.kill(-pid, "SIGKILL");
    } catch {
        try {
            process.kill(pid, "SIGKILL");
        } catch {
            /* gone */
        }
    }
}

export class SlotAgent {
    readonly prefsFile: string;
    constructor(
        readonly id: string,
        readonly daemon: Daemon,
        /** The fence in dnsmasq's container: it outlives a restart of the agent's. */
        readonly fence: Daemon,
        readonly logFile: string,
        readonly fenceLogFile: string,
        readonly statusFile: string,
        prefsFile: string,
    ) {
        this.prefsFile = prefsFile;
    }

    get pid(): number {
        return this.daemon.pid;
    }

    get running(): boolean {
        return this.daemon.running;
    }

    status(): string {
        return fs.existsSync(this.statusFile) ? fs.readFileSync(this.statusFile, "utf8").trim() : "";
    }

    /** The agent's log, then its fence's. */
    log(): string {
        const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");
        return `${read(this.logFile)}${read(this.fenceLogFile)}`;
    }

    /** Rewrites its preferences file (as a ConfigMap update does: a new file renamed into place). */
    setPreferences(prefs: object): void {
        fs.writeFileSync(`${this.prefsFile}.tmp`, JSON.stringify(prefs));
        fs.renameSync(`${this.prefsFile}.tmp`, this.prefsFile);
    }

    signal(sig: NodeJS.Signals): void {
        try {
            process.kill(this.pid, sig);
        } catch {
            /* gone */
        }
    }

    async exited(timeoutMs: number): Promise<number | null | "running"> {
        if (!this.running) return this.daemon.proc.exitCode;
        return await new Promise((r) => {
            const t = setTimeout(() => r("running"), timeoutMs);
            this.daemon.proc.once("exit", (code) => {
                clearTimeout(t);
                r(code);
            });
        });
    }
}

export class SlotAgentLab {
    readonly childLog: string;
    readonly agents = new Map<string, SlotAgent>();
    private readonly child: string;
    private readonly killed: ChildEvent[] = [];
    /** How late this machine runs a takeover's last steps while the lab runs (liveness bounds only); with `probe` only. */
    readonly probe?: SchedulingProbe;

    constructor(
        readonly dir: string,
        readonly o: { url: (id: string) => string; tokenFile: string; caFile?: string; namespace: string; prefix: string; count: number; timing: SlotTimings; probe?: boolean },
    ) {
        this.childLog = path.join(dir, `${o.prefix}children.log`);
        this.child = path.join(dir, "slot-child.sh");
        if (!fs.existsSync(this.child)) fs.writeFileSync(this.child, CHILD, { mode: 0o755 });
        if (o.probe) this.probe = new SchedulingProbe(path.join(dir, `${o.prefix}probe`));
    }

    /** Starts agent `id`, and its fence unless the one it had still runs (a restart of the agent's container only). */
    start(id: string, opts: AgentOptions = {}): SlotAgent {
        const t = { ...this.o.timing, ...opts.timing };
        const prefsFile = path.join(this.dir, `${this.o.prefix}${id}.prefs.json`);
        if (opts.preferences) fs.writeFileSync(prefsFile, JSON.stringify(opts.preferences));
        const { grantDir, fenceDir } = slotDirs(this.dir, `${this.o.prefix}${id}`);
        const statusFile = path.join(grantDir, "status");
        const logFile = path.join(this.dir, `${this.o.prefix}${id}.log`);
        const fenceLogFile = path.join(this.dir, `${this.o.prefix}${id}.fence.log`);
        const old = this.agents.get(id)?.fence;
        const fence = old?.running ? old : startFence({ id, child: this.child, childLog: this.childLog, grantDir, fenceDir, timing: t, logFile: fenceLogFile });
        const env: NodeJS.ProcessEnv = {
            PATH: process.env.PATH,
            [SLOT_AGENT_ENV.grantDir]: grantDir,
            [SLOT_AGENT_ENV.fenceDir]: fenceDir,
            [SLOT_AGENT_ENV.apiUrl]: this.o.url(id),
            [SLOT_AGENT_ENV.tokenFile]: this.o.tokenFile,
            ...(this.o.caFile ? { [SLOT_AGENT_ENV.caFile]: this.o.caFile } : {}),
            [SLOT_AGENT_ENV.namespace]: this.o.namespace,
            [SLOT_AGENT_ENV.leasePrefix]: this.o.prefix,
            [SLOT_AGENT_ENV.count]: String(this.o.count),
            [SLOT_AGENT_ENV.identity]: id,
            [SLOT_AGENT_ENV.node]: opts.node ?? `node-${id}`,
            [SLOT_AGENT_ENV.preferencesFile]: opts.preferences ? prefsFile : "",
            [SLOT_AGENT_ENV.leaseLabels]: `test=${this.o.prefix.replace(/-$/, "")}`,
            [SLOT_AGENT_ENV.statusFile]: statusFile,
            [SLOT_AGENT_ENV.leaseDuration]: String(t.leaseDuration),
            [SLOT_AGENT_ENV.renewDeadline]: String(t.renewDeadline),
            [SLOT_AGENT_ENV.retryPeriod]: String(t.retryPeriod),
            [SLOT_AGENT_ENV.claimMargin]: String(t.claimMargin),
            [SLOT_AGENT_ENV.stopGrace]: String(t.stopGrace),
        };
        const d = new Daemon(PYTHON, [AGENT_SCRIPT], logFile, env);
        const a = new SlotAgent(id, d, fence, logFile, fenceLogFile, statusFile, prefsFile);
        this.agents.set(id, a);
        return a;
    }

    agent(id: string): SlotAgent {
        const a = this.agents.get(id);
        if (!a) throw new Error(`no agent ${id}`);
        return a;
    }

    /** SIGKILL an agent and its fence with their process groups (the child too), as the pod's death does; the children's runs end now. */
    killGroup(id: string): void {
        const a = this.agent(id);
        const t = Date.now() / 1000;
        for (const pid of [a.pid, a.fence.pid]) killGroupOf(pid);
        for (const r of this.runs()) if (r.id === id && r.to === Infinity) this.killed.push({ kind: "killed", slot: r.slot, id, t, pid: r.pid });
    }

    events(): ChildEvent[] {
        const text = fs.existsSync(this.childLog) ? fs.readFileSync(this.childLog, "utf8") : "";
        const own = text
            .split("\n")
            .filter(Boolean)
            .map((l) => {
                const [kind, slot, id, t, pid] = l.split(" ");
                return { kind: kind as ChildEvent["kind"], slot: Number(slot), id, t: Number(t), pid: Number(pid) };
            });
        return [...own, ...this.killed];
    }

    /** Each child's run: from its start record to its stop (or the kill of its group), Infinity while it runs; a child stopped before its start record ran for no time at its stop. */
    runs(): Run[] {
        const out = new Map<number, Run>();
        const evs = this.events().sort((a, b) => a.t - b.t);
        for (const e of evs) if (e.kind === "start") out.set(e.pid, { slot: e.slot, id: e.id, pid: e.pid, from: e.t, to: Infinity });
        // Stopped before it wrote its start (a TERM at once): it ran, for no time.
        for (const e of evs) if (e.kind === "stop" && !out.has(e.pid)) out.set(e.pid, { slot: e.slot, id: e.id, pid: e.pid, from: e.t, to: e.t });
        for (const e of evs) {
            const r = out.get(e.pid);
            if (e.kind !== "start" && r && r.to === Infinity && e.t >= r.from) r.to = e.t;
        }
        return [...out.values()].sort((a, b) => a.from - b.from);
    }

    /** The runs of `slot` that are still going. */
    running(slot?: number): Run[] {
        return this.runs().filter((r) => r.to === Infinity && (slot === undefined || r.slot === slot));
    }

    /** No two children ever ran for one slot at the same time, by their own records. */
    assertNeverTwo(context = ""): void {
        const bySlot = new Map<number, Run[]>();
        for (const r of this.runs()) bySlot.set(r.slot, [...(bySlot.get(r.slot) ?? []), r]);
        for (const [slot, runs] of bySlot) {
            for (let i = 1; i < runs.length; i++) {
                for (let j = 0; j < i; j++) {
                    assert.ok(runs[i].from >= runs[j].to, `${context}slot ${slot}: ${runs[i].id} (pid ${runs[i].pid}) started at ${runs[i].from.toFixed(3)} while ${runs[j].id} (pid ${runs[j].pid}) ran until ${runs[j].to === Infinity ? "now" : runs[j].to.toFixed(3)} (${runs[j].to === Infinity ? "still running" : `${(runs[j].to - runs[i].from).toFixed(3)} s of overlap`})`);
                }
            }
        }
    }

    /** The first child of `slot` started at or after `t` (by anyone but `except`). */
    firstStart(slot: number, t: number, except?: string): Run | undefined {
        return this.runs().find((r) => r.slot === slot && r.from >= t && r.id !== except);
    }

    /** Every agent's log, for a failed test. */
    dump(): string {
        const parts = [...this.agents.values()].map((a) => `---- ${a.id} (${a.running ? "running" : `exited ${a.daemon.proc.exitCode ?? a.daemon.proc.signalCode}`}) ----\n${a.log().slice(-4000)}`);
        const children = fs.existsSync(this.childLog) ? fs.readFileSync(this.childLog, "utf8") : "";
        return `${parts.join("\n")}\n---- children ----\n${children}${this.killed.map((k) => `killed ${k.slot} ${k.id} ${k.t} ${k.pid}`).join("\n")}`;
    }

    /** SIGKILL every agent's and fence's process group (the children with them) and every child that outlived its fence. */
    cleanup(): void {
        this.probe?.stop();
        for (const a of this.agents.values()) {
            for (const pid of [a.pid, a.fence.pid]) {
                try {
                    process.kill(-pid, "SIGCONT");
                } catch {
                    /* gone, or no group yet */
                }
                killGroupOf(pid);
            }
        }
        for (const r of this.runs()) {
            if (r.to !== Infinity) continue;
            try {
                process.kill(r.pid, "SIGKILL");
            } catch {
                /* gone */
            }
        }
    }
}

/**
 * How late this machine runs the last steps of a takeover, measured apart from the agents: a
 * sleeper of the agent's own interpreter wakes at a deadline every `PROBE_PERIOD` s and starts
 * bash, which records the deadline and its own start time as the dnsmasq stand-in records its
 * start. No agent's logic is in it (an agent that spins the CPU slows it like any other load).
 * Quiet, a sample is 2-15 ms late. It ends when the test process does (its parent changes).
 */
const PROBE = `import os, subprocess, sys, time
p = float(sys.argv[1])
parent = os.getppid()
while os.getppid() == parent:
    deadline = time.time() + p
    time.sleep(max(0.0, deadline - time.time()))
    subprocess.run(["bash", "-c", 'echo "$1 $EPOCHREALTIME" >>"$2"', "probe", "%.6f" % deadline, sys.argv[2]])
`;
const PROBE_PERIOD = 0.1;

export class SchedulingProbe {
    private readonly daemon: Daemon;
    constructor(readonly file: string) {
        fs.writeFileSync(file, "");
        // The C locale: bash writes EPOCHREALTIME with the locale's decimal point.
        this.daemon = new Daemon(PYTHON, ["-c", PROBE, String(PROBE_PERIOD), file], `${file}.log`, { PATH: process.env.PATH, LC_ALL: "C" });
    }

    private samples(): [number, number][] {
        return fs
            .readFileSync(this.file, "utf8")
            .split("\n")
            .map((l) => l.split(" ").map(Number) as [number, number])
            .filter(([deadline, started]) => Number.isFinite(deadline) && Number.isFinite(started));
    }

    /**
     * The worst lateness (s) of the samples that overlapped [from, to] (wall-clock seconds), once a
     * sample due after `to` has been written (a sample held up by the same stall comes late; at
     * most 2 s are waited for it); 0 when none was late.
     */
    async worst(from: number, to: number): Promise<number> {
        const end = Date.now() + 2000;
        while (!this.samples().some(([deadline]) => deadline > to) && Date.now() < end) await sleep(50);
        let worst = 0;
        for (const [deadline, started] of this.samples()) {
            if (started < from || deadline > to) continue;
            worst = Math.max(worst, started - deadline);
        }
        return worst;
    }

    stop(): void {
        killGroupOf(this.daemon.pid);
    }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, probe: () => T | undefined | false | null, timeoutMs: number, everyMs = 20): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
        const v = probe();
        if (v) return v;
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await sleep(everyMs);
    }
}
