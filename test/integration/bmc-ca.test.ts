/**
 * trust.bmcCa and trust.trustedCa against a real consumer: Ironic of the image's release (PyPI's ironic 38.0.0 with
 * sushy; Debian's Ironic 21.4 has no [redfish]verify_ca) connects through its redfish driver
 * (parse_driver_info, SessionCache, sushy) to small Redfish endpoints over HTTPS in a network
 * namespace this test creates, one signed by a private CA and one by a CA of the stand-in image's
 * system bundle; and Ironic's own HTTPS download (HttpImageService) from a server of a third CA. The bundle is built by the Ironic pod's `ca-bundles` containers as the pod
 * declares them (test/helpers/pod-runner.ts); Ironic's settings are the ironic container's
 * rendered OS_* variables, read by Ironic's own oslo.config, with the bundle directory's mount path
 * mapped to the pod's volume (the venv is not part of the image's file system).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { DEFAULT_IMAGES } from "../../core/contract";
import { TRUST_PATHS } from "../../core/scripts";
import { readStackConfig } from "../../tools/render";
import { until } from "../helpers/ironic-lab";
import { imageOf, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { IMAGE_VENV, prepareImages } from "../helpers/standins";
import { canUseNetns, Daemon, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const IRONIC_VENV = "/var/cache/metal3-ironic-pypi/ironic-38";
const VENV_PYTHON = path.join(IRONIC_VENV, "bin", "python");
const PROBE = path.join(__dirname, "..", "helpers", "redfish_verify_probe.py");
const SERVER = path.join(__dirname, "..", "helpers", "redfish_tls_server.py");
const SYSTEM_ID = "/redfish/v1/Systems/1";
// The namespace is this test's own: any port is free in it.
const PRIVATE_PORT = 8443;
const PUBLIC_PORT = 9443;

function ironic38Available(): boolean {
    return fs.existsSync(VENV_PYTHON) && run(VENV_PYTHON, ["-c", "import ironic.conf, sushy"], { allowFail: true, env: { PATH: "/usr/bin:/bin" } }).status === 0;
}

/** A CA (ca.crt, ca.key) and a server certificate for 127.0.0.1 it signs (tls.crt, tls.key), in `dir`. */
function caWithServer(dir: string, cn: string): { ca: string; cert: string; key: string } {
    fs.mkdirSync(dir, { recursive: true });
    const f = (n: string) => path.join(dir, n);
    run("openssl", ["req", "-x509", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f("ca.key"), "-out", f("ca.crt"), "-subj", `/O=test/CN=${cn}`, "-days", "2", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    fs.writeFileSync(f("ext.cnf"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
    run("openssl", ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f("tls.key"), "-out", f("csr.pem"), "-subj", "/O=test/CN=127.0.0.1"]);
    run("openssl", ["x509", "-req", "-in", f("csr.pem"), "-CA", f("ca.crt"), "-CAkey", f("ca.key"), "-set_serial", String(Date.now()), "-days", "2", "-extfile", f("ext.cnf"), "-out", f("tls.crt")]);
    return { ca: fs.readFileSync(f("ca.crt"), "utf8"), cert: f("tls.crt"), key: f("tls.key") };
}

describe("trust.bmcCa/trustedCa: Ironic 38 verifies a BMC and a download server with private CAs through the pod's bundles (pod runner)", function () {
    this.timeout(240000);
    const net = new NetnsLab();
    let ns = "";
    let work = "";
    let images: Record<string, StandinImage>;
    const servers: Daemon[] = [];
    const pods: PodRunner[] = [];
    let privateCa: ReturnType<typeof caWithServer>;
    let publicCa: ReturnType<typeof caWithServer>;
    let corpCa: ReturnType<typeof caWithServer>;
    let privateServer: Daemon | undefined;

    function serve(ca: { cert: string; key: string }, port: number, name: string): Daemon {
        const d = new Daemon("ip", ["netns", "exec", ns, "/usr/bin/python3", SERVER, ca.cert, ca.key, "127.0.0.1", String(port)], path.join(work, `${name}.log`));
        servers.push(d);
        return d;
    }

    async function waitListening(port: number): Promise<void> {
        for (let i = 0; i < 100; i++) {
            if (run("ip", ["netns", "exec", ns, "bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${port}`], { allowFail: true }).status === 0) return;
            await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error(`no server on 127.0.0.1:${port} in ${ns}`);
    }

    /** The dev stack's Ironic pod, with `trust` as given and `cluster` holding the ConfigMaps `bmc-ca` and `corp-pki`. */
    async function ironicPod(trust: RawConfig["trust"] | undefined, bmcCaData: Record<string, string>, corpPkiData: Record<string, string> = {}, extra: RawConfig = {}): Promise<PodRunner> {
        const raw: RawConfig = { ...readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")), ...(trust ? { trust } : {}), ...extra };
        const { rendered, cluster } = await renderWithRealSecrets(raw, "dev");
        cluster.configMaps["bmc-ca"] = bmcCaData;
        cluster.configMaps["corp-pki"] = corpPkiData;
        const spec = rendered.objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ironic")!.spec.template.spec;
        const p = new PodRunner({ name: `ironic-bmc-${pods.length}`, namespace: "metal3", spec, cluster, images, work, netns: ns, nodeName: "cp-0", hostIP: "127.0.0.1", podIP: "127.0.0.1" });
        pods.push(p);
        return p;
    }

    /** Run one container's declared command to completion in its declared view. */
    function runToCompletion(p: PodRunner, name: string) {
        const c = p.container(name);
        return p.exec(name, p.argv(c, p.env(c)));
    }

    /** Ironic 38 connecting as its redfish driver does, with the ironic container's OS_* settings (bundle paths mapped to the pod's volume). */
    function connect(p: PodRunner, port: number, driver = "redfish"): { verify_ca: unknown; power_state?: string; error?: string } {
        return probe(p, [`https://127.0.0.1:${port}`, SYSTEM_ID, driver]);
    }

    /** The ironic container's OS_* settings, bundle paths mapped to the pod's volume. */
    function probeEnv(p: PodRunner): Record<string, string> {
        const declared = p.env(p.container("ironic"));
        const env: Record<string, string> = { PATH: "/usr/bin:/bin" };
        for (const [k, v] of Object.entries(declared)) {
            if (k.startsWith("OS_")) env[k] = v.startsWith(`${TRUST_PATHS.bundlesDir}/`) ? path.join(p.volumePath("ca-bundles"), v.slice(TRUST_PATHS.bundlesDir.length + 1)) : v;
        }
        return env;
    }

    function probe(p: PodRunner, args: string[]): { verify_ca: unknown; power_state?: string; bytes?: number; error?: string } {
        const env = probeEnv(p);
        const r = run("ip", ["netns", "exec", ns, "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), VENV_PYTHON, PROBE, ...args], { allowFail: true, timeout: 120000 });
        const line = r.stdout.trim().split("\n").pop() ?? "";
        try {
            return JSON.parse(line);
        } catch {
            throw new Error(`probe exited ${r.status}: ${tail(r.stderr)}`);
        }
    }

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        const tools = ["openssl", "nsenter", "unshare", "setpriv", "setcap"];
        requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
        requireOrSkip(this, ironic38Available(), `PyPI's ironic 38.0.0 and sushy in ${IRONIC_VENV} (.ci/run creates the venv with pinned versions)`);
        work = tmpDir("bmc-ca");
        ns = net.addNamespace("bmc");
        images = prepareImages(work);
        privateCa = caWithServer(path.join(work, "private"), "private BMC CA");
        publicCa = caWithServer(path.join(work, "public"), "public CA");
        // The image's default bundle (what its Python's requests trusts by default: PyPI certifi's
        // cacert.pem, in the image's Python environment) holds the "public" CA only, for this pod.
        const publicBundle = path.join(work, "public-default-bundle.pem");
        fs.writeFileSync(publicBundle, publicCa.ca);
        const ironicImage = imageOf(images, DEFAULT_IMAGES.ironic);
        const certifi = run(path.join(IMAGE_VENV, "bin", "python"), ["-c", "import requests.certs; print(requests.certs.where())"]).stdout.trim();
        ironicImage.fileOverrides = { [certifi]: publicBundle };
        corpCa = caWithServer(path.join(work, "corp"), "corporate PKI");
        privateServer = serve(privateCa, PRIVATE_PORT, "private");
        serve(publicCa, PUBLIC_PORT, "public");
        serve(corpCa, PUBLIC_PORT + 1, "corp");
        for (const port of [PRIVATE_PORT, PUBLIC_PORT, PUBLIC_PORT + 1]) await waitListening(port);
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            for (const p of pods.slice(-1)) for (const c of [...(p.spec.initContainers ?? []), ...p.spec.containers]) if (p.logs(c.name)) console.log(`---- ${p.o.name}/${c.name} ----\n${tail(p.logs(c.name), 2000)}`);
        }
    });

    after(async function () {
        for (const p of pods) await p.stop();
        for (const s of servers) await s.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    let withCa: PodRunner;

    it("without trust.bmcCa: no [redfish]verify_ca, and the private-CA BMC fails with a certificate verification error", async function () {
        const p = await ironicPod(undefined, {});
        assert.equal(p.env(p.container("ironic")).OS_REDFISH__VERIFY_CA, undefined);
        const r = connect(p, PRIVATE_PORT);
        assert.equal(r.verify_ca, true);
        assert.equal(r.power_state, undefined);
        assert.match(r.error ?? "", /CERTIFICATE_VERIFY_FAILED/);
    });

    it("with trust.bmcCa: the init container's bundle verifies the private-CA BMC, for the redfish and the idrac driver", async function () {
        withCa = await ironicPod({ bmcCa: { configMap: "bmc-ca" } }, { "ca.crt": privateCa.ca });
        const built = runToCompletion(withCa, "ca-bundles");
        assert.equal(built.status, 0, built.stderr);
        assert.equal(withCa.env(withCa.container("ironic")).OS_REDFISH__VERIFY_CA, TRUST_PATHS.bmcBundle);
        for (const driver of ["redfish", "idrac"]) {
            const r = connect(withCa, PRIVATE_PORT, driver);
            assert.equal(r.error, undefined, `${driver}: ${r.error}`);
            assert.equal(r.power_state, "PowerState.ON");
        }
    });

    it("the BMC CA is added to the system bundle, never in its place: a BMC with a system-trusted CA still verifies (the BMC CA alone, as the image sets it, would fail)", function () {
        const r = connect(withCa, PUBLIC_PORT);
        assert.equal(r.error, undefined, r.error);
        assert.equal(r.power_state, "PowerState.ON");
        // The contrast: [redfish]verify_ca naming the mounted BMC CA alone (what the image does with /certs/ca/bmc).
        const alone = run("ip", ["netns", "exec", ns, "env", "-i", "PATH=/usr/bin:/bin", `OS_REDFISH__VERIFY_CA=${path.join(withCa.volumePath("bmc-ca"), "ca.crt")}`, VENV_PYTHON, PROBE, `https://127.0.0.1:${PUBLIC_PORT}`, SYSTEM_ID], { allowFail: true, timeout: 120000 });
        assert.match(alone.stdout, /CERTIFICATE_VERIFY_FAILED/);
    });

    it("rotation: an updated ConfigMap reaches the bundle through the ca-bundles-watch sidecar, without restarting any container", async function () {
        withCa.startContainers(["ca-bundles-watch"]);
        // The BMC now presents a certificate from a new CA: not trusted yet.
        const rotated = caWithServer(path.join(work, "rotated"), "rotated BMC CA");
        await privateServer!.stop();
        privateServer = serve(rotated, PRIVATE_PORT, "rotated");
        await waitListening(PRIVATE_PORT);
        assert.match(connect(withCa, PRIVATE_PORT).error ?? "", /CERTIFICATE_VERIFY_FAILED/);
        // A running Ironic (one process, its session cache on) keeps trying while the kubelet
        // updates the mounted ConfigMap (the old CA and the new one): it verifies once the sidecar
        // has rewritten the bundle, without being restarted.
        const running = new Daemon("ip", ["netns", "exec", ns, "env", "-i", ...Object.entries(probeEnv(withCa)).map(([k, v]) => `${k}=${v}`), VENV_PYTHON, PROBE, "--repeat", "60", "1", `https://127.0.0.1:${PRIVATE_PORT}`, SYSTEM_ID], path.join(work, "running-ironic.log"));
        servers.push(running);
        // Refused once at least before the update (its first attempt's line in the log).
        const attempts = () => (fs.existsSync(path.join(work, "running-ironic.log")) ? fs.readFileSync(path.join(work, "running-ironic.log"), "utf8").split("\n").filter((l) => l.startsWith("{")) : []);
        await until(() => attempts().length > 0 || !running.running, 60000, "the running Ironic's first attempt", 100);
        withCa.updateVolume("bmc-ca", { "ca.crt": privateCa.ca + rotated.ca });
        while (running.running) await new Promise((res) => setTimeout(res, 500));
        const lines = fs.readFileSync(path.join(work, "running-ironic.log"), "utf8").split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
        const r = lines[lines.length - 1];
        assert.equal(r.error, undefined, `the bundle was not rebuilt within 60 s: ${r.error}\n${tail(withCa.logs("ca-bundles-watch"))}`);
        assert.ok(r.attempt > 1 && /CERTIFICATE_VERIFY_FAILED/.test(lines[0].error), "refused before the update, verified after it, in one process");
        assert.ok(withCa.isRunning("ca-bundles-watch"), "the sidecar keeps running");
        // A broken update keeps the previous bundle, and says why.
        const mark = withCa.logs("ca-bundles-watch").length;
        withCa.updateVolume("bmc-ca", { "ca.crt": "not a certificate\n" });
        // The sidecar's next look (every 10 s) at the changed input: it refuses it and keeps the bundle.
        await until(() => /kept the previous bundle/.test(withCa.logs("ca-bundles-watch").slice(mark)), 60000, "the sidecar to handle the broken update", 250).catch((e) => assert.fail(`${e.message}:\n${tail(withCa.logs("ca-bundles-watch"))}`));
        assert.equal(connect(withCa, PRIVATE_PORT).error, undefined, "the previous bundle is kept");
        assert.match(withCa.logs("ca-bundles-watch"), /holds no PEM certificate/);
    });

    it("trust.trustedCa: Ironic 38's own HTTPS download (HttpImageService, [DEFAULT]webserver_verify_ca) from a private-CA server only with it; system-trusted servers still verify; the IPA cache's CA stays in", async function () {
        const url = (port: number) => `https://127.0.0.1:${port}${SYSTEM_ID}`;
        // Without it (and without an IPA cache CA: your own deploy image URLs), Ironic's default trust refuses the private server.
        const own = { imageCache: { mode: "none", kernelUrl: { x86_64: "https://images.corp/k" }, ramdiskUrl: { x86_64: "https://images.corp/r" } } };
        const without = await ironicPod(undefined, {}, {}, own);
        assert.equal(without.env(without.container("ironic")).OS_DEFAULT__WEBSERVER_VERIFY_CA, undefined);
        assert.match(probe(without, ["--download", url(PUBLIC_PORT + 1)]).error ?? "", /ImageDownloadFailed: .*CERTIFICATE_VERIFY_FAILED/);
        const p = await ironicPod({ trustedCa: { configMap: "corp-pki" } }, {}, { "ca.crt": corpCa.ca });
        const built = runToCompletion(p, "ca-bundles");
        assert.equal(built.status, 0, built.stderr);
        assert.equal(p.env(p.container("ironic")).OS_DEFAULT__WEBSERVER_VERIFY_CA, TRUST_PATHS.trustedBundle);
        const ok = probe(p, ["--download", url(PUBLIC_PORT + 1)]);
        assert.equal(ok.error, undefined, ok.error);
        assert.ok((ok.bytes ?? 0) > 0);
        const pub = probe(p, ["--download", url(PUBLIC_PORT)]);
        assert.equal(pub.error, undefined, `a system-trusted server: ${pub.error}`);
        // The BMC CA is not a download CA: the private BMC's server is refused here.
        assert.match(probe(p, ["--download", url(PRIVATE_PORT)]).error ?? "", /CERTIFICATE_VERIFY_FAILED/);
        const bundle = fs.readFileSync(path.join(p.volumePath("ca-bundles"), "trusted-ca-bundle.crt"), "utf8");
        const cacheCa = p.o.cluster.secrets["ironic-ipa-cache-ca"]["ca.crt"].trim();
        assert.ok(bundle.includes(cacheCa), "the IPA cache's CA is in the trusted bundle");
    });

    it("a BMC CA without a PEM certificate fails the init container, naming the file", async function () {
        const p = await ironicPod({ bmcCa: { configMap: "bmc-ca" } }, { "ca.crt": "-----BEGIN PRIVATE KEY-----\n" });
        const r = runToCompletion(p, "ca-bundles");
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /\/certs\/ca\/bmc\/ca\.crt holds no PEM certificate/);
    });
});
