/**
 * Multi-conductor DHCP with real dnsmasq: three control-plane nodes on one bridge, each running
 * dnsmasq on its rendered per-node config plus the rendered file of the slot it holds (here the
 * plan's preferred slot; the Lease claim itself: test/e2e/slot-leases.test.ts and the pod runner's
 * ha tier), and bare-metal hosts as DHCP clients. Host entries are
 * written in the exact format Ironic's dnsmasq provider writes. All inside namespaces this test
 * creates and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { ipToNumber } from "../../core/ip";
import { ListedConductor } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { DirChanges, dnsmasqHandled, dnsmasqLogLength, DnsmasqNode as Node, startConductorDnsmasqs } from "../helpers/conductor-dnsmasq";
import { until } from "../helpers/ironic-lab";
import { canUseNetns, dhcpClient, NetnsLab, requireOrSkip, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";


const KNOWN_MAC = "52:54:00:00:00:01";
const UNKNOWN_MAC = "52:54:00:00:00:99";

/** What Ironic's dnsmasq provider writes for an owned, deploying node (ironic-dhcp-and-ha.md §9.2). */
function ironicHostFile(mac: string, tag: string): string {
    return `${mac},set:${tag},set:ironic\n`;
}
function ironicIgnoreFile(mac: string): string {
    return `${mac},ignore\n`;
}
function ironicOptsFile(tag: string, ip: string, httpPort: number): string {
    return [
        `tag:${tag},tag:!ipxe,67,snponly.efi`,
        `tag:${tag},tag:ipxe,67,http://${ip}:${httpPort}/boot.ipxe`,
        `tag:${tag},66,${ip}`,
        `tag:${tag},150,${ip}`,
        `tag:${tag},255,${ip}`,
        "",
    ].join("\n");
}

describe("multi-conductor DHCP: only the owner answers (real dnsmasq, 3 nodes)", function () {
    this.timeout(180000);
    const lab = new NetnsLab();
    const plan = planOf(readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml")));
    const httpPort = plan.ports.http;
    let work = "";
    const nodes: Node[] = [];
    let knownNs = "";
    let knownIf = "";
    let unknownNs = "";
    let unknownIf = "";
    const tag = "6f1c4f4e-5d4c-4a52-9c55-000000000001";
    const nodeUuid = "b5f0d0d2-7d0c-4c59-8f43-000000000001";

    before(async function () {
        requireOrSkip(this, !!which("dnsmasq") && !!which("busybox"), "dnsmasq and busybox (apt-get install dnsmasq busybox)");
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        work = tmpDir("multi-dhcp");
        const sw = lab.addNamespace("sw");
        const br = lab.addBridge(sw, "br");
        nodes.push(...(await startConductorDnsmasqs(plan, lab, sw, br, work, { base: "n", ipv6: false, ports: [67] })));
        knownNs = lab.addNamespace("hk");
        knownIf = lab.plug(knownNs, "hk", sw, br, { mac: KNOWN_MAC });
        unknownNs = lab.addNamespace("hu");
        unknownIf = lab.plug(unknownNs, "hu", sw, br, { mac: UNKNOWN_MAC });
    });

    after(async function () {
        for (const n of nodes) await n.daemon?.stop();
        lab.destroy();
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    const node = (name: string) => nodes.find((n) => n.plan.node === name)!;
    const log = (n: Node) => fs.readFileSync(path.join(n.dir, "dnsmasq.log"), "utf8");
    const offersFor = (n: Node, mac: string) => log(n).split("\n").filter((l) => l.includes("DHCPOFFER") && l.includes(mac)).length;
    const inSlice = (ip: string, c: ListedConductor) => ipToNumber(ip) >= ipToNumber(c.slot!.range.start) && ipToNumber(ip) <= ipToNumber(c.slot!.range.end);

    /** A change of a node's dnsmasq directories: what changed, and its log's length before. */
    type Change = { n: Node; since: number; changes: DirChanges };
    const optsFile = (n: Node) => path.join(n.dir, "optsdir", `ironic-${nodeUuid}.conf`);
    const hostFile = (n: Node) => path.join(n.dir, "hostsdir", `ironic-${KNOWN_MAC}.conf`);
    /** Place the entry Ironic's provider writes when `owner` prepares boot for the host. */
    function own(owner: Node): Change {
        const since = dnsmasqLogLength(owner);
        fs.writeFileSync(optsFile(owner), ironicOptsFile(tag, owner.plan.ip!, httpPort));
        fs.writeFileSync(hostFile(owner), ironicHostFile(KNOWN_MAC, tag));
        return { n: owner, since, changes: { read: [optsFile(owner), hostFile(owner)] } };
    }
    /** What Ironic's cleanup leaves behind: the host file rewritten to ignore, the opts file gone. */
    function release(owner: Node): Change {
        const since = dnsmasqLogLength(owner);
        const had = fs.existsSync(optsFile(owner));
        fs.writeFileSync(hostFile(owner), ironicIgnoreFile(KNOWN_MAC));
        fs.rmSync(optsFile(owner), { force: true });
        return { n: owner, since, changes: { read: [hostFile(owner)], removed: had ? [optsFile(owner)] : [] } };
    }
    /** Waits until each dnsmasq has picked its changes up (inotify), before a client asks. */
    const settle = async (...cs: Change[]) => {
        for (const c of cs) await dnsmasqHandled(c.n, c.since, c.changes);
    };

    it("the owner's dnsmasq answers the host from its own slice and points it at itself; the others stay silent", async function () {
        const owner = node("cp-1");
        await settle(own(owner));
        const lease = dhcpClient(knownNs, knownIf, work);
        assert.equal(lease.serverid, owner.plan.ip, `answered by ${lease.serverid}`);
        assert.ok(lease.ip && inSlice(lease.ip, owner.plan), `${lease.ip} inside cp-1's slice ${owner.plan.slot!.range.start}-${owner.plan.slot!.range.end}`);
        assert.equal(lease.siaddr, owner.plan.ip, "next-server is the owner");
        assert.equal(lease.tftp, owner.plan.ip, "TFTP server option from Ironic's opts file is the owner");
        const ipxe = dhcpClient(knownNs, knownIf, work, ["0xaf:01"]);
        assert.equal(ipxe.serverid, owner.plan.ip);
        assert.equal(ipxe.bootfile, `http://${owner.plan.ip}:${httpPort}/boot.ipxe`, "iPXE is sent to the owner's httpd");
        for (const other of ["cp-0", "cp-2"]) {
            assert.equal(offersFor(node(other), KNOWN_MAC), 0, `${other} made no offer`);
            assert.match(log(node(other)), new RegExp(`DHCPDISCOVER\\(\\S+\\) ${KNOWN_MAC} ignored`), `${other} ignored the host`);
        }
        assert.ok(offersFor(owner, KNOWN_MAC) >= 2);
    });

    it("a MAC known to no conductor gets no answer at all", function () {
        const lease = dhcpClient(unknownNs, unknownIf, work);
        assert.deepEqual(lease, {});
        for (const n of nodes) assert.equal(offersFor(n, UNKNOWN_MAC), 0);
    });

    it("moving the entry to another conductor moves the answer to it", async function () {
        const from = node("cp-1");
        const to = node("cp-2");
        const offersBefore = offersFor(from, KNOWN_MAC);
        await settle(release(from), own(to));
        const lease = dhcpClient(knownNs, knownIf, work);
        assert.equal(lease.serverid, to.plan.ip);
        assert.ok(lease.ip && inSlice(lease.ip, to.plan), `${lease.ip} inside cp-2's slice`);
        assert.equal(lease.siaddr, to.plan.ip);
        assert.equal(offersFor(from, KNOWN_MAC), offersBefore, "the old owner no longer answers");
        assert.equal(offersFor(node("cp-0"), KNOWN_MAC), 0);
    });

    it("a stale active entry left on the old owner makes two conductors answer (what pruning must prevent)", async function () {
        // Both cp-1 and cp-2 now hold an active entry: the hazard of ironic-dhcp-and-ha.md §8.
        await settle(own(node("cp-1")));
        const before = { a: offersFor(node("cp-1"), KNOWN_MAC), b: offersFor(node("cp-2"), KNOWN_MAC) };
        dhcpClient(knownNs, knownIf, work);
        // The client takes the first offer and leaves; the other server's reaches its log a moment later.
        await until(() => offersFor(node("cp-1"), KNOWN_MAC) > before.a && offersFor(node("cp-2"), KNOWN_MAC) > before.b, 5000, "offers of cp-1 and cp-2 in their logs", 50).catch(() => undefined);
        assert.ok(offersFor(node("cp-1"), KNOWN_MAC) > before.a, "cp-1 offered");
        assert.ok(offersFor(node("cp-2"), KNOWN_MAC) > before.b, "cp-2 offered too");
        release(node("cp-1"));
    });
});
