/**
 * The IPA image cache as its pods declare it (test/helpers/pod-runner.ts): the cache pod (one
 * downloader init container per architecture running assets/ipa-cache-sync.sh around the
 * downloader stand-in, which really fetches with curl, then the HTTPS server) against a loopback
 * tarball server that counts every request (test/helpers/ipa_upstream.py), and the Ironic pod's
 * cache client, all in a network namespace this test creates and deletes. Counted at the source:
 * one download per IPA version and architecture, however often the cache pod and the conductors
 * start; a changed version key downloads once more; an interrupted download is never served; a
 * downloader whose content changes under the same image reference (`:latest`) downloads once more,
 * an unchanged one never.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { readStackConfig, Rendered } from "../../tools/render";
import { ClusterData, imageOf, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { prepareImages } from "../helpers/standins";
import { canUseNetns, Daemon, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const ARCHES = ["x86_64", "aarch64"] as const;
const TARBALL = "ipa-centos9-master.tar.gz";
const SERVICE = "ironic-ipa-cache.metal3.svc";
const CACHE_PORT = 6186;
// The namespace is this test's own: any port is free in it.
const UPSTREAM_PORT = 18080;

interface Stack {
    rendered: Rendered;
    cluster: ClusterData;
    cacheSpec: any;
    ironicSpec: any;
}

describe("IPA image cache: pods as declared against a counting tarball server (pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let ns = "";
    let upstreamDir = "";
    let upstreamLog = "";
    let upstream: Daemon | undefined;
    let images: Record<string, StandinImage>;
    const pods: PodRunner[] = [];
    let podCount = 0;

    /** The dev stack with both architectures cached from the loopback server; `extra` changes the version key. */
    async function render(extra: Record<string, unknown> = {}): Promise<Stack> {
        const raw: RawConfig = {
            ...readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")),
            // A plain-http origin in this test's own namespace: accepted explicitly, as a user would for a trusted mirror.
            imageCache: { allowHttp: true, ipa: ARCHES.map((a) => ({ architecture: a, baseUri: `http://127.0.0.1:${UPSTREAM_PORT}/${a}` })), ...extra },
        };
        const { rendered, cluster } = await renderWithRealSecrets(raw, "dev");
        const dep = (name: string) => rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === name)!.spec.template.spec;
        return { rendered, cluster, cacheSpec: dep("ironic-ipa-cache"), ironicSpec: dep("ironic") };
    }

    function pod(s: Stack, which: "cache" | "ironic"): PodRunner {
        const name = `${which}-${podCount++}`;
        const p = new PodRunner({
            name,
            namespace: "metal3",
            spec: which === "cache" ? s.cacheSpec : s.ironicSpec,
            cluster: s.cluster,
            images,
            work,
            netns: ns,
            nodeName: "cp-0",
            hostIP: "127.0.0.1",
            podIP: "127.0.0.1",
            hosts: { [SERVICE]: "127.0.0.1" },
        });
        pods.push(p);
        return p;
    }

    /** A cache pod start: its init containers (the downloads), then the server, ready. */
    async function startCache(s: Stack): Promise<PodRunner> {
        for (const p of pods) await p.stop();
        const p = pod(s, "cache");
        await p.runInitContainers();
        p.startContainers();
        await p.waitReady("server", 60000);
        return p;
    }

    /** Downloads of each architecture's tarball, counted at the source (200 responses). */
    function downloads(): Record<string, number> {
        const lines = fs.existsSync(upstreamLog) ? fs.readFileSync(upstreamLog, "utf8").trim().split("\n").filter(Boolean) : [];
        const out: Record<string, number> = { x86_64: 0, aarch64: 0 };
        for (const l of lines) {
            const [p, status] = l.split(" ");
            if (status === "200") out[p.split("/")[1]]++;
        }
        return out;
    }

    /** Publish IPA `version` of `arch` on the tarball server: <stem>.tar.gz with <stem>.kernel and <stem>.initramfs. */
    function publish(arch: string, version: string, stem = "ipa-centos9-master") {
        const dir = path.join(upstreamDir, arch);
        const src = fs.mkdtempSync(path.join(work, "ipa-"));
        fs.mkdirSync(dir, { recursive: true });
        // Large enough that half of it is a real partial transfer.
        fs.writeFileSync(path.join(src, `${stem}.kernel`), `kernel ${arch} ${version}\n` + "k".repeat(256 * 1024));
        fs.writeFileSync(path.join(src, `${stem}.initramfs`), `initramfs ${arch} ${version}\n` + "i".repeat(512 * 1024));
        run("tar", ["-czf", path.join(dir, `${stem}.tar.gz`), "-C", src, `${stem}.kernel`, `${stem}.initramfs`]);
    }

    /** GET through the cache's HTTPS endpoint, verifying it with the stack CA (from the pod's namespace). */
    function fetchFromCache(s: Stack, urlPath: string): { status: number; body: string } {
        const ca = path.join(work, `ca-${podCount}.crt`);
        fs.writeFileSync(ca, s.cluster.secrets["ironic-ipa-cache-ca"]["ca.crt"]);
        const r = run("ip", ["netns", "exec", ns, "curl", "-sS", "--cacert", ca, "--resolve", `${SERVICE}:${CACHE_PORT}:127.0.0.1`, "-o", "-", "-w", "\n%{http_code}", `https://${SERVICE}:${CACHE_PORT}${urlPath}`], { allowFail: true });
        const i = r.stdout.lastIndexOf("\n");
        return { status: Number(r.stdout.slice(i + 1)), body: r.stdout.slice(0, i) };
    }

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["nsenter", "unshare", "setpriv", "curl", "tar", "python3", "openssl"].every((c) => !!which(c)), "util-linux, curl, tar, python3, openssl");
        work = tmpDir("ipa-cache");
        upstreamDir = path.join(work, "upstream");
        upstreamLog = path.join(work, "upstream.log");
        for (const a of ARCHES) publish(a, "v1");
        images = prepareImages(work);
        ns = net.addNamespace("ic");
        // The node holds the dev stack's provisioning.ip on its provisioning interface (the Ironic
        // pod's first init container checks it): one end of a veth pair inside this test's namespace.
        run("ip", ["-n", ns, "link", "add", "eth1", "type", "veth", "peer", "name", "eth1peer"]);
        run("ip", ["-n", ns, "addr", "add", "172.22.0.2/24", "dev", "eth1"]);
        for (const l of ["eth1", "eth1peer"]) run("ip", ["-n", ns, "link", "set", l, "up"]);
        upstream = new Daemon("ip", ["netns", "exec", ns, "python3", path.join(ROOT, "test", "helpers", "ipa_upstream.py"), upstreamDir, String(UPSTREAM_PORT), upstreamLog], path.join(work, "upstream.out"));
        for (let i = 0; i < 50 && run("ip", ["netns", "exec", ns, "curl", "-s", "-o", "/dev/null", `http://127.0.0.1:${UPSTREAM_PORT}/`], { allowFail: true }).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            for (const p of pods.slice(-2)) for (const c of [...(p.spec.initContainers ?? []), ...p.spec.containers]) console.log(`---- ${p.o.name}/${c.name} ----\n${tail(p.logs(c.name), 2000)}`);
        }
    });

    after(async function () {
        for (const p of pods) await p.stop();
        await upstream?.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    let v1: Stack;

    it("the cache pod downloads each architecture once, then 3 restarts and 3 conductor starts download nothing more", async function () {
        v1 = await render();
        await startCache(v1);
        assert.deepEqual(downloads(), { x86_64: 1, aarch64: 1 }, "one download per architecture");
        for (const a of ARCHES) {
            const r = fetchFromCache(v1, `/images/ironic-python-agent_${a}.kernel`);
            assert.equal(r.status, 200);
            assert.ok(r.body.startsWith(`kernel ${a} v1\n`), `the ${a} kernel of v1 is served`);
        }
        for (let i = 0; i < 3; i++) await startCache(v1);
        for (let i = 0; i < 3; i++) {
            const ironic = pod(v1, "ironic");
            await ironic.runInitContainers();
            const dir = path.join(ironic.volumePath("shared"), "html", "images");
            for (const a of ARCHES) assert.ok(fs.readFileSync(path.join(dir, `ironic-python-agent_${a}.kernel`), "utf8").startsWith(`kernel ${a} v1\n`));
            // The default architecture under the names runhttpd's inspector.ipxe and the httpd probe use.
            assert.ok(fs.readFileSync(path.join(dir, "ironic-python-agent.initramfs"), "utf8").startsWith("initramfs x86_64 v1\n"));
        }
        assert.deepEqual(downloads(), { x86_64: 1, aarch64: 1 }, "restarts of the cache and conductor starts download nothing from the source");
    });

    it("a conductor fetches the kernel through the cache URL the way Ironic does: requests with [DEFAULT]webserver_verify_ca from the ironic container", function () {
        const ironic = pods.filter((p) => p.o.name.startsWith("ironic-")).pop()!;
        const env = ironic.env(ironic.container("ironic"));
        const url = env.OS_CONDUCTOR__DEPLOY_KERNEL_BY_ARCH.split(",").find((e: string) => e.startsWith("aarch64:"))!.slice("aarch64:".length);
        const script = "import os, requests, sys; r = requests.get(sys.argv[1], verify=os.environ['OS_DEFAULT__WEBSERVER_VERIFY_CA'], timeout=30); r.raise_for_status(); sys.stdout.write(r.text[:40])";
        const r = ironic.exec("ironic", ["python3.12", "-c", script, url]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^kernel aarch64 v1\n/);
        // Without the bundle (Ironic's default trust only) the stack CA is unknown: the check is real.
        const bare = ironic.exec("ironic", ["python3.12", "-c", script.replace("os.environ['OS_DEFAULT__WEBSERVER_VERIFY_CA']", "True"), url]);
        assert.notEqual(bare.status, 0);
        assert.match(bare.stderr, /CERTIFICATE_VERIFY_FAILED|SSLError/);
    });

    let v2: Stack;

    it("a changed version key downloads exactly once more per architecture, and the new version is served", async function () {
        for (const a of ARCHES) publish(a, "v2");
        v2 = await render({ minimumModificationTime: "2020-01-01T00:00:00Z" });
        await startCache(v2);
        assert.deepEqual(downloads(), { x86_64: 2, aarch64: 2 });
        await startCache(v2);
        assert.deepEqual(downloads(), { x86_64: 2, aarch64: 2 }, "the new key is now held: no download on restart");
        assert.ok(fetchFromCache(v2, "/images/ironic-python-agent_x86_64.initramfs").body.startsWith("initramfs x86_64 v2\n"));
    });

    it("an interrupted download (the server cuts the connection mid-file) is never served: the old version stays", async function () {
        publish("x86_64", "v3");
        fs.writeFileSync(path.join(upstreamDir, "x86_64", `${TARBALL}.cut`), "");
        const v3 = await render({ minimumModificationTime: "2021-01-01T00:00:00Z" });
        for (const p of pods) await p.stop();
        const cut = pod(v3, "cache");
        await assert.rejects(cut.runInitContainers(), /ipa-downloader-x86-64 .* exited/);
        // Even with the server started anyway, what it serves is the last complete version.
        cut.startContainers();
        await cut.waitReady("server", 60000);
        const k = fetchFromCache(v3, "/images/ironic-python-agent_x86_64.kernel");
        assert.equal(k.status, 200);
        assert.ok(k.body.startsWith("kernel x86_64 v2\n"), "v2, complete");
        assert.equal(k.body.length, `kernel x86_64 v2\n`.length + 256 * 1024);
        const sums = fetchFromCache(v3, "/images/ironic-python-agent_x86_64.sha256").body;
        assert.match(sums, /ironic-python-agent\.kernel/);
        // The partial transfer sits in work/, which no URL reaches.
        const data = path.join(work, "pv", "ironic-ipa-cache-data");
        assert.equal(fs.readdirSync(path.join(data, "versions", "x86_64")).length, 1, "no new version directory");
        assert.equal(fetchFromCache(v3, "/work/").status, 404);
        // The source is reachable again: exactly one more download, then v3 is served.
        fs.rmSync(path.join(upstreamDir, "x86_64", `${TARBALL}.cut`));
        const before = downloads();
        await startCache(v3);
        assert.deepEqual(downloads(), { x86_64: before.x86_64 + 1, aarch64: before.aarch64 + 1 });
        assert.ok(fetchFromCache(v3, "/images/ironic-python-agent_x86_64.kernel").body.startsWith("kernel x86_64 v3\n"));
    });

    it("the downloader image changes content under the same reference (:latest): one more download per architecture, the new IPA served; unchanged, nothing", async function () {
        const s = await render({ minimumModificationTime: "2021-01-01T00:00:00Z" });
        const dl = s.cacheSpec.initContainers;
        assert.match(dl[0].image, /:latest$/);
        assert.deepEqual(dl.map((c: any) => c.imagePullPolicy), ["Always", "Always"], "a moving tag is pulled at every pod start: the node runs the reference's current content");
        await startCache(s); // holds this version (downloads it when this test runs alone)
        const before = downloads();
        await startCache(s);
        assert.deepEqual(downloads(), before, "the same downloader: nothing downloaded");
        // A new build under the same name whose get-resource.sh defaults to another flavor (as the
        // upstream downloader once moved from centos8 to centos9); the stack's render is unchanged.
        const program = path.join(imageOf(images, dl[0].image).layer, "usr", "local", "bin", "get-resource.sh");
        const original = fs.readFileSync(program, "utf8");
        assert.match(original, /flavor=\$\{IPA_FLAVOR:-centos9\}/);
        try {
            fs.writeFileSync(program, original.replace("flavor=${IPA_FLAVOR:-centos9}", "flavor=${IPA_FLAVOR:-centos10}"));
            for (const a of ARCHES) publish(a, "v4-centos10", "ipa-centos10-master");
            const again = await render({ minimumModificationTime: "2021-01-01T00:00:00Z" });
            assert.deepEqual(again.cacheSpec.initContainers.map((c: any) => [c.image, c.env]), dl.map((c: any) => [c.image, c.env]), "the plan sees no change: same reference, same key");
            const cache = await startCache(s);
            assert.deepEqual(downloads(), { x86_64: before.x86_64 + 1, aarch64: before.aarch64 + 1 }, "one download per architecture with the new downloader");
            assert.match(cache.logs("ipa-downloader-x86-64"), /the downloader changed/);
            for (const a of ARCHES) {
                const k = fetchFromCache(s, `/images/ironic-python-agent_${a}.kernel`);
                assert.equal(k.status, 200);
                assert.ok(k.body.startsWith(`kernel ${a} v4-centos10\n`), `the ${a} IPA of the new downloader is served`);
            }
            const data = path.join(work, "pv", "ironic-ipa-cache-data");
            assert.equal(fs.readdirSync(path.join(data, "versions", "x86_64")).length, 1, "the old downloader's version is no longer kept");
            await startCache(s);
            await startCache(s);
            assert.deepEqual(downloads(), { x86_64: before.x86_64 + 1, aarch64: before.aarch64 + 1 }, "the new downloader, unchanged: nothing more");
        } finally {
            fs.writeFileSync(program, original);
        }
    });

    it("imageCache.ipa[].sha256: a tarball with other content is downloaded but never served: the init container fails naming both sums (the pod does not start) and the volume keeps the previous version; the expected one is served", async function () {
        for (const a of ARCHES) publish(a, "v5");
        const sumOf = (a: string) => createHash("sha256").update(fs.readFileSync(path.join(upstreamDir, a, TARBALL))).digest("hex");
        const wrong = "0".repeat(64);
        const pinned = (x86: string) => ({ ipa: ARCHES.map((a) => ({ architecture: a, baseUri: `http://127.0.0.1:${UPSTREAM_PORT}/${a}`, sha256: a === "x86_64" ? x86 : sumOf(a) })) });
        const bad = await render(pinned(wrong));
        assert.equal(bad.cacheSpec.initContainers[0].env.find((e: any) => e.name === "IPA_CACHE_SHA256").value, wrong);
        for (const p of pods) await p.stop();
        const refused = pod(bad, "cache");
        await assert.rejects(refused.runInitContainers(), /ipa-downloader-x86-64 .* exited/);
        assert.match(refused.logs("ipa-downloader-x86-64"), new RegExp(`${TARBALL} has sha256 ${sumOf("x86_64")}, not the expected ${wrong} \\(imageCache\\.ipa\\[\\]\\.sha256\\): not serving it`));
        // The kubelet starts no container of a pod whose init container failed (it retries it): what the
        // server would serve when the pod runs again is the volume's current version, not this download.
        const current = path.join(work, "pv", "ironic-ipa-cache-data", "current", "x86_64");
        assert.ok(!fs.readFileSync(path.join(current, "ironic-python-agent.kernel"), "utf8").startsWith("kernel x86_64 v5\n"), "the unverified download is not the current version");
        assert.deepEqual(fs.readdirSync(path.join(work, "pv", "ironic-ipa-cache-data", "versions", "x86_64")).length, 1, "no version directory for it");
        const good = await render(pinned(sumOf("x86_64")));
        const cache = await startCache(good);
        assert.match(cache.logs("ipa-downloader-x86-64"), new RegExp(`${TARBALL} has the expected sha256 ${sumOf("x86_64")}`));
        for (const a of ARCHES) assert.ok(fetchFromCache(good, `/images/ironic-python-agent_${a}.kernel`).body.startsWith(`kernel ${a} v5\n`), `${a}: the verified v5 is served`);
    });
});
