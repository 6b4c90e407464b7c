/**
 * The IPv6 multi-conductor stack (test/fixtures/Pulumi.v6.yaml: three conductors on fd00:1:2:3::/64)
 * run as declared by the pod runner (test/helpers/pod-runner.ts), and real UEFI firmware booting
 * over IPv6 through the conductor that owns it: three conductor pods of the DaemonSet (init
 * containers; dnsmasq through the start wrapper under its slot agent, which claims its slot as a
 * Lease from the real kube-apiserver of the local cluster; ironic; httpd), MariaDB from its
 * StatefulSet and the schema Job, real Ironic (Debian's, behind the image stand-in) enrolling the
 * hosts, and diskless OVMF VMs (test/helpers/vm.ts, `uefi6`) PXE-booting over IPv6: DHCPv6 with
 * option 59 → iPXE over TFTP → iPXE's own DHCPv6 (after the router advertisement's managed flag)
 * → boot.ipxe, PXE config and deploy kernel over HTTP, all from the owner only.
 *
 * Two networks, as on a real site: the provisioning network is IPv6 only (eth1 of every node, the
 * VMs, the admin namespace BMO and the test talk to the API from); the cluster network (eth0 of
 * every node, IPv4) is where cluster traffic goes — the kubernetes Service's ClusterIP (the API
 * bridge to the local kube-apiserver), MariaDB and the Job's pod. The cluster network is not the
 * provisioning network: no host ever sees it, and nothing of it is in the rendered dnsmasq files.
 * Everything runs in network namespaces this test creates and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { DHCP_PROVIDER_PATHS, IPXE_FILES } from "../../core/contract";
import { ipToBigInt } from "../../core/ip";
import { IronicPlan, ListedConductor, listedConductors } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { DHCP_CONTAINERS, HaPodLab } from "../helpers/ha-pod-lab";
import { conductorName, fixedNodeUuid, until } from "../helpers/ironic-lab";
import { tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { assertRefused, canUseNetns, onEveryAddress, requireOrSkip, tcpListeners, which } from "../helpers/sys";
import { IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { PxeVm, vmPrerequisites } from "../helpers/vm";
import { requireToolchain } from "../e2e/toolchain";
import { planOf } from "../helpers/plan";

const ROOT = path.join(__dirname, "..", "..");
/** The cluster network (IPv4, eth0 of the nodes): the kubernetes Service's bridge, MariaDB, Jobs. */
const API_NS_IP = "10.244.0.249";
const DB_IP = "10.244.0.250";
const JOB_IP = "10.244.0.251";
const nodeClusterIp = (i: number) => `10.244.0.${10 + i}`;
/** Where BMO and the test reach the conductors' API: an address on the provisioning network. */
const ADMIN_IP = "fd00:1:2:3::fe";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const inSlice = (ip: string, c: ListedConductor) => ipToBigInt(ip) >= ipToBigInt(c.slot!.range.start) && ipToBigInt(ip) <= ipToBigInt(c.slot!.range.end);

/**
 * dnsmasq's DHCPv6 answers to `mac` in its log-dhcp lines: the addresses of its REPLYs, and of its
 * ADVERTISEs as `advertise:<addr>`. dnsmasq logs each packet's lines together, "<xid> client MAC
 * address: <mac>" before "<xid> DHCPREPLY(<if>) <addr> <duid>"; the MAC line that belongs to an answer
 * is the nearest one before it with its transaction id (VMs powered on together were seen to use
 * the same ids, so an id alone does not name a host).
 */
function repliesTo(log: string, mac: string): string[] {
    const lines = log.split("\n");
    const out: string[] = [];
    lines.forEach((l, i) => {
        const m = /\b(\d+) DHCP(REPLY|ADVERTISE)\(\S+\) (\S+) /.exec(l);
        if (!m) return;
        const own = new RegExp(`\\b${m[1]} client MAC address: (\\S+)`);
        let j = i - 1;
        while (j >= 0 && !own.test(lines[j])) j--;
        if (j < 0 || own.exec(lines[j])![1] !== mac) return;
        out.push(m[2] === "REPLY" ? m[3] : `advertise:${m[3]}`);
    });
    return out;
}

describe("pods as declared: IPv6 multi stack, three conductor pods, real UEFI firmware over PXEv6 (pod runner)", function () {
    this.timeout(300000);
    /** The namespaces, the conductor pods, MariaDB, the Job and the local cluster (test/helpers/ha-pod-lab.ts). */
    const lab = new HaPodLab<ListedConductor & { ip: string }>();
    const pods = lab.pods;
    let plan: IronicPlan;
    /** Every VM started, stopped in `after` too (a timed-out test does not run its own cleanup). */
    const started: PxeVm[] = [];

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        const tools = ["dnsmasq", "busybox", "setcap", "nsenter", "unshare", "setpriv", "openssl", "curl", "socat", "mariadb"];
        requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        const missing = vmPrerequisites();
        requireOrSkip(this, !missing, missing ?? "");
        requireToolchain(this, "cluster");
        fs.chmodSync(lab.makeWork("pods-v6"), 0o755);
        const raw = readStackConfig(path.join(ROOT, "test", "fixtures", "Pulumi.v6.yaml"));
        plan = planOf(raw);
        const { rendered, cluster } = await renderWithRealSecrets(raw, "v6");
        assert.equal(plan.topology.kind, "multi");
        // The provisioning network is IPv6 only; cluster traffic (the kubernetes Service's
        // ClusterIP, bridged to the local kube-apiserver for the slot agents, MariaDB, the Job's
        // pod) goes over an IPv4 network of its own, eth0 of every node.
        await lab.setUp({
            tag: "v",
            plan,
            rendered,
            cluster,
            nodes: listedConductors(plan).map((c) => ({ ...c, ip: c.ip! })),
            adminIp: ADMIN_IP,
            dbIp: DB_IP,
            kubeApi: { bridgeIp: API_NS_IP },
            clusterNetwork: { nodeIp: nodeClusterIp },
        });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") lab.printLogs(2500);
    });

    after(async function () {
        for (const vm of started) await vm.stop();
        await lab.tearDown();
    });

    const api = (nodeIp: string, p: string, extra: string[] = []) => lab.api(nodeIp, p, extra);

    it("every node's init containers complete, and its dnsmasq starts through the start wrapper under its slot agent (a Lease from the API server over the cluster network), serving its slice of the DHCPv6 range", async function () {
        for (const { node, pod, ns } of pods) {
            await lab.cache.serve(ns);
            await pod.runInitContainers();
            pod.startContainers([...DHCP_CONTAINERS]);
            await pod.waitReady("dnsmasq");
            await until(() => /DHCPv6, IP range/.test(pod.logs("dnsmasq")), 60000, `${node.node}'s dnsmasq serving DHCPv6`, 250);
            assert.match(pod.logs("dnsmasq"), new RegExp(`slot ${node.slot!.index} held: started`), `${node.node}'s agent holds slot ${node.slot!.index}`);
            assert.match(pod.logs("dnsmasq"), new RegExp(`DHCPv6, IP range ${esc(node.slot!.range.start)} -- ${esc(node.slot!.range.end)}`), `${node.node} serves its slice`);
            assert.match(pod.logs("dnsmasq"), /IPv6 router advertisement enabled/);
            assert.equal(fs.readFileSync(path.join(pod.volumePath("conductor-run"), "dnsmasq", "dnsmasq.conf"), "utf8"), node.resolved!.dnsmasq!.dnsmasqConf, "the file the plan renders for this node");
        }
    });

    it("MariaDB starts from its StatefulSet as declared on the cluster network, and the schema Job upgrades it", async function () {
        await lab.startDatabase();
        await lab.runJob(lab.clusterPod("Job", "dbsync", JOB_IP, "jb"));
    });

    it("every node's ironic, httpd and dhcp-pruner start as declared; three conductors, named by their IPv6 addresses, join one hash ring", async function () {
        await lab.startIronic();
        const alive = await lab.aliveConductors();
        assert.deepEqual(alive, pods.map((p) => p.node.ip!).sort());
        // Each node's DHCP pruner reaches the API through the Service name (its own conductor's IPv6 address), verifying the stack CA.
        for (const { node, pod } of pods) {
            pod.startContainers(["dhcp-pruner"]);
            await until(() => /Ironic API reachable/.test(pod.logs("dhcp-pruner")), 60000, `${node.node}'s pruner reaching the API:\n${tail(pod.logs("dhcp-pruner"))}`, 1000);
            assert.match(pod.logs("dhcp-pruner"), new RegExp(`dhcp-pruner\\[${esc(node.ip!)}\\]: watching ${esc(DHCP_PROVIDER_PATHS.hostsDir)}`));
        }
        // A node with two NICs: JSON-RPC listens on its IPv6 provisioning address only, not on eth0
        // (the cluster network) nor loopback; the peers reach it there (the boot test's calls).
        const port = plan.ports.jsonRpc;
        pods.forEach(({ node, ns }, i) => {
            assert.deepEqual(tcpListeners(ns, port), [`[${node.ip}]:${port}`], `${node.node}'s JSON-RPC listeners`);
            assertRefused(ns, nodeClusterIp(i), port, `${node.node}'s JSON-RPC on eth0`);
            assertRefused(ns, "::1", port, `${node.node}'s JSON-RPC on loopback`);
        });
        // httpd bound (provisioning.bindInterface): the API and the boot files on the node's IPv6
        // provisioning address alone, virtual media on every address (the image's vhost has none);
        // each httpd became ready through its probe command, which reads the address its node's
        // wrapper rendered (one template for every node).
        assert.ok(plan.apiBind, "the v6 example is bound");
        pods.forEach(({ node, ns, pod }, i) => {
            for (const [what, p] of [["API", plan.ports.api], ["boot files", plan.ports.http]] as const) {
                assert.deepEqual(tcpListeners(ns, p), [`[${node.ip}]:${p}`], `${node.node}'s ${what} listeners`);
                assertRefused(ns, nodeClusterIp(i), p, `${node.node}'s ${what} on eth0`);
                assertRefused(ns, "::1", p, `${node.node}'s ${what} on loopback`);
            }
            const vmedia = tcpListeners(ns, plan.ports.vmediaTls);
            assert.ok(vmedia.length > 0 && vmedia.every(onEveryAddress), `${node.node}'s virtual media on every address: ${vmedia}`);
            const httpd = pod.spec.containers.find((c: any) => c.name === "httpd");
            assert.ok(httpd.readinessProbe.exec && pod.runProbe("httpd", httpd.readinessProbe), `${node.node}'s httpd readiness command passes`);
            assert.ok(pod.runProbe("httpd", httpd.livenessProbe), `${node.node}'s httpd liveness command passes`);
        });
    });

    it("real UEFI firmware boots over IPv6 through the conductor that owns it: OVMF's PXEv6 leases from the owner's slice (DHCPv6), fetches iPXE over TFTP from the owner, iPXE its boot script, PXE config and deploy kernel from the owner's httpd; the other conductors answer nothing", async function () {
        // Enrolment and cleaning (up to a few minutes), then the VMs' boots (under 300 s each, emulated).
        this.timeout(900000);
        // The ring the API hashes on: all three conductors registered fake-hardware, then no ring
        // cached before that still in use (hash_ring_reset_interval).
        await lab.fakeHardwareOnAll();
        // Nodes as BMO enrolls them, with fake power (the test powers the VMs) and iPXE boot.
        const created: { uuid: string; conductor: string }[] = [];
        for (let i = 0; i < 12; i++) {
            const r = api(pods[0].node.ip!, "/v1/nodes", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ name: `fw6-${i}`, uuid: fixedNodeUuid(`fw6-${i}`), driver: "fake-hardware", boot_interface: "ipxe", deploy_interface: "direct", properties: { cpu_arch: "x86_64", capabilities: "boot_mode:uefi" } })]);
            assert.equal(r.code, 201, r.body);
            created.push({ uuid: JSON.parse(r.body).uuid, conductor: conductorName(JSON.parse(r.body).conductor) });
        }
        // One node per conductor the ring used (fixed UUIDs: the same on every run, all three on the full ring).
        const picked = [...new Map(created.map((c) => [c.conductor, c])).values()];
        assert.deepEqual(picked.map((c) => c.conductor).sort(), pods.map((p) => p.node.ip).sort(), "every conductor owns some of the 12 nodes");
        for (const c of created) if (!picked.includes(c)) assert.equal(api(pods[0].node.ip!, `/v1/nodes/${c.uuid}`, ["-X", "DELETE"]).code, 204);
        const vms = picked.map((c, i) => {
            const owner = pods.find((p) => p.node.ip === c.conductor);
            assert.ok(owner, `conductor ${c.conductor} is one of the pods`);
            return { mac: `52:54:00:00:06:2${i}`, uuid: c.uuid, owner: owner!, vm: undefined as PxeVm | undefined, ips: [] as string[] };
        });
        // State changes from cp-1's API, handed to each node's owner over JSON-RPC.
        const provision = (uuid: string, target: string) => lab.provision(uuid, target);
        const waitState = (uuid: string, want: string) => lab.waitState(uuid, want);
        for (const v of vms) {
            const port = api(pods[0].node.ip!, "/v1/ports", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ node_uuid: v.uuid, address: v.mac, pxe_enabled: true })]);
            assert.equal(port.code, 201, port.body);
            assert.equal(provision(v.uuid, "manage").code, 202);
        }
        for (const v of vms) await waitState(v.uuid, "manageable");
        for (const v of vms) assert.equal(provision(v.uuid, "provide").code, 202);
        // Cleaning: the owner's Ironic writes the host into its dnsmasq's directories and the PXE config into its httpd root.
        for (const v of vms) await waitState(v.uuid, "clean wait");
        const shared = (p: (typeof pods)[number], rel: string) => lab.shared(p, rel);
        for (const v of vms) {
            for (const p of pods) {
                const has = fs.existsSync(shared(p, `${DHCP_PROVIDER_PATHS.hostsDir}/ironic-${v.mac}.conf`));
                assert.equal(has, p === v.owner, `${v.mac}'s host entry ${p === v.owner ? "written by its owner" : "absent"} on ${p.node.node}`);
            }
        }
        // What Ironic's provider writes as the host's options on IPv6: its boot URLs as a bare "59", which
        // dnsmasq reads as DHCPv4 option 59 and never sends a DHCPv6 client (test/integration/multi-dhcp6.test.ts);
        // the URLs the hosts get are the conductor's own option6:bootfile-url lines.
        for (const v of vms) {
            const opts = fs.readdirSync(shared(v.owner, DHCP_PROVIDER_PATHS.optsDir)).map((f) => fs.readFileSync(path.join(shared(v.owner, DHCP_PROVIDER_PATHS.optsDir), f), "utf8")).join("");
            assert.match(opts, new RegExp(`^tag:[0-9a-f-]+,tag:!ipxe6,59,tftp://\\[${esc(v.owner.node.ip!)}\\]/`, "m"), `Ironic's option lines at ${v.owner.node.node}:\n${opts}`);
        }
        const httpFrom = (p: (typeof pods)[number], ips: string[]) => p.pod.logs("httpd").split("\n").filter((l) => ips.some((ip) => new RegExp(`(?:^|\\s)${esc(ip)} - "`).test(l)));
        try {
            for (const v of vms) {
                v.vm = new PxeVm({ name: `u6${vms.indexOf(v)}`, mac: v.mac, firmware: "uefi6", lab: lab.net, switchNs: lab.sw, bridge: lab.br, work: lab.work });
                started.push(v.vm);
                v.vm.start();
            }
            for (const v of vms) {
                const kernel = `GET /${v.uuid}/deploy_kernel`;
                await lab.deployKernelAsked(v, { what: `the UEFI VM ${v.mac}`, label: `uefi6 ${v.mac}`, path: "OVMF PXEv6 → iPXE, emulated, TCG" });
                const log = v.owner.pod.logs("dnsmasq");
                v.ips = repliesTo(log, v.mac).filter((a) => !a.startsWith("advertise:"));
                assert.ok(v.ips.length >= 2, `DHCPv6 REPLYs from ${v.owner.node.node} to the firmware and to iPXE: ${v.ips.join(", ")}`);
                for (const ip of v.ips) assert.ok(inSlice(ip, v.owner.node), `${ip} in ${v.owner.node.node}'s slice ${v.owner.node.slot!.range.start}-${v.owner.node.slot!.range.end}`);
                // The boot file URLs the owner handed out: its own global options (Ironic's "59" lines are DHCPv4 ones).
                assert.match(log, new RegExp(`option: 59 bootfile-url  tftp://\\[${esc(v.owner.node.ip!)}\\]/${esc(IPXE_FILES.efiX86_64)}`));
                assert.match(log, new RegExp(`option: 59 bootfile-url  http://\\[${esc(v.owner.node.ip!)}\\]:${plan.ports.http}/boot\\.ipxe`));
                assert.ok(v.ips.some((ip) => new RegExp(`sent \\S+/${esc(IPXE_FILES.efiX86_64)} to ${esc(ip)}\\b`).test(log)), `${v.owner.node.node}'s TFTP sent ${IPXE_FILES.efiX86_64} to the VM (${v.ips.join(", ")})`);
                const requests = httpFrom(v.owner, v.ips);
                for (const want of ["GET /boot.ipxe", `GET /pxelinux.cfg/${v.mac.replace(/:/g, "-")}`, kernel]) {
                    assert.ok(requests.some((l) => l.includes(want)), `${v.owner.node.node}'s httpd served ${want} to the VM over IPv6:\n${requests.join("\n")}`);
                }
            }
            for (const v of vms) {
                for (const p of pods) {
                    if (p === v.owner) continue;
                    assert.deepEqual(repliesTo(p.pod.logs("dnsmasq"), v.mac), [], `${p.node.node} neither advertised nor replied to ${v.mac}`);
                    assert.ok(!v.ips.some((ip) => p.pod.logs("dnsmasq").includes(` to ${ip}`)), `${p.node.node}'s TFTP sent nothing to ${v.mac}`);
                    assert.deepEqual(httpFrom(p, v.ips), [], `${p.node.node}'s httpd served nothing to ${v.mac}`);
                }
            }
        } finally {
            for (const v of vms) await v.vm?.stop();
        }
    });
});
