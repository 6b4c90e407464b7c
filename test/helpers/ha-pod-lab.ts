/**
 * The pod lab of a stack (multi; single for its provisioning tier) for the pod runner (test/helpers/pod-runner.ts), shared by
 * test/integration/pods.test.ts (the ha stack), pods-v6.test.ts (IPv6) and pod-corp-pki.test.ts
 * (a corporate PKI): one network namespace per conductor node on a provisioning bridge, each with
 * its pod of the rendered DaemonSet; an admin namespace where BMO, BMCs and the test talk to the
 * conductors from; the IPA image cache; MariaDB and the Jobs as pods of their own on the cluster
 * network; optionally the local cluster's real kube-apiserver for the DHCP slot agents, reached
 * from the nodes at the kubernetes Service's ClusterIP through a socat bridge (kube-proxy's part).
 *
 * What differs between the three is a parameter: the stack (rendered by the test), the nodes, the
 * CA clients verify with, the addresses, whether cluster traffic has an IPv4 network of its own
 * (eth0 of every node) or shares the provisioning network, and whether slot agents need the API
 * server. Every name carries the lab's `tag` and this process's id (NetnsLab), so the three files
 * and two suites on one machine stay apart; everything is deleted in `tearDown`.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import type { IronicPlan } from "../../core/plan";
import { FAILOVER_SETTINGS } from "../../core/timings";
import type { Rendered } from "../../tools/render";
import { Cluster } from "../e2e/harness";
import { unhandledChanges } from "./conductor-dnsmasq";
import { ImageCacheLab } from "./image-cache";
import type { IpaRamdisk } from "./ipa";
import { conductorName, until } from "./ironic-lab";
import { ClusterData, PodRunner, PodRunnerOptions, StandinImage, tail } from "./pod-runner";
import { prepareImages } from "./standins";
import { ApiBridge, NetnsLab, run, tmpDir } from "./sys";
import { PxeVm } from "./vm";

/** A conductor node of the lab: its name, its address on the provisioning network and the interface holding it. */
/** The containers of a conductor pod that serve Ironic: ironic and httpd wait for the certificate conductor-certs mints. */
export const IRONIC_CONTAINERS = ["ironic", "httpd", "conductor-certs", "ramdisk-logs"] as const;
/** A multi pod's DHCP containers: dnsmasq under its fence, and the slot agent that grants it a slot. */
export const DHCP_CONTAINERS = ["dnsmasq", "dhcp-slot-agent"] as const;

export interface LabNode {
    node: string;
    ip: string;
    interface: string;
}

export interface LabPod<N extends LabNode> {
    node: N;
    pod: PodRunner;
    /** The node's network namespace. */
    ns: string;
    /** Its provisioning interface inside `ns`. */
    ifname: string;
}

export interface HaPodLabOptions<N extends LabNode> {
    /** One or two characters in front of every namespace and link name of this lab. */
    tag: string;
    plan: IronicPlan;
    rendered: Rendered;
    cluster: ClusterData;
    /** The conductor nodes, one pod each, in this order. */
    nodes: N[];
    /** The CA clients of the API, httpd and MariaDB verify with; default: the stack CA (<name>-cacert). */
    caFile?: string;
    /** The admin namespace's address on the provisioning network. */
    adminIp: string;
    /** The MariaDB pod's address on the cluster network (the MariaDB Service's names resolve to it). */
    dbIp: string;
    /**
     * The local cluster's kube-apiserver for the slot agents: started, the stack's namespace and the
     * rendered ServiceAccount, Role and RoleBinding created, a token of that ServiceAccount given to
     * the conductor pods, and a bridge at CLUSTER_IP:443 in a namespace of its own at `bridgeIp` on
     * the cluster network.
     */
    kubeApi?: { bridgeIp: string };
    /** A cluster network of its own (IPv4, eth0 of every node, /24); without, the provisioning network carries cluster traffic. */
    clusterNetwork?: { nodeIp: (i: number) => string };
    /** The IPA ramdisk the image cache holds for x86_64 (test/helpers/ipa.ts); stand-in files without. */
    ipa?: IpaRamdisk;
}

/** The kubernetes Service's ClusterIP (in the local cluster's serving certificate). */
export const CLUSTER_IP = "10.96.0.1";

/** An address as it goes in a URL's authority. */
const urlHost = (ip: string) => (ip.includes(":") ? `[${ip}]` : ip);

export class HaPodLab<N extends LabNode> {
    readonly net = new NetnsLab();
    work = "";
    /** Pods of the stack that are not conductor pods (MariaDB, Jobs' pods, nodes a test adds), stopped after the conductors. */
    readonly others: PodRunner[] = [];
    readonly pods: LabPod<N>[] = [];
    private opts?: HaPodLabOptions<N>;
    images!: Record<string, StandinImage>;
    cache!: ImageCacheLab;
    kube?: Cluster;
    apiBridge?: ApiBridge;
    serviceAccount?: PodRunnerOptions["serviceAccount"];
    caFile = "";
    /** The switch namespace, its provisioning bridge, and the bridge of the cluster network (the provisioning bridge when it has none). */
    sw = "";
    br = "";
    clusterBr = "";
    adminNs = "";
    adminIf = "";
    /** The provisioning network's prefix length. */
    prefix = "";

    /** The lab's work directory (removed in tearDown unless KEEP_WORK=1); made first, so a test can put files there before setUp. */
    makeWork(prefix: string): string {
        this.work = tmpDir(prefix);
        return this.work;
    }

    get o(): HaPodLabOptions<N> {
        if (!this.opts) throw new Error("HaPodLab: setUp has not run");
        return this.opts;
    }

    get plan(): IronicPlan {
        return this.o.plan;
    }

    get cluster(): ClusterData {
        return this.o.cluster;
    }

    /** Cluster DNS stand-in: the API Service resolves to `apiIp` (the pod's own conductor), the MariaDB Service to the MariaDB pod, the cache's to the cache. */
    serviceHosts(apiIp: string): Record<string, string> {
        return {
            ...Object.fromEntries(this.plan.serviceDnsNames.map((n) => [n, apiIp])),
            ...Object.fromEntries(this.plan.database.serviceDnsNames.map((n) => [n, this.o.dbIp])),
            ...this.cache.hosts,
        };
    }

    async setUp(o: HaPodLabOptions<N>): Promise<void> {
        this.opts = o;
        if (!this.work) this.makeWork(`pods-${o.tag}`);
        const server = o.kubeApi ? await this.startKube() : undefined;
        this.caFile = o.caFile ?? path.join(this.work, "ca.crt");
        if (!o.caFile) fs.writeFileSync(this.caFile, o.cluster.secrets[o.plan.names.caSecret]["tls.crt"]);
        this.images = prepareImages(this.work);
        this.cache = new ImageCacheLab({ rendered: o.rendered, cluster: o.cluster, images: this.images, work: this.work, ipa: o.ipa });
        const t = o.tag;
        const ipv6 = o.plan.provisioning.cidr.includes(":");
        this.prefix = o.plan.provisioning.cidr.split("/")[1];
        this.sw = this.net.addNamespace(`${t}sw`);
        this.br = this.net.addBridge(this.sw, `${t}br`);
        this.clusterBr = o.clusterNetwork ? this.net.addBridge(this.sw, `${t}cb`) : this.br;
        if (o.kubeApi) {
            const apiNs = this.net.addNamespace(`${t}api`);
            const apiIf = this.net.plug(apiNs, `${t}api`, this.sw, this.clusterBr, { cidr: `${o.kubeApi.bridgeIp}/${this.clusterPrefix}` });
            this.net.addAddress(apiNs, apiIf, `${CLUSTER_IP}/32`);
            this.apiBridge = new ApiBridge(apiNs, CLUSTER_IP, 443, server!, path.join(this.work, "api-bridge.log"));
        }
        // multi: the conductors' DaemonSet; single (the dev stack's provisioning tier): the one Ironic Deployment.
        const ds = o.rendered.objects.find((x) => x.kind === "DaemonSet") ?? o.rendered.objects.find((x) => x.kind === "Deployment" && x.metadata.name === o.plan.names.deployment)!;
        o.nodes.forEach((c, i) => {
            const ns = this.net.addNamespace(`${t}${i}`);
            if (ipv6) this.net.enableIpv6(ns);
            const ifname = this.net.plug(ns, `${t}${i}`, this.sw, this.br, { cidr: `${c.ip}/${this.prefix}`, rename: c.interface });
            if (o.clusterNetwork) this.net.plug(ns, `${t}k${i}`, this.sw, this.clusterBr, { cidr: `${o.clusterNetwork.nodeIp(i)}/24`, rename: "eth0" });
            // The node reaches the kubernetes Service (kube-proxy's part) on its cluster link.
            if (o.kubeApi) this.net.routeOnLink(ns, `${CLUSTER_IP}/32`, o.clusterNetwork ? "eth0" : ifname);
            const pod = new PodRunner({
                name: `ironic-${c.node}`,
                namespace: o.plan.namespace,
                spec: ds.spec.template.spec,
                cluster: o.cluster,
                images: this.images,
                work: this.work,
                netns: ns,
                nodeName: c.node,
                hostIP: c.ip,
                podIP: c.ip,
                hosts: this.serviceHosts(c.ip),
                serviceAccount: this.serviceAccount,
            });
            this.pods.push({ node: c, pod, ns, ifname });
        });
        this.adminNs = this.net.addNamespace(`${t}adm`);
        if (ipv6) this.net.enableIpv6(this.adminNs);
        this.adminIf = this.net.plug(this.adminNs, `${t}adm`, this.sw, this.br, { cidr: `${o.adminIp}/${this.prefix}` });
    }

    private get clusterPrefix(): string {
        return this.o.clusterNetwork ? "24" : this.prefix;
    }

    /** The local cluster with the slot agents' namespace, ServiceAccount, Role and RoleBinding as rendered; returns the API server's port. */
    private async startKube(): Promise<number> {
        const { plan, rendered } = this.o;
        const kube = (this.kube = Cluster.up());
        kube.kubectl(["create", "namespace", plan.namespace]);
        // The slot agents' (BMO's, with bmo.enabled, are the BMO test's); a single stack has none.
        const rbac = rendered.objects.filter((x) => ["ServiceAccount", "Role", "RoleBinding"].includes(x.kind) && x.metadata.labels?.["app.kubernetes.io/name"] !== "baremetal-operator");
        const slots = rendered.objects.some((x) => x.kind === "DaemonSet");
        assert.deepEqual(rbac.map((x) => x.kind).sort(), slots ? ["Role", "RoleBinding", "ServiceAccount"] : []);
        if (slots) kube.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: rbac }) });
        // A pod that names no ServiceAccount runs as the namespace's `default` (the controller manager makes it).
        const account = slots ? plan.names.slotAccount : "default";
        if (!slots) await until(() => kube.kubectl(["get", "serviceaccount", account, "-n", plan.namespace], { allowFail: true }).status === 0, 60000, `ServiceAccount ${plan.namespace}/default`, 500);
        const token = kube.kubectl(["create", "token", account, "-n", plan.namespace, "--duration", "2h"]).stdout.trim();
        const server = new URL(kube.kubectl(["config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"]).stdout.trim());
        this.serviceAccount = { apiHost: CLUSTER_IP, apiPort: 443, token, caCrt: fs.readFileSync(path.join(kube.dir, "pki", "ca.crt"), "utf8") };
        return Number(server.port);
    }

    /** For a failed test: the end of every pod's logs, the other pods first. */
    printLogs(podChars = 1500): void {
        for (const p of this.others) p.printLogs(1500);
        for (const { pod } of this.pods) pod.printLogs(podChars);
    }

    /**
     * Stops every pod: the conductor pods, then the others (MariaDB, the Jobs' pods, pods a test
     * added), then the cache, each group at once. A container still running at the end of the
     * grace period is killed (the ironic container's graceful shutdown, the IPA cache server:
     * python as PID 1 without a SIGTERM handler): one pod after the other, that added 5 s a pod.
     */
    async tearDown(): Promise<void> {
        await Promise.all(this.pods.map(({ pod }) => pod.stop()));
        await Promise.all(this.others.map((p) => p.stop()));
        await this.cache?.stop();
        await this.apiBridge?.stop();
        this.kube?.down();
        this.net.destroy();
        if (this.work && process.env.KEEP_WORK !== "1") fs.rmSync(this.work, { recursive: true, force: true });
    }

    /** A pod of the stack that is not on the host network (MariaDB, a Job's pod): its own namespace on the cluster network, on the first node; from `rendered` (default: the lab's render). */
    clusterPod(kind: string, podName: string, ip: string, base: string, rendered: Rendered = this.o.rendered): PodRunner {
        const o = rendered.objects.find((x) => x.kind === kind && (kind !== "Job" || x.metadata.name.includes(podName)))!;
        const ns = this.net.addNamespace(`${this.o.tag}${base}`);
        this.net.plug(ns, `${this.o.tag}${base}`, this.sw, this.clusterBr, { cidr: `${ip}/${this.clusterPrefix}` });
        const first = this.o.nodes[0];
        const hostIP = this.o.clusterNetwork ? this.o.clusterNetwork.nodeIp(0) : first.ip;
        const p = new PodRunner({ name: podName, namespace: this.plan.namespace, spec: o.spec.template.spec, cluster: this.cluster, images: this.images, work: this.work, netns: ns, nodeName: first.node, hostIP, podIP: ip, hosts: this.serviceHosts(first.ip) });
        this.others.push(p);
        return p;
    }

    /** A Job's pod, run to completion (restartPolicy OnFailure: the kubelet would retry; here a failure fails). */
    async runJob(p: PodRunner): Promise<void> {
        const [run1] = p.startContainers();
        const code = await new Promise<number | null>((res) => (run1.proc.exitCode !== null ? res(run1.proc.exitCode) : run1.proc.once("exit", (c) => res(c))));
        assert.equal(code, 0, `${p.o.name} exited ${code}:\n${tail(p.logs(p.spec.containers[0].name))}`);
    }

    /** MariaDB from its StatefulSet, ready (its probes). */
    async startDatabase(base = "db"): Promise<PodRunner> {
        const db = this.clusterPod("StatefulSet", "ironic-mariadb-0", this.o.dbIp, base);
        db.startContainers();
        await db.waitReady("mariadb", 180000);
        return db;
    }

    /** An Ironic API request from the admin namespace, with the API credentials, verifying `caFile`. */
    api(nodeIp: string, p: string, extra: string[] = []): { code: number; body: string } {
        const creds = this.cluster.secrets[this.plan.names.credentialsSecret];
        const r = run("ip", ["netns", "exec", this.adminNs, "curl", "-s", "--max-time", "30", "--cacert", this.caFile, "-u", `${creds.username}:${creds.password}`, "-H", "X-OpenStack-Ironic-API-Version: 1.82", "-w", "\n%{http_code}", ...extra, `https://${urlHost(nodeIp)}:${this.plan.ports.api}${p}`], { allowFail: true, timeout: 40000 });
        const lines = r.stdout.split("\n");
        return { code: Number(lines.pop()), body: lines.join("\n") };
    }

    /**
     * The certificates (PEM) a server presents, verified from the admin namespace against `caFile`
     * (default: the lab's) for `ip` (as IPA, BMO and JSON-RPC peers check them). `expect: "refused"`:
     * asserts instead that the verification fails, and returns nothing.
     */
    served(ip: string, port: number, label = ip, o: { caFile?: string; expect?: "verified" | "refused" } = {}): string[] {
        const r = run("ip", ["netns", "exec", this.adminNs, "openssl", "s_client", "-connect", `${urlHost(ip)}:${port}`, "-CAfile", o.caFile ?? this.caFile, "-verify_ip", ip, "-verify_return_error", "-showcerts"], { input: "", allowFail: true, timeout: 30000 });
        if (o.expect === "refused") {
            assert.notEqual(r.status, 0, `${label}:${port} is verified against ${o.caFile ?? this.caFile}, which must not be`);
            assert.match(r.stdout + r.stderr, /unable to get local issuer certificate|self[- ]signed certificate in certificate chain|certificate verify failed/, `${label}:${port}: refused for its issuer`);
            return [];
        }
        assert.equal(r.status, 0, `${label}:${port}: ${r.stdout.slice(-600)} ${r.stderr.slice(-600)}`);
        return r.stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    }

    /** Every conductor pod's ironic, httpd, conductor-certs (their certificate's minter) and ramdisk-logs containers started as declared, each ready. */
    async startIronic(): Promise<void> {
        for (const { pod } of this.pods) pod.startContainers([...IRONIC_CONTAINERS]);
        for (const { pod } of this.pods) for (const c of IRONIC_CONTAINERS) await pod.waitReady(c, 240000);
    }

    /** Waits (120 s) until as many conductors as nodes are alive in the API of the first node; their hostnames, sorted. */
    async aliveConductors(): Promise<string[]> {
        let alive: string[] = [];
        let last = "";
        await until(
            () => {
                const r = this.api(this.o.nodes[0].ip, "/v1/conductors");
                last = `${r.code} ${r.body}`;
                alive = r.code === 200 ? JSON.parse(r.body).conductors.filter((c: any) => c.alive).map((c: any) => conductorName(c.hostname)).sort() : [];
                return alive.length === this.o.nodes.length;
            },
            120000,
            `${this.o.nodes.length} conductors alive`,
            2000,
        ).catch((e) => assert.fail(`${e.message}: conductors alive: ${JSON.stringify(alive)} (${last})`));
        return alive;
    }

    /**
     * Waits (60 s) until every conductor registered fake-hardware (GET /v1/drivers lists it with
     * all of them), then until no hash ring cached before that can still be used (freshRing).
     */
    async fakeHardwareOnAll(): Promise<string[]> {
        let hosts: string[] = [];
        let last = "";
        let seenAt = 0;
        await until(
            () => {
                const r = this.api(this.o.nodes[0].ip, "/v1/drivers");
                // After the answer: its database read, which listed them all, came before this.
                seenAt = Date.now();
                last = `${r.code} ${r.body}`;
                const fake = r.code === 200 ? JSON.parse(r.body).drivers.find((d: any) => d.name === "fake-hardware") : undefined;
                hosts = fake ? [...fake.hosts].sort() : [];
                return hosts.length === this.o.nodes.length;
            },
            60000,
            `fake-hardware registered by all ${this.o.nodes.length} conductors`,
            1000,
        ).catch((e) => assert.fail(`${e.message}: fake-hardware registered by: ${JSON.stringify(hosts)} (${last})`));
        await this.freshRing(seenAt);
        return hosts;
    }

    /**
     * The API hashes a node to a conductor with the ring its process cached (API and conductor are
     * one process in the image); Ironic (ironic/common/hash_ring.py) logs "Rebuilding cached hash
     * rings" (debug, on in the pods) before it reads the conductors from the database, and rebuilds
     * on the first use after hash_ring_reset_interval. Waits until no conductor pod's process can
     * still use a ring read before `seenAt` (when all conductors were seen registered): its log
     * shows no ring built at all (nothing cached: the next use reads the database), or its last
     * build or reset stamped after `seenAt`, or hash_ring_reset_interval + 1 s have passed.
     * Log stamps, not log lengths: a ring built between a length read and the database read that
     * listed them all would pass for fresh (CI of 51999f7: six nodes, one conductor).
     */
    private async freshRing(seenAt: number): Promise<void> {
        const interval = Number(FAILOVER_SETTINGS.find(([s, k]) => s === "default" && k === "hash_ring_reset_interval")![2]) * 1000;
        const builds = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) .*(?:Rebuilding|Resetting) cached hash rings/gm;
        const fresh = () =>
            this.pods.every(({ pod }) => {
                const stamps = [...pod.logs("ironic").matchAll(builds)].map((m) => Date.parse(`${m[1].replace(" ", "T")}Z`));
                if (stamps.some((t) => t > Date.now() + 2000)) throw new Error(`${pod.o.name}: ironic's log stamps are ahead of this clock: not UTC?`);
                return stamps.length === 0 || stamps[stamps.length - 1] > seenAt;
            });
        await until(() => fresh() || Date.now() - seenAt > interval + 1000, interval + 10000, `no hash ring read before all conductors registered still in use (hash_ring_reset_interval ${interval / 1000} s)`, 100);
    }

    /** The node as the API of the first node shows it. */
    nodeState(uuid: string): any {
        return JSON.parse(this.api(this.o.nodes[0].ip, `/v1/nodes/${uuid}`).body);
    }

    /** A provision state change, asked of the second node's API (which hands it to the owner over JSON-RPC). */
    provision(uuid: string, target: string): { code: number; body: string } {
        return this.api(this.o.nodes[1].ip, `/v1/nodes/${uuid}/states/provision`, ["-X", "PUT", "-H", "Content-Type: application/json", "-d", JSON.stringify({ target })]);
    }

    /** Waits (180 s) for a provision state; `manageable` also for its transition to end (`clean wait` and `clean failed` keep the target `available`). */
    async waitState(uuid: string, want: string): Promise<void> {
        let n: any = {};
        const settled = () => (n = this.nodeState(uuid)).provision_state === want && (want !== "manageable" || !n.target_provision_state);
        await until(settled, 180000, `${uuid} in ${want}`, 1000).catch((e) => {
            throw new Error(`${e.message}: now ${n.provision_state} → ${n.target_provision_state}, last error: ${n.last_error}`);
        });
    }

    /** A file of the shared volume (`/shared/...`) of a conductor pod, on the host. */
    shared(p: LabPod<N>, rel: string): string {
        return p.pod.resolve("ironic", rel);
    }

    /**
     * Waits (30 s) until `pod`'s dnsmasq has read each of `files` (paths in its view, in its
     * dhcp-hostsdir or dhcp-optsdir), written when its log was `since` long (unhandledChanges).
     */
    async dnsmasqRead(pod: PodRunner, files: string[], since: number): Promise<void> {
        const log = () => pod.logs("dnsmasq").slice(since);
        await until(() => unhandledChanges(log(), { read: files }).length === 0, 30000, `${pod.o.name}'s dnsmasq reading ${files.join(", ")}`, 50).catch((e) => {
            throw new Error(`${e.message}; not yet: ${unhandledChanges(log(), { read: files }).join(", ")}; its log since:\n${tail(log(), 1500)}`);
        });
    }

    /**
     * Waits (300 s) until a VM powered on for `owner` asks its httpd for the node's deploy kernel,
     * or exits; asserts it still runs and prints the time it took. `what` names the VM in messages,
     * `label` and `path` in the printed time.
     */
    async deployKernelAsked(v: { vm?: PxeVm; uuid: string; owner: LabPod<N> }, m: { what: string; label: string; path: string }): Promise<void> {
        const kernel = `GET /${v.uuid}/deploy_kernel`;
        const http = () => v.owner.pod.logs("httpd");
        await until(() => http().includes(kernel) || !v.vm!.running, 300000, `${m.what} asking ${v.owner.node.node}'s httpd for its deploy kernel. VM:\n${tail(v.vm!.output(), 1500)}\n${v.owner.node.node}'s httpd:\n${tail(http(), 1500)}`, 1000);
        assert.ok(v.vm!.running, `${m.what} exited: ${tail(v.vm!.output(), 1500)}`);
        const seconds = ((Date.now() - v.vm!.startedAt) / 1000).toFixed(1);
        console.log(`      ${m.label}: power-on to the deploy kernel request at ${v.owner.node.node} in ${seconds} s (${m.path})`);
    }
}
