/**
 * The dev stack on an IPv6-only provisioning network, its Ironic pod run by the pod runner on the
 * image stand-ins (test/standins, which model the image's IPV=6 logic: IRONIC_URL_HOST in
 * brackets, `my_ipv6`), as test/integration/pod-ironic.test.ts does for IPv4: every container as
 * declared, the dnsmasq probe on DHCPv6's port, a real DHCPv6 client (ISC dhclient -6) leased from
 * the range with bracketed boot URLs, and the API and boot files reached over IPv6. Everything runs
 * in network namespaces this test creates and deletes.
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
import { prepareImages } from "../helpers/standins";
import { canUseNetns, dhcp6Client, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const IRONIC_IP = "fd00:1:2:3::2";
const RANGE = { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::10ff" };
const PORTS = { api: 6385, http: 6180 };

/** The dev stack (Pulumi.dev.yaml) moved to an IPv6-only provisioning network: no gateway (DHCPv6 has no router option). */
function v6Dev(): RawConfig {
    const raw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
    return { ...raw, provisioning: { interface: "eth1", ip: IRONIC_IP, cidr: "fd00:1:2:3::/64", dhcp: { ...RANGE, leaseTime: "1h" } } };
}

function curl(ns: string, args: string[]): { exit: number | null; code: number; body: string; stderr: string } {
    const r = run("ip", ["netns", "exec", ns, "curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}", ...args], { allowFail: true });
    const i = r.stdout.lastIndexOf("\n");
    return { exit: r.status, code: Number(r.stdout.slice(i + 1)) || 0, body: r.stdout.slice(0, Math.max(i, 0)), stderr: r.stderr };
}

describe("ironic image stand-ins: the dev stack's Ironic pod on an IPv6-only network (pod runner, Debian's Ironic 21.4)", function () {
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
        const tools = ["ironic", "ironic-dbsync", "dnsmasq", "dhclient", "curl", "openssl", "setcap", "nsenter", "unshare", "setpriv"];
        requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
        const raw = v6Dev();
        const v = validateConfig(raw);
        assert.ok(v.ok, v.ok ? "" : JSON.stringify(v.issues));
        ({ rendered, cluster } = await renderWithRealSecrets(raw, "dev"));
        spec = rendered.objects.find((x) => x.kind === "Deployment" && x.metadata.name === "ironic")!.spec.template.spec;
        work = tmpDir("pod-ironic-v6");
        fs.chmodSync(work, 0o755);
        images = prepareImages(work);
        cache = new ImageCacheLab({ rendered, cluster, images, work });
        caFile = path.join(work, "stack-ca.crt");
        fs.writeFileSync(caFile, cluster.secrets["ironic-cacert"]["tls.crt"]);

        const sw = lab.addNamespace("s6");
        const br = lab.addBridge(sw, "b6");
        node = lab.addNamespace("nd6");
        lab.enableIpv6(node);
        lab.plug(node, "nd6", sw, br, { cidr: `${IRONIC_IP}/64`, rename: "eth1" });
        client = lab.addNamespace("cl6");
        lab.enableIpv6(client);
        clientIf = lab.plug(client, "cl6", sw, br, { cidr: "fd00:1:2:3::9/64", mac: "52:54:00:00:06:10" });

        pod = new PodRunner({ name: "ironic-5d8f7c9b4-v6v6v", namespace: "metal3", spec, cluster, images, work, netns: node, nodeName: "cp-0", hostIP: IRONIC_IP, podIP: IRONIC_IP, hosts: cache.hosts });
        await cache.serve(node);
        await pod.runInitContainers();
        pod.startContainers();
        const names: string[] = spec.containers.map((c: any) => c.name);
        const alive = () => {
            const dead = names.find((c) => !pod.isRunning(c));
            if (dead) throw new Error(`container ${dead} exited ${pod.exitCode(dead)}:\n${tail(pod.logs(dead))}`);
        };
        await until(() => pod.probe("ironic", "readinessProbe"), 150000, "the ironic container's readiness probe", 1000, alive);
        await until(() => curl(client, [`http://[${IRONIC_IP}]:${PORTS.http}/images/ironic-python-agent.kernel`, "-o", "/dev/null"]).code === 200, 150000, "httpd over IPv6", 1000, alive);
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed" && pod) {
            for (const c of [...(spec.initContainers ?? []), ...spec.containers]) console.log(`---- ${c.name} ----\n${tail(pod.logs(c.name), 3000)}`);
        }
    });

    after(async function () {
        await pod?.stop();
        await cache?.stop();
        lab.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("the init check finds the IPv6 provisioning.ip on the node; every container runs; the image's scripts took IPV=6", function () {
        assert.match(pod.logs("provisioning-ip"), new RegExp(`^provisioning\\.ip ${IRONIC_IP} is on eth1 of node cp-0$`, "m"));
        for (const c of spec.containers.map((x: any) => x.name)) assert.ok(pod.isRunning(c), `${c} is running`);
        assert.match(pod.logs("ironic"), new RegExp(`using IP ${IRONIC_IP} \\(interface eth1\\)`));
        const conf = pod.exec("ironic", ["/bin/bash", "-c", "cat /conf/ironic/ironic.conf 2>/dev/null || cat /etc/ironic/ironic.conf"]);
        assert.match(conf.stdout, new RegExp(`^my_ipv6 = ${IRONIC_IP}$`, "m"), "IPV=6: the image writes my_ipv6");
    });

    it("the declared probes pass: ironic's readiness, and dnsmasq's liveness on DHCPv6's port 547 (there is no :67 on an IPv6-only network)", function () {
        assert.equal(pod.probe("ironic", "readinessProbe"), true);
        // The liveness probe checks DHCPv6's port: with :67 (the IPv4 check) the kubelet would restart dnsmasq forever.
        assert.match(spec.containers.find((c: any) => c.name === "dnsmasq").livenessProbe.exec.command.join(" "), /:547 /);
        assert.equal(pod.probe("dnsmasq", "livenessProbe"), true);
        const ss = run("ip", ["netns", "exec", node, "ss", "-lun"], { allowFail: true }).stdout;
        assert.match(ss, /:547 /);
        assert.doesNotMatch(ss, /:67 /);
    });

    it("dnsmasq (uid 997, from its ConfigMap) leases a DHCPv6 client an address of the range and the bracketed iPXE script URL", function () {
        const pid = /pid=(\d+)/.exec(run("ip", ["netns", "exec", node, "ss", "-lunpH", "sport = :547"], { allowFail: true }).stdout)?.[1];
        assert.ok(pid, "something listens on UDP 547");
        assert.match(fs.readFileSync(`/proc/${pid}/status`, "utf8"), /^Uid:\s+997\b/m, "dnsmasq runs as the image's ironic user");
        const lease = dhcp6Client(client, clientIf, work, { userClass: "iPXE" });
        assert.ok(lease.ip6_address, `a lease:\n${tail(pod.logs("dnsmasq"), 3000)}`);
        const n = ipToBigInt(lease.ip6_address);
        assert.ok(n >= ipToBigInt(RANGE.rangeStart) && n <= ipToBigInt(RANGE.rangeEnd), `${lease.ip6_address} in the range`);
        assert.equal(lease.bootfile_url, `http://[${IRONIC_IP}]:${PORTS.http}/boot.ipxe`);
        const rom = dhcp6Client(client, clientIf, work, { clientArch: 7 });
        assert.equal(rom.bootfile_url, `tftp://[${IRONIC_IP}]/snponly-x86_64.efi`);
    });

    it("the API answers over TLS at https://[fd00:1:2:3::2]:6385, its certificate verified for the IPv6 address by the stack CA", function () {
        const r = curl(client, ["--cacert", caFile, `https://[${IRONIC_IP}]:${PORTS.api}/v1`]);
        assert.equal(r.exit, 0, r.stderr);
        assert.equal(r.code, 200, r.body);
        const boot = curl(client, [`http://[${IRONIC_IP}]:${PORTS.http}/boot.ipxe`]);
        assert.equal(boot.code, 200, "the boot script the DHCPv6 URL names is served");
    });
});
