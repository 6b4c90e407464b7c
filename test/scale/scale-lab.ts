/**
 * The scale benchmark's lab (test/scale/bench.ts, test/integration/scale.test.ts): the ha example's
 * pods as declared (three conductor nodes, each with Ironic 38 from PyPI (API and conductor), httpd,
 * dnsmasq under its slot agent and the DHCP pruner; MariaDB; the schema Job; the slot Leases on the
 * local cluster), N fake-hardware nodes driven through the API from the admin namespace
 * (test/scale/ironic_scale.py), and the figures of our parts at that size.
 *
 * The DHCP entries are Ironic's own: each node is deployed with the ramdisk deploy interface and
 * iPXE (fake power and management), so its owning conductor writes its host and option files
 * through the `dnsmasq` DHCP provider, and a new owner rewrites them when it takes an active node
 * over (Ironic's _sync_local_state), as for an active netboot node in production.
 */
import * as fs from "fs";
import * as path from "path";
import { spawnSync } from "child_process";

import type { RawConfig } from "../../core/config";
import { DHCP_PROVIDER_PATHS } from "../../core/contract";
import { listedConductors } from "../../core/plan";
import { DHCP_CONTAINERS, HaPodLab, LabPod } from "../helpers/ha-pod-lab";
import { conductorName, until } from "../helpers/ironic-lab";
import { dhcpListener, renderStack, ROOT, Stack } from "../helpers/pod-stacks";
import { run } from "../helpers/sys";

export interface ScaleNode {
    node: string;
    ip: string;
    interface: string;
}

export interface NodeOwner {
    uuid: string;
    name: string;
    mac: string;
    conductor: string;
    state: string;
}

export interface Latency {
    n: number;
    p50: number;
    p99: number;
    max: number;
}

export interface ConductorFigures {
    node: string;
    ip: string;
    owned: number;
    /** Host files whose entry is active (not `ignore`) in its hostsdir, and option files. */
    hostFiles: number;
    optionFiles: number;
    dnsmasqRssKiB: number;
    /**
     * The first DHCPOFFER to a DISCOVER, for a sample of the MACs it owns, all asking at once: first
     * (a host new to it: dnsmasq pings the address first) and again right after (address known).
     */
    answerMs: Latency;
    repeatMs: Latency;
    /** Its pruner in its container as declared (PRUNER_ONCE=1): a full pass (owners and tags) and a quick one (deletions; every poll in between). */
    prunerPassS: { full: number; quick: number };
}

export interface LossFigures {
    killed: string;
    moved: number;
    /** Seconds after the SIGKILL: the API maps none of its nodes to it; every moved node's files are on its new owner; a sample of moved MACs answered by the new owner only. */
    ringMovedS: number;
    filesMovedS: number;
    answeredS: number;
    /** Active host entries on a surviving conductor for a node it does not own, at the end. */
    leftBehind: number;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const percentile = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

export class ScaleLab {
    readonly lab = new HaPodLab<ScaleNode>();
    s!: Stack;
    clientNs = "";
    clientIf = "";
    private authFile = "";
    readonly log: string[] = [];

    get pods(): LabPod<ScaleNode>[] {
        return this.lab.pods;
    }

    say(line: string): void {
        this.log.push(line);
        if (process.env.SCALE_QUIET !== "1") console.log(`      ${line}`);
    }

    /** The ha example's pods up, three conductors in one ring with fake-hardware. `tag`: one letter (HaPodLab derives interface names from it). */
    async setUp(tag = "s"): Promise<void> {
        const lab = this.lab;
        lab.makeWork("scale");
        this.s = await this.render();
        const nodes = listedConductors(this.s.plan).map((c) => ({ node: c.node, ip: c.ip!, interface: c.interface }));
        await lab.setUp({ tag, plan: this.s.plan, rendered: this.s.rendered, cluster: this.s.cluster, nodes, adminIp: "172.22.0.253", dbIp: "172.22.0.250", kubeApi: { bridgeIp: "172.22.0.249" } });
        this.clientNs = lab.net.addNamespace(`${tag}c`);
        this.clientIf = lab.net.plug(this.clientNs, `${tag}c`, lab.sw, lab.br, { mac: "52:54:00:ff:ff:01" });
        for (const { pod, ns } of this.pods) {
            await lab.cache.serve(ns);
            await pod.runInitContainers();
        }
        for (const { node, pod } of this.pods) {
            pod.startContainers([...DHCP_CONTAINERS]);
            await until(() => /DHCP, IP range/.test(pod.logs("dnsmasq")), 60000, `${node.node}'s dnsmasq serving DHCP`, 250);
        }
        await lab.startDatabase();
        await lab.runJob(lab.clusterPod("Job", "dbsync", "172.22.0.251", "jb"));
        await lab.startIronic();
        for (const { pod } of this.pods) pod.startContainers(["dhcp-pruner"]);
        await lab.aliveConductors();
        await lab.fakeHardwareOnAll();
        this.writeAuth();
    }

    /** The provider state of this lab's renders (keys, certificates): a later render keeps what the engine would keep. */
    private readonly kept = new Map<string, Record<string, any> | undefined>();

    /** The example stack this lab runs: the ha example with baremetal-operator off (setUp), or the dev example with a kept database (setUpSingle). */
    private example = { file: "Pulumi.ha.yaml", stack: "ha", base: (raw: RawConfig): RawConfig => ({ ...raw, bmo: { enabled: false } }) };

    /** The lab's example, edited, rendered as the next run of its stack after `previousOutputs`. */
    async render(edit: (raw: RawConfig) => RawConfig = (r) => r, previousOutputs?: Record<string, unknown>): Promise<Stack> {
        return renderStack(path.join(ROOT, this.example.file), this.example.stack, (raw) => edit(this.example.base(raw)), { previousOutputs, kept: this.kept });
    }

    /**
     * The dev example (single) with database.kind mariadb, so the schema is kept and moved by the
     * Jobs, and baremetal-operator off: MariaDB, the schema Job, the one Ironic pod with every
     * container as declared, fake-hardware.
     */
    async setUpSingle(tag: string): Promise<void> {
        const lab = this.lab;
        lab.makeWork("upgrade-single");
        this.example = { file: "Pulumi.dev.yaml", stack: "dev", base: (raw) => ({ ...raw, bmo: { enabled: false }, database: { kind: "mariadb" } }) };
        this.s = await this.render();
        const prov = this.s.plan.provisioning;
        await lab.setUp({ tag, plan: this.s.plan, rendered: this.s.rendered, cluster: this.s.cluster, nodes: [{ node: "cp-0", ip: prov.ip!, interface: prov.interface! }], adminIp: "172.22.0.253", dbIp: "172.22.0.250" });
        const { pod, ns } = this.pods[0];
        await lab.cache.serve(ns);
        await lab.startDatabase();
        await lab.runJob(lab.clusterPod("Job", "dbsync", "172.22.0.251", "jb"));
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 240000);
        await lab.aliveConductors();
        await lab.fakeHardwareOnAll();
        this.writeAuth();
    }

    private writeAuth(): void {
        const creds = this.s.cluster.secrets[this.s.plan.names.credentialsSecret];
        this.authFile = path.join(this.lab.work, "api-auth");
        fs.writeFileSync(this.authFile, `${creds.username}\n${creds.password}\n`, { mode: 0o600 });
    }

    async tearDown(): Promise<void> {
        await this.lab.tearDown();
    }

    /** ironic_scale.py in the admin namespace against the live conductors' APIs; its JSON lines. */
    drive(phase: string, args: string[], timeoutMs: number, live = this.pods): any[] {
        const apis = live.flatMap(({ node }) => ["--api", `https://${node.ip}:${this.s.plan.ports.api}`]);
        const r = spawnSync("ip", ["netns", "exec", this.lab.adminNs, "python3", path.join(__dirname, "ironic_scale.py"), phase, ...apis, "--auth", this.authFile, "--ca", this.lab.caFile, ...args], { encoding: "utf8", timeout: timeoutMs, maxBuffer: 1 << 28 });
        if (r.status !== 0) throw new Error(`ironic_scale.py ${phase} exited ${r.status ?? r.signal}: ${(r.stderr ?? "").slice(-2000)}`);
        return r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    }

    /** The deploy images every conductor fetches (its own httpd serves the downloader's files; cp-0's URL for all, as one URL in a BareMetalHost). */
    images(): string[] {
        const base = `http://${this.pods[0].node.ip}:${this.s.plan.ports.http}/images`;
        return ["--kernel", `${base}/ironic-python-agent.kernel`, "--ramdisk", `${base}/ironic-python-agent.initramfs`];
    }

    owners(live = this.pods): NodeOwner[] {
        return this.drive("owners", [], 300000, live)[0].nodes.map((n: NodeOwner) => ({ ...n, conductor: conductorName(n.conductor) }));
    }

    /** Host entries (MAC → tag) active in a conductor's hostsdir, and the nodes it has option files for. */
    entries(p: LabPod<ScaleNode>): { hosts: Map<string, string>; opts: Set<string> } {
        const hostsDir = p.pod.resolve("dnsmasq", DHCP_PROVIDER_PATHS.hostsDir);
        const optsDir = p.pod.resolve("dnsmasq", DHCP_PROVIDER_PATHS.optsDir);
        const hosts = new Map<string, string>();
        for (const f of fs.readdirSync(hostsDir)) {
            if (!f.startsWith("ironic-") || !f.endsWith(".conf")) continue;
            const fields = (fs.readFileSync(path.join(hostsDir, f), "utf8").split("\n")[0] ?? "").split(",");
            if (fields[1] && fields[1] !== "ignore") hosts.set(fields[0].toLowerCase(), fields[1].replace(/^set:/, ""));
        }
        // Option files are named by node (the provider's ironic-<node uuid>.conf); host entries carry the node's dnsmasq tag.
        const opts = new Set(fs.readdirSync(optsDir).filter((f) => f.startsWith("ironic-") && f.endsWith(".conf")).map((f) => f.slice("ironic-".length, -".conf".length)));
        return { hosts, opts };
    }

    /** For each MAC in turn, from the client namespace (test/scale/dhcp_probe.py): who offered and how long the first offer took. */
    ask(macs: string[]): { mac: string; server?: string; ms: number }[] {
        if (macs.length === 0) throw new Error("no MAC to ask for (an empty sample)");
        const r = run("ip", ["netns", "exec", this.clientNs, "python3", path.join(__dirname, "dhcp_probe.py"), "--interface", this.clientIf, ...macs], { timeout: 60000 + macs.length * 6000 });
        return r.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => {
                const [mac, server, ms] = l.split(" ");
                return { mac, server: server === "-" ? undefined : server, ms: ms === "-" ? NaN : Number(ms) };
            });
    }

    /** Its pruner's passes in its dhcp-pruner container, as declared, each as the pruner times it. */
    prunerPass(p: LabPod<ScaleNode>): { full: number; quick: number } {
        const c = p.pod.container("dhcp-pruner");
        const r = p.pod.exec("dhcp-pruner", ["env", "PRUNER_ONCE=1", ...(c.command ?? []), ...(c.args ?? [])], 600000);
        if (r.status !== 0) throw new Error(`${p.node.node}: pruner passes exited ${r.status}: ${r.stderr.slice(-1000)}`);
        const times = (kind: string) => [...r.stdout.matchAll(new RegExp(`${kind} pass: ([0-9.]+) s`, "g"))].map((m) => Number(m[1]));
        const [full, quick] = [times("full"), times("quick")];
        if (!full.length || !quick.length) throw new Error(`${p.node.node}: the pruner timed no full and quick pass: ${r.stdout.slice(-1000)}`);
        return { full: Math.max(...full), quick: quick[quick.length - 1] };
    }

    dnsmasqRss(p: LabPod<ScaleNode>): number {
        const pid = dhcpListener(p.ns)?.pid;
        if (!pid) return NaN;
        const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        return m ? Number(m[1]) : NaN;
    }

    /** Per conductor: what it owns, its files, its dnsmasq's size and answers to a sample of its MACs, its pruner's pass. */
    figures(owners: NodeOwner[], sample: number): ConductorFigures[] {
        return this.pods.map((p) => {
            const mine = owners.filter((o) => o.conductor === p.node.ip);
            const { hosts, opts } = this.entries(p);
            const step = Math.max(1, Math.floor(mine.length / sample));
            const macs = mine.filter((_, i) => i % step === 0).slice(0, sample).map((o) => o.mac);
            const latency = (): Latency => {
                const asked = this.ask(macs);
                const wrong = asked.filter((a) => a.server !== p.node.ip);
                if (wrong.length) throw new Error(`${p.node.node}: ${wrong.length} of ${asked.length} of its hosts answered by ${JSON.stringify([...new Set(wrong.map((w) => w.server ?? "no one"))])}, e.g. ${wrong[0].mac}`);
                const ms = asked.map((a) => a.ms);
                return { n: ms.length, p50: round1(percentile(ms, 50)), p99: round1(percentile(ms, 99)), max: round1(Math.max(...ms)) };
            };
            const answerMs = latency();
            return {
                node: p.node.node,
                ip: p.node.ip,
                owned: mine.length,
                hostFiles: hosts.size,
                optionFiles: opts.size,
                dnsmasqRssKiB: this.dnsmasqRss(p),
                answerMs,
                repeatMs: latency(),
                prunerPassS: this.prunerPass(p),
            };
        });
    }

    /** Active host entries on `p` for nodes another conductor owns (or no node). */
    strays(p: LabPod<ScaleNode>, owners: NodeOwner[]): string[] {
        const byMac = new Map(owners.map((o) => [o.mac.toLowerCase(), o]));
        return [...this.entries(p).hosts.keys()].filter((mac) => byMac.get(mac)?.conductor !== p.node.ip && mac.startsWith("52:54:10"));
    }

    /** Node loss (every container SIGKILLed at once): how long until its nodes are served by their new owners. */
    async loss(before: NodeOwner[], sample: number, timeoutMs: number): Promise<LossFigures> {
        const victim = this.pods[this.pods.length - 1];
        const live = this.pods.filter((p) => p !== victim);
        const moved = before.filter((o) => o.conductor === victim.node.ip);
        const t0 = Date.now();
        await victim.pod.kill();
        const since = () => Math.round((Date.now() - t0) / 100) / 10;
        let after: NodeOwner[] = [];
        await until(() => (after = this.owners(live)).every((o) => o.conductor !== victim.node.ip && o.conductor), timeoutMs, "the API maps every node to a live conductor", 1000);
        const ringMovedS = since();
        this.say(`loss: ring moved ${ringMovedS} s after the kill`);
        const newOwner = new Map(after.map((o) => [o.uuid, o.conductor]));
        const pending = () => {
            // Each survivor's directories read once per poll.
            const entries = new Map(live.map((p) => [p.node.ip, this.entries(p)]));
            return moved.filter((o) => {
                const e = entries.get(newOwner.get(o.uuid)!)!;
                return !(e.hosts.has(o.mac.toLowerCase()) && e.opts.has(o.uuid));
            }).length;
        };
        let left = moved.length;
        let lastSaid = 0;
        await until(
            () => {
                left = pending();
                if (Date.now() - lastSaid > 15000) (this.say(`loss: ${moved.length - left}/${moved.length} moved nodes' files on their new owners at ${since()} s`), (lastSaid = Date.now()));
                return left === 0;
            },
            timeoutMs,
            `every moved node's files on its new owner (${left} missing)`,
            1000,
        );
        const filesMovedS = since();
        const step = Math.max(1, Math.floor(moved.length / sample));
        const probe = moved.filter((_, i) => i % step === 0).slice(0, sample);
        let bad: string[] = [];
        await until(
            () => {
                bad = this.ask(probe.map((o) => o.mac)).filter((a) => a.server !== newOwner.get(probe.find((o) => o.mac === a.mac)!.uuid)).map((a) => `${a.mac}→${a.server ?? "none"}`);
                return bad.length === 0;
            },
            timeoutMs,
            `a sample of moved MACs answered by their new owners (${bad.slice(0, 3).join(", ")})`,
            1000,
        );
        const answeredS = since();
        const leftBehind = live.reduce((n, p) => n + this.strays(p, after).length, 0);
        return { killed: victim.node.node, moved: moved.length, ringMovedS, filesMovedS, answeredS, leftBehind };
    }
}
