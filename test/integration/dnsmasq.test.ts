/**
 * The rendered dnsmasq configuration, consumed by real dnsmasq: syntax (`dnsmasq --test`) and a
 * real DHCP exchange inside network namespaces this test creates and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { ipToNumber } from "../../core/config";
import { IPXE_FILES } from "../../core/contract";
import { renderDnsmasqConf, DnsmasqOptions } from "../../core/render/dnsmasq";
import { IronicPlan, SingleConductor } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { until } from "../helpers/ironic-lab";
import { canUseNetns, Daemon, dhcpClient, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";

/** The single topology's one conductor. */
function singleOf(plan: IronicPlan): SingleConductor {
    assert.equal(plan.topology.kind, "single");
    return (plan.topology as Extract<IronicPlan["topology"], { kind: "single" }>).conductor;
}

function devPlan() {
    return planOf(readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml")));
}

function dnsmasqTest(conf: string): { ok: boolean; output: string } {
    const dir = tmpDir("dnsmasq-test");
    const file = path.join(dir, "dnsmasq.conf");
    fs.writeFileSync(file, conf);
    const r = run("dnsmasq", ["--test", `--conf-file=${file}`], { allowFail: true });
    fs.rmSync(dir, { recursive: true, force: true });
    return { ok: r.status === 0, output: r.stdout + r.stderr };
}

describe("dnsmasq config (real dnsmasq)", function () {
    before(function () {
        requireOrSkip(this, !!which("dnsmasq"), "dnsmasq (apt-get install dnsmasq)");
    });

    it("the dev stack's rendered config passes dnsmasq --test", function () {
        const conf = singleOf(devPlan()).dhcp!.dnsmasqConf;
        const r = dnsmasqTest(conf);
        assert.ok(r.ok, r.output);
        assert.match(r.output, /syntax check OK/);
    });

    it("a config without an interface (listen-address) and without gateway/DNS passes too", function () {
        const conf = renderDnsmasqConf({
            serverIp: "10.0.0.2",
            httpUrl: "http://10.0.0.2:6180",
            range: { start: "10.0.0.10", end: "10.0.0.20", prefixLength: 24, leaseTime: "infinite" },
        });
        assert.ok(dnsmasqTest(conf).ok);
    });

    it("the multi-conductor variant (hostsdir, optsdir, dhcp-ignore) passes dnsmasq --test", function () {
        const dir = tmpDir("dirs");
        const conf = renderDnsmasqConf({
            serverIp: "10.0.0.2",
            httpUrl: "http://10.0.0.2:6180",
            range: { start: "10.0.0.10", end: "10.0.0.20", prefixLength: 24, leaseTime: "1h" },
            knownHostsOnly: { hostsDir: path.join(dir, "hosts"), optsDir: path.join(dir, "opts") },
        });
        const r = dnsmasqTest(conf);
        fs.rmSync(dir, { recursive: true, force: true });
        assert.ok(r.ok, r.output);
    });

    it("dnsmasq --test rejects a damaged config (the check can fail)", function () {
        const conf = singleOf(devPlan()).dhcp!.dnsmasqConf.replace(/^dhcp-range=.*$/m, "dhcp-range=172.22.0.10,not-an-address");
        const r = dnsmasqTest(conf);
        assert.equal(r.ok, false);
        assert.match(r.output, /bad dhcp-range/);
    });
});

describe("dnsmasq serves real DHCP leases (network namespaces)", function () {
    this.timeout(120000);
    const lab = new NetnsLab();
    let work = "";
    let daemon: Daemon | undefined;
    let hostNs = "";
    let hostIf = "";
    const plan = devPlan();
    const conductor = { ip: singleOf(plan).ip, ...singleOf(plan).dhcp! };
    const opts = conductor.dnsmasqOptions as DnsmasqOptions;

    before(async function () {
        requireOrSkip(this, !!which("dnsmasq") && !!which("busybox"), "dnsmasq and busybox (apt-get install dnsmasq busybox)");
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        work = tmpDir("dhcp");
        const tftp = path.join(work, "tftpboot");
        fs.mkdirSync(tftp);
        const leases = path.join(work, "dnsmasq.leases");
        fs.writeFileSync(leases, "");
        // The same renderer and options as the dev stack; only file locations point at scratch dirs.
        const conf = renderDnsmasqConf({ ...opts, tftpRoot: tftp, leaseFile: leases });
        fs.writeFileSync(path.join(work, "dnsmasq.conf"), conf);

        const sw = lab.addNamespace("sw");
        const br = lab.addBridge(sw, "br");
        const srv = lab.addNamespace("srv");
        const prefix = plan.provisioning.cidr.split("/")[1];
        lab.plug(srv, "srv", sw, br, { cidr: `${conductor.ip}/${prefix}`, rename: opts.interface });
        hostNs = lab.addNamespace("bmh");
        hostIf = lab.plug(hostNs, "bmh", sw, br, { mac: "52:54:00:00:00:01" });

        daemon = new Daemon(
            "ip",
            ["netns", "exec", srv, "dnsmasq", "--keep-in-foreground", `--conf-file=${path.join(work, "dnsmasq.conf")}`, "--user=root", "--no-ping", `--pid-file=${path.join(work, "dnsmasq.pid")}`, `--log-facility=${path.join(work, "dnsmasq.log")}`],
            path.join(work, "dnsmasq.out"),
        );
        // Wait until dnsmasq has bound its DHCP socket.
        await until(() => /:67\b/.test(run("ip", ["netns", "exec", srv, "ss", "-lun"], { allowFail: true }).stdout), 30000, `dnsmasq listening on UDP 67 in ${srv}`, 100, () => {
            if (!daemon!.running) throw new Error(`dnsmasq exited: ${fs.readFileSync(path.join(work, "dnsmasq.out"), "utf8")}`);
        });
    });

    after(async function () {
        await daemon?.stop();
        lab.destroy();
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    function assertLeaseInRange(lease: Record<string, string>) {
        assert.ok(lease.ip, `no lease offered; dnsmasq log:\n${fs.readFileSync(path.join(work, "dnsmasq.log"), "utf8")}`);
        const n = ipToNumber(lease.ip);
        assert.ok(n >= ipToNumber(conductor.range!.start) && n <= ipToNumber(conductor.range!.end), `${lease.ip} outside ${conductor.range!.start}-${conductor.range!.end}`);
        assert.equal(lease.serverid, conductor.ip);
        assert.equal(lease.subnet, "255.255.255.0");
        assert.equal(lease.router, plan.provisioning.dhcp!.gateway);
        assert.equal(lease.lease, "3600", "lease time of the dev stack is 1h");
    }

    /** The boot file: option 67 when the client asks for it (udhcpc -O 67), else the BOOTP file field. */
    function bootFile(lease: Record<string, string>): string | undefined {
        return lease.bootfile ?? lease.boot_file;
    }

    it("a legacy BIOS PXE client gets an address in the range and undionly.kpxe from the provisioning IP", function () {
        const lease = dhcpClient(hostNs, hostIf, work);
        assertLeaseInRange(lease);
        assert.equal(bootFile(lease), `/${IPXE_FILES.bios}`);
        assert.equal(lease.siaddr, conductor.ip);
    });

    it("a UEFI x86_64 client (option 93 = 7) gets the EFI iPXE binary from the provisioning IP", function () {
        const lease = dhcpClient(hostNs, hostIf, work, ["0x5d:0007"]);
        assertLeaseInRange(lease);
        assert.equal(bootFile(lease), `/${IPXE_FILES.efiX86_64}`);
        assert.equal(lease.siaddr, conductor.ip);
    });

    it("an iPXE client (option 175) is sent to boot.ipxe on the provisioning IP's httpd", function () {
        const lease = dhcpClient(hostNs, hostIf, work, ["0xaf:01"]);
        assertLeaseInRange(lease);
        assert.equal(bootFile(lease), `http://${conductor.ip}:${plan.ports.http}/boot.ipxe`);
    });
});
