/**
 * The rendered pods of the ha stack (`multi`: one pod per conductor node, MariaDB, the schema Jobs,
 * baremetal-operator), started the way they are declared (test/helpers/pod-runner.ts): each
 * container with only its own mounts, env, uid, capabilities and read-only root, the project's
 * scripts from the rendered ConfigMaps running for real, real dnsmasq answering real DHCP clients
 * and VMs with real firmware in network namespaces this test creates and deletes; the slot agents
 * on the local cluster's kube-apiserver. The `single` stacks' pods: pods-single.test.ts.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { CONDUCTOR_PATHS, DHCP_PROVIDER_PATHS, IPXE_FILES, PATHS } from "../../core/contract";
import { ipToNumber } from "../../core/ip";
import { nodeCertificateSans } from "../../core/plan/certificates";
import { dhcpSlotsOf, ListedConductor, listedConductors } from "../../core/plan";
import type { SizedRange } from "../../core/plan/types";
import { sliceBounds } from "../../core/plan/slices";
import { SLOT_TIMINGS } from "../../core/timings";
import { credentialLeaks } from "../helpers/credential-leaks";
import { bmoBuilt, bmoLogProblems, bmoRelease, startSushy, SUSHY_VENV, SUSHY_VERSION, sushyConfig, sushyReady } from "../helpers/bmo";
import { startOperator } from "../helpers/bmo-pod";
import { assertEspLoader, assertImageWritten, BIOS_DISK_BOOT_MARKER, biosWholeDiskImage, BmhWatch, ImageServer, readAt, UEFI_DISK_BOOT_MARKER, uefiImagePrerequisites, uefiWholeDiskImage } from "../helpers/bmh";
import { CLUSTER_IP, DHCP_CONTAINERS, HaPodLab, LabPod } from "../helpers/ha-pod-lab";
import { AGENT_DISK_MIB, IpaRamdisk, ipaRamdisk, NO_ROOT_DEVICE } from "../helpers/ipa";
import { RedfishHost, RedfishHosts } from "../helpers/redfish-hosts";
import { conductorName, fixedNodeUuid, until } from "../helpers/ironic-lab";
import { PodRunner, publishVirtualMedia, tail } from "../helpers/pod-runner";
import { dhcpListener, inRange, podRunnerPrerequisites, renderStack, ROOT, Stack } from "../helpers/pod-stacks";
import { Firmware, LAB_SWITCH_MAC, LAB_SWITCH_NAME, PxeVm, vmPrerequisites } from "../helpers/vm";
import { assertRefused, Daemon, dhcpClient, DhcpRelay, requireOrSkip, run, tcpListeners } from "../helpers/sys";
import { OwnerProbe } from "../helpers/owner-probe";
import { requireToolchain, toolchainGoProxy } from "../e2e/toolchain";
import { SERVICE_ACCOUNT_DIR } from "../../core/scripts";

/** A node the test knows in full, whether or not the stack config lists it. */
interface KnownNode {
    node: string;
    ip: string;
    interface: string;
    slot: number;
    range: SizedRange;
    /** The dnsmasq file its pod renders from the templates. */
    dnsmasqConf: string;
}

/** A listed node with its address, as the plan of a first run sees it. */
const knownNode = (c: ListedConductor): KnownNode => ({ node: c.node, ip: c.ip!, interface: c.interface, slot: c.slot!.index, range: c.slot!.range, dnsmasqConf: c.resolved!.dnsmasq!.dnsmasqConf });

/** The ha example's `ironic` section with the lab's shorter call-back timeouts (the BMO takeover scenario). */
const labIronic = (section: unknown): Record<string, unknown> => {
    const ironic = (section ?? {}) as Record<string, any>;
    return { ...ironic, config: { ...ironic.config, "conductor.deploy_callback_timeout": 120, "conductor.check_provision_state_interval": 10, "api.ramdisk_heartbeat_timeout": 60 } };
};
/** An access-log line of the httpd stand-in for a request from `ip` (its dual-stack socket logs IPv4 peers as ::ffff:a.b.c.d). */
const requestFrom = (line: string, ip: string) => new RegExp(`(?:^|[ :])${ip.replace(/\./g, "\\.")} - "`).test(line);

/**
 * The continuous owner probe's bound on a host's silence during the rolling replacement: one round
 * asks three hosts (up to ~2 s each when answered, ~1 s when not), and a newcomer's pod start or an
 * old node's stop briefly loads the machine; far below the minutes a lost owner takes to be replaced.
 */
const OWNER_PROBE_MAX_GAP_S = 20;

describe("pods as declared: ha stack, one pod per conductor node (pod runner)", function () {
    this.timeout(300000);
    /** The namespaces, the conductor pods, MariaDB, the Jobs and the local cluster (test/helpers/ha-pod-lab.ts). */
    const lab = new HaPodLab<KnownNode>();
    const net = lab.net;
    const pods = lab.pods;
    let s: Stack;
    /**
     * The three control-plane nodes as Pulumi.ha.yaml lists them (address, interface, slot, slice),
     * what the test expects. The stack deployed lists cp-0 in full, cp-1 by name only and cp-2 not
     * at all: those two find their address on their interface, and cp-2 claims the free slot.
     */
    let known: KnownNode[] = [];
    let clientNs = "";
    let clientIf = "";
    const DB_IP = "172.22.0.250";
    const JOB_IP = "172.22.0.251";
    const BMO_IP = "172.22.0.248";
    /** Daemons a test starts beside the pods (the Redfish BMC), stopped in `after`. */
    const daemons: Daemon[] = [];
    let relay: DhcpRelay | undefined;
    /** baremetal-operator's pod, from the test that starts it to the one that provisions a host. */
    let operator: PodRunner | undefined;
    /** METAL3_IRONIC_CACHE before the lab pointed the program's cache of BMO's release at its own dir. */
    let cacheBefore: string | undefined;
    /** The real IPA ramdisk the image cache serves for x86_64, or why there is none. */
    let ipa: IpaRamdisk | string = "";
    const tagOf = (i: number) => `0d2c43d4-5a1e-4c3b-9a00-00000000000${i}`;
    const macOf = (i: number) => `52:54:00:00:03:0${i}`;
    /** slot → [holder identity, node annotation], from the API (admin credentials). */
    const slotHolders = (): Record<number, [string, string]> => {
        const out: Record<number, [string, string]> = {};
        for (const l of lab.kube!.get<{ items: any[] }>(["leases", "-n", s.plan.namespace, "-l", "app.kubernetes.io/component=dhcp-slot"]).items) {
            // A released Lease (no holder) is a free slot that still names the node that held it last.
            if (!l.spec.holderIdentity) continue;
            out[Number(l.metadata.name.slice(s.plan.names.slotLeasePrefix.length))] = [l.spec.holderIdentity, l.metadata.annotations["metal3-ironic.metal3.io/node"]];
        }
        return out;
    };

    /** The Lease's holder changes so far (a release and a claim back count one). */
    const slotLeaseTransitions = (slot: number): number => lab.kube!.get<any>(["lease", `${s.plan.names.slotLeasePrefix}${slot}`, "-n", s.plan.namespace]).spec.leaseTransitions ?? 0;

    /** What the BMO scenarios start beside the lab (the hosts' BMC and VMs), stopped in `after`. */
    const stopAfter: (() => Promise<void>)[] = [];
    /** The host the provisioning scenario left provisioned, for the one after it. */
    let provisioned: { hosts: RedfishHosts; host: RedfishHost; watch: BmhWatch } | undefined;
    /** The conductor BMO's stand-in for the API Service resolves to. */
    let bmoApiIp = "";
    /** A Service's endpoints are the live pods: BMO's stand-in resolves to `ip` from now on (BMO restarts to read it). */
    const repointBmo = async (ip: string) => {
        operator!.o.hosts = lab.serviceHosts(ip);
        await operator!.stopContainer("manager");
        operator!.startContainer("manager");
        await operator!.waitReady("manager", 120000);
        bmoApiIp = ip;
    };
    /**
     * A lost node back: its pod starts again on the volumes it had (init containers, then the
     * containers that ran), and every conductor has registered and is in every API's hash ring.
     */
    const lostContainers = new Map<LabPod<KnownNode>, string[]>();
    const restore = async (p: LabPod<KnownNode>) => {
        const names = lostContainers.get(p) ?? [];
        lostContainers.delete(p);
        await p.pod.runInitContainers();
        p.pod.startContainers(names);
        for (const c of names) await p.pod.waitReady(c, 240000);
        await lab.fakeHardwareOnAll();
    };
    const kill = async (p: LabPod<KnownNode>) => lostContainers.set(p, await p.pod.kill());
    /**
     * The host's DHCP offers/acks and the httpd lines of the addresses `owner` acknowledged, per
     * conductor since the marks (log lengths, in `pods` order): some at `owner`, none elsewhere.
     */
    const ownerOnly = (mac: string, owner: LabPod<KnownNode>, dnsMarks: number[], httpMarks = dnsMarks.map(() => 0)) => {
        const ips = new Set<string>();
        for (const m of owner.pod.logs("dnsmasq").slice(dnsMarks[pods.indexOf(owner)]).matchAll(new RegExp(`DHCPACK\\(\\S+\\) (\\S+) ${mac}`, "g"))) ips.add(m[1]);
        assert.ok(ips.size > 0, `${owner.node.node} acknowledged ${mac}`);
        const counts = pods.map((p, i) => ({
            node: p.node.node,
            dhcp: p.pod.logs("dnsmasq").slice(dnsMarks[i]).split("\n").filter((l) => /DHCP(OFFER|ACK)/.test(l) && l.includes(mac)).length,
            http: p.pod.logs("httpd").slice(httpMarks[i]).split("\n").filter((l) => [...ips].some((ip) => requestFrom(l, ip))).length,
        }));
        for (const c of counts) {
            if (c.node === owner.node.node) assert.ok(c.dhcp > 0 && c.http > 0, `the owner ${c.node} served the host: ${JSON.stringify(c)}`);
            else assert.deepEqual([c.dhcp, c.http], [0, 0], `${c.node} served the host nothing`);
        }
        return { ips, counts: counts.map((c) => `${c.node} ${c.dhcp}/${c.http}`).join(", ") };
    };

    before(async function () {
        podRunnerPrerequisites(this);
        requireToolchain(this, "cluster");
        lab.makeWork("pods-ha");
        known = listedConductors((await renderStack(path.join(ROOT, "Pulumi.ha.yaml"), "ha")).plan).map(knownNode);
        // Ironic's wait for a lost agent, shortened so that CI can wait for it (the ha example waits
        // 3600 s, the image 4800 s): the agent heartbeats every 18-36 s, a deploy with no call-back
        // for 120 s fails (checked every 10 s), and BMO retries it.
        // bmo.enabled: baremetal-operator as the stack deploys it, its release from the toolchain's Go module cache (the program's cache of it: the lab's).
        cacheBefore = process.env.METAL3_IRONIC_CACHE;
        process.env.METAL3_IRONIC_CACHE = path.join(lab.work, "cache");
        s = await renderStack(path.join(ROOT, "Pulumi.ha.yaml"), "ha", (raw) => ({ ...raw, conductors: [(raw.conductors as any[])[0], { name: "cp-1" }], ironic: labIronic(raw.ironic), bmo: { enabled: true, goproxy: toolchainGoProxy() } }));
        assert.deepEqual(listedConductors(s.plan).map((c) => [c.node, c.ip]), [["cp-0", "172.22.0.2"], ["cp-1", undefined]]);
        // One pod per node on the provisioning network, which carries cluster traffic too. The slot
        // agents claim their DHCP slots from the local cluster's real API server, reached from the
        // node namespaces at the kubernetes Service's ClusterIP (in its serving certificate) on the
        // provisioning link. Cluster DNS stand-in: the API Service resolves to each node's own
        // conductor, the MariaDB Service to the MariaDB pod. BMO, BMCs and the test talk to the
        // conductors from the admin namespace, an address on the network.
        // The image cache holds the real agent for x86_64 (built by .ci/run in the background; the firmware test boots it).
        ipa = await ipaRamdisk(240000);
        await lab.setUp({ tag: "h", plan: s.plan, rendered: s.rendered, cluster: s.cluster, nodes: known, adminIp: "172.22.0.253", dbIp: DB_IP, kubeApi: { bridgeIp: "172.22.0.249" }, ipa: typeof ipa === "string" ? undefined : ipa });
        clientNs = net.addNamespace("hc");
        clientIf = net.plug(clientNs, "hc", lab.sw, lab.br, { mac: macOf(9) });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") lab.printLogs(1500);
    });

    after(async function () {
        for (const stop of stopAfter) await stop();
        await relay?.stop();
        for (const d of daemons) await d.stop();
        await lab.tearDown();
        if (cacheBefore === undefined) delete process.env.METAL3_IRONIC_CACHE;
        else process.env.METAL3_IRONIC_CACHE = cacheBefore;
    });

    it("every node's init containers complete (IPA images from the cache, the DHCP provider's directories)", async function () {
        for (const { pod, ns } of pods) {
            await lab.cache.serve(ns);
            await pod.runInitContainers();
            for (const d of [DHCP_PROVIDER_PATHS.hostsDir, DHCP_PROVIDER_PATHS.optsDir]) {
                const st = fs.statSync(pod.resolve("ironic", d));
                assert.equal(st.uid, 997, `${d} owned by the ironic user, so Ironic's provider can write it`);
            }
        }
    });

    it("every node's dnsmasq starts through the start wrapper under the fence, and its slot agent in a container of its own: listed or not, each finds its address, claims a slot as a Lease and serves that slice; only the agent sees the API token", async function () {
        for (const { node, pod } of pods) {
            pod.startContainers([...DHCP_CONTAINERS]);
            await pod.waitReady("dnsmasq");
            // Alive while the agent waits for a slot too: wait for dnsmasq's own start line.
            await until(() => /DHCP, IP range/.test(pod.logs("dnsmasq")), 30000, `${node.node}'s dnsmasq serving DHCP`, 250);
            // cp-0's entry names its address; cp-1 (name only) and cp-2 (no entry) find it on eth1.
            const found = new RegExp(`node ${node.node}: provisioning address ${node.ip.replace(/\./g, "\\.")} on eth1, found on the node`);
            if (node.node === "cp-0") assert.doesNotMatch(pod.logs("dnsmasq"), /found on the node/);
            else assert.match(pod.logs("dnsmasq"), found, `${node.node} found its address`);
            // Its dnsmasq file, rendered in the container from the template, is the one the plan gives a node listed with that address.
            assert.equal(fs.readFileSync(path.join(pod.volumePath("conductor-run"), "dnsmasq", "dnsmasq.conf"), "utf8"), node.dnsmasqConf);
            // cp-0 and cp-1 their remembered slots, cp-2 (unknown to the stack) the lowest one no node prefers.
            assert.match(pod.logs("dnsmasq"), new RegExp(`slot ${node.slot} held: started`), `${node.node}'s agent holds slot ${node.slot}`);
            assert.match(pod.logs("dnsmasq"), new RegExp(`DHCP, IP range ${node.range!.start} -- ${node.range!.end}`), `${node.node} serves its slice`);
            // The token in each container's own view: the agent's only. dnsmasq, with its capabilities,
            // reads neither the token nor the agent's processes (each container has its own PID namespace, as in a pod).
            const token = `${SERVICE_ACCOUNT_DIR}/token`;
            assert.equal(pod.exec("dhcp-slot-agent", ["test", "-s", token]).status, 0, `${node.node}: the agent reads its token`);
            for (const c of pod.spec.containers.map((x: any) => x.name).filter((n: string) => n !== "dhcp-slot-agent")) assert.notEqual(pod.exec(c, ["test", "-e", token]).status, 0, `${node.node}: ${c} has no ${token}`);
            const seen = pod.exec("dnsmasq", ["sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '; cat /proc/[0-9]*/root/var/run/secrets/kubernetes.io/serviceaccount/token"]);
            assert.doesNotMatch(seen.stdout, /dhcp-slot-agent\.py(?! --fence)|eyJ/, `${node.node}: dnsmasq sees no process or token of the agent`);
        }
        // The slot table in the API: one Lease per conductor, held by its pod, annotated with its node.
        assert.deepEqual(slotHolders(), Object.fromEntries(pods.map(({ node, pod }) => [node.slot!, [pod.o.name, node.node]])));
    });

    it("each node's dnsmasq answers only the MACs its conductor owns, from its slice, pointing at itself", async function () {
        // Host and option files in the exact format Ironic's dnsmasq provider writes, written from
        // the ironic container's view (its uid, its /shared), as the provider would.
        const marks = pods.map(({ pod }) => pod.logs("dnsmasq").length);
        pods.forEach(({ node, pod }, i) => {
            const opts = [`tag:${tagOf(i)},tag:!ipxe,67,snponly-x86_64.efi`, `tag:${tagOf(i)},tag:ipxe,67,http://${node.ip}:${s.plan.ports.http}/boot.ipxe`, `tag:${tagOf(i)},66,${node.ip}`, ""].join("\n");
            const script = `printf '%s' "$1" > ${DHCP_PROVIDER_PATHS.optsDir}/ironic-node-${i}.conf && printf '%s,set:%s,set:ironic\\n' "$2" "$3" > ${DHCP_PROVIDER_PATHS.hostsDir}/ironic-$2.conf`;
            const r = pod.exec("ironic", ["/bin/bash", "-c", script, "write", opts, macOf(i), tagOf(i)]);
            assert.equal(r.status, 0, r.stderr);
        });
        // Each node's dnsmasq picks its two files up through inotify before a client asks.
        for (const [i, { pod }] of pods.entries()) await lab.dnsmasqRead(pod, [`${DHCP_PROVIDER_PATHS.optsDir}/ironic-node-${i}.conf`, `${DHCP_PROVIDER_PATHS.hostsDir}/ironic-${macOf(i)}.conf`], marks[i]);
        for (let i = 0; i < pods.length; i++) {
            const { node } = pods[i];
            run("ip", ["-n", clientNs, "link", "set", clientIf, "address", macOf(i)]);
            const lease = dhcpClient(clientNs, clientIf, lab.work, ["0xaf:01"]);
            assert.equal(lease.serverid, node.ip, `${macOf(i)} answered by its owner ${node.node}`);
            assert.ok(inRange(lease.ip, node), `${lease.ip} in ${node.node}'s slice`);
            assert.equal(lease.bootfile, `http://${node.ip}:${s.plan.ports.http}/boot.ipxe`);
            for (let j = 0; j < pods.length; j++) {
                if (j === i) continue;
                const offers = pods[j].pod.logs("dnsmasq").split("\n").filter((l) => l.includes("DHCPOFFER") && l.includes(macOf(i)));
                assert.equal(offers.length, 0, `${pods[j].node.node} made no offer to ${macOf(i)}`);
            }
        }
        run("ip", ["-n", clientNs, "link", "set", clientIf, "address", macOf(9)]);
        assert.deepEqual(dhcpClient(clientNs, clientIf, lab.work), {}, "a MAC no conductor owns gets no answer");
    });

    it("a relayed rack (provisioning.dhcp.extraRanges): the relay forwards to every conductor, and each known host is answered by its owner only, from the owner's slot of the rack's range", async function () {
        // The host files of the test before stay: conductor i owns macOf(i).
        const rack = s.plan.provisioning.dhcp!.extraRanges[0];
        assert.ok(rack, "Pulumi.ha.yaml has a relayed rack");
        const layout = dhcpSlotsOf(s.plan)!;
        const RELAY_IP = "172.22.0.248";
        // macOf(0)'s requests each conductor logged so far (the test before broadcast them on the provisioning bridge).
        const discovers = () => pods.map((p) => p.pod.logs("dnsmasq").split("\n").filter((l) => /DHCPDISCOVER\(\S+\) /.test(l) && l.includes(macOf(0))).length);
        const discoversBefore = discovers();
        relay = new DhcpRelay(net, { switchNs: lab.sw, provBridge: lab.br, provCidr: `${RELAY_IP}/${lab.prefix}`, rackCidr: `${rack.gateway}/${rack.subnet.split("/")[1]}`, servers: pods.map((p) => p.node.ip), work: lab.work });
        for (const p of pods) DhcpRelay.routeVia(p.ns, rack.subnet, RELAY_IP);
        const rackNs = net.addNamespace("hr");
        const rackIf = net.plug(rackNs, "hr", lab.sw, relay.rackBridge, { mac: macOf(9) });
        const offersTo = (j: number, mac: string) => pods[j].pod.logs("dnsmasq").split("\n").filter((l) => l.includes("DHCPOFFER") && l.includes(mac));
        for (let i = 0; i < pods.length; i++) {
            const { node } = pods[i];
            const slice = sliceBounds(rack.rangeStart, rack.rangeEnd, layout.slots, node.slot);
            const before = pods.map((_, j) => offersTo(j, macOf(i)).length);
            run("ip", ["-n", rackNs, "link", "set", rackIf, "address", macOf(i)]);
            let lease: Record<string, string> = {};
            await until(() => !!(lease = dhcpClient(rackNs, rackIf, lab.work, ["0xaf:01"])).ip, 30000, `a lease for ${macOf(i)} through the relay`);
            assert.equal(lease.serverid, node.ip, `${macOf(i)} answered by its owner ${node.node}`);
            assert.ok(ipToNumber(lease.ip) >= ipToNumber(slice.start) && ipToNumber(lease.ip) <= ipToNumber(slice.end), `${lease.ip} in ${node.node}'s slot ${node.slot} of the rack's range (${slice.start}-${slice.end})`);
            assert.equal(lease.router, rack.gateway, "the rack's router");
            assert.equal(lease.bootfile, `http://${node.ip}:${s.plan.ports.http}/boot.ipxe`, "iPXE is sent to its owner's httpd");
            pods.forEach((_, j) => {
                const made = offersTo(j, macOf(i)).length - before[j];
                if (j === i) assert.ok(made >= 1, `${node.node} offered ${macOf(i)} an address through the relay`);
                else assert.equal(made, 0, `${pods[j].node.node} made no offer to ${macOf(i)}`);
            });
        }
        run("ip", ["-n", rackNs, "link", "set", rackIf, "address", macOf(9)]);
        assert.deepEqual(dhcpClient(rackNs, rackIf, lab.work), {}, "a relayed MAC no conductor owns gets no answer");
        const relayed = discovers().map((n, j) => n - discoversBefore[j]);
        assert.ok(relayed.every((n) => n >= 1), `every conductor saw the relayed requests of ${macOf(0)} (${relayed.join(", ")} new): only ownership decided who answered`);
        await relay.stop();
        relay = undefined;
    });

    it("a slot agent container stopped cleanly has its fence stop dnsmasq, then releases its Lease at once; started again, it claims the same slot and dnsmasq serves the same slice", async function () {
        const { node, pod, ns } = pods[1];
        const count = (re: RegExp) => (pod.logs("dnsmasq").match(re) ?? []).length;
        const served = count(/DHCP, IP range/g);
        await pod.stopContainer("dhcp-slot-agent");
        assert.match(pod.logs("dnsmasq"), new RegExp(`stopping .*: the slot agent stopped serving slot ${node.slot}: stop asked`));
        assert.match(pod.logs("dhcp-slot-agent"), new RegExp(`slot ${node.slot} released`));
        assert.ok(!(node.slot! in slotHolders()), "no holder left: the slot is free at once, not after expiry");
        assert.equal(dhcpListener(ns), undefined, "dnsmasq stopped before the release");
        pod.startContainer("dhcp-slot-agent");
        await until(() => slotHolders()[node.slot!]?.[0] === pod.o.name, 20000, `${node.node} to hold slot ${node.slot} again`, 250);
        await until(() => count(/DHCP, IP range/g) > served, 20000, `${node.node}'s dnsmasq serving again`, 250);
        assert.match(pod.logs("dnsmasq").split(`stopped serving slot ${node.slot}`).pop()!, new RegExp(`slot ${node.slot} held: started[\\s\\S]*DHCP, IP range ${node.range!.start} -- ${node.range!.end}`));
    });

    it("a dnsmasq container restarted keeps its slot: the agent holds the Lease throughout, and the new fence serves the same slice at once", async function () {
        const { node, pod } = pods[1];
        const count = (re: RegExp) => (pod.logs("dnsmasq").match(re) ?? []).length;
        const served = count(/DHCP, IP range/g);
        const transitions = slotLeaseTransitions(node.slot!);
        const mark = pod.logs("dnsmasq").length;
        await pod.stopContainer("dnsmasq");
        assert.equal(slotHolders()[node.slot!]?.[0], pod.o.name, "the agent still holds the slot");
        pod.startContainer("dnsmasq");
        await until(() => count(/DHCP, IP range/g) > served, 20000, `${node.node}'s dnsmasq serving again`, 250);
        assert.match(pod.logs("dnsmasq").slice(mark), new RegExp(`slot ${node.slot} held: started[\\s\\S]*DHCP, IP range ${node.range!.start} -- ${node.range!.end}`));
        assert.equal(slotLeaseTransitions(node.slot!), transitions, "never released nor taken over");
    });

    it("a conductor cut off from the API server stops its dnsmasq within the renew deadline, before its Lease could be taken; reconnected, it serves its slice again", async function () {
        const { node, pod, ns, ifname } = pods[2];
        assert.ok(dhcpListener(ns), `${node.node}'s dnsmasq listens before the cut`);
        const mark = pod.logs("dnsmasq").length;
        const t0 = Date.now();
        run("ip", ["-n", ns, "route", "del", `${CLUSTER_IP}/32`]);
        await until(() => !dhcpListener(ns), 30000, `${node.node}'s dnsmasq to stop`, 100);
        const stopped = (Date.now() - t0) / 1000;
        const bound = SLOT_TIMINGS.renewDeadline + SLOT_TIMINGS.stopGrace;
        console.log(`      cut off: dnsmasq stopped after ${stopped.toFixed(1)} s (renew deadline ${SLOT_TIMINGS.renewDeadline} s + grace ${SLOT_TIMINGS.stopGrace} s; others may take the slot only after ${SLOT_TIMINGS.leaseDuration + SLOT_TIMINGS.claimMargin} s)`);
        assert.ok(stopped <= bound, `stopped after ${stopped} s, bound ${bound} s`);
        assert.ok(stopped < SLOT_TIMINGS.leaseDuration + SLOT_TIMINGS.claimMargin, "before anyone else may take the slot");
        assert.match(pod.logs("dnsmasq").slice(mark), /no renewal for 10\.0s \(renew deadline\)/);
        net.routeOnLink(ns, `${CLUSTER_IP}/32`, ifname);
        await until(() => !!dhcpListener(ns), 60000, `${node.node}'s dnsmasq to serve again`, 250);
        assert.equal(slotHolders()[node.slot!][0], pod.o.name, "its own slot, taken back");
        assert.match(pod.logs("dnsmasq").slice(mark), new RegExp(`slot ${node.slot} held: started[\\s\\S]*DHCP, IP range ${node.range!.start} -- ${node.range!.end}`));
    });

    it("every node's dhcp-pruner starts through the wrapper with its declared mounts and watches its own directories", async function () {
        for (const { node, pod } of pods) {
            pod.startContainers(["dhcp-pruner"]);
            await pod.waitReady("dhcp-pruner");
            assert.match(pod.logs("dhcp-pruner"), new RegExp(`dhcp-pruner\\[${node.ip.replace(/\./g, "\\.")}\\]: watching ${DHCP_PROVIDER_PATHS.hostsDir}`));
        }
    });

    const api = (nodeIp: string, p: string, extra: string[] = []) => lab.api(nodeIp, p, extra);
    /** A node's owner once every API names it twice, a ring reset apart (after a node rejoined, a rebalance may move it). */
    const agreedOwner = async (nodeId: string): Promise<LabPod<KnownNode>> => {
        let seen = "";
        let agreed = "";
        await until(
            () => {
                const views = pods.map((p) => conductorName(JSON.parse(api(p.node.ip, `/v1/nodes/${nodeId}`).body).conductor));
                const now = new Set(views).size === 1 ? views[0] : "";
                [agreed, seen] = [now && now === seen ? now : "", now];
                return !!agreed;
            },
            60000,
            `every API names one owner of ${nodeId}`,
            4000,
        );
        const owner = pods.find((p) => p.node.ip === agreed)!;
        assert.ok(owner, `${agreed} is one of the pods`);
        return owner;
    };

    it("MariaDB starts from its StatefulSet as declared (TLS, first-start SQL) and the schema Job upgrades it", async function () {
        await lab.startDatabase();
        // root exists only on the local socket: from the network even its own password is refused.
        const rootPw = s.cluster.secrets[s.plan.database.names.credentialsSecret]["root-password"];
        const asRoot = run("ip", ["netns", "exec", lab.adminNs, "mariadb", "--no-defaults", "-h", DB_IP, "-uroot", `-p${rootPw}`, `--ssl-ca=${lab.caFile}`, "-N", "-e", "SELECT 1"], { allowFail: true });
        assert.notEqual(asRoot.status, 0, "root over TCP is refused");
        assert.match(asRoot.stderr, /Access denied for user 'root'/);
        await lab.runJob(lab.clusterPod("Job", "dbsync", JOB_IP, "jb"));
    });

    it("every node's ironic and httpd start as declared; three conductors join one hash ring over the shared database", async function () {
        await lab.startIronic();
        const alive = await lab.aliveConductors();
        assert.deepEqual(alive, known.map((c) => c.ip).sort(), "each conductor's [DEFAULT]host is its node's IP");
        // Ironic's unauthenticated API socket (behind httpd's authentication) is reachable from
        // ironic and httpd only: every other container mounts only the parts of /shared it uses.
        for (const { pod, node } of pods) {
            for (const c of ["ironic", "httpd"]) assert.equal(pod.exec(c, ["test", "-S", "/shared/ironic.sock"]).status, 0, `${node.node}: ${c} reaches /shared/ironic.sock`);
            const parts: [string, string][] = [["dnsmasq", "dnsmasq tftpboot"], ["dhcp-pruner", "dnsmasq"], ["ramdisk-logs", "log"]];
            for (const [c, seen] of parts) {
                const r = pod.exec(c, ["/bin/bash", "-c", "test ! -e /shared/ironic.sock && ls -A /shared | tr '\\n' ' '"]);
                assert.equal(r.status, 0, `${node.node}: ${c} must not see /shared/ironic.sock: ${r.stderr}`);
                assert.equal(r.stdout.trim(), seen, `${node.node}: ${c} sees only its parts of /shared`);
            }
        }
    });

    it("each conductor serves a certificate its conductor-certs container minted at start for its own address from the conductor CA, which the stack CA verifies; none names another node; no other container sees the CA's key", function () {
        const conductorCa = s.cluster.secrets[s.plan.names.conductorCaSecret]["tls.crt"];
        const others = (ip: string) => known.map((c) => c.ip).filter((x) => x !== ip);
        for (const { node, pod } of pods) {
            // In each container's own view, as declared: the key is in conductor-certs only; httpd serves the pair it minted.
            const key = `${CONDUCTOR_PATHS.conductorCa}/tls.key`;
            assert.equal(pod.exec("conductor-certs", ["test", "-s", key]).status, 0, `${node.node}: conductor-certs reads the CA's key`);
            for (const c of pod.spec.containers.map((x: any) => x.name).filter((n: string) => n !== "conductor-certs")) assert.notEqual(pod.exec(c, ["test", "-e", key]).status, 0, `${node.node}: ${c} has no ${key}`);
            const minted = pod.exec("conductor-certs", ["cat", `${CONDUCTOR_PATHS.minted}/tls.crt`]).stdout;
            assert.equal(pod.exec("httpd", ["cat", `${PATHS.certsIronic}/tls.crt`]).stdout, minted, `${node.node}: httpd serves the minted pair`);
            for (const port of [s.plan.ports.api, s.plan.ports.vmediaTls]) {
                // The whole chain as served, checked the way IPA, BMO and the JSON-RPC peers check it: stack CA, this IP.
                const chain = lab.served(node.ip, port, node.node);
                assert.equal(chain.length, 2, `${node.node}:${port} serves its certificate and the conductor CA`);
                assert.equal(chain[1].trim(), conductorCa.trim(), "the second is the conductor CA");
                const text = run("openssl", ["x509", "-noout", "-subject", "-ext", "subjectAltName,basicConstraints"], { input: chain[0] + "\n" }).stdout;
                assert.match(text, new RegExp(`CN\\s*=\\s*${node.node}\\b`));
                const ips = [...text.matchAll(/IP Address:([0-9a-fA-F.:]+)/g)].map((m) => m[1]);
                // Its address, the shared ones, then its own conductors[].external hosts (cp-0's entry has one).
                assert.deepEqual(ips, nodeCertificateSans(s.plan, node.node, node.ip).ipAddresses, `${node.node}'s certificate names its own addresses only (never ${others(node.ip).join(", ")})`);
                assert.match(text, /DNS:ironic\.metal3\.svc\b/, "and the API Service names");
                assert.match(text, /CA:FALSE/);
            }
        }
        // The conductor CA as the tls provider issues it: a CA with no path length (it does not
        // encode the maxPathLength 0 the program asks for; see docs/topologies.md, Conductor certificates).
        const bc = run("openssl", ["x509", "-noout", "-ext", "basicConstraints"], { input: conductorCa }).stdout;
        assert.match(bc, /CA:TRUE/);
        assert.doesNotMatch(bc, /pathlen/);
    });

    it("API calls reach the owning conductors over JSON-RPC with TLS, minted certificates and the RPC credentials", async function () {
        // Creating nodes goes from the API (in cp-0's process) to the conductor the hash ring
        // picks for each, often another pod: JSON-RPC over TLS verified with the stack CA.
        // The ring the API hashes on is built from the conductors that registered the driver and
        // heartbeat within heartbeat_timeout (GET /v1/drivers lists them); wait for all three, then
        // until no ring cached before that can still be in use (hash_ring_reset_interval, 3 s).
        await lab.fakeHardwareOnAll();
        const owners = new Set<string>();
        for (let i = 0; i < 6; i++) {
            const r = api(known[0].ip, "/v1/nodes", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ name: `node-${i}`, uuid: fixedNodeUuid(`node-${i}`), driver: "fake-hardware" })]);
            assert.equal(r.code, 201, r.body);
        }
        const nodes = JSON.parse(api(known[0].ip, "/v1/nodes?detail=true").body).nodes;
        for (const n of nodes) owners.add(conductorName(n.conductor));
        // Fixed UUIDs: on the full ring of three (sha256, the image's hash_ring_algorithm), these
        // six hash to every conductor (bmh-0..5 would not: they skip 172.22.0.3).
        assert.deepEqual([...owners].sort(), known.map((k) => k.ip).sort(), `every conductor owns some of the nodes; conductors: ${api(known[0].ip, "/v1/conductors").body}`);
        for (const n of nodes) {
            // A call that the API hands to the node's conductor over JSON-RPC.
            const r = api(known[1].ip, `/v1/nodes/${n.uuid}/states/provision`, ["-X", "PUT", "-H", "Content-Type: application/json", "-d", JSON.stringify({ target: "manage" })]);
            assert.equal(r.code, 202, `${n.name} (conductor ${n.conductor}): ${r.body}`);
        }
        // Those calls reached each peer at its provisioning address, the only one its JSON-RPC listens
        // on (LISTEN_ALL_INTERFACES=false in the ironic container): not the wildcard, not loopback.
        const port = lab.plan.ports.jsonRpc;
        for (const { node, ns } of pods) {
            assert.deepEqual(tcpListeners(ns, port), [`${node.ip}:${port}`], `${node.node}'s JSON-RPC listeners`);
            assertRefused(ns, "127.0.0.1", port, `${node.node}'s JSON-RPC on loopback`);
        }
    });

    it("every node's pruner reaches the API through the Service name, verifying the stack CA", async function () {
        for (const { node, pod } of pods) {
            await until(() => /Ironic API reachable/.test(pod.logs("dhcp-pruner")), 60000, `${node.node}'s pruner reaching the API`, 1000).catch((e) => assert.fail(`${node.node}'s pruner never reached the API (${e.message}):\n${tail(pod.logs("dhcp-pruner"))}`));
            assert.ok(pod.isRunning("dhcp-pruner"));
        }
    });

    it("each conductor hands BMCs its own virtual-media URL on the TLS port (its external address where its entry has one), and its httpd serves it there", function () {
        for (const { node, pod, ns } of pods) {
            const marker = `vmedia of ${node.node}`;
            const url = publishVirtualMedia(pod, marker);
            // A node with conductors[].external (cp-0) hands out its out-of-band address: the node
            // holds it too here (a second NIC's address), and the admin namespace reaches it on the link.
            const external = listedConductors(s.plan).find((c) => c.node === node.node)?.external?.ip;
            const host = external ?? node.ip;
            if (external) {
                run("ip", ["-n", ns, "addr", "add", `${external}/32`, "dev", node.interface]);
                net.routeOnLink(lab.adminNs, `${external}/32`, lab.adminIf);
            }
            assert.match(url, new RegExp(`^https://${host.replace(/\./g, "\\.")}:${s.plan.ports.vmediaTls}/redfish/boot-[0-9a-f-]+\\.iso$`));
            const got = run("ip", ["netns", "exec", lab.adminNs, "curl", "-s", "--cacert", lab.caFile, url], { allowFail: true });
            assert.equal(got.stdout, marker, `${url}: ${got.stderr}`);
        }
    });

    it("the online data migrations Job completes once the conductors are up", async function () {
        await lab.runJob(lab.clusterPod("Job", "migrate", "172.22.0.252", "jm"));
    });

    it("no credential reaches a log or a probe's output, though the image's scripts trace every step (set -x) and read the mounted passwords and htpasswd files while tracing: every node's containers (their exec probes run as the kubelet runs them), MariaDB and both schema Jobs", function () {
        const looked: string[] = [];
        for (const pod of [...pods.map((p) => p.pod), ...lab.others]) {
            const { leaks, credentials } = credentialLeaks(pod, { probes: true });
            assert.deepEqual(leaks, [], `pod ${pod.o.name}: a credential in a log or probe output`);
            looked.push(...credentials.map((c) => `${pod.o.name}:${c}`));
        }
        // What was looked for: the database password (ironic, both Jobs), the RPC password and htpasswd, the API htpasswd.
        for (const want of [`${s.plan.database.names.credentialsSecret}/password`, `${s.plan.names.rpcCredentialsSecret}/password`, `${s.plan.names.credentialsSecret}/htpasswd hash`]) {
            assert.ok(looked.some((l) => l.endsWith(want)), `looked for ${want}: ${looked.join(", ")}`);
        }
        assert.ok(looked.some((l) => /dbsync.*mariadb-credentials\/password/.test(l)) && looked.some((l) => /migrate.*mariadb-credentials\/password/.test(l)), `both Jobs' database password: ${looked.join(", ")}`);
    });

    it("baremetal-operator, deployed as the stack renders it (bmo.enabled: its release's objects, wired to the stack), reaches the API through its Service, serves its webhook with the certificate the webhook configuration trusts, registers a Redfish host and brings it to available; its log has no TLS, auth or API-version error", async function () {
        requireOrSkip(this, bmoBuilt(), `baremetal-operator in the toolchain (${bmoRelease().binary}): tools/toolchain/build.sh bmo`);
        requireOrSkip(this, sushyReady(), `sushy-tools ${SUSHY_VERSION} in ${SUSHY_VENV} (.ci/run installs it)`);
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        // A Redfish BMC (sushy-tools' fake driver) in the admin namespace, where BMCs are.
        const system = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000b0b0", name: "bmo-host-0", mac: macOf(7) };
        const bmcPort = 8000;
        const bmcIp = lab.o.adminIp;
        fs.writeFileSync(path.join(lab.work, "sushy.conf"), sushyConfig([system], path.join(lab.work, "sushy-state")));
        const bmc = await startSushy({ ns: lab.adminNs, ip: bmcIp, port: bmcPort, conf: path.join(lab.work, "sushy.conf"), log: path.join(lab.work, "sushy.log"), uuid: system.uuid });
        daemons.push(bmc);
        // The operator's pod: the API Service's names resolve to cp-0 (cluster DNS stand-in).
        bmoApiIp = known[0].ip;
        const bmo = (await startOperator(lab, { ip: BMO_IP, apiIp: bmoApiIp })).pod;
        const t0 = Date.now();
        kube.kubectl(["apply", "-f", "-"], {
            input: JSON.stringify({
                apiVersion: "v1",
                kind: "List",
                items: [
                    { apiVersion: "v1", kind: "Secret", metadata: { name: "bmo-host-0-bmc", namespace: ns }, stringData: { username: "admin", password: "password" } },
                    {
                        apiVersion: "metal3.io/v1alpha1",
                        kind: "BareMetalHost",
                        // No agent boots in this test: no inspection, no cleaning (the provisioning tier boots IPA).
                        metadata: { name: system.name, namespace: ns, annotations: { "inspect.metal3.io": "disabled" } },
                        spec: { online: false, bootMACAddress: system.mac, bootMode: "UEFI", automatedCleaningMode: "disabled", bmc: { address: `redfish+http://${bmcIp}:${bmcPort}/redfish/v1/Systems/${system.uuid}`, credentialsName: "bmo-host-0-bmc" } },
                    },
                ],
            }),
        });
        // BMO's status is the oracle: every provisioning state it reports, with the time it was first seen.
        const watch = new BmhWatch(kube, ns, system.name, t0, () => `BMO:\n${tail(bmo.logs("manager"), 3000)}`);
        // BMO could not use Ironic (TLS, credentials, API version): no use waiting, the checks below say why.
        await watch.until("available", 240000, { stopIf: () => /"msg":"provisioner is not ready"/.test(bmo.logs("manager")) });
        const host = watch.bmh;
        console.log(`      BareMetalHost ${system.name}: ${watch.format()}`);
        // Its whole log (test/helpers/bmo.ts bmoLogProblems: how BMO reports failing to use Ironic).
        const log = bmo.logs("manager");
        assert.deepEqual(bmoLogProblems(log).slice(0, 5), [], "BMO's log has no TLS, auth or API-version error");
        assert.match(log, /"msg":"starting manager"/, "the manager started");
        assert.equal(host.status?.errorMessage ?? "", "", `no error: ${JSON.stringify(host.status)}`);
        assert.equal(host.status?.provisioning?.state, "available");
        assert.equal(host.status.operationalStatus, "OK");
        // Written when the host left registering (BMO's own record, whatever the polling saw).
        assert.ok(host.status.operationHistory?.register?.end, `registered through Ironic: ${JSON.stringify(host.status.operationHistory)}`);
        // The node BMO created, seen through the API: its BMC, its deploy images from the stack's
        // ConfigMap, and its owner. BMO's "available" is Ironic's manageable: it provides a node only to deploy it.
        const node = JSON.parse(lab.api(known[0].ip, `/v1/nodes/${ns}~${system.name}`).body);
        assert.equal(node.provision_state, "manageable", JSON.stringify(node));
        assert.equal(node.driver, "redfish");
        assert.equal(node.driver_info.redfish_address, `http://${bmcIp}:${bmcPort}`);
        assert.equal(node.driver_info.redfish_system_id, `/redfish/v1/Systems/${system.uuid}`);
        const bmoEnv = s.cluster.configMaps[s.plan.names.bmoConfigMap];
        assert.equal(node.driver_info.deploy_kernel, bmoEnv.DEPLOY_KERNEL_URL);
        assert.equal(node.driver_info.deploy_ramdisk, bmoEnv.DEPLOY_RAMDISK_URL);
        console.log(`      owned by ${conductorName(node.conductor)}; deploy kernel ${node.driver_info.deploy_kernel}`);
        // Deleted (BMO deletes its node) before its BMC goes away; BMO stays for the next test.
        kube.kubectl(["delete", "baremetalhost", system.name, "-n", ns, "--timeout=120s"]);
        await until(() => lab.api(known[0].ip, `/v1/nodes/${ns}~${system.name}`).code === 404, 60000, `node ${system.name} deleted by BMO`, 1000);
        await bmc.stop();
        operator = bmo;
    });

    it("baremetal-operator provisions a real host through our Ironic, and through its owner's loss: a BIOS VM behind a Redfish BMC is inspected and cleaned through its owning conductor only; while the agent downloads the image, that conductor's node dies (every container killed); the survivors take the node over, the deploy times out there, BMO retries it (deprovisioning cleans through the new owner) and the host is provisioned: a raw whole-disk image on its disk (checksum verified by the agent, partition compared), every request after the loss answered by the new owner only, from its slice", async function () {
        requireOrSkip(this, !!operator, "baremetal-operator running (the test before this one starts it)");
        requireOrSkip(this, typeof ipa !== "string", typeof ipa === "string" ? ipa : "");
        this.timeout(2400000);
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        // Legacy BIOS: a whole-disk image carries its own boot loader there; in UEFI mode the agent
        // wants an EFI system partition with one in the image (a UEFI image is the next step).
        const host: RedfishHost = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000b0b1", name: "bmo-host-1", mac: "52:54:00:00:06:01", firmware: "bios", diskMiB: AGENT_DISK_MIB };
        const hosts = new RedfishHosts({ lab: net, ns: lab.adminNs, ip: lab.o.adminIp, port: 8002, switchNs: lab.sw, bridge: lab.br, work: lab.work, hosts: [host], memoryMiB: 2048 });
        stopAfter.push(() => hosts.stop());
        // The image: a BIOS whole-disk image of 8 MiB (test/helpers/bmh.ts: a GPT whose partition
        // holds bytes no disk starts with, a boot sector that prints a marker and halts), served over
        // HTTP from the admin namespace; its download is held until the owner is gone.
        const imageDir = path.join(lab.work, "images");
        fs.mkdirSync(imageDir, { recursive: true });
        const imageFile = path.join(imageDir, "host.raw");
        const image = biosWholeDiskImage(imageFile);
        const checksum = createHash("sha256").update(image).digest("hex");
        const images = new ImageServer({ ns: lab.adminNs, ip: lab.o.adminIp, port: 8080, dir: imageDir, work: lab.work });
        stopAfter.push(() => images.stop());
        images.hold();
        const watch = new BmhWatch(kube, ns, host.name, Date.now(), () => `VM:\n${tail(hosts.output(host), 3000)}\nBMO:\n${tail(operator!.logs("manager"), 3000)}`);
        const nodeId = `${ns}~${host.name}`;
        const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
        try {
            await hosts.start();
            kube.kubectl(["apply", "-f", "-"], {
                input: JSON.stringify({
                    apiVersion: "v1",
                    kind: "List",
                    items: [
                        { apiVersion: "v1", kind: "Secret", metadata: { name: `${host.name}-bmc`, namespace: ns }, stringData: { username: "admin", password: "password" } },
                        {
                            apiVersion: "metal3.io/v1alpha1",
                            kind: "BareMetalHost",
                            // Its disk is virtio (BMO's default hint is /dev/sda).
                            metadata: { name: host.name, namespace: ns },
                            spec: { online: true, bootMACAddress: host.mac, bootMode: "legacy", automatedCleaningMode: "metadata", rootDeviceHints: { deviceName: "/dev/vda" }, bmc: { address: hosts.address(host), credentialsName: `${host.name}-bmc` }, image: { url: `http://${lab.o.adminIp}:8080/host.raw`, checksum, checksumType: "sha256", format: "raw" } },
                        },
                    ],
                }),
            });
            // 1. BMO enrolled the node: its owner is the conductor to lose. A Service drops a dead
            // pod from its endpoints: BMO's stand-in resolves the API to a survivor from now on (BMO
            // restarts to read it, before the deploy begins).
            await until(() => api(known[0].ip, `/v1/nodes/${nodeId}`).code === 200, 180000, `BMO enrolled ${nodeId}`, 1000);
            const first = lab.nodeState(nodeId);
            const lost = pods.find((p) => p.node.ip === conductorName(first.conductor))!;
            assert.ok(lost, `${first.conductor} is one of the pods`);
            const survivors = pods.filter((p) => p !== lost);
            if (bmoApiIp === lost.node.ip) await repointBmo(survivors[0].node.ip);
            // 2. Inspected, cleaned and deploying through the owner only, until the agent asks for the image.
            await watch.until("provisioned", 1200000, { stopIf: () => images.heldFor("host.raw").length > 0 });
            const agentIp = images.heldFor("host.raw")[0];
            assert.ok(agentIp, `the agent asked for the image before the host was provisioned: ${watch.format()}`);
            const hw = watch.bmh.status.hardware;
            assert.ok(hw?.nics?.some((n: any) => n.mac === host.mac), `inspected NICs: ${JSON.stringify(hw?.nics)}`);
            assert.ok(hw?.storage?.some((d: any) => d.sizeBytes === host.diskMiB * 1024 * 1024), `inspected disks: ${JSON.stringify(hw?.storage)}`);
            const beforeLoss = ownerOnly(host.mac, lost, pods.map(() => 0));
            assert.ok(beforeLoss.ips.has(agentIp), `the agent (${agentIp}) has an address ${lost.node.node} gave it`);
            // 3. The owner's node dies while the download is in flight, and the download goes on.
            const deploying = watch.timeline.length - 1;
            const tLost = Date.now();
            await kill(lost);
            images.release();
            try {
                const nodeVia = () => JSON.parse(api(survivors[0].node.ip, `/v1/nodes/${nodeId}`).body);
                let n = nodeVia();
                await until(() => conductorName((n = nodeVia()).conductor) !== lost.node.ip, 120000, "the node's conductor moves to a survivor", 1000);
                const tMoved = Date.now();
                const owner = survivors.find((p) => p.node.ip === conductorName(n.conductor))!;
                assert.ok(owner, `${n.conductor} is a survivor`);
                const marks = pods.map((p) => p.pod.logs("dnsmasq").length);
                const httpMarks = pods.map((p) => p.pod.logs("httpd").length);
                // 4. The agent calls back to the dead conductor's address: the deploy times out on the
                // new owner, and BMO retries it (deprovisioning, cleaning, provisioning) through it.
                const states: [string, number][] = [];
                const errors = new Set<string>();
                await watch.until("provisioned", 1500000, {
                    errors: "tolerate",
                    also: () => {
                        const st = nodeVia().provision_state;
                        if (states[states.length - 1]?.[0] !== st) states.push([st, Date.now() - watch.t0]);
                        if (watch.bmh.status?.errorMessage) errors.add(watch.bmh.status.errorMessage);
                    },
                });
                assert.equal(watch.bmh.status?.errorMessage ?? "", "", JSON.stringify(watch.bmh.status));
                assert.ok([...errors].some((e) => e.includes(`Timeout reached while waiting for callback for node ${first.uuid}`)), `BMO saw the deploy fail on the call-back timeout: ${JSON.stringify([...errors])}`);
                assert.match(owner.pod.logs("ironic"), new RegExp(`Timeout reached while waiting for callback for node ${first.uuid}`), "the new owner failed the deploy");
                assert.ok(watch.at("deprovisioning", deploying) !== undefined, `BMO retried through deprovisioning: ${watch.format(deploying)}`);
                assert.equal(conductorName(nodeVia().conductor), owner.node.ip, "the new owner kept the node");
                assertImageWritten(hosts.disk(host), image);
                await until(() => hosts.output(host).includes(BIOS_DISK_BOOT_MARKER), 180000, `${host.name} boots the image's boot sector from its disk`, 1000).catch((e) => assert.fail(`${e.message}:\n${tail(hosts.output(host), 3000)}`));
                // Every DHCP and HTTP request of the host after the loss reached the new owner, from its slice.
                const after = ownerOnly(host.mac, owner, marks, httpMarks);
                const layout = dhcpSlotsOf(s.plan)!;
                const slot = Number(Object.entries(slotHolders()).find(([, [, node]]) => node === owner.node.node)?.[0]);
                const slice = sliceBounds(layout.rangeStart, layout.rangeEnd, layout.slots, slot);
                for (const ip of after.ips) assert.ok(ipToNumber(ip) >= ipToNumber(slice.start) && ipToNumber(ip) <= ipToNumber(slice.end), `${ip} is in ${owner.node.node}'s slice ${slice.start}-${slice.end} (slot ${slot})`);
                console.log(`      ${host.name}: ${watch.format()}`);
                console.log(`      before the loss, requests per conductor (DHCP offers/acks, httpd lines): ${beforeLoss.counts}`);
                console.log(
                    `      takeover: ${lost.node.node}'s node lost at ${secs(tLost - watch.t0)} (the agent downloading the image), the node moved to ${owner.node.node} ${secs(tMoved - tLost)} later; Ironic on the survivors: ${states.map(([st, ms]) => `${st} at ${secs(ms)}`).join(" → ")}`,
                );
                console.log(`      after the loss, requests per conductor: ${after.counts}; the host's addresses ${[...after.ips].join(", ")} from ${owner.node.node}'s slice`);
                console.log(`      power: ${hosts.events.map((e) => `${e.what} at ${secs(e.ms)}`).join(", ")}`);
                provisioned = { hosts, host, watch };
            } finally {
                // The lost node comes back (its pod starts again on the volumes it had): the next
                // scenarios want three conductors.
                await restore(lost);
            }
        } finally {
            if (!provisioned) {
                await hosts.stop();
                await operator?.stop();
                operator = undefined;
            }
        }
    });

    it("baremetal-operator provisions a second host, in UEFI mode, through a conductor other than the first host's: inspected and deployed through its owner only; the agent installs the boot entry of the whole-disk image's EFI system partition, and the VM then boots the image's own boot loader from its disk", async function () {
        requireOrSkip(this, !!provisioned && !!operator, "the host and baremetal-operator the test before this one left");
        requireOrSkip(this, typeof ipa !== "string", typeof ipa === "string" ? ipa : "");
        const missing = uefiImagePrerequisites();
        requireOrSkip(this, !missing, missing);
        this.timeout(1200000);
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        const firstOwner = await agreedOwner(`${ns}~${provisioned!.host.name}`);
        const host: RedfishHost = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000b0b2", name: "bmo-host-2", mac: "52:54:00:00:06:02", firmware: "uefi", diskMiB: AGENT_DISK_MIB };
        const hosts = new RedfishHosts({ lab: net, ns: lab.adminNs, ip: lab.o.adminIp, port: 8003, switchNs: lab.sw, bridge: lab.br, work: lab.work, hosts: [host], memoryMiB: 2048 });
        stopAfter.push(() => hosts.stop());
        const imageDir = path.join(lab.work, "images-uefi");
        fs.mkdirSync(imageDir, { recursive: true });
        const image = uefiWholeDiskImage(path.join(imageDir, "uefi.raw"));
        const checksum = createHash("sha256").update(image).digest("hex");
        const images = new ImageServer({ ns: lab.adminNs, ip: lab.o.adminIp, port: 8081, dir: imageDir, work: lab.work });
        stopAfter.push(() => images.stop());
        const nodeId = `${ns}~${host.name}`;
        const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
        const bmh = {
            apiVersion: "metal3.io/v1alpha1",
            kind: "BareMetalHost",
            metadata: { name: host.name, namespace: ns },
            // No automated cleaning: the first host showed it; this one shows the UEFI deploy.
            // No image yet: as Cluster API's provider does, the image is set once the host waits in
            // available (below).
            spec: { online: true, bootMACAddress: host.mac, bootMode: "UEFI", automatedCleaningMode: "disabled", rootDeviceHints: { deviceName: "/dev/vda" }, bmc: { address: hosts.address(host), credentialsName: `${host.name}-bmc` } },
        };
        const imageSpec = { url: `http://${lab.o.adminIp}:8081/uefi.raw`, checksum, checksumType: "sha256", format: "raw" };
        const marks = pods.map((p) => p.pod.logs("dnsmasq").length);
        const httpMarks = pods.map((p) => p.pod.logs("httpd").length);
        try {
            await hosts.start();
            // Another owner than the first host's: the ring places a node by the UUID Ironic draws
            // when BMO enrolls it, so a host enrolled by the first host's owner is enrolled again
            // (deleted while still registering, before anything powers it on). BMO takes its BMC
            // Secret along when it deletes a host: each enrolment gets it anew.
            const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: `${host.name}-bmc`, namespace: ns }, stringData: { username: "admin", password: "password" } };
            const refused: string[] = [];
            let owner: LabPod<KnownNode> | undefined;
            while (!owner && refused.length < 8) {
                kube.kubectl(["delete", "secret", secret.metadata.name, "-n", ns, "--ignore-not-found", "--timeout=60s"]);
                kube.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: [secret, bmh] }) });
                await until(() => api(known[0].ip, `/v1/nodes/${nodeId}`).code === 200, 180000, `BMO enrolled ${nodeId}`, 500);
                const at = pods.find((p) => p.node.ip === conductorName(lab.nodeState(nodeId).conductor));
                if (at && at !== firstOwner) owner = at;
                else {
                    refused.push(at?.node.node ?? "?");
                    kube.kubectl(["delete", "baremetalhost", host.name, "-n", ns, "--timeout=120s"]);
                    await until(() => api(known[0].ip, `/v1/nodes/${nodeId}`).code === 404, 120000, `node ${nodeId} deleted by BMO`, 500);
                }
            }
            assert.ok(owner, `a node not owned by ${firstOwner.node.node} in ${refused.length} enrolments (owners: ${refused.join(", ")})`);
            assert.equal(hosts.events.length, 0, `nothing powered the host on before its last enrolment: ${JSON.stringify(hosts.events)}`);
            const watch = new BmhWatch(kube, ns, host.name, Date.now(), () => `VM:\n${tail(hosts.output(host), 3000)}\nBMO:\n${tail(operator!.logs("manager"), 3000)}`);
            // Inspected (no cleaning), the host waits in available with the agent still running
            // (fast track). The image is set once the agent heartbeats again after its inspection:
            // Ironic counts an agent alive for fast_track_timeout after inspection ends, but a fast-track
            // deploy needs the agent's URL, which only a heartbeat records (ironic/conductor/utils.py
            // agent_is_alive, inspection.py wipe_token_and_url); a deploy started before that heartbeat
            // fails with "Agent driver requires agent_url" (a slow VM's agent can take a minute).
            await watch.until("available", 900000);
            await until(() => !!lab.nodeState(nodeId).driver_internal_info?.agent_url, 300000, `${host.name}'s agent heartbeats after its inspection`, 1000).catch((e) =>
                assert.fail(`${e.message}:\n${tail(hosts.output(host), 3000)}`),
            );
            kube.kubectl(["patch", "baremetalhost", host.name, "-n", ns, "--type=merge", "-p", JSON.stringify({ spec: { image: imageSpec } })]);
            await watch.until("provisioned", 900000);
            assert.equal(watch.bmh.status?.errorMessage ?? "", "", JSON.stringify(watch.bmh.status));
            assert.equal((await agreedOwner(nodeId)).node.node, owner.node.node, "one owner all along");
            const node = lab.nodeState(nodeId);
            assert.match(JSON.stringify(node.properties?.capabilities ?? ""), /boot_mode:uefi/, JSON.stringify(node.properties));
            // Inspected with the LLDP its switch port sends (test/helpers/vm.ts: the port ID is the
            // VM's tap), as Ironic's parse-lldp hook read it from the agent's inventory.
            const inventory = JSON.parse(api(owner.node.ip, `/v1/nodes/${nodeId}/inventory`).body);
            const lldp = Object.values(inventory.plugin_data?.parsed_lldp ?? {}) as { switch_port_id?: string; switch_chassis_id?: string; switch_system_name?: string }[];
            assert.ok(
                lldp.some((l) => l.switch_port_id === hosts.vms.get(host.uuid)?.tap && l.switch_chassis_id === LAB_SWITCH_MAC && l.switch_system_name === LAB_SWITCH_NAME),
                `the switch port in the inventory: ${JSON.stringify(inventory.plugin_data?.parsed_lldp)}`,
            );
            // The firmware boots the disk: the ESP's \EFI\BOOT\BOOTX64.EFI (a fresh VM's NVRAM
            // forgets the agent's boot entry; the removable-media path needs none) prints the marker.
            await until(() => hosts.output(host).includes(UEFI_DISK_BOOT_MARKER), 180000, `${host.name} boots its disk's boot loader`, 1000).catch((e) =>
                assert.fail(`${e.message}:\n${tail(hosts.output(host), 3000)}`),
            );
            assert.ok(hosts.events.some((e) => /boot from disk/.test(e.what)), `powered on from its disk: ${JSON.stringify(hosts.events)}`);
            // The written disk: the image's EFI system partition and its boot loader, byte for byte.
            const label = JSON.parse(run("sfdisk", ["--json", hosts.disk(host)]).stdout).partitiontable;
            assert.equal(label.partitions[0]?.type, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", JSON.stringify(label));
            assertEspLoader(hosts.disk(host), lab.work, "the ESP on the disk holds the image's boot loader");
            // In UEFI mode Ironic has the agent install a whole-disk image's boot loader (a boot entry
            // for the ESP's loader, efibootmgr through efivarfs) and fails the deploy when it cannot
            // (no ESP, no EFI variables): ironic/drivers/modules/agent.py configure_local_boot.
            assert.match(owner.pod.logs("ironic"), new RegExp(`Local boot successfully configured for node ${node.uuid}`), "the owner configured local boot");
            for (const p of pods) assert.doesNotMatch(p.pod.logs("ironic"), /Failed to install a bootloader/, `${p.node.node}: no boot loader failure`);
            const served = ownerOnly(host.mac, owner, marks, httpMarks);
            console.log(`      ${host.name} (UEFI): ${watch.format()}; owned by ${owner.node.node} (the first host's: ${firstOwner.node.node}; enrolled ${refused.length + 1} time(s)); requests per conductor: ${served.counts}`);
            console.log(`      power: ${hosts.events.map((e) => `${e.what} at ${secs(e.ms)}`).join(", ")}`);
            // Deleted (no cleaning): BMO deprovisions and deletes its node.
            kube.kubectl(["delete", "baremetalhost", host.name, "-n", ns, "--wait=false"]);
            await watch.until("(deleted)", 300000);
            assert.equal(api(known[0].ip, `/v1/nodes/${nodeId}`).code, 404, "BMO deleted the Ironic node");
        } finally {
            await hosts.stop();
            await images.stop();
        }
    });

    it("baremetal-operator deprovisions the host (the agent cleans its disk through its owner only) back to available, then deletes it: BMO deletes the node, and the owner's pruner silences the entry Ironic left, so nobody answers the machine", async function () {
        requireOrSkip(this, !!provisioned, "the host the test before this one provisioned");
        this.timeout(1200000);
        const { hosts, host, watch } = provisioned!;
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        const nodeId = `${ns}~${host.name}`;
        try {
            // The lost node rejoined: a rebalance may have moved the node.
            const owner = await agreedOwner(nodeId);
            const marks = pods.map((p) => p.pod.logs("dnsmasq").length);
            const httpMarks = pods.map((p) => p.pod.logs("httpd").length);
            const from = watch.timeline.length;
            kube.kubectl(["patch", "baremetalhost", host.name, "-n", ns, "--type", "json", "-p", JSON.stringify([{ op: "remove", path: "/spec/image" }])]);
            await watch.until("available", 600000);
            assert.equal(watch.bmh.status?.errorMessage ?? "", "", JSON.stringify(watch.bmh.status));
            const head = readAt(hosts.disk(host), 0, 512);
            assert.ok(head.every((b) => b === 0), "cleaning wiped the disk's first sector");
            assert.equal(conductorName(lab.nodeState(nodeId).conductor), owner.node.ip, "one owner all along");
            const cleaned = ownerOnly(host.mac, owner, marks, httpMarks);
            console.log(`      ${host.name}: ${watch.format(from)}; requests per conductor: ${cleaned.counts}`);
            // Deleted: BMO deletes its node. Until then the owner answers the machine (its entry from
            // cleaning stays active); after it nobody does: Ironic leaves the entry active, and the
            // owner's pruner ignores a MAC no port has. The VM is powered off first (with fast track
            // the agent stays up after cleaning): the test's DHCP client takes its MAC.
            kube.kubectl(["patch", "baremetalhost", host.name, "-n", ns, "--type", "merge", "-p", JSON.stringify({ spec: { online: false } })]);
            await until(() => !hosts.running(host), 180000, `${host.name} powered off`, 1000);
            run("ip", ["-n", clientNs, "link", "set", clientIf, "address", host.mac]);
            assert.equal(dhcpClient(clientNs, clientIf, lab.work).serverid, owner.node.ip, `while enrolled, ${host.mac} is answered by its owner`);
            const offers = pods.map((p) => p.pod.logs("dnsmasq").length);
            const pruned = new RegExp(`host ${host.mac} belongs to no port in Ironic \\(its node or port was deleted\\): entry ironic-${host.mac}\\.conf set to ignore`);
            const deleting = watch.timeline.length;
            kube.kubectl(["delete", "baremetalhost", host.name, "-n", ns, "--wait=false"]);
            const deleted = Date.now();
            await watch.until("(deleted)", 180000);
            assert.equal(watch.poll(), "(deleted)", `deleted: ${JSON.stringify(watch.bmh.status)}`);
            assert.equal(api(known[0].ip, `/v1/nodes/${nodeId}`).code, 404, "BMO deleted the Ironic node");
            await until(() => pruned.test(owner.pod.logs("dhcp-pruner")), 60000, `${owner.node.node}'s pruner ignores ${host.mac}`, 500).catch((e) =>
                assert.fail(`${e.message}:\n${tail(owner.pod.logs("dhcp-pruner"), 2000)}`),
            );
            const silenced = Date.now() - deleted;
            assert.deepEqual(dhcpClient(clientNs, clientIf, lab.work), {}, `after the deletion nobody answers ${host.mac}`);
            for (const [i, p] of pods.entries()) {
                const lines = p.pod.logs("dnsmasq").slice(offers[i]).split("\n").filter((l) => l.includes(host.mac));
                assert.ok(!lines.some((l) => /DHCPOFFER/.test(l)), `${p.node.node} made no offer to ${host.mac} after the deletion:\n${lines.join("\n")}`);
            }
            console.log(`      deleted: ${watch.format(deleting)}; the owner's dnsmasq stopped answering ${(silenced / 1000).toFixed(0)} s after the delete`);
            assert.deepEqual(bmoLogProblems(operator!.logs("manager")).slice(0, 5), [], "BMO's log has no TLS, auth or API-version error");
        } finally {
            await hosts.stop();
            // The scenarios after this one replace the conductors BMO's Service name resolves to: it stops here.
            await operator?.stop();
            operator = undefined;
        }
    });

    it("real firmware boots the agent through the conductor that owns it: a BIOS host (iPXE ROM) and a UEFI host (OVMF's PXE, then iPXE over TFTP), enrolled with real Ironic and owned by two conductors, get their address from the owner's slice, their iPXE binary, boot script, PXE config and deploy ramdisk from the owner, and nothing from any other; the agent (IPA) they boot looks up, heartbeats to its owner and cleans the host's disk, and the node becomes available", async function () {
        const missing = vmPrerequisites();
        requireOrSkip(this, !missing, missing ?? "");
        requireOrSkip(this, typeof ipa !== "string", typeof ipa === "string" ? ipa : "");
        const agent = ipa as IpaRamdisk;
        // Two TCG guests booting a 130 MB ramdisk beside three conductors on two cores.
        this.timeout(900000);
        // Nodes as BMO enrolls them, but with fake power (the test starts the VMs itself) and
        // iPXE boot: cleaning makes the owning conductor write the host into its dnsmasq's
        // directories (Ironic's dnsmasq provider), its PXE config and boot.ipxe into its httpd root.
        const hosts = [
            { firmware: "bios" as Firmware, mac: "52:54:00:00:04:01" },
            { firmware: "uefi" as Firmware, mac: "52:54:00:00:04:02" },
        ];
        const created: { uuid: string; conductor: string }[] = [];
        for (let i = 0; i < 8; i++) {
            const r = api(known[0].ip, "/v1/nodes", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ name: `fw-${i}`, uuid: fixedNodeUuid(`fw-${i}`), driver: "fake-hardware", boot_interface: "ipxe", deploy_interface: "direct", properties: { cpu_arch: "x86_64" } })]);
            assert.equal(r.code, 201, r.body);
            created.push({ uuid: JSON.parse(r.body).uuid, conductor: conductorName(JSON.parse(r.body).conductor) });
        }
        // Two nodes the hash ring gives to two different conductors (fixed UUIDs: the same two on every run).
        const first = created[0];
        const second = created.find((c) => c.conductor !== first.conductor);
        assert.ok(second, `8 nodes all on ${first.conductor}`);
        for (const c of created) if (c !== first && c !== second) assert.equal(api(known[0].ip, `/v1/nodes/${c.uuid}`, ["-X", "DELETE"]).code, 204);
        const vms = [first, second].map((c, i) => {
            const owner = pods.find((p) => p.node.ip === c.conductor)!;
            assert.ok(owner, `conductor ${c.conductor} is one of the pods`);
            return { ...hosts[i], uuid: c.uuid, owner, vm: undefined as PxeVm | undefined, ip: "" };
        });
        const patch = (uuid: string, ops: object[]) => api(known[0].ip, `/v1/nodes/${uuid}`, ["-X", "PATCH", "-H", "Content-Type: application/json", "-d", JSON.stringify(ops)]);
        // State changes from cp-1's API, handed to each node's owner over JSON-RPC.
        const provision = (uuid: string, target: string) => lab.provision(uuid, target);
        for (const v of vms) {
            assert.equal(patch(v.uuid, [{ op: "add", path: "/properties/capabilities", value: `boot_mode:${v.firmware}` }]).code, 200);
            const port = api(known[0].ip, "/v1/ports", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ node_uuid: v.uuid, address: v.mac, pxe_enabled: true })]);
            assert.equal(port.code, 201, port.body);
            assert.equal(provision(v.uuid, "manage").code, 202);
        }
        const waitState = (uuid: string, want: string) => lab.waitState(uuid, want);
        for (const v of vms) await waitState(v.uuid, "manageable");
        for (const v of vms) assert.equal(provision(v.uuid, "provide").code, 202);
        for (const v of vms) await waitState(v.uuid, "clean wait");
        const shared = (p: (typeof pods)[number], rel: string) => lab.shared(p, rel);
        for (const v of vms) {
            for (const p of pods) {
                const has = fs.existsSync(shared(p, `${DHCP_PROVIDER_PATHS.hostsDir}/ironic-${v.mac}.conf`));
                assert.equal(has, p === v.owner, `${v.mac}'s host entry ${p === v.owner ? "written by its owner" : "absent"} on ${p.node.node}`);
            }
        }
        const t0 = Date.now();
        try {
            for (const v of vms) {
                // 2 GiB for the agent's ramdisk (unpacked in RAM) and a disk for it to clean.
                const disk = path.join(lab.work, `vm-${v.firmware}.disk`);
                fs.writeFileSync(disk, "");
                fs.truncateSync(disk, AGENT_DISK_MIB * 1024 * 1024);
                v.vm = new PxeVm({ name: v.firmware, mac: v.mac, firmware: v.firmware, lab: net, switchNs: lab.sw, bridge: lab.br, work: lab.work, memoryMiB: 2048, disk });
                v.vm.start();
            }
            for (const v of vms) {
                const http = () => v.owner.pod.logs("httpd");
                await lab.deployKernelAsked(v, { what: `${v.firmware} VM`, label: v.firmware, path: "emulated, TCG" });
                const ack = new RegExp(`DHCPACK\\(\\S+\\) (\\S+) ${v.mac}`).exec(v.owner.pod.logs("dnsmasq"));
                assert.ok(ack, `${v.owner.node.node} acknowledged ${v.mac}`);
                v.ip = ack[1];
                assert.ok(inRange(v.ip, v.owner.node), `${v.ip} in ${v.owner.node.node}'s slice`);
                const requests = http().split("\n").filter((l) => requestFrom(l, v.ip));
                const hexhyp = v.mac.replace(/:/g, "-");
                for (const want of ["GET /boot.ipxe", `GET /pxelinux.cfg/${hexhyp}`, `GET /${v.uuid}/deploy_kernel`]) {
                    assert.ok(requests.some((l) => l.includes(want)), `${v.owner.node.node}'s httpd served ${want} to ${v.ip}:\n${requests.join("\n")}`);
                }
                if (v.firmware === "uefi") {
                    assert.match(v.owner.pod.logs("dnsmasq"), new RegExp(`sent \\S+/${IPXE_FILES.efiX86_64} to ${v.ip.replace(/\./g, "\\.")}`), "UEFI PXE fetched iPXE over TFTP from its owner");
                }
                for (const p of pods) {
                    if (p === v.owner) continue;
                    assert.ok(!p.pod.logs("dnsmasq").split("\n").some((l) => /DHCPOFFER|DHCPACK/.test(l) && l.includes(v.mac)), `${p.node.node} made no offer to ${v.mac}`);
                    assert.ok(!p.pod.logs("dnsmasq").includes(` to ${v.ip}\n`), `${p.node.node}'s TFTP sent nothing to ${v.ip}`);
                    assert.ok(!p.pod.logs("httpd").split("\n").some((l) => requestFrom(l, v.ip)), `${p.node.node}'s httpd served nothing to ${v.ip}`);
                }
            }
            // The agent: the ramdisk boots, looks the node up and heartbeats to the owner's API (the
            // ipa-api-url its PXE config names), which runs the cleaning steps through it.
            for (const v of vms) {
                const timeline: [string, number][] = [];
                let n: any = {};
                await until(
                    () => {
                        n = lab.nodeState(v.uuid);
                        if (timeline[timeline.length - 1]?.[0] !== n.provision_state) timeline.push([n.provision_state, Date.now() - t0]);
                        return n.provision_state === "available" || !!n.last_error || !v.vm!.running;
                    },
                    480000,
                    `${v.firmware} host cleaned by its agent`,
                    1000,
                ).catch((e) => assert.fail(`${e.message}: ${n.provision_state}, last error ${n.last_error}. VM:\n${tail(v.vm!.output(), 3000)}`));
                const serial = v.vm!.output();
                assert.equal(n.last_error ?? null, null, `no error: ${n.last_error}\nVM:\n${tail(serial, 3000)}`);
                assert.equal(n.provision_state, "available", tail(serial, 3000));
                const agentUp = /ipa-ramdisk: starting ironic-python-agent \(([\d.]+) s after boot\)/.exec(serial);
                assert.ok(agentUp, `the ramdisk started the agent:\n${tail(serial, 3000)}`);
                assert.match(serial, /Starting ironic-python-agent version: 13\.0\.0/);
                assert.doesNotMatch(serial, NO_ROOT_DEVICE, "the agent found the host's disk at once");
                // Its callback address: the address its owner's dnsmasq gave it, on the agent's port.
                assert.match(n.driver_internal_info?.agent_url ?? "", new RegExp(`^https?://${v.ip.replace(/\./g, "\\.")}:9999`), JSON.stringify(n.driver_internal_info));
                const requests = v.owner.pod.logs("httpd").split("\n").filter((l) => requestFrom(l, v.ip));
                for (const want of [`GET /${v.uuid}/deploy_ramdisk`, "GET /v1/lookup", `POST /v1/heartbeat/${v.uuid}`]) {
                    assert.ok(requests.some((l) => l.includes(want)), `${v.owner.node.node}'s httpd served ${want} to ${v.ip}:\n${tail(requests.join("\n"), 2000)}`);
                }
                for (const p of pods) {
                    if (p === v.owner) continue;
                    assert.ok(!p.pod.logs("httpd").split("\n").some((l) => requestFrom(l, v.ip)), `${p.node.node}'s httpd (API included) got nothing from ${v.ip}`);
                    assert.ok(!p.pod.logs("dnsmasq").split("\n").some((l) => /DHCP(OFFER|ACK)/.test(l) && l.includes(v.mac)), `${p.node.node} made no offer to ${v.mac}`);
                }
                const heartbeats = requests.filter((l) => l.includes(`POST /v1/heartbeat/${v.uuid}`)).length;
                console.log(`      ${v.firmware}: ${timeline.map(([st, ms]) => `${st} at ${(ms / 1000).toFixed(0)} s`).join(" → ")}; the agent started ${agentUp[1]} s after its kernel booted; ${heartbeats} heartbeats, all to ${v.owner.node.node}`);
            }
            console.log(`      agent: ${agent.versions.split("\n").slice(0, 3).join("; ")}`);
        } finally {
            for (const v of vms) await v.vm?.stop();
        }
        for (const v of vms) {
            if (lab.nodeState(v.uuid).provision_state !== "available") {
                provision(v.uuid, "abort");
                await waitState(v.uuid, "clean failed");
                assert.equal(api(known[0].ip, `/v1/nodes/${v.uuid}/maintenance`, ["-X", "PUT"]).code, 202);
            }
            assert.equal(api(known[0].ip, `/v1/nodes/${v.uuid}`, ["-X", "DELETE"]).code, 204);
        }
    });

    it("rolling replacement, Cluster API style: three new nodes (new names, new addresses, no entry) replace cp-0, cp-1, cp-2 in turn; each new conductor finds its address, takes the freed slot and answers its hosts; at least two serve at every step and no other pod restarts; a continuous probe sees each host answered by its owner only, with a bounded gap", async function () {
        const live = pods.map(({ node, pod, ns }) => ({ name: node.node, ip: node.ip, pod, ns }));
        /** Every conductor that ran in this test, those that left included (their logs stay). */
        const everyone = [...live];
        /** The entries Ironic's provider writes for a host this conductor owns. */
        const write = async (c: { name: string; ip: string; pod: PodRunner }, mac: string, tag: string) => {
            const opts = [`tag:${tag},tag:!ipxe,67,snponly-x86_64.efi`, `tag:${tag},tag:ipxe,67,http://${c.ip}:${s.plan.ports.http}/boot.ipxe`, `tag:${tag},66,${c.ip}`, ""].join("\n");
            const script = `printf '%s' "$1" > ${DHCP_PROVIDER_PATHS.optsDir}/ironic-${tag}.conf && printf '%s,set:%s,set:ironic\\n' "$2" "$3" > ${DHCP_PROVIDER_PATHS.hostsDir}/ironic-$2.conf`;
            const since = c.pod.logs("dnsmasq").length;
            const w = c.pod.exec("dnsmasq", ["/bin/bash", "-c", script, "write", opts, mac, tag]);
            assert.equal(w.status, 0, w.stderr);
            await lab.dnsmasqRead(c.pod, [`${DHCP_PROVIDER_PATHS.optsDir}/ironic-${tag}.conf`, `${DHCP_PROVIDER_PATHS.hostsDir}/ironic-${mac}.conf`], since);
        };
        const answer = async (c: { name: string; ip: string; pod: PodRunner }, mac: string, tag: string, slot: number) => {
            await write(c, mac, tag);
            run("ip", ["-n", clientNs, "link", "set", clientIf, "address", mac]);
            const lease = dhcpClient(clientNs, clientIf, lab.work, ["0xaf:01"]);
            const layout = dhcpSlotsOf(s.plan)!;
            const b = sliceBounds(layout.rangeStart, layout.rangeEnd, layout.slots, slot);
            assert.equal(lease.serverid, c.ip, `${mac} answered by its owner ${c.name}`);
            assert.ok(ipToNumber(lease.ip!) >= ipToNumber(b.start) && ipToNumber(lease.ip!) <= ipToNumber(b.end), `${lease.ip} in ${c.name}'s slice (slot ${slot})`);
            for (const o of live) {
                if (o.name !== c.name) assert.ok(!o.pod.logs("dnsmasq").split("\n").some((l) => l.includes("DHCPOFFER") && l.includes(mac)), `${o.name} made no offer to ${mac}`);
            }
        };
        // Its MACs belong to no enrolled node: an earlier scenario's host stays enrolled (and answered by its owner).
        for (let i = 0; i < 3; i++) {
            for (const mac of [`52:54:00:00:05:0${i}`, `52:54:00:00:06:0${i}`]) {
                const ports = JSON.parse(api(known[0].ip, `/v1/ports?address=${mac}`).body).ports;
                assert.deepEqual(ports, [], `${mac} is no port of an enrolled node`);
            }
        }
        // The continuous probe: a host per newcomer (06:0i, its entry written when that newcomer
        // joins), asked again and again from before the first step to after the last.
        const probeMacs = [0, 1, 2].map((i) => `52:54:00:00:06:0${i}`);
        const probe = new OwnerProbe(net, lab.sw, lab.br, probeMacs, lab.work, "rp");
        // Where each dnsmasq log stood when the probe began (a probe MAC may be an earlier scenario's host): offers count from there.
        const probeMarks = new Map<PodRunner, number>(everyone.map((c) => [c.pod, c.pod.logs("dnsmasq").length]));
        const written: Record<string, { at: number; owner: string }> = {};
        try {
            for (let i = 0; i < 3; i++) {
                const old = live.find((c) => c.name === `cp-${i}`)!;
                const name = `cp-new-${i}`;
                const ip = `172.22.0.${5 + i}`;
                // The free slot the newcomer must take: the one no running conductor holds.
                const held = slotHolders();
                const free = [...Array(dhcpSlotsOf(s.plan)!.slots).keys()].filter((k) => !(k in held));
                assert.equal(free.length, 1, `one free slot before ${name} joins: ${JSON.stringify(held)}`);
                const pids = Object.fromEntries(live.map((c) => [c.name, dhcpListener(c.ns)?.pid]));
                // 1. The new node joins (Cluster API adds before it removes): the same pod template, no entry in the config.
                const ns = net.addNamespace(`hr${i}`);
                const ifname = net.plug(ns, `hr${i}`, lab.sw, lab.br, { cidr: `${ip}/${lab.prefix}`, rename: "eth1" });
                net.routeOnLink(ns, `${CLUSTER_IP}/32`, ifname);
                const ds = s.rendered.objects.find((o) => o.kind === "DaemonSet")!;
                const pod = new PodRunner({ name: `ironic-${name}`, namespace: s.plan.namespace, spec: ds.spec.template.spec, cluster: s.cluster, images: lab.images, work: lab.work, netns: ns, nodeName: name, hostIP: ip, podIP: ip, hosts: lab.serviceHosts(ip), serviceAccount: lab.serviceAccount });
                lab.others.push(pod);
                await lab.cache.serve(ns);
                await pod.runInitContainers();
                pod.startContainers([...DHCP_CONTAINERS]);
                await until(() => /DHCP, IP range/.test(pod.logs("dnsmasq")), 30000, `${name}'s dnsmasq serving DHCP`, 250);
                assert.match(pod.logs("dnsmasq"), new RegExp(`node ${name}: provisioning address ${ip.replace(/\./g, "\\.")} on eth1, found on the node`));
                assert.match(pod.logs("dnsmasq"), new RegExp(`slot ${free[0]} held: started`), `${name} takes the free slot ${free[0]}`);
                const newcomer = { name, ip, pod, ns };
                live.push(newcomer);
                everyone.push(newcomer);
                await answer(newcomer, `52:54:00:00:05:0${i}`, `rr${i}`, free[0]);
                written[probeMacs[i]] = { at: Date.now() / 1000, owner: ip };
                await write(newcomer, probeMacs[i], `rp${i}`);
                // 2. The old node leaves: drained, its pod stops and its agent releases the slot at once.
                const oldSlot = Number(Object.entries(slotHolders()).find(([, [holder]]) => holder === old.pod.o.name)![0]);
                await old.pod.stop();
                live.splice(live.indexOf(old), 1);
                assert.ok(!(oldSlot in slotHolders()), `${old.name}'s slot ${oldSlot} is free at once`);
                // 3. At least two conductors serve, and none of those that stayed restarted its dnsmasq.
                const serving = live.filter((c) => dhcpListener(c.ns));
                assert.ok(serving.length >= 2, `serving after ${old.name} left: ${serving.map((c) => c.name).join(", ")}`);
                for (const c of live) if (c.name in pids) assert.equal(dhcpListener(c.ns)?.pid, pids[c.name], `${c.name}'s dnsmasq kept running`);
            }
            assert.deepEqual(live.map((c) => c.name).sort(), ["cp-new-0", "cp-new-1", "cp-new-2"]);
            assert.deepEqual(Object.values(slotHolders()).map(([, node]) => node).sort(), ["cp-new-0", "cp-new-1", "cp-new-2"]);
            // The last host's entry is written at the last step: let the probe ask it a few more times.
            await until(() => (probe.summary()[2].answers[written[probeMacs[2]].owner] ?? 0) >= 3, 60000, "the probe's answers for the last host", 1000);
        } finally {
            await probe.stop();
        }
        // Per host: answered by its owner only, never by two conductors, nothing before its entry existed, and never silent for long.
        for (const sum of probe.summary()) {
            const w = written[sum.mac];
            console.log(`      owner probe ${sum.mac} (owner ${w.owner}): ${sum.attempts} attempts, answers ${JSON.stringify(sum.answers)}, first ${(sum.first! - w.at).toFixed(1)} s after its entry, longest gap ${sum.longestGap} s`);
            assert.deepEqual(Object.keys(sum.answers), [w.owner], `${sum.mac}: answered by its owner only`);
            assert.ok(sum.answers[w.owner] >= 3, `${sum.mac}: answered again and again (${sum.answers[w.owner]})`);
            assert.ok(sum.first! >= w.at, `${sum.mac}: no answer before its owner had its entry`);
            assert.ok(sum.longestGap <= OWNER_PROBE_MAX_GAP_S, `${sum.mac}: longest time without an answer ${sum.longestGap} s (bound ${OWNER_PROBE_MAX_GAP_S} s)`);
            // The client takes the first offer: a second, slower server would not show in its answers.
            // Each dnsmasq's own log says whom it offered: only the owner's names the MAC.
            const offers = (c: { pod: PodRunner }) => c.pod.logs("dnsmasq").slice(probeMarks.get(c.pod) ?? 0).split("\n").filter((l) => l.includes("DHCPOFFER") && l.includes(sum.mac)).length;
            const offered = Object.fromEntries(everyone.map((c) => [c.ip, offers(c)]).filter(([, n]) => (n as number) > 0));
            assert.deepEqual(Object.keys(offered), [w.owner], `${sum.mac}: offers in each dnsmasq's log ${JSON.stringify(offered)}: its owner's only`);
        }
    });
});
