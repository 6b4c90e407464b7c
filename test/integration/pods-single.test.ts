/**
 * The rendered pods of the `single` topology, started the way they are declared
 * (test/helpers/pod-runner.ts): the dev stack (dnsmasq, a relayed rack, the init containers, the
 * provisioning-ip check) and the virtual-media-only stack with keepalived. Each container runs with
 * only its own mounts, env, uid, capabilities and read-only root; the project's scripts from the
 * rendered ConfigMaps run for real; real dnsmasq answers real DHCP clients in network namespaces
 * this test creates and deletes. The `multi` pods (one per conductor node, with the cluster's
 * kube-apiserver) are in pods.test.ts.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { PATHS } from "../../core/contract";
import { ipToNumber } from "../../core/ip";
import { ImageCacheLab } from "../helpers/image-cache";
import { until } from "../helpers/ironic-lab";
import { makeCa } from "../helpers/openssl-ca";
import { PodRunner, publishVirtualMedia, StandinImage } from "../helpers/pod-runner";
import { dhcpListener, inRange, onePodHooks, podRunnerPrerequisites, renderStack, ROOT, Stack } from "../helpers/pod-stacks";
import { debianKeepalivedImage, IMAGE_VENV_NEEDED, imageVenvReady, prepareImages } from "../helpers/standins";
import { assertRefused, dhcpClient, DhcpRelay, NetnsLab, onEveryAddress, requireOrSkip, run, tcpListeners, tmpDir, which } from "../helpers/sys";

describe("pods as declared: dev stack (pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let s: Stack;
    let images: Record<string, StandinImage>;
    let pod: PodRunner;
    let nodeNs = "";
    let clientNs = "";
    let clientIf = "";
    const extra: PodRunner[] = [];
    let cache: ImageCacheLab;
    let sw = "";
    let br = "";
    let relay: DhcpRelay | undefined;
    const DEV_RACK = { subnet: "172.23.0.0/24", rangeStart: "172.23.0.10", rangeEnd: "172.23.0.60", gateway: "172.23.0.1" };

    before(async function () {
        podRunnerPrerequisites(this);
        work = tmpDir("pods-dev");
        // The dev stack with a second rack behind a DHCP relay (provisioning.dhcp.extraRanges).
        s = await renderStack(path.join(ROOT, "Pulumi.dev.yaml"), "dev", (raw) => {
            const prov = raw.provisioning as Record<string, any>;
            return { ...raw, provisioning: { ...prov, dhcp: { ...prov.dhcp, extraRanges: [DEV_RACK] } } };
        });
        images = prepareImages(work);
        sw = net.addNamespace("sw");
        br = net.addBridge(sw, "br");
        nodeNs = net.addNamespace("n0");
        const prefix = s.plan.provisioning.cidr.split("/")[1];
        net.plug(nodeNs, "n0", sw, br, { cidr: `${s.plan.provisioning.ip}/${prefix}`, rename: s.plan.provisioning.interface });
        clientNs = net.addNamespace("bm");
        clientIf = net.plug(clientNs, "bm", sw, br, { mac: "52:54:00:00:02:01" });
        const dep = s.rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === s.plan.names.deployment)!;
        cache = new ImageCacheLab({ rendered: s.rendered, cluster: s.cluster, images, work });
        pod = new PodRunner({ name: "ironic-0", namespace: s.plan.namespace, spec: dep.spec.template.spec, cluster: s.cluster, images, work, netns: nodeNs, nodeName: "cp-0", hostIP: s.plan.provisioning.ip, podIP: s.plan.provisioning.ip, hosts: cache.hosts });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") pod?.printLogs();
    });

    after(async function () {
        for (const p of [pod, ...extra]) await p?.stop();
        await cache?.stop();
        await relay?.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("init containers complete: no IPA download; the cache client leaves the cache's images where the ironic container and httpd look for them", async function () {
        assert.ok(!pod.spec.initContainers.some((c: any) => c.image.includes("ipa-downloader")), "no downloader in the Ironic pod");
        await cache.serve(nodeNs);
        await pod.runInitContainers();
        assert.match(pod.logs("provisioning-ip"), /^provisioning\.ip 172\.22\.0\.2 is on eth1 of node cp-0$/m, "the node holds provisioning.ip");
        const images = path.join(pod.volumePath("shared"), "html", "images");
        for (const f of ["ironic-python-agent.kernel", "ironic-python-agent.initramfs", "ironic-python-agent_x86_64.kernel"]) assert.ok(fs.existsSync(path.join(images, f)), `${f} in /shared/html/images`);
        assert.equal(fs.readFileSync(path.join(images, "ironic-python-agent.kernel"), "utf8"), ImageCacheLab.kernel("x86_64"));
    });

    it("on a node that does not hold provisioning.ip (no keepalived), the pod stops at its first init container, saying how to pin it or use keepalived", async function () {
        const dep = s.rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === s.plan.names.deployment)!;
        assert.equal(dep.spec.template.spec.initContainers[0].name, "provisioning-ip", "the check runs before anything else");
        // Another node on the provisioning network, with an address of its own but not provisioning.ip.
        const otherNs = net.addNamespace("n1");
        net.plug(otherNs, "n1", sw, br, { cidr: "172.22.0.240/24", rename: s.plan.provisioning.interface });
        const other = new PodRunner({ name: "ironic-elsewhere", namespace: s.plan.namespace, spec: dep.spec.template.spec, cluster: s.cluster, images, work, netns: otherNs, nodeName: "cp-1", hostIP: "172.22.0.240", podIP: "172.22.0.240" });
        extra.push(other);
        const t0 = Date.now();
        await assert.rejects(other.runInitContainers(120000), (e: Error) => {
            assert.match(e.message, /init container provisioning-ip of pod ironic-elsewhere exited 1/);
            assert.match(e.message, /FATAL: provisioning\.ip 172\.22\.0\.2 is not an address of eth1 on node cp-1 \(waited 60 s\)/);
            assert.match(e.message, /pin the pod there with placement\.nodeSelector \(e\.g\. kubernetes\.io\/hostname: <that node>\), or set provisioning\.keepalived: true/);
            return true;
        });
        assert.ok(Date.now() - t0 >= 59000, "it waited for a late address first");
    });

    it("dnsmasq starts from its ConfigMap as uid 997 (file capabilities only) and answers a PXE client from the range", async function () {
        pod.startContainers(["dnsmasq"]);
        await pod.waitReady("dnsmasq");
        const l = dhcpListener(nodeNs);
        assert.ok(l, "something listens on UDP 67");
        assert.equal(l!.uid, 997, "dnsmasq runs as the image's ironic user");
        const lease = dhcpClient(clientNs, clientIf, work);
        assert.equal(s.plan.topology.kind, "single");
        const single = s.plan.topology.kind === "single" ? s.plan.topology.conductor : undefined;
        const c = { ip: single!.ip, range: single!.dhcp?.range };
        assert.ok(inRange(lease.ip, c), `lease ${lease.ip} in ${c.range!.start}-${c.range!.end}\n${pod.logs("dnsmasq")}`);
        assert.equal(lease.siaddr, c.ip);
        // The start script copied the image's iPXE binaries into the TFTP root it serves, its only part of /shared.
        assert.deepEqual(fs.readdirSync(path.join(pod.volumePath("shared"), "tftpboot")).sort(), ["snponly-arm64.efi", "snponly-x86_64.efi", "undionly.kpxe"]);
        assert.equal(pod.exec("dnsmasq", ["ls", "-A", "/shared"]).stdout, "tftpboot\n");
    });

    it("a host behind a DHCP relay gets an address of its rack's range (provisioning.dhcp.extraRanges), the rack's router, and this conductor as its boot server", async function () {
        // Needs the dnsmasq container of the test before (started from its ConfigMap as declared).
        const ip = s.plan.provisioning.ip;
        relay = new DhcpRelay(net, { switchNs: sw, provBridge: br, provCidr: "172.22.0.254/24", rackCidr: "172.23.0.1/24", servers: [ip], work });
        // The node's route to the rack (its default route, on a real site).
        DhcpRelay.routeVia(nodeNs, DEV_RACK.subnet, "172.22.0.254");
        const rackNs = net.addNamespace("rh");
        const rackIf = net.plug(rackNs, "rh", sw, relay.rackBridge, { mac: "52:54:00:00:02:02" });
        let lease: Record<string, string> = {};
        await until(() => !!(lease = dhcpClient(rackNs, rackIf, work)).ip, 30000, "a lease through the relay");
        assert.ok(ipToNumber(lease.ip) >= ipToNumber(DEV_RACK.rangeStart) && ipToNumber(lease.ip) <= ipToNumber(DEV_RACK.rangeEnd), `lease ${lease.ip} in the rack's range\n${pod.logs("dnsmasq")}`);
        assert.equal(lease.router, DEV_RACK.gateway, "the rack's router, not the provisioning network's");
        assert.equal(lease.subnet, "255.255.255.0");
        assert.equal(lease.serverid, ip);
        assert.equal(lease.siaddr, ip, "TFTP from this conductor");
        assert.equal(lease.dns, undefined, "no DNS server option for the rack (none configured)");
        assert.match(pod.logs("dnsmasq"), /tags: relayed-0/, "dnsmasq tagged the request with the rack's range");
    });

    it("ramdisk-logs starts with its declared mounts (of /shared, the deploy-log directory only, which shared-dirs made for the ironic user); its liveness probe wants it writable", async function () {
        pod.startContainers(["ramdisk-logs"]);
        await pod.waitReady("ramdisk-logs");
        const r = pod.exec("ramdisk-logs", ["/bin/bash", "-c", `ls -A /shared; ls -A /shared/log; stat -c %u ${PATHS.deployLogs}`]);
        assert.equal(r.stdout, "log\nironic\n997\n", r.stderr);
        assert.equal(pod.probe("ramdisk-logs", "livenessProbe"), true);
    });

    it("the ironic and httpd containers both see the virtual-media certificate, readable by uid 997, where the image looks for it", function () {
        for (const name of ["ironic", "httpd"]) {
            const r = pod.exec(name, ["/bin/bash", "-c", "id -u; test -r /certs/vmedia/tls.crt && test -r /certs/vmedia/tls.key && openssl x509 -noout -ext subjectAltName -in /certs/vmedia/tls.crt"]);
            assert.equal(r.status, 0, `${name}: /certs/vmedia/tls.{crt,key} readable: ${r.stderr}`);
            assert.match(r.stdout, /^997\n/);
            assert.match(r.stdout, new RegExp(`IP Address:${s.plan.provisioning.ip.replace(/\./g, "\\.")}`), "the certificate covers the provisioning IP BMCs dial");
        }
    });

    it("a container whose declared mount is removed fails (the runner gives nothing that is not declared)", async function () {
        const spec = JSON.parse(JSON.stringify(pod.spec));
        const dnsmasq = spec.containers.find((c: any) => c.name === "dnsmasq");
        dnsmasq.volumeMounts = dnsmasq.volumeMounts.filter((m: any) => m.name !== "dnsmasq-config");
        // Its own node, so that nothing else listens where its probe looks.
        const ns = net.addNamespace("n9");
        const broken = new PodRunner({ ...pod.o, name: "ironic-broken", spec, netns: ns });
        extra.push(broken);
        broken.startContainers(["dnsmasq"]);
        await assert.rejects(broken.waitReady("dnsmasq", 20000), /exited 127|exited 1/);
        assert.match(broken.logs("dnsmasq"), /No such file|not found/);
    });
});

describe("pods as declared: virtual-media-only stack with keepalived (pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let s: Stack;
    let cache: ImageCacheLab;
    let pod: PodRunner;
    let nodeNs = "";
    let bmcNs = "";
    const VRRP_PASSWORD = "Vr7p.x9Q";

    before(async function () {
        podRunnerPrerequisites(this);
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        requireOrSkip(this, !!which("keepalived") && !!which("tcpdump"), "Debian's keepalived and tcpdump (apt-get install keepalived tcpdump)");
        work = tmpDir("pods-vmedia");
        s = await renderStack(path.join(ROOT, "test", "fixtures", "Pulumi.vmedia.yaml"), "vmedia");
        // The user's CA objects the fixture names (trust.bmcCa, trust.trustedCa), created before the deploy as the docs say.
        const pem = (name: string) => fs.readFileSync(path.join(makeCa(path.join(work, name)), "ca.crt"), "utf8");
        s.cluster.configMaps["bmc-ca"] = { "ca.crt": pem("bmc-ca") };
        s.cluster.secrets["corp-pki"] = { "bundle.pem": pem("corp-pki") };
        // keepalived.passwordSecret: the user's Secret with the VRRP password.
        s.cluster.secrets["ironic-vrrp"] = { password: VRRP_PASSWORD };
        // keepalived is Debian's real keepalived behind the image's script (stand-in), as the pod declares it.
        const images = { ...prepareImages(work), [s.plan.images.keepalived]: debianKeepalivedImage(work) };
        const sw = net.addNamespace("sw");
        const br = net.addBridge(sw, "br");
        nodeNs = net.addNamespace("v0");
        // The node's own address; the provisioning IP is the VIP keepalived must bring up.
        net.plug(nodeNs, "v0", sw, br, { cidr: "172.22.0.2/24", rename: s.plan.provisioning.interface });
        // The out-of-band network (eth2, 10.20.0.0/24) and a BMC on it: keepalived.extraVips puts
        // 10.20.0.5 there, which external.ip hands to BMCs.
        const oob = net.addBridge(sw, "oob");
        net.plug(nodeNs, "o0", sw, oob, { cidr: "10.20.0.2/24", rename: "eth2" });
        bmcNs = net.addNamespace("bmc");
        net.plug(bmcNs, "bm", sw, oob, { cidr: "10.20.0.100/24" });
        const dep = s.rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === s.plan.names.deployment)!;
        cache = new ImageCacheLab({ rendered: s.rendered, cluster: s.cluster, images, work });
        pod = new PodRunner({ name: "ironic-0", namespace: s.plan.namespace, spec: dep.spec.template.spec, cluster: s.cluster, images, work, netns: nodeNs, nodeName: "cp-0", hostIP: "172.22.0.2", podIP: "172.22.0.2", hosts: cache.hosts });
    });

    onePodHooks(() => ({ pod, cache, net, work }));

    it("has no dnsmasq: nothing answers DHCP on a virtual-media-only network", function () {
        assert.deepEqual(pod.spec.containers.map((c: any) => c.name).sort(), ["ca-bundles-watch", "httpd", "ironic", "keepalived", "ramdisk-logs"]);
    });

    it("every container starts and becomes ready; keepalived holds the provisioning IP as a VIP", async function () {
        await cache.serve(nodeNs);
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 180000);
        const addrs = run("ip", ["-n", nodeNs, "-o", "-4", "addr", "show", "dev", s.plan.provisioning.interface!]).stdout;
        assert.match(addrs, new RegExp(`inet ${s.plan.provisioning.ip.replace(/\./g, "\\.")}/24`), "the VIP with the network's prefix");
        // The API answers on the VIP over TLS, verified with the stack CA, through httpd.
        const ca = path.join(work, "ca.crt");
        fs.writeFileSync(ca, s.cluster.secrets[s.plan.names.caSecret]["tls.crt"]);
        const code = run("ip", ["netns", "exec", nodeNs, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", ca, `https://${s.plan.provisioning.ip}:${s.plan.ports.api}/v1`], { allowFail: true }).stdout;
        assert.equal(code, "200", "GET /v1 on the VIP (public, no credentials needed)");
    });

    it("keepalived (Debian's, started as declared): provisioning.ip and every extra VIP with its prefix, VRRP router id 51 with the password from the Secret; the written file passes keepalived --config-test", function () {
        const show = (dev: string) => run("ip", ["-n", nodeNs, "-o", "-4", "addr", "show", "dev", dev]).stdout;
        assert.match(show("eth1"), /inet 172\.22\.0\.5\/24 /);
        assert.match(show("eth2"), /inet 10\.20\.0\.5\/24 /, "keepalived.extraVips[0] on eth2 with its prefix");
        // The file keepalived runs on, as the running container wrote it.
        const file = `${pod.rootOf("keepalived")}/conf/keepalived/keepalived.conf`;
        const conf = fs.readFileSync(file, "utf8");
        assert.match(conf, /virtual_router_id 51\n/);
        assert.match(conf, new RegExp(`auth_type PASS\\n\\s*auth_pass ${VRRP_PASSWORD.replace(".", "\\.")}\\n`));
        assert.match(conf, /virtual_ipaddress \{\n\s*172\.22\.0\.5\/24 dev eth1\n\s*10\.20\.0\.5\/24 dev eth2\n/);
        const test = run("ip", ["netns", "exec", nodeNs, "keepalived", "--config-test", `--use-file=${file}`], { allowFail: true });
        assert.equal(test.status, 0, `keepalived --config-test: ${test.stdout}${test.stderr}`);
        assert.doesNotMatch(pod.logs("keepalived"), /Unknown keyword|WARNING|error/i, "keepalived read every line of it");
        assert.ok(!pod.logs("keepalived").includes(VRRP_PASSWORD), "the password is never logged");
        // On the wire: VRRP advertisements for router id 51 with simple-password authentication.
        const cap = run("ip", ["netns", "exec", nodeNs, "timeout", "5", "tcpdump", "-n", "-v", "-c", "2", "-i", "eth1", "vrrp"], { allowFail: true });
        assert.match(cap.stdout + cap.stderr, /vrid 51/);
        assert.match(cap.stdout + cap.stderr, /authtype simple/);
    });

    it("external: Ironic's own code hands BMCs the virtual-media URL on 10.20.0.5, and a BMC on the out-of-band network fetches it over TLS, verified with the stack CA (the certificate carries the address)", function () {
        const url = publishVirtualMedia(pod, "iso for a BMC on eth2\n");
        assert.match(url, /^https:\/\/10\.20\.0\.5:6183\/redfish\/boot-[0-9a-f-]+\.iso$/);
        const ca = path.join(work, "ca-oob.crt");
        fs.writeFileSync(ca, s.cluster.secrets[s.plan.names.caSecret]["tls.crt"]);
        const got = run("ip", ["netns", "exec", bmcNs, "curl", "-sS", "--fail", "--cacert", ca, url], { allowFail: true });
        assert.equal(got.status, 0, got.stderr);
        assert.equal(got.stdout, "iso for a BMC on eth2\n");
        const crt = path.join(work, "api.crt");
        fs.writeFileSync(crt, s.cluster.secrets[s.plan.names.tlsSecret]["tls.crt"]);
        assert.match(run("openssl", ["x509", "-noout", "-checkip", "10.20.0.5", "-in", crt]).stdout, /does match/);
        // IPA's callback: the ironic.conf the container wrote, as Ironic reads it.
        const cb = pod.exec("ironic", ["python3.12", "-c", "from ironic.conf import CONF; CONF(['--config-file', '/conf/ironic/ironic.conf'], project='ironic'); print(CONF.deploy.external_callback_url, CONF.deploy.external_http_url)"]);
        assert.equal(cb.status, 0, cb.stderr);
        assert.equal(cb.stdout.trim().split("\n").pop(), "https://10.20.0.5:6385 https://10.20.0.5:6183");
    });

    it("trust.bmcCa/trustedCa: the ironic container reads both bundles (the image's default bundle, then the user's CA; the cache's CA too in the trusted one)", function () {
        const r = pod.exec("ironic", ["/bin/bash", "-c", 'for f in "$OS_REDFISH__VERIFY_CA" "$OS_DEFAULT__WEBSERVER_VERIFY_CA"; do grep -c -e "-----BEGIN CERTIFICATE-----" "$f"; done']);
        assert.equal(r.status, 0, r.stderr);
        const [bmc, trusted] = r.stdout.trim().split("\n").map(Number);
        // The image's default bundle: what its Python's requests uses (PyPI's certifi in the image,
        // as in the image's Python environment here), read in the container.
        const where = pod.exec("ironic", ["python3.12", "-c", "import requests.certs; print(requests.certs.where())"]);
        assert.equal(where.status, 0, where.stderr);
        const system = (pod.exec("ironic", ["/bin/cat", where.stdout.trim()]).stdout.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length;
        assert.ok(system > 50, `the default bundle ${where.stdout.trim()} holds ${system} certificates`);
        assert.equal(bmc, system + 1);
        assert.equal(trusted, system + 2);
        assert.ok(pod.isRunning("ca-bundles-watch"));
    });
});

describe("pods as declared: dev stack bound to provisioning.ip, on a node with two NICs (provisioning.bindInterface; pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let s: Stack;
    let cache: ImageCacheLab;
    let pod: PodRunner;
    let nodeNs = "";
    let provNs = "";
    let clusterNs = "";
    let ca = "";
    /** The node's cluster address (eth0): the pod's hostIP and podIP, where the kubelet and kube-proxy reach it unless told otherwise. */
    const NODE_IP = "10.0.0.2";
    const dial = (ns: string, url: string, extra: string[] = []) =>
        run("ip", ["netns", "exec", ns, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", ...extra, url], { allowFail: true, timeout: 20000 });

    before(async function () {
        podRunnerPrerequisites(this);
        work = tmpDir("pods-bind");
        // The dev stack, bound; the readiness check off (port-forward cannot reach a bound API: a config error otherwise).
        s = await renderStack(path.join(ROOT, "Pulumi.dev.yaml"), "dev", (raw) => ({ ...raw, provisioning: { ...(raw.provisioning as object), bindInterface: true }, readiness: { enabled: false } }));
        const images = prepareImages(work);
        const sw = net.addNamespace("sw");
        const prov = net.addBridge(sw, "br");
        const cl = net.addBridge(sw, "cl");
        // The node: eth0 on the cluster network (its Kubernetes address), eth1 on the provisioning network.
        nodeNs = net.addNamespace("b0");
        net.plug(nodeNs, "b0", sw, prov, { cidr: `${s.plan.provisioning.ip}/24`, rename: s.plan.provisioning.interface });
        net.plug(nodeNs, "c0", sw, cl, { cidr: `${NODE_IP}/24`, rename: "eth0" });
        // A host (or a node whose route reaches it, as kube-proxy's) on the provisioning network, and another node's view of the cluster network.
        provNs = net.addNamespace("bp");
        net.plug(provNs, "bp", sw, prov, { cidr: "172.22.0.150/24" });
        clusterNs = net.addNamespace("cn");
        net.plug(clusterNs, "cn", sw, cl, { cidr: "10.0.0.9/24" });
        const dep = s.rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === s.plan.names.deployment)!;
        cache = new ImageCacheLab({ rendered: s.rendered, cluster: s.cluster, images, work });
        pod = new PodRunner({ name: "ironic-0", namespace: s.plan.namespace, spec: dep.spec.template.spec, cluster: s.cluster, images, work, netns: nodeNs, nodeName: "cp-0", hostIP: NODE_IP, podIP: NODE_IP, hosts: cache.hosts });
        ca = path.join(work, "ca.crt");
        fs.writeFileSync(ca, s.cluster.secrets[s.plan.names.caSecret]["tls.crt"]);
    });

    onePodHooks(() => ({ pod, cache, net, work }));

    it("every container becomes ready: the kubelet probes httpd at provisioning.ip, as declared (the node's own address has no httpd)", async function () {
        const httpd = pod.spec.containers.find((c: any) => c.name === "httpd");
        assert.equal(httpd.readinessProbe.httpGet.host, s.plan.provisioning.ip);
        assert.equal(httpd.livenessProbe.tcpSocket.host, s.plan.provisioning.ip);
        await cache.serve(nodeNs);
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 180000);
        assert.equal(pod.runProbe("httpd", { ...httpd.livenessProbe, tcpSocket: { port: s.plan.ports.http } }), false, "the same probe at the pod IP (the node's eth0) fails");
    });

    it("httpd listens on provisioning.ip alone for the API and the boot files, on every address for virtual media; the node's other NIC and loopback refuse them", function () {
        const { api, http, vmediaTls } = s.plan.ports;
        assert.deepEqual(tcpListeners(nodeNs, api), [`${s.plan.provisioning.ip}:${api}`]);
        assert.deepEqual(tcpListeners(nodeNs, http), [`${s.plan.provisioning.ip}:${http}`]);
        const vmedia = tcpListeners(nodeNs, vmediaTls);
        assert.ok(vmedia.length > 0 && vmedia.every(onEveryAddress), `virtual media on every address: ${vmedia}`);
        for (const [what, port] of [["API", api], ["boot files", http]] as const) {
            assertRefused(clusterNs, NODE_IP, port, `the ${what} on the node's eth0`);
            assertRefused(nodeNs, "127.0.0.1", port, `the ${what} on loopback`);
        }
        // Virtual media answers on the node's other address too (TLS; no file asked for is found).
        const vm = dial(clusterNs, `https://${NODE_IP}:${vmediaTls}/redfish/none.iso`, ["-k"]);
        assert.notEqual(vm.status, 7, `virtual media on ${NODE_IP}: ${vm.stderr}`);
        // A host on the provisioning network gets its iPXE script.
        assert.equal(dial(provNs, `http://${s.plan.provisioning.ip}:${http}/boot.ipxe`).stdout, "200");
    });

    it("the API Service as kube-proxy forwards it: its name resolved to the EndpointSlice's address answers over TLS verified with the stack CA for that name, with the API credentials (what baremetal-operator dials)", function () {
        const slice = s.rendered.objects.find((o) => o.kind === "EndpointSlice" && o.metadata.labels?.["kubernetes.io/service-name"] === s.plan.names.service)!;
        const service = s.rendered.objects.find((o) => o.kind === "Service" && o.metadata.name === s.plan.names.service)!;
        assert.equal(service.spec.selector, undefined, "the Service selects no pod");
        const [address] = slice.endpoints[0].addresses;
        const port = slice.ports.find((p: any) => p.name === service.spec.ports[0].name).port;
        assert.equal(address, s.plan.provisioning.ip);
        const bmoUrl = new URL(s.rendered.objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === s.plan.names.bmoConfigMap)!.data.IRONIC_ENDPOINT);
        assert.equal(bmoUrl.port, String(service.spec.ports[0].port));
        const creds = s.cluster.secrets[s.plan.names.credentialsSecret];
        const r = dial(provNs, `${bmoUrl.origin}/v1/nodes`, ["--cacert", ca, "--resolve", `${bmoUrl.hostname}:${bmoUrl.port}:${address}`, "-u", `${creds.username}:${creds.password}`, "-H", "X-OpenStack-Ironic-API-Version: 1.82"]);
        assert.equal(r.stdout, "200", `GET ${bmoUrl.origin}/v1/nodes at ${address}:${port}: ${r.stderr}`);
        const anonymous = dial(provNs, `${bmoUrl.origin}/v1/nodes`, ["--cacert", ca, "--resolve", `${bmoUrl.hostname}:${bmoUrl.port}:${address}`]);
        assert.equal(anonymous.stdout, "401", "without the credentials");
    });
});
