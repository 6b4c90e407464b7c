/**
 * The dev stack on an IPv6-only and on a dual-stack provisioning network, its Ironic pod run by the
 * pod runner on the image stand-ins (test/standins, which model the image's IPV=4/6 logic:
 * IRONIC_URL_HOST in brackets, `my_ipv6`), as test/integration/pod-ironic.test.ts does for IPv4:
 * every container as declared, the dnsmasq probe on the DHCP ports of each family served, real
 * DHCP clients (ISC dhclient -6; busybox udhcpc for DHCPv4) leased from each range with the boot
 * URLs of their family, and the API and boot files reached over each family. Dual-stack: Ironic's
 * API, http_url and JSON-RPC on IPv4 (IPV=4), its IPv6 address as [DEFAULT]my_ipv6, read back with
 * Debian's Ironic loader in the container. Everything runs in network namespaces the test creates
 * and deletes.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig, validateConfig } from "../../core/config";
import { ipToBigInt } from "../../core/ip";
import { Rendered, readStackConfig } from "../../tools/render";
import { ImageCacheLab } from "../helpers/image-cache";
import { until } from "../helpers/ironic-lab";
import { ClusterData, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { IMAGE_VENV_NEEDED, imageVenvReady, prepareImages } from "../helpers/standins";
import { canUseNetns, dhcp6Client, dhcpClient, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const PORTS = { api: 6385, http: 6180 };
type Side = { ip: string; rangeStart: string; rangeEnd: string };
const V6: Side = { ip: "fd00:1:2:3::2", rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::10ff" };
const V4: Side = { ip: "172.22.0.2", rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100" };

interface Variant {
    title: string;
    /** Netns and interface name base (2 characters). */
    tag: string;
    /** The dev stack's provisioning section on this network. */
    provisioning: Record<string, unknown>;
    /** Dual-stack: the IPv4 side (Ironic's API family); absent: IPv6 only. */
    v4?: Side;
    mac: string;
}

const VARIANTS: Variant[] = [
    {
        title: "an IPv6-only network",
        tag: "v6",
        // No gateway: DHCPv6 has no router option.
        provisioning: { interface: "eth1", ip: V6.ip, cidr: "fd00:1:2:3::/64", dhcp: { rangeStart: V6.rangeStart, rangeEnd: V6.rangeEnd, leaseTime: "1h" } },
        mac: "52:54:00:00:06:10",
    },
    {
        title: "a dual-stack network (provisioning.ipv6)",
        tag: "ds",
        provisioning: {
            interface: "eth1",
            ip: V4.ip,
            cidr: "172.22.0.0/24",
            dhcp: { rangeStart: V4.rangeStart, rangeEnd: V4.rangeEnd, gateway: "172.22.0.1", leaseTime: "1h" },
            ipv6: { cidr: "fd00:1:2:3::/64", ip: V6.ip, dhcp: { rangeStart: V6.rangeStart, rangeEnd: V6.rangeEnd } },
        },
        v4: V4,
        mac: "52:54:00:00:46:10",
    },
];

function curl(ns: string, args: string[]): { exit: number | null; code: number; body: string; stderr: string } {
    const r = run("ip", ["netns", "exec", ns, "curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}", ...args], { allowFail: true });
    const i = r.stdout.lastIndexOf("\n");
    return { exit: r.status, code: Number(r.stdout.slice(i + 1)) || 0, body: r.stdout.slice(0, Math.max(i, 0)), stderr: r.stderr };
}

const within = (ip: string, s: Side) => ipToBigInt(ip) >= ipToBigInt(s.rangeStart) && ipToBigInt(ip) <= ipToBigInt(s.rangeEnd);

for (const variant of VARIANTS) describePod(variant);

function describePod(variant: Variant): void {
    const primary = variant.v4 ?? V6;
    const url = (ip: string) => (ip.includes(":") ? `[${ip}]` : ip);
    describe(`ironic image stand-ins: the dev stack's Ironic pod on ${variant.title} (pod runner, Ironic 38 from PyPI)`, function () {
        this.timeout(300000);
        const lab = new NetnsLab();
        let work = "";
        let rendered: Rendered;
        let cluster: ClusterData;
        let images: Record<string, StandinImage>;
        let cache: ImageCacheLab | undefined;
        let node = "";
        let client = "";
        let clientIf = "";
        let pod: PodRunner;
        let spec: any;
        let caFile = "";

        before(async function () {
            requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
            const tools = ["dnsmasq", "dhclient", "curl", "openssl", "setcap", "nsenter", "unshare", "setpriv", ...(variant.v4 ? ["busybox"] : [])];
            requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
            requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
            const raw: RawConfig = { ...readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml")), provisioning: variant.provisioning };
            const v = validateConfig(raw);
            assert.ok(v.ok, v.ok ? "" : JSON.stringify(v.issues));
            ({ rendered, cluster } = await renderWithRealSecrets(raw, "dev"));
            spec = rendered.objects.find((x) => x.kind === "Deployment" && x.metadata.name === "ironic")!.spec.template.spec;
            work = tmpDir(`pod-ironic-${variant.tag}`);
            fs.chmodSync(work, 0o755);
            images = prepareImages(work);
            cache = new ImageCacheLab({ rendered, cluster, images, work });
            caFile = path.join(work, "stack-ca.crt");
            fs.writeFileSync(caFile, cluster.secrets["ironic-cacert"]["tls.crt"]);

            const sw = lab.addNamespace(`s${variant.tag}`);
            const br = lab.addBridge(sw, `b${variant.tag}`);
            node = lab.addNamespace(`nd${variant.tag}`);
            lab.enableIpv6(node);
            const nodeIf = lab.plug(node, `nd${variant.tag}`, sw, br, { cidr: `${V6.ip}/64`, rename: "eth1" });
            if (variant.v4) lab.addAddress(node, nodeIf, `${variant.v4.ip}/24`);
            client = lab.addNamespace(`cl${variant.tag}`);
            lab.enableIpv6(client);
            clientIf = lab.plug(client, `cl${variant.tag}`, sw, br, { cidr: "fd00:1:2:3::9/64", mac: variant.mac });
            if (variant.v4) lab.addAddress(client, clientIf, "172.22.0.9/24");

            pod = new PodRunner({ name: `ironic-5d8f7c9b4-${variant.tag}${variant.tag}x`, namespace: "metal3", spec, cluster, images, work, netns: node, nodeName: "cp-0", hostIP: primary.ip, podIP: primary.ip, hosts: cache.hosts });
            await cache.serve(node);
            await pod.runInitContainers();
            pod.startContainers();
            const names: string[] = spec.containers.map((c: any) => c.name);
            const alive = () => {
                const dead = names.find((c) => !pod.isRunning(c));
                if (dead) throw new Error(`container ${dead} exited ${pod.exitCode(dead)}:\n${tail(pod.logs(dead))}`);
            };
            await until(() => pod.probe("ironic", "readinessProbe"), 150000, "the ironic container's readiness probe", 1000, alive);
            await until(() => curl(client, [`http://[${V6.ip}]:${PORTS.http}/images/ironic-python-agent.kernel`, "-o", "/dev/null"]).code === 200, 150000, "httpd over IPv6", 1000, alive);
        });

        afterEach(function () {
            if (this.currentTest?.state === "failed") pod?.printLogs(3000);
        });

        after(async function () {
            await pod?.stop();
            await cache?.stop();
            lab.destroy();
            if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
        });

        it(`the init check finds provisioning.ip ${primary.ip} on the node; every container runs; the image's scripts took IPV=${variant.v4 ? 4 : 6}; Ironic's loader reads my_ipv6 ${V6.ip}`, function () {
            assert.match(pod.logs("provisioning-ip"), new RegExp(`^provisioning\\.ip ${primary.ip} is on eth1 of node cp-0$`, "m"));
            for (const c of spec.containers.map((x: any) => x.name)) assert.ok(pod.isRunning(c), `${c} is running`);
            assert.match(pod.logs("ironic"), new RegExp(`using IP ${primary.ip} \\(interface eth1\\)`));
            const conf = pod.exec("ironic", ["/bin/bash", "-c", "cat /conf/ironic/ironic.conf 2>/dev/null || cat /etc/ironic/ironic.conf"]);
            if (!variant.v4) assert.match(conf.stdout, new RegExp(`^my_ipv6 = ${V6.ip}$`, "m"), "IPV=6: the image writes my_ipv6");
            else assert.match(conf.stdout, new RegExp(`^my_ip = ${variant.v4.ip}$`, "m"), "IPV=4: the image writes my_ip");
            // What Ironic itself reads: the file and the container's declared OS_* environment.
            const script = "from ironic.conf import CONF\nCONF(['--config-file', '/conf/ironic/ironic.conf'], project='ironic')\nprint(CONF.my_ip, CONF.my_ipv6)";
            const loaded = pod.exec("ironic", ["python3.12", "-c", script]);
            assert.equal(loaded.status, 0, loaded.stderr);
            assert.equal(loaded.stdout.trim().split("\n").pop()!.split(" ")[1], V6.ip);
            if (variant.v4) assert.equal(loaded.stdout.trim().split("\n").pop()!.split(" ")[0], variant.v4.ip);
        });

        it(`the declared probes pass: ironic's readiness, and dnsmasq's liveness on ${variant.v4 ? "DHCPv4's port 67 and DHCPv6's port 547" : "DHCPv6's port 547 (there is no :67 on an IPv6-only network)"}`, function () {
            assert.equal(pod.probe("ironic", "readinessProbe"), true);
            const probe = spec.containers.find((c: any) => c.name === "dnsmasq").livenessProbe.exec.command.join(" ");
            // The liveness probe checks the ports dnsmasq really serves: a port it never opens would restart it forever.
            assert.match(probe, /:547 /);
            if (variant.v4) assert.match(probe, /:67 /);
            else assert.doesNotMatch(probe, /:67 /);
            assert.equal(pod.probe("dnsmasq", "livenessProbe"), true);
            const ss = run("ip", ["netns", "exec", node, "ss", "-lun"], { allowFail: true }).stdout;
            assert.match(ss, /:547 /);
            if (variant.v4) assert.match(ss, /:67 /);
            else assert.doesNotMatch(ss, /:67 /);
        });

        it("dnsmasq (uid 997, from its ConfigMap) leases a DHCPv6 client an address of the IPv6 range and the bracketed iPXE script URL", function () {
            const pid = /pid=(\d+)/.exec(run("ip", ["netns", "exec", node, "ss", "-lunpH", "sport = :547"], { allowFail: true }).stdout)?.[1];
            assert.ok(pid, "something listens on UDP 547");
            assert.match(fs.readFileSync(`/proc/${pid}/status`, "utf8"), /^Uid:\s+997\b/m, "dnsmasq runs as the image's ironic user");
            const lease = dhcp6Client(client, clientIf, work, { userClass: "iPXE" });
            assert.ok(lease.ip6_address, `a lease:\n${tail(pod.logs("dnsmasq"), 3000)}`);
            assert.ok(within(lease.ip6_address, V6), `${lease.ip6_address} in the range`);
            assert.equal(lease.bootfile_url, `http://[${V6.ip}]:${PORTS.http}/boot.ipxe`);
            const rom = dhcp6Client(client, clientIf, work, { clientArch: 7 });
            assert.equal(rom.bootfile_url, `tftp://[${V6.ip}]/snponly-x86_64.efi`);
        });

        if (variant.v4) {
            const v4 = variant.v4;
            it("dual-stack: the same dnsmasq leases the same client an address of the IPv4 range, next-server and iPXE script on the IPv4 address", function () {
                const lease = dhcpClient(client, clientIf, work);
                assert.equal(lease.serverid, v4.ip, `answered:\n${tail(pod.logs("dnsmasq"), 3000)}`);
                assert.ok(lease.ip && within(lease.ip, v4), `${lease.ip} in the IPv4 range`);
                assert.equal(lease.siaddr, v4.ip);
                assert.equal(dhcpClient(client, clientIf, work, ["0xaf:01"]).bootfile, `http://${v4.ip}:${PORTS.http}/boot.ipxe`);
            });
        }

        for (const ip of [...(variant.v4 ? [variant.v4.ip] : []), V6.ip]) {
            it(`the API answers over TLS at https://${url(ip)}:${PORTS.api}, its certificate verified for that address by the stack CA; the boot script is served there`, function () {
                const r = curl(client, ["--cacert", caFile, `https://${url(ip)}:${PORTS.api}/v1`]);
                assert.equal(r.exit, 0, r.stderr);
                assert.equal(r.code, 200, r.body);
                const boot = curl(client, [`http://${url(ip)}:${PORTS.http}/boot.ipxe`]);
                assert.equal(boot.code, 200, "the boot script the DHCP URL names is served");
            });
        }
    });
}
