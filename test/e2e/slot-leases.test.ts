/**
 * The DHCP slot agent (assets/dhcp-slot-agent.py) against the real kube-apiserver of the local
 * cluster, authenticated as the ServiceAccount our rendered Role binds: racing agents never make
 * two holders of a slot, a killed holder's slot moves only after its Lease expired, a holder cut
 * off from the API stops its command before anyone may take its slot, and a clean stop releases
 * at once. The command each agent supervises stands in for dnsmasq and logs when it runs. The
 * fencing cases of test/helpers/fencing-cases.ts (answers dribbled, slow, lost or torn, an agent
 * killed alone or stopped, a Lease deleted while held or touched all the time, two waiters) run
 * here too, through a proxy that faults the agents' requests on their way to this API server. On
 * the cluster the suites that deploy no stack share (shared-cluster.ts): namespaces of its own.
 */
import { strict as assert } from "assert";
import { execFile } from "child_process";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";

import { SLOT_AGENT_ENV } from "../../core/slot-agent";
import { slotLeaseNames, slotLeaseRbac } from "../../core/manifests/slots";
import { FENCING_CASES, FencingBackend } from "../helpers/fencing-cases";
import { LeaseProxy } from "../helpers/lease-proxy";
import { killGroupOf, SlotAgentLab, slotDirs, startFence } from "../helpers/slot-agents";
import { ApiBridge, Daemon, NetnsLab, isRoot, requireOrSkip, run, tmpDir } from "../helpers/sys";
import { Cluster, ROOT } from "./harness";
import { sharedCluster } from "./shared-cluster";
import { requireToolchain } from "./toolchain";
import { SCRIPT_FILES } from "../../core/scripts";

const NS = "slots";
const SA = "ironic-conductor";
const AGENT = path.join(ROOT, "assets", SCRIPT_FILES.slotAgent);
// Short timings keep the suite fast; the agent refuses any set that breaks the fencing inequality.
const TIMING = { leaseDuration: 4, renewDeadline: 2.5, retryPeriod: 0.5, claimMargin: 1, stopGrace: 1 };

const CHILD = `#!/bin/bash
echo "start $DHCP_SLOT $SLOT_IDENTITY $(date +%s.%N)" >>"$CHILD_LOG"
trap 'echo "stop $DHCP_SLOT $SLOT_IDENTITY $(date +%s.%N)" >>"$CHILD_LOG"; exit 0' TERM
while :; do sleep 0.05; done
`;

interface Event {
    kind: "start" | "stop" | "killed";
    slot: number;
    id: string;
    t: number;
}

/** Forwards TCP to the API server until cut; cut connections hang (no answer, no reset). */
class CuttableProxy {
    private readonly server: net.Server;
    private readonly sockets = new Set<net.Socket>();
    private cut = false;
    port = 0;

    constructor(private readonly target: { host: string; port: number }) {
        this.server = net.createServer((client) => {
            this.sockets.add(client);
            client.on("close", () => this.sockets.delete(client));
            client.on("error", () => undefined);
            if (this.cut) return; // accepted, never answered
            const upstream = net.connect(this.target.port, this.target.host);
            this.sockets.add(upstream);
            upstream.on("close", () => this.sockets.delete(upstream));
            upstream.on("error", () => client.destroy());
            client.on("error", () => upstream.destroy());
            client.pipe(upstream).pipe(client);
        });
    }

    async listen(): Promise<void> {
        await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
        this.port = (this.server.address() as net.AddressInfo).port;
    }

    /** From now on the API is unreachable through this proxy: open connections die, new ones hang. */
    sever(): void {
        this.cut = true;
        for (const s of this.sockets) s.destroy();
    }

    heal(): void {
        this.cut = false;
        for (const s of this.sockets) s.destroy();
    }

    async close(): Promise<void> {
        for (const s of this.sockets) s.destroy();
        await new Promise<void>((r) => this.server.close(() => r()));
    }
}

describe("e2e: DHCP slot Leases on the real API server (dhcp-slot-agent.py)", function () {
    this.timeout(10 * 60 * 1000);
    let cluster: Cluster;
    let dir: string;
    let api: URL;
    let token: string;
    const agents: Daemon[] = [];
    const fences = new Map<Daemon, Daemon>();

    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    function events(prefix: string): Event[] {
        const file = path.join(dir, `${prefix}children.log`);
        if (!fs.existsSync(file)) return [];
        return fs
            .readFileSync(file, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => {
                const [kind, slot, id, t] = l.split(" ");
                return { kind: kind as Event["kind"], slot: Number(slot), id, t: Number(t) };
            });
    }

    /** The first time the agent `id` started its command, once the command has logged it. */
    const startOf = (prefix: string, id: string): Event | undefined => events(prefix).find((e) => e.kind === "start" && e.id === id);

    /** Every slot's run intervals never overlap between two holders. */
    function assertNeverTwoHolders(prefix: string): void {
        const evs = events(prefix);
        const bySlot = new Map<number, { id: string; from: number; to: number }[]>();
        const open = new Map<string, { slot: number; from: number }>();
        for (const e of [...evs].sort((a, b) => a.t - b.t)) {
            if (e.kind === "start") open.set(e.id, { slot: e.slot, from: e.t });
            else {
                const o = open.get(e.id);
                if (!o) continue;
                open.delete(e.id);
                bySlot.set(o.slot, [...(bySlot.get(o.slot) ?? []), { id: e.id, from: o.from, to: e.t }]);
            }
        }
        for (const [id, o] of open) bySlot.set(o.slot, [...(bySlot.get(o.slot) ?? []), { id, from: o.from, to: Infinity }]);
        for (const [slot, runs] of bySlot) {
            runs.sort((a, b) => a.from - b.from);
            for (let i = 1; i < runs.length; i++) {
                assert.ok(runs[i].from >= runs[i - 1].to, `slot ${slot}: ${runs[i].id} started at ${runs[i].from} while ${runs[i - 1].id} ran until ${runs[i - 1].to}`);
            }
        }
    }

    /** Agent `id` and its fence (dnsmasq's container: the command runs there); returns the agent. */
    function startAgent(prefix: string, id: string, count: number, opts: { apiUrl?: string; caFile?: string; node?: string; preferences?: object; timing?: Partial<typeof TIMING> } = {}): Daemon {
        const t = { ...TIMING, ...opts.timing };
        const child = path.join(dir, "child.sh");
        const childLog = path.join(dir, `${prefix}children.log`);
        const { grantDir, fenceDir } = slotDirs(dir, `${prefix}${id}`);
        const fence = startFence({ id, child, childLog, grantDir, fenceDir, timing: t, logFile: path.join(dir, `${prefix}${id}.fence.log`) });
        agents.push(fence);
        const tokenFile = path.join(dir, "token");
        let prefsFile = "";
        if (opts.preferences) {
            prefsFile = path.join(dir, `${prefix}${id}.prefs.json`);
            fs.writeFileSync(prefsFile, JSON.stringify(opts.preferences));
        }
        const env: NodeJS.ProcessEnv = {
            PATH: process.env.PATH,
            [SLOT_AGENT_ENV.grantDir]: grantDir,
            [SLOT_AGENT_ENV.fenceDir]: fenceDir,
            [SLOT_AGENT_ENV.apiUrl]: opts.apiUrl ?? api.origin,
            [SLOT_AGENT_ENV.tokenFile]: tokenFile,
            [SLOT_AGENT_ENV.caFile]: opts.caFile ?? path.join(cluster.dir, "pki", "ca.crt"),
            [SLOT_AGENT_ENV.namespace]: NS,
            [SLOT_AGENT_ENV.leasePrefix]: prefix,
            [SLOT_AGENT_ENV.count]: String(count),
            [SLOT_AGENT_ENV.identity]: id,
            [SLOT_AGENT_ENV.node]: opts.node ?? `node-${id}`,
            [SLOT_AGENT_ENV.preferencesFile]: prefsFile,
            [SLOT_AGENT_ENV.leaseLabels]: `app.kubernetes.io/name=ironic,test=${prefix.replace(/-$/, "")}`,
            [SLOT_AGENT_ENV.statusFile]: path.join(grantDir, "status"),
            [SLOT_AGENT_ENV.leaseDuration]: String(t.leaseDuration),
            [SLOT_AGENT_ENV.renewDeadline]: String(t.renewDeadline),
            [SLOT_AGENT_ENV.retryPeriod]: String(t.retryPeriod),
            [SLOT_AGENT_ENV.claimMargin]: String(t.claimMargin),
            [SLOT_AGENT_ENV.stopGrace]: String(t.stopGrace),
        };
        const d = new Daemon("python3", [AGENT], path.join(dir, `${prefix}${id}.log`), env);
        agents.push(d);
        fences.set(d, fence);
        return d;
    }

    const status = (prefix: string, id: string): string => {
        const f = path.join(dir, `${prefix}${id}.grant`, "status");
        return fs.existsSync(f) ? fs.readFileSync(f, "utf8").trim() : "";
    };

    async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs = 30000): Promise<T> {
        const end = Date.now() + timeoutMs;
        for (;;) {
            const v = probe();
            if (v) return v;
            if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
            await sleep(100);
        }
    }

    /** slot → holder identity, from the API (admin credentials). */
    function holders(prefix: string): Record<number, string> {
        const out: Record<number, string> = {};
        for (const l of cluster.get<{ items: any[] }>(["leases", "-n", NS]).items) {
            const name: string = l.metadata.name;
            if (!name.startsWith(prefix) || !l.spec.holderIdentity) continue;
            out[Number(name.slice(prefix.length))] = l.spec.holderIdentity;
        }
        return out;
    }

    /** SIGKILL an agent, its fence and its command together, as the pod's death does. */
    function killGroup(d: Daemon, prefix: string, id: string, slot: number): void {
        killGroupOf(d.pid);
        killGroupOf(fences.get(d)!.pid);
        fs.appendFileSync(path.join(dir, `${prefix}children.log`), `killed ${slot} ${id} ${Date.now() / 1000}\n`);
    }

    before(function () {
        requireToolchain(this);
        dir = tmpDir("slots");
        fs.writeFileSync(path.join(dir, "child.sh"), CHILD, { mode: 0o755 });
        cluster = sharedCluster();
        api = new URL(cluster.kubectl(["config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"]).stdout.trim());
        cluster.kubectl(["create", "namespace", NS]);
        cluster.kubectl(["create", "namespace", `${NS}-other`]);
        // The agents run as the ServiceAccount of the rendered least-privilege Role, for every prefix used below.
        const leaseNames = [...["race-", "kill-", "cut-", "stop-", "pin-", "err-"].flatMap((p) => slotLeaseNames(p, 3)), ...slotLeaseNames("last-", 4), ...FENCING_CASES.flatMap((_, i) => slotLeaseNames(`fc${i}-`, 1))];
        const objects = slotLeaseRbac({ namespace: NS, name: SA, leaseNames, labels: { "app.kubernetes.io/name": "ironic" } });
        cluster.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }) });
        token = cluster.kubectl(["create", "token", SA, "-n", NS, "--duration", "2h"]).stdout.trim();
        fs.writeFileSync(path.join(dir, "token"), token, { mode: 0o600 });
    });
    afterEach(async function () {
        for (const d of agents.splice(0)) if (d.running) killGroupOf(d.pid);
    });
    after(function () {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it("the ServiceAccount may reach only this stack's slot Leases", function () {
        const can = (args: string[]) => cluster.kubectl(["auth", "can-i", ...args, `--as=system:serviceaccount:${NS}:${SA}`], { allowFail: true }).stdout.trim();
        assert.equal(can(["create", "leases.coordination.k8s.io", "-n", NS]), "yes");
        for (const verb of ["get", "update"]) assert.equal(can([verb, "leases.coordination.k8s.io/race-0", "-n", NS]), "yes", verb);
        assert.equal(can(["delete", "leases.coordination.k8s.io/race-0", "-n", NS]), "no", "the agent deletes no Lease");
        assert.equal(can(["get", "leases.coordination.k8s.io/kube-scheduler", "-n", NS]), "no");
        assert.equal(can(["update", "leases.coordination.k8s.io/race-9", "-n", NS]), "no");
        assert.equal(can(["list", "leases.coordination.k8s.io", "-n", NS]), "no");
        assert.equal(can(["create", "leases.coordination.k8s.io", "-n", `${NS}-other`]), "no");
        assert.equal(can(["get", "leases.coordination.k8s.io/race-0", "-n", "kube-system"]), "no");
        assert.equal(can(["get", "secrets", "-n", NS]), "no");
        assert.equal(can(["get", "nodes"]), "no");
    });

    it("six agents racing for three slots: three holders, one slot each, the rest wait (two rounds)", async function () {
        for (const round of [1, 2]) {
            const ids = [0, 1, 2, 3, 4, 5].map((i) => `r${round}a${i}`);
            const ds = ids.map((id) => startAgent("race-", id, 3));
            const held = await waitFor("three holders and three waiting agents", () => {
                const st = ids.map((id) => status("race-", id));
                // The status file is written just before the command starts: wait for its log line too.
                const started = events("race-").filter((e) => e.kind === "start" && ids.includes(e.id)).length;
                return st.filter((s) => s.startsWith("slot ")).length === 3 && st.filter((s) => s === "waiting").length === 3 && started === 3 && st;
            });
            const bySlot = held.filter((s) => s.startsWith("slot ")).map((s) => Number(s.split(" ")[1]));
            assert.deepEqual([...bySlot].sort(), [0, 1, 2]);
            const h = holders("race-");
            assert.deepEqual(Object.keys(h).sort(), ["0", "1", "2"]);
            assert.equal(new Set(Object.values(h)).size, 3, "three distinct holders");
            for (const [slot, id] of Object.entries(h)) assert.equal(status("race-", id), `slot ${slot}`);
            // Commands running: exactly one per slot.
            const running = events("race-").filter((e) => e.kind === "start" && ids.includes(e.id));
            assert.deepEqual(running.map((e) => e.slot).sort(), [0, 1, 2]);
            // Clean stop of all: every Lease released.
            await Promise.all(ds.map((d) => d.stop()));
            assert.deepEqual(holders("race-"), {});
            // Their fences (in `agents` too) run on: each would hold mocha open once the tests end.
            for (const d of agents.splice(0)) if (d.running) killGroupOf(d.pid);
        }
        assertNeverTwoHolders("race-");
    });

    it("a killed holder's slot is taken by a waiting agent only after its Lease expired; the others keep theirs", async function () {
        const ids = ["k0", "k1", "k2", "k3"];
        const ds = Object.fromEntries(ids.map((id) => [id, startAgent("kill-", id, 3)]));
        await waitFor("three holders", () => Object.keys(holders("kill-")).length === 3 && ids.filter((id) => status("kill-", id) === "waiting").length === 1);
        const before = holders("kill-");
        const victim = before[1];
        killGroup(ds[victim], "kill-", victim, 1);
        const killedAt = Date.now() / 1000;
        const waiter = ids.find((id) => status("kill-", id) === "waiting")!;
        const takeover = await waitFor("the waiting agent to take slot 1 and start its command", () => status("kill-", waiter) === "slot 1" && startOf("kill-", waiter), 20000);
        const waited = takeover.t - killedAt;
        // The last renewal was at most one retry period before the kill.
        assert.ok(waited >= TIMING.leaseDuration + TIMING.claimMargin - TIMING.retryPeriod - 0.2, `slot 1 taken ${waited.toFixed(2)}s after the kill, before its Lease could expire`);
        assert.deepEqual(holders("kill-"), { ...before, 1: waiter });
        const lease = cluster.get(["lease", "kill-1", "-n", NS]);
        assert.equal(lease.spec.leaseTransitions, 1);
        assert.equal(lease.metadata.annotations["metal3-ironic.metal3.io/node"], `node-${waiter}`);
        assertNeverTwoHolders("kill-");
        console.log(`      killed holder's slot taken after ${waited.toFixed(2)} s (lease ${TIMING.leaseDuration} s + margin ${TIMING.claimMargin} s)`);
    });

    it("a holder cut off from the API stops its command before its slot can be taken, and does not restart it while another holds the slot", async function () {
        const apiPort = Number(api.port || 443);
        const proxy = new CuttableProxy({ host: api.hostname, port: apiPort });
        await proxy.listen();
        try {
            startAgent("cut-", "c0", 1, { apiUrl: `https://127.0.0.1:${proxy.port}` });
            await waitFor("c0 to hold slot 0", () => status("cut-", "c0") === "slot 0");
            startAgent("cut-", "c1", 1);
            await waitFor("c1 to wait", () => status("cut-", "c1") === "waiting");
            proxy.sever();
            const cutAt = Date.now() / 1000;
            // The status file is written just before the command starts: wait for its log line too.
            const started = await waitFor("c1 to take slot 0 and start its command", () => status("cut-", "c1") === "slot 0" && startOf("cut-", "c1"), 30000);
            const stopped = events("cut-").find((e) => e.kind === "stop" && e.id === "c0");
            assert.ok(stopped, "c0 stopped its command");
            const bound = TIMING.renewDeadline + TIMING.stopGrace + TIMING.retryPeriod;
            assert.ok(stopped.t - cutAt <= bound + 0.5, `c0 stopped ${(stopped.t - cutAt).toFixed(2)}s after the cut; bound ${bound}s`);
            assert.ok(started.t > stopped.t, "the new holder started after the cut-off one stopped");
            assert.ok(started.t - cutAt >= TIMING.leaseDuration + TIMING.claimMargin - TIMING.retryPeriod - 0.2, `c1 took the slot ${(started.t - cutAt).toFixed(2)}s after the cut`);
            console.log(`      cut-off holder stopped after ${(stopped.t - cutAt).toFixed(2)} s; slot taken after ${(started.t - cutAt).toFixed(2)} s`);
            // Reconnected, c0 finds the slot held and waits without starting its command again.
            proxy.heal();
            await waitFor("c0 to wait again", () => status("cut-", "c0") === "waiting", 15000);
            await sleep(2000);
            assert.equal(events("cut-").filter((e) => e.kind === "start" && e.id === "c0").length, 1);
            assert.deepEqual(holders("cut-"), { 0: "c1" });
            assertNeverTwoHolders("cut-");
        } finally {
            await proxy.close();
        }
    });

    it("an API error while claiming its own slot does not move the node: the agent asks for that slot again rather than taking the next free one", async function () {
        const proxy = new LeaseProxy(dir, api, path.join(cluster.dir, "pki", "ca.crt"));
        await proxy.listen();
        try {
            const through = { apiUrl: `https://127.0.0.1:${proxy.port}`, caFile: proxy.caFile, node: "ne" };
            // The node held slot 0 and released it (a clean stop): slot 0 is its own, slots 1 and 2 are free.
            const first = startAgent("err-", "e0", 3, through);
            await waitFor("e0 to hold slot 0", () => status("err-", "e0") === "slot 0");
            await first.stop();
            await waitFor("slot 0 released", () => !(0 in holders("err-")), 10000);
            // Its next pod starts while requests for its own Lease fail (the network drops them).
            proxy.policy = (r) => (r.name === "err-0" ? { kind: "drop" } : undefined);
            const again = startAgent("err-", "e1", 3, through);
            await waitFor("requests for slot 0 dropped", () => proxy.dropped >= 2, 20000);
            assert.deepEqual(holders("err-"), {}, "no other slot taken while its own could not be asked for");
            proxy.policy = () => undefined;
            await waitFor("e1 to hold slot 0", () => status("err-", "e1") === "slot 0", 20000);
            assert.deepEqual(holders("err-"), { 0: "e1" });
            assert.match(fs.readFileSync(path.join(dir, "err-e1.log"), "utf8"), /slot 0: API error while claiming: .*asking again in 0\.5s before any other slot/);
            await again.stop();
        } finally {
            await proxy.close();
        }
    });

    describe("the fencing cases, through a proxy that faults the agents' requests", function () {
        let proxy: LeaseProxy;
        let lab: SlotAgentLab | undefined;
        const kubectl = (args: string[]) =>
            new Promise<string>((res, rej) => execFile("kubectl", args, { env: cluster.env }, (e, out, err) => (e ? rej(new Error(`kubectl ${args.join(" ")}: ${err}`)) : res(out))));
        let touches = 0;

        before(async function () {
            proxy = new LeaseProxy(dir, api, path.join(cluster.dir, "pki", "ca.crt"));
            await proxy.listen();
        });
        afterEach(function () {
            if (this.currentTest?.state === "failed" && lab) console.log(lab.dump());
            lab?.cleanup();
            proxy.policy = () => undefined;
            proxy.heal();
        });
        after(async function () {
            await proxy?.close();
        });

        FENCING_CASES.forEach((c, i) => {
            it(c.name, async function () {
                const prefix = `fc${i}-`;
                const backend: FencingBackend = {
                    namespace: NS,
                    tokenFile: path.join(dir, "token"),
                    caFile: proxy.caFile,
                    // kubectl's own start-up (a delete, an annotation) and the API server's answers.
                    slack: 1.0,
                    url: (id) => proxy.url(id),
                    setPolicy: (p) => (proxy.policy = p),
                    writes: () => proxy.log.filter((r) => r.name.startsWith(prefix) && r.method !== "GET" && r.status >= 200 && r.status < 300).map((r) => ({ t: r.t, agent: r.agent, kind: r.kind, name: r.name })),
                    firstRequest: (agent) => proxy.log.find((r) => r.name.startsWith(prefix) && r.agent === agent)?.t,
                    deleteLease: async (n) => void (await kubectl(["delete", "lease", n, "-n", NS, "--ignore-not-found"])),
                    touchLease: async (n) => void (await kubectl(["annotate", "--overwrite", "lease", n, "-n", NS, `test/touched=${++touches}`])),
                    holder: async (n) => (await kubectl(["get", "lease", n, "-n", NS, "--ignore-not-found", "-o", "jsonpath={.spec.holderIdentity}"])).trim(),
                    heal: () => proxy.heal(),
                };
                lab = new SlotAgentLab(dir, { url: backend.url, tokenFile: backend.tokenFile, caFile: backend.caFile, namespace: NS, prefix, count: 1, timing: TIMING, probe: true });
                await c.run({ backend, lab, timing: TIMING, prefix });
            });
        });
    });

    it("a clean stop releases the slot at once; pins and remembered slots are honoured", async function () {
        const a = startAgent("stop-", "s0", 1);
        await waitFor("s0 to hold", () => status("stop-", "s0") === "slot 0");
        startAgent("stop-", "s1", 1);
        await waitFor("s1 to wait", () => status("stop-", "s1") === "waiting");
        const t0 = Date.now();
        await a.stop();
        await waitFor("s1 to take the released slot", () => status("stop-", "s1") === "slot 0", 10000);
        assert.ok(Date.now() - t0 < TIMING.leaseDuration * 1000, "taken before a Lease could have expired: it was released");
        assertNeverTwoHolders("stop-");

        // Node n2 is pinned to slot 2 and n1 remembered in slot 1: a fresh node gets slot 0, and
        // n2 waits for its pin rather than taking another slot.
        const prefs = { pinned: { n2: 2 }, remembered: { n1: 1 } };
        startAgent("pin-", "fresh", 3, { node: "n9", preferences: prefs });
        await waitFor("fresh to hold", () => status("pin-", "fresh").startsWith("slot "));
        assert.equal(status("pin-", "fresh"), "slot 0", "remembered and pinned slots of other nodes come last");
        startAgent("pin-", "p1", 3, { node: "n1", preferences: prefs });
        startAgent("pin-", "p2", 3, { node: "n2", preferences: prefs });
        await waitFor("n1 and n2", () => status("pin-", "p1") === "slot 1" && status("pin-", "p2") === "slot 2");
        assert.deepEqual(holders("pin-"), { 0: "fresh", 1: "p1", 2: "p2" });
    });

    it("a node gets back the slot it held last (over a lower free slot and its remembered one); free slots: never used first, then released ones; a dead pod's slot is waited for; a slot pinned for another node is yielded and never taken", async function () {
        // Four slots: a → 0, b → 1, c → 2; 3 never used.
        const a = startAgent("last-", "a0", 4, { node: "na", preferences: { pinned: {}, remembered: {} } });
        await waitFor("a0", () => status("last-", "a0") === "slot 0");
        const b = startAgent("last-", "b0", 4, { node: "nb" });
        await waitFor("b0", () => status("last-", "b0") === "slot 1");
        const c = startAgent("last-", "c0", 4, { node: "nc" });
        await waitFor("c0", () => status("last-", "c0") === "slot 2");
        // Clean stops (a container restart, a rolling update): the Leases stay, with no holder, naming their node.
        await b.stop();
        await c.stop();
        assert.deepEqual(holders("last-"), { 0: "a0" });
        for (const [slot, node] of [[1, "nb"], [2, "nc"]] as const) {
            const l = cluster.get(["lease", `last-${slot}`, "-n", NS]);
            assert.equal(l.spec.holderIdentity, undefined, `slot ${slot} released`);
            assert.equal(l.metadata.annotations["metal3-ironic.metal3.io/node"], node);
        }
        // c's next pod takes slot 2 back, though slot 1 is lower, free, and the one the config remembers for it.
        const t0 = Date.now();
        const c1 = startAgent("last-", "c1", 4, { node: "nc", preferences: { pinned: {}, remembered: { nc: 1 } } });
        await waitFor("c1 to take back slot 2", () => status("last-", "c1").startsWith("slot ") && startOf("last-", "c1"), 10000);
        assert.equal(status("last-", "c1"), "slot 2");
        assert.ok(Date.now() - t0 < TIMING.leaseDuration * 1000, "at once: the Lease was released");
        // A new node takes the never-used slot 3 before b's released slot 1 (b may come back for it)...
        startAgent("last-", "d0", 4, { node: "nd" });
        await waitFor("d0 to take slot 3", () => status("last-", "d0") === "slot 3" && startOf("last-", "d0"), 10000);
        // ...and the next one takes slot 1 at once: a released slot is free for any node.
        const e = startAgent("last-", "e0", 4, { node: "ne" });
        await waitFor("e0 to take slot 1", () => status("last-", "e0") === "slot 1" && startOf("last-", "e0"), 10000);
        await e.stop();
        // c's pod dies without releasing; its next pod waits for slot 2 to expire rather than move to the free slot 1.
        killGroup(c1, "last-", "c1", 2);
        const killedAt = Date.now() / 1000;
        startAgent("last-", "c2", 4, { node: "nc" });
        const back = await waitFor("c2 to take slot 2 after it expired", () => status("last-", "c2") === "slot 2" && startOf("last-", "c2"), 40000);
        assert.ok(back.t - killedAt >= TIMING.leaseDuration + TIMING.claimMargin - TIMING.retryPeriod - 0.2, `taken ${(back.t - killedAt).toFixed(2)}s after the kill`);
        assert.deepEqual(holders("last-"), { 0: "a0", 2: "c2", 3: "d0" }, "slot 1 stayed free");
        assert.ok(!events("last-").some((ev) => ev.slot === 1 && ev.id === "c2"), "c2 never served slot 1");
        // The config pins slot 0 for node nz: a0 yields it (and never takes it back), z0 gets it.
        const prefs = path.join(dir, "last-a0.prefs.json");
        fs.writeFileSync(`${prefs}.tmp`, JSON.stringify({ pinned: { nz: 0 }, remembered: {} }));
        fs.renameSync(`${prefs}.tmp`, prefs);
        await waitFor("a0 to yield slot 0 and take slot 1", () => status("last-", "a0") === "slot 1", 15000);
        startAgent("last-", "z0", 4, { node: "nz", preferences: { pinned: { nz: 0 }, remembered: {} } });
        await waitFor("z0 to take its pinned slot 0", () => status("last-", "z0") === "slot 0" && startOf("last-", "z0"), 10000);
        assert.deepEqual(holders("last-"), { 0: "z0", 1: "a0", 2: "c2", 3: "d0" });
        assertNeverTwoHolders("last-");
        await a.stop();
    });

    it("from a node's network namespace, with only the kubelet's variables and token path, the agent reaches the API at its ClusterIP", async function () {
        requireOrSkip(this, isRoot(), "root (network namespaces)");
        const lab = new NetnsLab();
        let bridge: ApiBridge | undefined;
        try {
            const sw = lab.addNamespace("ssw");
            const br = lab.addBridge(sw, "sbr");
            const apiNs = lab.addNamespace("sapi");
            const apiIf = lab.plug(apiNs, "sap", sw, br, { cidr: "172.22.9.252/24" });
            lab.addAddress(apiNs, apiIf, "10.96.0.1/32");
            const node = lab.addNamespace("snd");
            const nodeIf = lab.plug(node, "snd", sw, br, { cidr: "172.22.9.10/24" });
            lab.routeOnLink(node, "10.96.0.1/32", nodeIf);
            bridge = new ApiBridge(apiNs, "10.96.0.1", 443, Number(api.port || 443), path.join(dir, "bridge.log"));
            // What the kubelet gives a pod: KUBERNETES_SERVICE_HOST/PORT and the token files (here at a
            // scratch path; in the pod at /var/run/secrets/kubernetes.io/serviceaccount, the agent's default).
            const { grantDir, fenceDir } = slotDirs(dir, "ns");
            const env: NodeJS.ProcessEnv = {
                PATH: process.env.PATH,
                [SLOT_AGENT_ENV.grantDir]: grantDir,
                [SLOT_AGENT_ENV.fenceDir]: fenceDir,
                KUBERNETES_SERVICE_HOST: "10.96.0.1",
                KUBERNETES_SERVICE_PORT: "443",
                [SLOT_AGENT_ENV.tokenFile]: path.join(dir, "token"),
                [SLOT_AGENT_ENV.caFile]: path.join(cluster.dir, "pki", "ca.crt"),
                [SLOT_AGENT_ENV.namespace]: NS,
                [SLOT_AGENT_ENV.leasePrefix]: "pin-",
                [SLOT_AGENT_ENV.count]: "3",
                [SLOT_AGENT_ENV.identity]: "in-netns",
                [SLOT_AGENT_ENV.node]: "snd",
                [SLOT_AGENT_ENV.statusFile]: path.join(dir, "ns.status"),
            };
            cluster.kubectl(["delete", "leases", "-n", NS, "pin-0", "pin-1", "pin-2", "--ignore-not-found"]);
            const d = new Daemon("ip", ["netns", "exec", node, "python3", AGENT], path.join(dir, "ns-agent.log"), env);
            agents.push(d);
            await waitFor("the agent in the namespace to hold a slot", () => fs.existsSync(path.join(dir, "ns.status")) && fs.readFileSync(path.join(dir, "ns.status"), "utf8").startsWith("slot 0"), 20000);
            assert.equal(cluster.get(["lease", "pin-0", "-n", NS]).spec.holderIdentity, "in-netns");
            await d.stop();
            const released = cluster.get(["lease", "pin-0", "-n", NS]);
            assert.equal(released.spec.holderIdentity, undefined, "released on stop");
            assert.equal(released.metadata.annotations["metal3-ironic.metal3.io/node"], "snd", "still naming the node that held it last");
        } catch (e) {
            for (const f of ["ns-agent.log", "bridge.log"]) if (fs.existsSync(path.join(dir, f))) console.log(`---- ${f} ----\n${fs.readFileSync(path.join(dir, f), "utf8").slice(-3000)}`);
            throw e;
        } finally {
            await bridge?.stop();
            lab.destroy();
        }
    });

    it("refuses timings that break the fencing inequality, naming the variables", function () {
        const r = run("python3", [AGENT], {
            allowFail: true,
            env: {
                PATH: process.env.PATH,
                [SLOT_AGENT_ENV.grantDir]: dir,
                [SLOT_AGENT_ENV.fenceDir]: dir,
                [SLOT_AGENT_ENV.apiUrl]: "https://127.0.0.1:1",
                [SLOT_AGENT_ENV.namespace]: NS,
                [SLOT_AGENT_ENV.leasePrefix]: "x-",
                [SLOT_AGENT_ENV.count]: "3",
                [SLOT_AGENT_ENV.identity]: "x",
                [SLOT_AGENT_ENV.leaseDuration]: "15",
                [SLOT_AGENT_ENV.renewDeadline]: "16",
            },
        });
        assert.equal(r.status, 2);
        assert.match(r.stdout, /unsafe timing: SLOT_RENEW_DEADLINE \+ SLOT_STOP_GRACE \(18(\.0)?\) must stay below SLOT_LEASE_DURATION \+ SLOT_CLAIM_MARGIN \(17(\.0)?\)/);
    });
});
