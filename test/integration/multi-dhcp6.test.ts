/**
 * Multi-conductor DHCPv6 with real dnsmasq and a real DHCPv6 client (ISC dhclient -6): the IPv6
 * example stack (test/fixtures/Pulumi.v6.yaml), three control-plane nodes on one bridge, each
 * running dnsmasq on its rendered per-node config plus the rendered file of its preferred slot, as
 * test/integration/multi-dhcp.test.ts does for IPv4. Hosts are known by the MAC entries Ironic's
 * dnsmasq provider writes: dnsmasq learns a DHCPv6 client's MAC on the same link, so
 * `dhcp-ignore=tag:!known` keeps working. All inside namespaces this test creates and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { ipToBigInt } from "../../core/ip";
import { ListedConductor } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { dnsmasqHandled, dnsmasqLogLength, DnsmasqNode as Node, readIfExists, startConductorDnsmasqs } from "../helpers/conductor-dnsmasq";
import { until } from "../helpers/ironic-lab";
import { canUseNetns, dhcp6Client, NetnsLab, requireOrSkip, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";

const KNOWN_MAC = "52:54:00:00:06:01";
const UNKNOWN_MAC = "52:54:00:00:06:99";
const TAG = "6f1c4f4e-5d4c-4a52-9c55-000000000601";

describe("multi-conductor DHCPv6: only the owner answers, from its own slice (real dnsmasq, dhclient -6, 3 nodes)", function () {
    this.timeout(240000);
    const lab = new NetnsLab();
    const plan = planOf(readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.v6.yaml")));
    const httpPort = plan.ports.http;
    let work = "";
    const nodes: Node[] = [];
    let knownNs = "";
    let knownIf = "";
    let unknownNs = "";
    let unknownIf = "";

    before(async function () {
        requireOrSkip(this, !!which("dnsmasq") && !!which("dhclient"), "dnsmasq and ISC dhclient (apt-get install dnsmasq isc-dhcp-client)");
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        work = tmpDir("multi-dhcp6");
        const sw = lab.addNamespace("s6");
        const br = lab.addBridge(sw, "b6");
        nodes.push(...(await startConductorDnsmasqs(plan, lab, sw, br, work, { base: "v", ipv6: true, ports: [547] })));
        knownNs = lab.addNamespace("k6");
        lab.enableIpv6(knownNs);
        knownIf = lab.plug(knownNs, "k6", sw, br, { mac: KNOWN_MAC });
        unknownNs = lab.addNamespace("u6");
        lab.enableIpv6(unknownNs);
        unknownIf = lab.plug(unknownNs, "u6", sw, br, { mac: UNKNOWN_MAC });
    });

    after(async function () {
        for (const n of nodes) await n.daemon?.stop();
        lab.destroy();
        if (work && !process.env.KEEP_WORK) fs.rmSync(work, { recursive: true, force: true });
    });

    const node = (name: string) => nodes.find((n) => n.plan.node === name)!;
    const log = (n: Node) => readIfExists(path.join(n.dir, "dnsmasq.log"));
    const logs = () => nodes.map((n) => `--- ${n.plan.node}:\n${log(n)}`).join("\n");
    /** Lines where `n` answered (DHCPv6 ADVERTISE or REPLY with an address). */
    const answers = (n: Node) => log(n).split("\n").filter((l) => /DHCP(ADVERTISE|REPLY)\(/.test(l)).length;
    const inSlice = (ip: string, c: ListedConductor) => ipToBigInt(ip) >= ipToBigInt(c.slot!.range.start) && ipToBigInt(ip) <= ipToBigInt(c.slot!.range.end);

    /** The host entry Ironic's dnsmasq provider writes for an owned node (by MAC, as for IPv4). */
    const hostFile = (n: Node) => path.join(n.dir, "hostsdir", `ironic-${KNOWN_MAC}.conf`);
    /** Writes the host file of `n` and waits until its dnsmasq has read it (inotify), before a client asks. */
    const write = async (n: Node, line: string) => {
        const since = dnsmasqLogLength(n);
        fs.writeFileSync(hostFile(n), line);
        await dnsmasqHandled(n, since, { read: [hostFile(n)] });
    };
    const own = (owner: Node) => write(owner, `${KNOWN_MAC},set:${TAG},set:ironic\n`);
    const release = (owner: Node) => write(owner, `${KNOWN_MAC},ignore\n`);

    it("the owner leases the host an address of its own slice, and only the owner answers", async function () {
        const owner = node("cp-1");
        await own(owner);
        const before = nodes.map(answers);
        const lease = dhcp6Client(knownNs, knownIf, work);
        assert.ok(lease.ip6_address, `a DHCPv6 lease; client:\n${(lease as { log?: string }).log}\n${logs()}`);
        assert.ok(inSlice(lease.ip6_address, owner.plan), `${lease.ip6_address} inside cp-1's slice ${owner.plan.slot!.range.start}-${owner.plan.slot!.range.end}`);
        assert.ok(answers(owner) > before[1], "cp-1 answered");
        for (const other of ["cp-0", "cp-2"]) assert.equal(answers(node(other)), before[nodes.indexOf(node(other))], `${other} did not answer:\n${log(node(other))}`);
    });

    it("boot file URLs (option 59) point at the owner, bracketed: TFTP iPXE for an x86-64 UEFI ROM (option 61 = 7), the HTTP script for iPXE (user class)", function () {
        const owner = node("cp-1").plan.ip!;
        const rom = dhcp6Client(knownNs, knownIf, work, { clientArch: 7 });
        assert.equal(rom.bootfile_url, `tftp://[${owner}]/snponly-x86_64.efi`, `client:\n${(rom as { log?: string }).log}`);
        const arm = dhcp6Client(knownNs, knownIf, work, { clientArch: 11 });
        assert.equal(arm.bootfile_url, `tftp://[${owner}]/snponly-arm64.efi`);
        const ipxe = dhcp6Client(knownNs, knownIf, work, { userClass: "iPXE", clientArch: 7 });
        assert.equal(ipxe.bootfile_url, `http://[${owner}]:${httpPort}/boot.ipxe`);
        const plain = dhcp6Client(knownNs, knownIf, work);
        assert.equal(plain.bootfile_url, undefined, "a client that is no PXE ROM and no iPXE gets no boot file");
    });

    it("Ironic's own option lines for the host (a bare `59`, DHCPv4 numbering) are read without complaint but never reach a DHCPv6 client: its boot URLs are the conductor's option6 lines", async function () {
        // The format Ironic's dnsmasq provider writes on an IPv6 network (seen from Ironic 21.4 in
        // test/integration/pods-v6.test.ts), with URLs of a server that does not exist, to tell them apart.
        const owner = node("cp-1");
        const opts = [`tag:${TAG},tag:!ipxe6,59,tftp://[fd00:1:2:3::99]/ironic.efi`, `tag:${TAG},tag:ipxe6,59,http://[fd00:1:2:3::99]:6180/ironic.ipxe`, ""].join("\n");
        const file = path.join(owner.dir, "optsdir", `ironic-${TAG}.conf`);
        fs.writeFileSync(file, opts);
        await until(() => log(owner).includes(`read ${file}`), 10000, `cp-1's dnsmasq reading ${file}`, 100);
        assert.doesNotMatch(log(owner).split(`read ${file}`)[1], /bad|error|unknown|warning/i, "dnsmasq takes the lines as DHCPv4 option 59 (T2), silently");
        const rom = dhcp6Client(knownNs, knownIf, work, { clientArch: 7 });
        assert.equal(rom.bootfile_url, `tftp://[${owner.plan.ip}]/snponly-x86_64.efi`, "the conductor's own option6:bootfile-url");
        const ipxe = dhcp6Client(knownNs, knownIf, work, { userClass: "iPXE", clientArch: 7 });
        assert.equal(ipxe.bootfile_url, `http://[${owner.plan.ip}]:${httpPort}/boot.ipxe`);
        fs.rmSync(file);
    });

    it("a MAC known to no conductor gets no DHCPv6 answer at all", function () {
        const before = nodes.map(answers);
        const lease = dhcp6Client(unknownNs, unknownIf, work, { timeout: 6 });
        assert.equal(lease.ip6_address, undefined, `no lease:\n${logs()}`);
        assert.deepEqual(nodes.map(answers), before, "no conductor answered");
        assert.ok(nodes.every((n) => /DHCPSOLICIT\(/.test(log(n))), "every conductor saw the client's SOLICIT");
    });

    it("the MAC is learnt from the link, not from the DUID: a client whose DUID-EN carries no MAC is still known", function () {
        // DUID-EN (type 2): enterprise number 343, an identifier of our own; no link-layer address in it.
        const duid = "00:02:00:00:01:57:6d:33:69:2d:76:36";
        const before = answers(node("cp-1"));
        const lease = dhcp6Client(knownNs, knownIf, work, { duid });
        assert.ok(lease.ip6_address && inSlice(lease.ip6_address, node("cp-1").plan), `${lease.ip6_address} from cp-1's slice:\n${logs()}`);
        assert.ok(answers(node("cp-1")) > before);
        assert.match(log(node("cp-1")), new RegExp(`DHCP(SOLICIT|REQUEST)\\(eth1\\) ${duid}`), "the client really sent that DUID");
    });

    it("moving the entry to another conductor moves the answer and the slice", async function () {
        await release(node("cp-1"));
        await own(node("cp-2"));
        const before = nodes.map(answers);
        const lease = dhcp6Client(knownNs, knownIf, work);
        assert.ok(lease.ip6_address && inSlice(lease.ip6_address, node("cp-2").plan), `${lease.ip6_address} inside cp-2's slice ${node("cp-2").plan.slot!.range.start}-${node("cp-2").plan.slot!.range.end}\n${logs()}`);
        assert.equal(answers(node("cp-1")), before[1], "the old owner no longer answers");
        assert.equal(answers(node("cp-0")), before[0]);
    });
});
