/**
 * Issue 19: keepalived with an IPv6 VIP, for real. The IPv6 single stack
 * (test/fixtures/Pulumi.v6-vip.yaml: provisioning.ip fd00:1:2:3::5 on a /64, an IPv6 extra VIP on
 * eth2, router id 52) renders its Ironic pod; the pod runner starts that pod's keepalived container
 * as declared (command, env, uid 65532, capabilities) on two nodes in network namespaces this test
 * creates, each on Debian's keepalived behind the stand-in of the image's manage-keepalived.sh.
 * What is checked is what keepalived really does with the rendered config: it holds both VIPs
 * (usable at once: nodad, never tentative), advertises VRRPv3 from the link-local address to
 * ff02::12, the second node stays backup, and takes over when the first one's container stops.
 * Then the whole Ironic pod on one node: every container ready on the IPv6 VIP, the API over TLS on
 * https://[VIP]:6385, and virtual media handed to and fetched by a BMC on the extra VIP.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { IronicPlan } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { ImageCacheLab } from "../helpers/image-cache";
import { ClusterData, PodRunner, publishVirtualMedia, tail } from "../helpers/pod-runner";
import { onePodHooks } from "../helpers/pod-stacks";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { debianKeepalivedImage, IMAGE_VENV_NEEDED, imageVenvReady, prepareImages } from "../helpers/standins";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";

const FIXTURE = path.join(__dirname, "..", "fixtures", "Pulumi.v6-vip.yaml");
const VIP = "fd00:1:2:3::5";
const EXTRA_VIP = "fd00:20::5";

interface Node {
    name: string;
    ns: string;
    ip: string;
    pod: PodRunner;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `ip -6 addr` of one interface in a namespace, one line per address. */
function addrs(ns: string, dev: string): string {
    return run("ip", ["-n", ns, "-o", "-6", "addr", "show", "dev", dev]).stdout;
}

function holds(ns: string, dev: string, ip: string): string | undefined {
    return addrs(ns, dev)
        .split("\n")
        .find((l) => l.includes(` ${ip}/`));
}

async function waitFor<T>(what: string, timeoutMs: number, f: () => T | undefined): Promise<{ value: T; ms: number }> {
    const t0 = Date.now();
    for (;;) {
        const v = f();
        if (v) return { value: v, ms: Date.now() - t0 };
        if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not after ${timeoutMs} ms`);
        await sleep(100);
    }
}

/** VRRP packets on `dev` of `ns` (tcpdump -v), at most `count` within `seconds`. */
function vrrpOnWire(ns: string, dev: string, count: number, seconds: number): string {
    const cap = run("ip", ["netns", "exec", ns, "timeout", String(seconds), "tcpdump", "-n", "-v", "-c", String(count), "-i", dev, "ip6 proto 112 and dst ff02::12"], { allowFail: true });
    return cap.stdout + cap.stderr;
}

/** The link-local address of an interface (keepalived's VRRPv3 source address). */
function linkLocal(ns: string, dev: string): string | undefined {
    return /inet6 (fe80::[0-9a-f:]+)\/64 scope link/.exec(addrs(ns, dev))?.[1];
}

describe("pods as declared: IPv6 single stack with keepalived, two nodes (pod runner, Debian's keepalived)", function () {
    this.timeout(180000);
    const net = new NetnsLab();
    let work = "";
    let plan: IronicPlan;
    let nodes: Node[] = [];
    let hostNs = "";

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["keepalived", "tcpdump", "setcap", "nsenter", "unshare", "setpriv"].every((c) => !!which(c)), "Debian's keepalived, tcpdump, libcap2-bin, util-linux (apt-get install keepalived tcpdump libcap2-bin util-linux)");
        work = tmpDir("pods-keepalived-v6");
        const raw = readStackConfig(FIXTURE);
        plan = planOf(raw);
        const { rendered, cluster } = await renderWithRealSecrets(raw, "v6-vip");
        const dep = rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === plan.names.deployment)!;
        const images = { [plan.images.keepalived]: debianKeepalivedImage(work) };
        const sw = net.addNamespace("sw");
        const prov = net.addBridge(sw, "br");
        const oob = net.addBridge(sw, "oob");
        // Duplicate address detection stays on in the nodes (the kernel's default): keepalived's own
        // VIPs must not need it off. Only the nodes' own addresses are added with nodad.
        nodes = ["a", "b"].map((n, i) => {
            const ns = net.addNamespace(`k6${n}`);
            const ip = `fd00:1:2:3::${2 + i}`;
            net.plug(ns, `${n}1`, sw, prov, { cidr: `${ip}/64`, rename: plan.provisioning.interface });
            net.plug(ns, `${n}2`, sw, oob, { cidr: `fd00:20::${2 + i}/64`, rename: "eth2" });
            const pod = new PodRunner({ name: `ironic-${n}`, namespace: plan.namespace, spec: dep.spec.template.spec, cluster: cluster as ClusterData, images, work: path.join(work, n), netns: ns, nodeName: `cp-${i}`, hostIP: ip, podIP: ip });
            return { name: `cp-${i}`, ns, ip, pod };
        });
        // A host on the provisioning network that talks to the VIP.
        hostNs = net.addNamespace("k6h");
        net.plug(hostNs, "h1", sw, prov, { cidr: "fd00:1:2:3::100/64" });
        // keepalived sends from the link-local address: wait until DAD has made it usable.
        for (const n of nodes) await waitFor(`${n.name}'s link-local address`, 10000, () => /scope link/.test(addrs(n.ns, "eth1")) && !/tentative/.test(addrs(n.ns, "eth1")));
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") for (const n of nodes) console.log(`---- keepalived on ${n.name} ----\n${tail(n.pod.logs("keepalived"), 3000)}`);
    });

    after(async function () {
        for (const n of nodes) await n.pod.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("node cp-0's keepalived container holds provisioning.ip with the /64 on eth1 and the IPv6 extra VIP on eth2, usable at once (nodad, never tentative or dadfailed)", async function () {
        const [a] = nodes;
        assert.equal(a.pod.container("keepalived").securityContext.runAsUser, 65532, "the image's user, as declared");
        a.pod.startContainers(["keepalived"]);
        const got = await waitFor("the VIP on cp-0", 15000, () => holds(a.ns, "eth1", VIP));
        console.log(`      cp-0 holds ${VIP} ${got.ms} ms after its keepalived container started`);
        for (const [dev, ip] of [["eth1", VIP], ["eth2", EXTRA_VIP]]) {
            const line = await waitFor(`${ip} on ${dev}`, 5000, () => holds(a.ns, dev, ip));
            assert.match(line.value, new RegExp(`inet6 ${ip}/64 scope global nodad`), `${ip}/64 on ${dev}: ${line.value}`);
            assert.doesNotMatch(line.value, /tentative|dadfailed/);
        }
        assert.match(a.pod.logs("keepalived"), /Entering MASTER STATE/);
    });

    it("the file keepalived runs on: router id 52, both VIPs with dev and prefix, no authentication; it passes keepalived --config-test and keepalived reads it without a warning (no family mismatch, no ignored authentication)", function () {
        const [a] = nodes;
        const file = `${a.pod.rootOf("keepalived")}/conf/keepalived/keepalived.conf`;
        const conf = fs.readFileSync(file, "utf8");
        assert.match(conf, /virtual_router_id 52\n/);
        assert.doesNotMatch(conf, /authentication|auth_pass/);
        assert.match(conf, /virtual_ipaddress \{\n\s*fd00:1:2:3::5\/64 dev eth1\n\s*fd00:20::5\/64 dev eth2\n/);
        const test = run("ip", ["netns", "exec", a.ns, "keepalived", "--config-test", `--use-file=${file}`], { allowFail: true });
        assert.equal(test.status, 0, `keepalived --config-test: ${test.stdout}${test.stderr}`);
        assert.doesNotMatch(a.pod.logs("keepalived"), /Unknown keyword|WARNING|error|does not support|address family/i, "keepalived read every line of it");
    });

    it("on the wire: VRRPv3 advertisements (IPv6 next header 112) from cp-0's link-local address to ff02::12, router id 52, both VIPs", function () {
        const [a] = nodes;
        const out = vrrpOnWire(a.ns, "eth1", 2, 5);
        const ll = linkLocal(a.ns, "eth1")!;
        assert.match(out, new RegExp(`${ll} > ff02::12: VRRPv3, Advertisement, vrid 52, prio 101, intvl 100cs, length \\d+, addrs\\(2\\): fd00:1:2:3::5,fd00:20::5`), out);
        assert.match(out, /2 packets captured/);
    });

    it("a host on the provisioning network reaches the VIP at cp-0 (its neighbour entry holds cp-0's MAC)", async function () {
        const [a] = nodes;
        assert.equal(reach(hostNs, VIP), "refused", "cp-0's kernel answers on the VIP (no listener: a TCP reset)");
        assert.equal(neighbourMac(hostNs, VIP), macOf(a.ns, "eth1"));
    });

    it("cp-1's keepalived (same pod, same config) stays backup while cp-0 advertises: only one node holds the VIP", async function () {
        const [a, b] = nodes;
        b.pod.startContainers(["keepalived"]);
        await waitFor("cp-1 in BACKUP", 10000, () => /Entering BACKUP STATE/.test(b.pod.logs("keepalived")));
        // Longer than VRRPv3's master-down interval (3 x 1 s + skew): a backup that hears no master takes over by then.
        await sleep(5000);
        assert.ok(b.pod.isRunning("keepalived"));
        assert.doesNotMatch(b.pod.logs("keepalived"), /Entering MASTER STATE/);
        assert.equal(holds(b.ns, "eth1", VIP), undefined, "not on cp-1");
        assert.ok(holds(a.ns, "eth1", VIP), "still on cp-0");
    });

    it("cp-0's keepalived container stops (SIGTERM, as the kubelet): cp-1 takes both VIPs over within seconds, advertises from its own link-local address, and the host's neighbour entry moves to cp-1", async function () {
        const [a, b] = nodes;
        const t0 = Date.now();
        await a.pod.stopContainer("keepalived");
        const got = await waitFor("the VIP on cp-1", 10000, () => holds(b.ns, "eth1", VIP));
        const ms = Date.now() - t0;
        console.log(`      cp-1 holds ${VIP} ${ms} ms after cp-0's keepalived got SIGTERM`);
        assert.ok(ms < 5000, `takeover in ${ms} ms`);
        assert.match(got.value, /nodad/);
        assert.doesNotMatch(got.value, /tentative|dadfailed/);
        assert.ok(await waitFor("the extra VIP on cp-1", 5000, () => holds(b.ns, "eth2", EXTRA_VIP)));
        assert.equal(holds(a.ns, "eth1", VIP), undefined, "cp-0 released provisioning.ip");
        assert.equal(holds(a.ns, "eth2", EXTRA_VIP), undefined, "cp-0 released the extra VIP");
        const out = vrrpOnWire(b.ns, "eth1", 1, 5);
        assert.match(out, new RegExp(`${linkLocal(b.ns, "eth1")} > ff02::12: VRRPv3, Advertisement, vrid 52, prio 101`), out);
        // keepalived's unsolicited neighbour advertisements move the host's entry to cp-1's MAC.
        await waitFor("the host's neighbour entry of the VIP at cp-1's MAC", 5000, () => neighbourMac(hostNs, VIP) === macOf(b.ns, "eth1") || undefined);
        assert.equal(reach(hostNs, VIP), "refused", "cp-1's kernel answers on the VIP");
    });
});

describe("pods as declared: IPv6 single stack with keepalived, the whole Ironic pod on the VIP (pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let plan: IronicPlan;
    let cluster: ClusterData;
    let pod: PodRunner;
    let cache: ImageCacheLab;
    let nodeNs = "";
    let bmcNs = "";

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["dnsmasq", "busybox", "setcap", "nsenter", "unshare", "setpriv", "openssl", "curl", "keepalived"].every((c) => !!which(c)), "dnsmasq, busybox, libcap2-bin, util-linux, openssl, curl and keepalived");
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        work = tmpDir("pods-keepalived-v6-pod");
        const raw = readStackConfig(FIXTURE);
        plan = planOf(raw);
        const rendered = await renderWithRealSecrets(raw, "v6-vip");
        cluster = rendered.cluster;
        const images = { ...prepareImages(work), [plan.images.keepalived]: debianKeepalivedImage(work) };
        const sw = net.addNamespace("sw");
        const prov = net.addBridge(sw, "br");
        const oob = net.addBridge(sw, "oob");
        nodeNs = net.addNamespace("k6n");
        net.plug(nodeNs, "n1", sw, prov, { cidr: "fd00:1:2:3::2/64", rename: plan.provisioning.interface });
        net.plug(nodeNs, "n2", sw, oob, { cidr: "fd00:20::2/64", rename: "eth2" });
        // A BMC on the out-of-band network, which external.ip (the extra VIP) serves.
        bmcNs = net.addNamespace("k6b");
        net.plug(bmcNs, "bm", sw, oob, { cidr: "fd00:20::100/64" });
        const dep = rendered.rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === plan.names.deployment)!;
        cache = new ImageCacheLab({ rendered: rendered.rendered, cluster, images, work });
        pod = new PodRunner({ name: "ironic-0", namespace: plan.namespace, spec: dep.spec.template.spec, cluster, images, work, netns: nodeNs, nodeName: "cp-0", hostIP: "fd00:1:2:3::2", podIP: "fd00:1:2:3::2", hosts: cache.hosts });
    });

    onePodHooks(() => ({ pod, cache, net, work }));

    it("every container starts and becomes ready; keepalived brings up the IPv6 VIP and the API answers on https://[provisioning.ip]:6385 over TLS, verified with the stack CA", async function () {
        await cache.serve(nodeNs);
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 180000);
        assert.match(holds(nodeNs, "eth1", VIP) ?? "", /inet6 fd00:1:2:3::5\/64 scope global nodad/);
        const ca = path.join(work, "ca.crt");
        fs.writeFileSync(ca, cluster.secrets[plan.names.caSecret]["tls.crt"]);
        const code = run("ip", ["netns", "exec", nodeNs, "curl", "-g", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", ca, `https://[${VIP}]:${plan.ports.api}/v1`], { allowFail: true }).stdout;
        assert.equal(code, "200", "GET /v1 on the VIP");
    });

    it("external.ip on the IPv6 extra VIP: Ironic's own code hands BMCs https://[fd00:20::5]:6183/..., and a BMC on eth2's network fetches the ISO over TLS (the certificate carries the address)", function () {
        const url = publishVirtualMedia(pod, "iso for an IPv6 BMC\n");
        assert.match(url, /^https:\/\/\[fd00:20::5\]:6183\/redfish\/boot-[0-9a-f-]+\.iso$/);
        const ca = path.join(work, "ca-oob.crt");
        fs.writeFileSync(ca, cluster.secrets[plan.names.caSecret]["tls.crt"]);
        const got = run("ip", ["netns", "exec", bmcNs, "curl", "-sS", "-g", "--fail", "--cacert", ca, url], { allowFail: true });
        assert.equal(got.status, 0, got.stderr);
        assert.equal(got.stdout, "iso for an IPv6 BMC\n");
    });
});

/** A TCP connection from `ns` to port 1 of `ip`: "refused" when a host holding the address answered with a reset. */
function reach(ns: string, ip: string): string {
    const r = run("ip", ["netns", "exec", ns, "timeout", "5", "bash", "-c", `exec 3<>/dev/tcp/${ip}/1`], { allowFail: true });
    if (/Connection refused/.test(r.stderr)) return "refused";
    return `status ${r.status}: ${r.stderr.trim()}`;
}

function neighbourMac(ns: string, ip: string): string | undefined {
    return /lladdr ([0-9a-f:]{17})/.exec(run("ip", ["-n", ns, "-6", "neigh", "show", ip]).stdout)?.[1];
}

function macOf(ns: string, dev: string): string {
    return /link\/ether ([0-9a-f:]{17})/.exec(run("ip", ["-n", ns, "link", "show", "dev", dev]).stdout)![1];
}
