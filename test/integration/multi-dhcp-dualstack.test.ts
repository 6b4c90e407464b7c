/**
 * Dual-stack multi-conductor DHCP with real dnsmasq and real clients: the dual-stack example stack
 * (test/fixtures/Pulumi.dualstack.yaml), three nodes on one bridge, each running dnsmasq on its
 * rendered per-node config plus its slot's file (test/helpers/conductor-dnsmasq.ts). One bare-metal
 * host, known by the MAC entry Ironic's dnsmasq provider writes, gets a DHCPv4 lease (busybox
 * udhcpc) and a DHCPv6 lease (ISC dhclient -6) from the owner's slot of each range, with boot URLs
 * of each family on the owner; no other conductor answers, and an unknown host gets nothing. All
 * inside namespaces this test creates and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { ipToBigInt } from "../../core/ip";
import { readStackConfig } from "../../tools/render";
import { dnsmasqHandled, dnsmasqLogLength, DnsmasqNode, readIfExists, startConductorDnsmasqs } from "../helpers/conductor-dnsmasq";
import { canUseNetns, dhcp6Client, dhcpClient, NetnsLab, requireOrSkip, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";

const KNOWN_MAC = "52:54:00:00:46:01";
const UNKNOWN_MAC = "52:54:00:00:46:99";
const TAG = "6f1c4f4e-5d4c-4a52-9c55-000000004601";

describe("dual-stack multi-conductor DHCP: the owner alone leases one host IPv4 and IPv6 from its slot of each range (real dnsmasq, udhcpc, dhclient -6, 3 nodes)", function () {
    this.timeout(240000);
    const lab = new NetnsLab();
    const plan = planOf(readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.dualstack.yaml")));
    const httpPort = plan.ports.http;
    let work = "";
    let nodes: DnsmasqNode[] = [];
    let knownNs = "";
    let knownIf = "";
    let unknownNs = "";
    let unknownIf = "";

    before(async function () {
        requireOrSkip(this, !!which("dnsmasq") && !!which("dhclient") && !!which("busybox"), "dnsmasq, ISC dhclient and busybox (apt-get install dnsmasq isc-dhcp-client busybox)");
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        work = tmpDir("multi-dhcp-ds");
        const sw = lab.addNamespace("sd");
        const br = lab.addBridge(sw, "bd");
        nodes = await startConductorDnsmasqs(plan, lab, sw, br, work, { base: "w", ipv6: true, ports: [67, 547] });
        knownNs = lab.addNamespace("kd");
        lab.enableIpv6(knownNs);
        knownIf = lab.plug(knownNs, "kd", sw, br, { mac: KNOWN_MAC });
        unknownNs = lab.addNamespace("ud");
        lab.enableIpv6(unknownNs);
        unknownIf = lab.plug(unknownNs, "ud", sw, br, { mac: UNKNOWN_MAC });
    });

    after(async function () {
        for (const n of nodes) await n.daemon?.stop();
        lab.destroy();
        if (work && !process.env.KEEP_WORK) fs.rmSync(work, { recursive: true, force: true });
    });

    const node = (name: string) => nodes.find((n) => n.plan.node === name)!;
    const log = (n: DnsmasqNode) => readIfExists(path.join(n.dir, "dnsmasq.log"));
    const logs = () => nodes.map((n) => `--- ${n.plan.node}:\n${log(n)}`).join("\n");
    /** Answers of `n` in each family: DHCPOFFER/ACK (v4), ADVERTISE/REPLY (v6). */
    const answers = (n: DnsmasqNode) => ({
        v4: log(n).split("\n").filter((l) => /DHCP(OFFER|ACK)\(/.test(l)).length,
        v6: log(n).split("\n").filter((l) => /DHCP(ADVERTISE|REPLY)\(/.test(l)).length,
    });
    const within = (ip: string, r: { start: string; end: string }) => ipToBigInt(ip) >= ipToBigInt(r.start) && ipToBigInt(ip) <= ipToBigInt(r.end);
    const hostFile = (n: DnsmasqNode) => path.join(n.dir, "hostsdir", `ironic-${KNOWN_MAC}.conf`);
    /** Writes the host file of `n` and waits until its dnsmasq has read it (inotify), before a client asks. */
    const write = async (n: DnsmasqNode, line: string) => {
        const since = dnsmasqLogLength(n);
        fs.writeFileSync(hostFile(n), line);
        await dnsmasqHandled(n, since, { read: [hostFile(n)] });
    };
    const own = (n: DnsmasqNode) => write(n, `${KNOWN_MAC},set:${TAG},set:ironic\n`);
    const release = (n: DnsmasqNode) => write(n, `${KNOWN_MAC},ignore\n`);

    /** Both leases of the known host and its boot URLs, checked against `owner`; the others silent. */
    function assertServedBy(owner: DnsmasqNode) {
        const c = owner.plan;
        const before = nodes.map(answers);
        const v4 = dhcpClient(knownNs, knownIf, work);
        assert.equal(v4.serverid, c.ip, `DHCPv4 answered by the owner:\n${logs()}`);
        assert.ok(v4.ip && within(v4.ip, c.slot!.range), `${v4.ip} inside ${c.node}'s IPv4 slice ${c.slot!.range.start}-${c.slot!.range.end}`);
        assert.equal(v4.siaddr, c.ip, "TFTP next-server: the owner's IPv4 address");
        const ipxe4 = dhcpClient(knownNs, knownIf, work, ["0xaf:01"]);
        assert.equal(ipxe4.bootfile, `http://${c.ip}:${httpPort}/boot.ipxe`);
        const v6 = dhcp6Client(knownNs, knownIf, work, { clientArch: 7 });
        assert.ok(v6.ip6_address && within(v6.ip6_address, c.slot!.range6!), `${v6.ip6_address} inside ${c.node}'s IPv6 slice ${c.slot!.range6!.start}-${c.slot!.range6!.end}; client:\n${(v6 as { log?: string }).log}\n${logs()}`);
        assert.equal(v6.bootfile_url, `tftp://[${c.ipv6}]/snponly-x86_64.efi`, "an x86-64 UEFI ROM gets iPXE from the owner's IPv6 address");
        const ipxe6 = dhcp6Client(knownNs, knownIf, work, { userClass: "iPXE", clientArch: 7 });
        assert.equal(ipxe6.bootfile_url, `http://[${c.ipv6}]:${httpPort}/boot.ipxe`);
        nodes.forEach((n, i) => {
            const now = answers(n);
            if (n === owner) assert.ok(now.v4 > before[i].v4 && now.v6 > before[i].v6, `${n.plan.node} answered in both families`);
            else assert.deepEqual(now, before[i], `${n.plan.node} did not answer:\n${log(n)}`);
        });
    }

    it("the owner (cp-1) leases the host an IPv4 and an IPv6 address of its own slot k of each range, with boot URLs of each family on itself; only it answers", async function () {
        await own(node("cp-1"));
        assert.equal(node("cp-1").plan.slot!.index, 1);
        assertServedBy(node("cp-1"));
    });

    it("a MAC known to no conductor gets neither a DHCPv4 nor a DHCPv6 answer", function () {
        const before = nodes.map(answers);
        assert.deepEqual(dhcpClient(unknownNs, unknownIf, work), {});
        assert.equal(dhcp6Client(unknownNs, unknownIf, work, { timeout: 6 }).ip6_address, undefined);
        assert.deepEqual(nodes.map(answers), before, "no conductor answered");
        assert.ok(nodes.every((n) => /DHCPSOLICIT\(/.test(log(n)) && /DHCPDISCOVER\(/.test(log(n))), "every conductor saw both requests");
    });

    it("moving the entry to cp-2 moves both families' answers and slices to cp-2", async function () {
        await release(node("cp-1"));
        await own(node("cp-2"));
        assertServedBy(node("cp-2"));
    });
});
