/**
 * The image cache's IPA downloader through a real proxy, run as its pod declares it
 * (test/helpers/pod-runner.ts: the cache pod's x86_64 init container, assets/ipa-cache-sync.sh around
 * a stand-in get-resource.sh that really downloads with curl, test/standins/ipa-downloader-curl).
 * In a network namespace this test creates and deletes: Debian's tinyproxy on 127.0.0.1 (own
 * config and log, started with setsid, stopped by PID) and a Python origin that serves a small
 * fake IPA tarball over HTTP and HTTPS and logs every request with its Via header.
 *
 *  - proxy.httpProxy set, a source outside every default: the download passes the proxy (its log
 *    and the origin's Via header say so) and the files land in the cache's current version;
 *  - a `.svc` name (the pod's /etc/hosts maps it, as cluster DNS would) and an address in the
 *    provisioning CIDR: fetched directly, the proxy sees nothing (the default noProxy);
 *  - an HTTPS source signed by a private CA, tunnelled through the proxy: refused without
 *    trust.extraCaBundle, fetched with it (the system bundle and the extra one combined).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { DEFAULT_IMAGES } from "../../core/contract";
import { readStackConfig } from "../../tools/render";
import { TestCa, until } from "../helpers/ironic-lab";
import { PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { curlDownloaderImage } from "../helpers/standins";
import { Daemon, NetnsLab, canUseNetns, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { planOf } from "../helpers/plan";

const ROOT = path.join(__dirname, "..", "..");
/** Addresses inside the test's namespace: an "outside" source, one in the dev stack's provisioning CIDR (172.22.0.0/24). */
const OUTSIDE_IP = "10.77.0.1";
const PROVISIONING_SOURCE_IP = "172.22.0.50";
/** Ports inside the test's own namespace: no other run can hold them. */
const PROXY_PORT = 8888;
const HTTP_PORT = 8081;
const HTTPS_PORT = 8443;
const FILENAME = "ipa-centos9-master.tar.gz";

/** The origin: serves FILENAME under /dib/ with an ETag, logs one JSON line per request (path, Via). */
const ORIGIN = `
import http.server, json, ssl, sys, threading
root, log, http_port, https_port, cert, key = sys.argv[1:7]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "via": self.headers.get("Via"), "tls": isinstance(self.connection, ssl.SSLSocket)}) + "\\n")
        name = self.path.rsplit("/", 1)[-1]
        try:
            data = open(root + "/" + name, "rb").read()
        except OSError:
            self.send_response(404); self.end_headers(); return
        self.send_response(200)
        self.send_header("ETag", '"fake-ipa-1"')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def log_message(self, *a):
        pass
plain = http.server.ThreadingHTTPServer(("0.0.0.0", int(http_port)), H)
tls = http.server.ThreadingHTTPServer(("0.0.0.0", int(https_port)), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(cert, key)
tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
threading.Thread(target=tls.serve_forever, daemon=True).start()
print("origin ready", flush=True)
plain.serve_forever()
`;

interface Request {
    path: string;
    via: string | null;
    tls: boolean;
}

/** The dev stack's image cache Deployment and its x86_64 downloader (core/manifests/image-cache.ts). */
const CACHE = "ironic-ipa-cache";
const DOWNLOADER = "ipa-downloader-x86-64";

describe("IPA download through a real proxy (tinyproxy), downloader run as declared", function () {
    this.timeout(180000);
    const net = new NetnsLab();
    const daemons: Daemon[] = [];
    const pods: PodRunner[] = [];
    let work = "";
    let ns = "";
    let images: Record<string, StandinImage>;
    let ca: TestCa;
    let originLog = "";
    let proxyLog = "";

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["tinyproxy", "curl", "python3", "tar", "openssl", "nsenter", "unshare", "setpriv"].every((c) => !!which(c)), "tinyproxy, curl, python3, tar, openssl, util-linux");
        work = tmpDir("proxy");
        ns = net.addNamespace("px");
        // The sources' addresses live on the namespace's loopback (local delivery, no other link needed).
        for (const a of [OUTSIDE_IP, PROVISIONING_SOURCE_IP]) run("ip", ["-n", ns, "addr", "add", `${a}/32`, "dev", "lo"]);

        // The fake IPA: a tarball holding <base>.kernel and <base>.initramfs, as tarballs.opendev.org's.
        const root = path.join(work, "origin");
        fs.mkdirSync(path.join(root, "content"), { recursive: true });
        fs.writeFileSync(path.join(root, "content", "ipa-centos9-master.kernel"), "fake IPA kernel\n");
        fs.writeFileSync(path.join(root, "content", "ipa-centos9-master.initramfs"), "fake IPA initramfs\n");
        run("tar", ["-czf", path.join(root, FILENAME), "-C", path.join(root, "content"), "ipa-centos9-master.kernel", "ipa-centos9-master.initramfs"]);
        ca = new TestCa(path.join(work, "ca"), "corp test CA");
        ca.issue("ipa-origin", { dnsNames: [], ipAddresses: [OUTSIDE_IP] }, path.join(work, "origin.crt"), path.join(work, "origin.key"));
        fs.writeFileSync(path.join(work, "origin.py"), ORIGIN);
        originLog = path.join(work, "origin-requests.log");
        fs.writeFileSync(originLog, "");
        const origin = new Daemon("ip", ["netns", "exec", ns, "python3", path.join(work, "origin.py"), root, originLog, String(HTTP_PORT), String(HTTPS_PORT), path.join(work, "origin.crt"), path.join(work, "origin.key")], path.join(work, "origin.out"));
        daemons.push(origin);

        proxyLog = path.join(work, "tinyproxy.log");
        const conf = path.join(work, "tinyproxy.conf");
        fs.writeFileSync(
            conf,
            [`Port ${PROXY_PORT}`, "Listen 127.0.0.1", "Allow 127.0.0.1", "Timeout 30", "MaxClients 20", `LogFile "${proxyLog}"`, "LogLevel Info", `PidFile "${path.join(work, "tinyproxy.pid")}"`, `ConnectPort ${HTTPS_PORT}`].join("\n") + "\n",
        );
        daemons.push(new Daemon("ip", ["netns", "exec", ns, "tinyproxy", "-d", "-c", conf], path.join(work, "tinyproxy.out")));
        await until(() => fs.existsSync(proxyLog) && /Accepting connections/.test(fs.readFileSync(proxyLog, "utf8")), 15000, "tinyproxy listening");
        await until(() => /origin ready/.test(fs.readFileSync(path.join(work, "origin.out"), "utf8")), 15000, "origin listening");
        images = { [DEFAULT_IMAGES.ipaDownloader]: curlDownloaderImage(work) };
    });

    after(async function () {
        for (const p of pods) await p.stop();
        for (const d of daemons) await d.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    afterEach(function () {
        if (this.currentTest?.state !== "failed") return;
        for (const p of pods) console.log(`---- ${p.o.name} ${DOWNLOADER} ----\n${tail(p.logs(DOWNLOADER), 3000)}`);
        for (const f of [proxyLog, originLog, path.join(work, "origin.out")]) if (fs.existsSync(f)) console.log(`---- ${f} ----\n${tail(fs.readFileSync(f, "utf8"), 2000)}`);
    });

    const requests = (): Request[] => fs.readFileSync(originLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    /** Requests tinyproxy forwarded (plain requests and CONNECT tunnels), from its own log. */
    const proxied = (): string[] => fs.readFileSync(proxyLog, "utf8").split("\n").filter((l) => /Request \(file descriptor/.test(l));

    /** Render the dev stack with `extra`, run its pod's init container (the downloader) in the namespace; the pod and its exit. */
    async function download(label: string, extra: RawConfig, opts: { hosts?: Record<string, string>; caPem?: string } = {}): Promise<{ pod: PodRunner; error?: Error }> {
        // The origins are this test's own plain-http servers: accepted explicitly, as for a trusted mirror.
        const raw = { ...readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")), imageCache: { allowHttp: true }, ...extra };
        const plan = planOf(raw);
        const { rendered, cluster } = await renderWithRealSecrets(raw, "dev");
        if (opts.caPem) cluster.configMaps["corp-ca"] = { "ca.crt": opts.caPem };
        // The image cache's pod downloads IPA (the Ironic pods only read from it).
        const spec = rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === CACHE)!.spec.template.spec;
        // Only the downloader runs here (the other containers are other tests' business).
        const pod = new PodRunner({ name: `ipa-${label}`, namespace: plan.namespace, spec: { ...spec, initContainers: spec.initContainers.filter((c: any) => c.name === DOWNLOADER) }, cluster, images, work, netns: ns, nodeName: "cp-0", hostIP: plan.provisioning.ip, podIP: plan.provisioning.ip, hosts: opts.hosts });
        pods.push(pod);
        try {
            await pod.runInitContainers(60000);
            return { pod };
        } catch (e) {
            return { pod, error: e as Error };
        }
    }

    /** What the cache serves for x86_64: its kept volume's current version (assets/ipa-cache-sync.sh). */
    const imagesOf = (_pod: PodRunner) => path.join(work, "pv", `${CACHE}-data`, "current", "x86_64");
    const proxy = { httpProxy: `http://127.0.0.1:${PROXY_PORT}`, httpsProxy: `http://127.0.0.1:${PROXY_PORT}` };

    it("proxy.httpProxy: every download request passes the proxy (its log, the origin's Via header), the IPA lands in the cache's current version", async function () {
        const before = requests().length;
        const { pod, error } = await download("proxied", { proxy, ironic: { ipa: { baseUri: `http://${OUTSIDE_IP}:${HTTP_PORT}/dib` } } });
        assert.equal(error, undefined, String(error));
        const got = requests().slice(before);
        assert.deepEqual(got.map((r) => r.path), [`/dib/${FILENAME}`], "one download");
        for (const r of got) assert.match(String(r.via), /tinyproxy/, "came through the proxy");
        assert.ok(proxied().some((l) => l.includes(`http://${OUTSIDE_IP}:${HTTP_PORT}/dib/${FILENAME}`)), "tinyproxy logged it");
        assert.equal(fs.readFileSync(path.join(imagesOf(pod), "ironic-python-agent.kernel"), "utf8"), "fake IPA kernel\n");
        assert.equal(fs.readFileSync(path.join(imagesOf(pod), "ironic-python-agent.initramfs"), "utf8"), "fake IPA initramfs\n");
    });

    it("a cluster Service name (.svc) and an address in the provisioning CIDR are fetched directly: the proxy sees nothing (default noProxy)", async function () {
        const cases: [string, string, Record<string, string>][] = [
            ["svc", `http://ipa-cache.metal3.svc:${HTTP_PORT}/dib`, { "ipa-cache.metal3.svc": OUTSIDE_IP }],
            ["prov", `http://${PROVISIONING_SOURCE_IP}:${HTTP_PORT}/dib`, {}],
        ];
        for (const [label, baseUri, hosts] of cases) {
            const before = requests().length;
            const proxiedBefore = proxied().length;
            const { pod, error } = await download(label, { proxy, ironic: { ipa: { baseUri } } }, { hosts });
            assert.equal(error, undefined, `${label}: ${error}`);
            const got = requests().slice(before);
            assert.deepEqual(got.map((r) => [r.path, r.via]), [[`/dib/${FILENAME}`, null]], `${label}: one direct request, no Via`);
            assert.equal(proxied().length, proxiedBefore, `${label}: tinyproxy forwarded nothing`);
            assert.ok(fs.existsSync(path.join(imagesOf(pod), "ironic-python-agent.kernel")), label);
        }
    });

    it("HTTPS through the proxy from a private CA: refused without trust.extraCaBundle, fetched with it (system bundle kept)", async function () {
        const baseUri = `https://${OUTSIDE_IP}:${HTTPS_PORT}/dib`;
        const without = await download("tls-untrusted", { proxy, ironic: { ipa: { baseUri } } });
        assert.ok(without.error, "the private CA is not trusted by default");
        assert.match(without.pod.logs(DOWNLOADER), /certificate/i);

        const before = requests().length;
        const proxiedBefore = proxied().length;
        const caPem = fs.readFileSync(ca.certFile, "utf8");
        const { pod, error } = await download("tls-trusted", { proxy, ironic: { ipa: { baseUri } }, trust: { extraCaBundle: { configMap: "corp-ca" } } }, { caPem });
        assert.equal(error, undefined, String(error));
        const got = requests().slice(before);
        assert.deepEqual(got.map((r) => [r.path, r.tls]), [[`/dib/${FILENAME}`, true]]);
        assert.ok(proxied().slice(proxiedBefore).some((l) => l.includes(`CONNECT ${OUTSIDE_IP}:${HTTPS_PORT}`)), "tunnelled through the proxy");
        assert.equal(fs.readFileSync(path.join(imagesOf(pod), "ironic-python-agent.kernel"), "utf8"), "fake IPA kernel\n");
        // The combined bundle: the system one (public sources keep verifying), then ours.
        const combined = pod.exec(DOWNLOADER, ["/bin/cat", "/tmp/metal3-ironic-ca-bundle.crt"]);
        assert.equal(combined.status, 0, combined.stderr);
        const system = fs.readFileSync("/etc/ssl/certs/ca-certificates.crt", "utf8");
        assert.ok(combined.stdout.startsWith(system), "starts with the image's system bundle");
        assert.ok(combined.stdout.trimEnd().endsWith(caPem.trimEnd()), "ends with the extra bundle");
    });
});
