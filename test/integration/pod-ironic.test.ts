/**
 * The Ironic pod of the rendered dev stack, run by the pod runner on the image stand-ins
 * (test/standins: runironic, runhttpd, the probes and the schema-job entrypoints, MariaDB's
 * entrypoint and health check, keepalived), which check the image contract and then start the real
 * Debian programs: Ironic 21.4 (API + conductor in one process), mariadbd, dnsmasq, and a stdlib
 * Python web server in place of Apache.
 *
 * Every container starts exactly as declared (mounts, env, uid, capabilities, read-only root).
 * Clients (a "BMC" and a "BMO") sit in their own network namespace on the provisioning bridge, so
 * every request crosses it. Everything runs in network namespaces this test creates and deletes.
 */
import { strict as assert } from "assert";
import * as bcrypt from "bcryptjs";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { COMMANDS } from "../../core/contract";
import { htpasswdLine } from "../../core/render/htpasswd";
import { Rendered, readStackConfig } from "../../tools/render";
import { credentialLeaks } from "../helpers/credential-leaks";
import { ImageCacheLab } from "../helpers/image-cache";
import { until } from "../helpers/ironic-lab";
import { ClusterData, PodRunner, publishVirtualMedia, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { statedExcept } from "../helpers/stated";
import { IMAGE_VENV_NEEDED, imageVenvReady, prepareImages } from "../helpers/standins";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const DEV = path.join(__dirname, "..", "..", "Pulumi.dev.yaml");
/** provisioning.ip of Pulumi.dev.yaml (also the VIP with keepalived). */
const IRONIC_IP = "172.22.0.2";
const PORTS = { api: 6385, http: 6180, vmediaTls: 6183 };
const API_VERSION = "1.82";

function prerequisites(ctx: Mocha.Context): void {
    requireOrSkip(ctx, canUseNetns(), "root and iproute2 for network namespaces");
    const tools = ["dnsmasq", "mariadbd", "mariadb-install-db", "curl", "openssl", "setcap", "nsenter", "unshare", "setpriv"];
    requireOrSkip(ctx, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
    requireOrSkip(ctx, run("/usr/bin/python3", ["-c", "import bcrypt"], { allowFail: true }).status === 0, "python3-bcrypt");
    requireOrSkip(ctx, imageVenvReady(), IMAGE_VENV_NEEDED);
}

const renderStack = (raw: RawConfig) => renderWithRealSecrets(raw, "dev");

/**
 * An Ironic option set with a nested --secret (`pulumi config set --path --secret
 * 'metal3-ironic:ironic.config["deploy.image_server_password"]'`): one Ironic declares secret, so
 * its own option dump at start masks it too.
 */
const SECRET_OPTION = "deploy.image_server_password";
/**
 * Quoted at both ends, '#', ';' and spaces inside: oslo.config's parser would strip such quotes from
 * an unquoted value; the config file must hand Ironic exactly this.
 */
const SECRET_VALUE = '"s3cret image" #server; "pw"';
const withSecretOption = (raw: RawConfig): RawConfig => ({ ...raw, ironic: { ...(raw.ironic as object), config: { ...((raw.ironic as any)?.config ?? {}), [SECRET_OPTION]: SECRET_VALUE } } });

/** The Ironic workload's Deployment (the IPA cache has one too). */
const ironicDeploymentOf = (r: Rendered): any => r.objects.find((x) => x.kind === "Deployment" && x.metadata.name === "ironic");

function objectOf(r: Rendered, kind: string, nameIncludes = ""): any {
    const o = r.objects.find((x) => x.kind === kind && String(x.metadata?.name).includes(nameIncludes));
    if (!o) throw new Error(`the render has no ${kind} ${nameIncludes}`);
    return o;
}

interface CurlResult {
    /** curl's exit status (0 = a response was received and, with TLS, the certificate verified). */
    exit: number;
    code: number;
    body: string;
    stderr: string;
}

/** curl from inside a network namespace; the response code is appended by -w and split off. */
function curl(ns: string, args: string[]): CurlResult {
    const r = run("ip", ["netns", "exec", ns, "curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}", ...args], { allowFail: true });
    const i = r.stdout.lastIndexOf("\n");
    return { exit: r.status, code: Number(r.stdout.slice(i + 1)) || 0, body: r.stdout.slice(0, Math.max(i, 0)), stderr: r.stderr };
}

function sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
}

/** Wait for `check`, failing at once (with the log) when one of `watch` exits. */
async function waitFor(pod: PodRunner, watch: string[], check: () => boolean, what: string, timeoutMs = 150000): Promise<void> {
    await until(
        () => {
            for (const c of watch) {
                if (!pod.isRunning(c)) throw new Error(`container ${c} exited ${pod.exitCode(c)} while waiting for ${what}:\n${tail(pod.logs(c))}`);
            }
            return check();
        },
        timeoutMs,
        what,
        1000,
    ).catch((e) => {
        // until() swallows the check's exceptions until the timeout: say which container died.
        const dead = watch.find((c) => !pod.isRunning(c));
        if (dead) throw new Error(`container ${dead} exited ${pod.exitCode(dead)} while waiting for ${what}:\n${tail(pod.logs(dead))}`);
        throw e;
    });
}

/** Run one container of `pod` to completion (a Job's pod); resolves with its exit code. */
async function runToCompletion(pod: PodRunner, timeoutMs = 240000): Promise<number | null> {
    const [r] = pod.startContainers();
    const code = await new Promise<number | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), timeoutMs);
        r.proc.once("exit", (c) => {
            clearTimeout(timer);
            resolve(c);
        });
    });
    return code;
}

function printLogs(pods: PodRunner[]): void {
    for (const p of pods) {
        for (const c of [...(p.spec.initContainers ?? []), ...(p.spec.containers ?? [])]) {
            const log = p.logs(c.name);
            if (!log) continue;
            // Ironic logs every option at start: keep the tail readable.
            const lines = log.split("\n").filter((l) => !l.includes("log_opt_values"));
            console.log(`----- ${p.o.name}/${c.name} (running: ${p.isRunning(c.name)}, exit: ${p.exitCode(c.name)}) -----\n${tail(lines.join("\n"), 4000)}`);
        }
    }
}

describe("ironic image stand-ins: the dev stack's Ironic pod (pod runner, Ironic 38 from PyPI)", function () {
    this.timeout(300000);
    const lab = new NetnsLab();
    let work = "";
    let rendered: Rendered;
    let cluster: ClusterData;
    let images: Record<string, StandinImage>;
    let cache: ImageCacheLab | undefined;
    let node = "";
    let client = "";
    let pod: PodRunner;
    let spec: any;
    const variants: PodRunner[] = [];
    let caFile = "";
    let otherCaFile = "";
    let username = "";
    let password = "";
    const api = (p: string) => `https://${IRONIC_IP}:${PORTS.api}${p}`;
    /** Ironic's configuration loaded by its own code in the ironic container (`args` as oslo.config takes them): the options' values, space-separated. */
    const ironicOptions = (args: string[], options: string[]): string => {
        const script = ["from ironic.conf import CONF", `CONF(${JSON.stringify(args)}, project='ironic')`, `print(${options.map((o) => `CONF.${o}`).join(", ")})`].join("\n");
        const r = pod.exec("ironic", ["python3.12", "-c", script]);
        assert.equal(r.status, 0, r.stderr);
        return r.stdout.trim().split("\n").pop()!;
    };

    before(async function () {
        prerequisites(this);
        const raw = withSecretOption(readStackConfig(DEV));
        ({ rendered, cluster } = await renderWithRealSecrets(raw, "dev", "", { secretKeys: ["ironic"], stated: statedExcept(raw, [["ironic", "config", SECRET_OPTION]]) }));
        spec = ironicDeploymentOf(rendered).spec.template.spec;
        work = tmpDir("pod-ironic");
        fs.chmodSync(work, 0o755);
        images = prepareImages(work);
        cache = new ImageCacheLab({ rendered, cluster, images, work });
        // BMO's view of the stack: the CA Secret it mounts and the credentials Secret it reads.
        caFile = path.join(work, "stack-ca.crt");
        fs.writeFileSync(caFile, cluster.secrets["ironic-cacert"]["tls.crt"]);
        otherCaFile = path.join(work, "other-ca.crt");
        run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(work, "other-ca.key"), "-out", otherCaFile, "-days", "1", "-subj", "/CN=some other CA"]);
        username = cluster.secrets["ironic-credentials"].username;
        password = cluster.secrets["ironic-credentials"].password;
        assert.ok(username && password, "the credentials Secret holds username and password");

        // The provisioning network: a bridge, the control-plane node (eth1 = provisioning.ip) and a client.
        const sw = lab.addNamespace("sw");
        const br = lab.addBridge(sw, "br");
        node = lab.addNamespace("node");
        lab.plug(node, "nd", sw, br, { cidr: `${IRONIC_IP}/24`, rename: "eth1" });
        client = lab.addNamespace("cli");
        lab.plug(client, "cl", sw, br, { cidr: "172.22.0.9/24" });

        pod = new PodRunner({ name: "ironic-5d8f7c9b4-x2x7q", namespace: "metal3", spec, cluster, images, work, netns: node, nodeName: "cp-0", hostIP: IRONIC_IP, podIP: IRONIC_IP, hosts: cache.hosts });
        // The stack's IPA cache serves the images the pod's cache client fetches (no download in the Ironic pod).
        await cache.serve(node);
        await pod.runInitContainers();
        pod.startContainers();
        const names = spec.containers.map((c: any) => c.name);
        await waitFor(pod, names, () => pod.probe("ironic", "readinessProbe"), "the ironic container's readiness probe");
        await waitFor(pod, names, () => curl(client, [`http://${IRONIC_IP}:${PORTS.http}/images/ironic-python-agent.kernel`, "-o", "/dev/null"]).code === 200, "httpd's readiness path");
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed" && pod) printLogs([pod, ...variants]);
    });

    after(async function () {
        for (const p of variants) await p.stop();
        await pod?.stop();
        await cache?.stop();
        lab.destroy();
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it("starts every container of the dev Deployment (init containers first), and they keep running", async function () {
        assert.deepEqual(spec.initContainers.map((c: any) => c.name), ["provisioning-ip", "shared-dirs", "ipa-cache-client"]);
        const names: string[] = spec.containers.map((c: any) => c.name);
        assert.deepEqual([...names].sort(), ["dnsmasq", "httpd", "ironic", "ramdisk-logs"]);
        // Not a synchronisation (every container became ready in `before`): the window under test,
        // in which a container that starts and then dies would have exited.
        await sleep(5000);
        for (const c of names) assert.ok(pod.isRunning(c), `${c} is running (exit ${pod.exitCode(c)}):\n${tail(pod.logs(c))}`);
        assert.match(pod.logs("ironic"), /Successfully started conductor with hostname 172\.22\.0\.2/);
        // Reverse-proxy mode: the API listens on the unix socket httpd proxies to (Ironic 38 serves
        // it with cheroot and logs no listener line): a socket, mode 0666, seen from httpd's mounts.
        const sock = pod.exec("httpd", ["stat", "-c", "%F %a", "/shared/ironic.sock"]);
        assert.equal(sock.stdout.trim(), "socket 666", `the API's unix socket as httpd sees it: ${sock.stdout}${sock.stderr}`);
        assert.match(pod.logs("httpd"), /api: listening on .* port 6385 \(TLS\)/);
    });

    it("a secret Ironic option (nested --secret) comes from the stack's config-secrets file, which Ironic reads with --config-dir as the image starts it; no env holds it, no log shows it", function () {
        assert.equal(cluster.secrets["ironic-config-secrets"]["ironic.conf"], `[deploy]\nimage_server_password = "${SECRET_VALUE}"\n`);
        assert.equal(pod.exec("ironic", ["readlink", "/conf/ironic/zz-config-secrets.conf"]).stdout.trim(), "/etc/metal3-ironic/config-secrets/ironic.conf");
        // Ironic's configuration as its process loads it (runironic: --config-dir /conf/ironic), beside the rendered ironic.conf.
        assert.equal(ironicOptions(["--config-dir", "/conf/ironic"], ["deploy.image_server_password", "agent.deploy_logs_collect", "api.unix_socket"]), `${SECRET_VALUE} on_failure /shared/ironic.sock`);
        // The running Ironic dumps its options at start (secret ones masked) and the image prints every OS_* variable: never this value.
        assert.match(pod.logs("ironic"), /deploy\.image_server_password\s+= \*\*\*\*/, "Ironic loaded the option (its dump masks it)");
        assert.match(pod.logs("ironic"), /^OS_AGENT__DEPLOY_LOGS_COLLECT=on_failure$/m, "the start prints the OS_* environment");
        for (const c of spec.containers) assert.ok(!pod.logs(c.name).includes(SECRET_VALUE), `${c.name}'s log does not show it`);
        assert.ok(!JSON.stringify(spec).includes("s3cret"), "no pod field holds it");
        assert.ok(!pod.exec("ironic", ["env"]).stdout.includes(SECRET_VALUE), "not in the container's environment");
    });

    it("the ironic container's declared readiness and liveness probes pass", function () {
        assert.equal(pod.probe("ironic", "readinessProbe"), true);
        assert.equal(pod.probe("ironic", "livenessProbe"), true);
    });

    it("no credential reaches a log or a probe's output: the stand-ins trace as the image does (set -x, the htpasswd read while tracing), and the declared commands and probes discard the trace", function () {
        const { leaks, credentials } = credentialLeaks(pod, { probes: true });
        assert.deepEqual(credentials, ["ironic-credentials/htpasswd", "ironic-credentials/htpasswd hash"]);
        assert.deepEqual(leaks, []);
        // The same probe script without the declared prefix: the hash is in its trace, as the image's would be.
        const hash = cluster.secrets["ironic-credentials"].htpasswd.trim().split(":")[1];
        const bare = pod.exec("ironic", [COMMANDS.readiness]);
        assert.equal(bare.status, 0, bare.stderr);
        assert.ok(bare.stderr.includes(hash), "the bare probe traces the htpasswd hash");
    });

    it("serves the API over TLS on https://172.22.0.2:6385/v1 through httpd, verified with the stack CA from the cacert Secret", function () {
        const r = curl(client, ["--cacert", caFile, api("/v1")]);
        assert.equal(r.exit, 0, r.stderr);
        assert.equal(r.code, 200, r.body);
        const doc = JSON.parse(r.body);
        assert.equal(doc.id, "v1");
        // Ironic builds its links from [api]public_endpoint: the address clients use.
        assert.ok(doc.links.some((l: any) => l.href === api("/v1/")), JSON.stringify(doc.links));
        const wrongCa = curl(client, ["--cacert", otherCaFile, api("/v1")]);
        assert.equal(wrongCa.exit, 60, `another CA must not verify the server: ${wrongCa.stderr}`);
    });

    it("enforces basic auth with the credentials Secret: 401 without or with a wrong password, 200 with", function () {
        const none = curl(client, ["--cacert", caFile, api("/v1/nodes")]);
        assert.equal(none.code, 401, none.body);
        const wrong = curl(client, ["--cacert", caFile, "-u", `${username}:${password}x`, api("/v1/nodes")]);
        assert.equal(wrong.code, 401, wrong.body);
        const ok = curl(client, ["--cacert", caFile, "-u", `${username}:${password}`, "-H", `X-OpenStack-Ironic-API-Version: ${API_VERSION}`, api("/v1/nodes")]);
        assert.equal(ok.code, 200, ok.body);
        assert.deepEqual(JSON.parse(ok.body).nodes, []);
        // A write through the proxy reaches the conductor and its database.
        const created = curl(client, [
            "--cacert", caFile, "-u", `${username}:${password}`, "-H", `X-OpenStack-Ironic-API-Version: ${API_VERSION}`, "-H", "Content-Type: application/json",
            "-X", "POST", "-d", JSON.stringify({ name: "node-0", driver: "fake-hardware" }), api("/v1/nodes"),
        ]);
        assert.equal(created.code, 201, created.body);
        assert.equal(JSON.parse(created.body).provision_state, "enroll");
    });

    it("Ironic's own code hands BMCs an https virtual-media URL on port 6183, and httpd serves the file there with the stack CA", function () {
        // What the redfish-virtual-media boot interface does with a boot ISO: publish it under
        // [deploy]http_root/redfish and hand the BMC the URL (ironic.drivers.modules.image_utils).
        const marker = `virtual media image ${Date.now()}`;
        const url = publishVirtualMedia(pod, marker);
        assert.match(url, new RegExp(`^https://172\\.22\\.0\\.2:${PORTS.vmediaTls}/redfish/boot-[0-9a-f-]+\\.iso$`), `the URL Ironic gives the BMC: ${url}`);
        const got = curl(client, ["--cacert", caFile, url]);
        assert.equal(got.exit, 0, got.stderr);
        assert.equal(got.code, 200);
        assert.equal(got.body, marker);
    });

    it("the plain HTTP port refuses /redfish/ (virtual media only over TLS) but serves the boot scripts", function () {
        const w = pod.exec("ironic", ["bash", "-c", "mkdir -p /shared/html/redfish && printf plain-check > /shared/html/redfish/plain-check.iso"]);
        assert.equal(w.status, 0, w.stderr);
        const plain = curl(client, [`http://${IRONIC_IP}:${PORTS.http}/redfish/plain-check.iso`]);
        assert.equal(plain.code, 403, plain.body);
        assert.equal(curl(client, [`http://${IRONIC_IP}:${PORTS.http}/redfish/`]).code, 403);
        const tls = curl(client, ["--cacert", caFile, `https://${IRONIC_IP}:${PORTS.vmediaTls}/redfish/plain-check.iso`]);
        assert.equal(tls.code, 200, tls.stderr);
        assert.equal(tls.body, "plain-check");
        // Ironic writes boot.ipxe into http_root; runhttpd writes inspector.ipxe.
        const bootIpxe = curl(client, [`http://${IRONIC_IP}:${PORTS.http}/boot.ipxe`]);
        assert.equal(bootIpxe.code, 200);
        assert.match(bootIpxe.body, /^#!ipxe/);
        const inspector = curl(client, [`http://${IRONIC_IP}:${PORTS.http}/inspector.ipxe`]);
        assert.equal(inspector.code, 200);
        assert.match(inspector.body, /http:\/\/172\.22\.0\.2:6180\/images\/ironic-python-agent\.kernel .*ipa-inspection-callback-url=https:\/\/172\.22\.0\.2:6385\/v1\/continue_inspection/);
        assert.match(inspector.body, / console=ttyS0/, "ironic.kernelParams reaches the inspection kernel command line");
    });

    it("the stack's OS_* settings override the rendered ironic.conf, as oslo.config reads them", function () {
        const conf = pod.exec("ironic", ["cat", "/conf/ironic/ironic.conf"]).stdout;
        assert.match(conf, /^deploy_callback_timeout = 4800$/m, "the image's own value in the file");
        const options = ["conductor.deploy_callback_timeout", "pxe.boot_retry_timeout", "agent.deploy_logs_collect", "api.unix_socket", "deploy.external_http_url"];
        assert.equal(ironicOptions(["--config-file", "/conf/ironic/ironic.conf"], options), "3600 1800 on_failure /shared/ironic.sock https://172.22.0.2:6183");
    });

    it("without the reverse proxy Ironic serves TLS and basic auth itself; JSON-RPC runs over TLS with its own credentials", async function () {
        // A variant of the dev pod's ironic container alone, on other ports (httpd holds 6385).
        const rpc = { username: "rpc-user", password: "rpc-password-0123456789" };
        const variantCluster: ClusterData = {
            configMaps: cluster.configMaps,
            secrets: { ...cluster.secrets, "test-rpc": { ...rpc, htpasswd: htpasswdLine(rpc.username, bcrypt.hashSync(rpc.password, 4)) } },
        };
        const s = JSON.parse(JSON.stringify(spec));
        const c = s.containers.find((x: any) => x.name === "ironic");
        const env: Record<string, string> = { IRONIC_REVERSE_PROXY_SETUP: "false", IRONIC_LISTEN_PORT: "6395", IRONIC_ACCESS_PORT: "6395", IRONIC_EXPOSE_JSON_RPC: "true", IRONIC_JSON_RPC_PORT: "6199" };
        c.env = [...c.env.filter((e: any) => !(e.name in env)), ...Object.entries(env).map(([name, value]) => ({ name, value }))];
        s.volumes.push({ name: "rpc-auth", secret: { secretName: "test-rpc" } });
        c.volumeMounts.push({ name: "rpc-auth", mountPath: "/auth/ironic-rpc", readOnly: true });
        const p = new PodRunner({ name: "ironic-direct", namespace: "metal3", spec: s, cluster: variantCluster, images, work, netns: node, nodeName: "cp-0", hostIP: IRONIC_IP, podIP: IRONIC_IP });
        variants.push(p);
        p.startContainers(["ironic"]);
        const direct = (a: string[]) => curl(client, ["--cacert", caFile, ...a]);
        await waitFor(p, ["ironic"], () => direct([`https://${IRONIC_IP}:6395/v1`]).code === 200, "Ironic's own TLS API on 6395");
        assert.equal(direct([`https://${IRONIC_IP}:6395/v1/nodes`]).code, 401);
        assert.equal(direct(["-u", `${username}:${password}`, `https://${IRONIC_IP}:6395/v1/nodes`]).code, 200);
        assert.equal(p.probe("ironic", "readinessProbe"), true, "the probe follows the API to its port");
        // JSON-RPC: Ironic's own server (ironic_lib) with [ssl] cert/key, http_basic from /conf/ironic/htpasswd-rpc.
        const call = JSON.stringify({ jsonrpc: "2.0", method: "no_such_method", params: { context: {} }, id: "1" });
        const rpcUrl = `https://${IRONIC_IP}:6199`;
        const anon = direct(["-H", "Content-Type: application/json", "-d", call, rpcUrl]);
        assert.equal(anon.exit, 0, anon.stderr);
        assert.equal(anon.code, 401, anon.body);
        const authed = direct(["-u", `${rpc.username}:${rpc.password}`, "-H", "Content-Type: application/json", "-d", call, rpcUrl]);
        assert.equal(authed.code, 200, authed.body);
        assert.equal(JSON.parse(authed.body).jsonrpc, "2.0");
        const conf = p.exec("ironic", ["cat", "/conf/ironic/ironic.conf"]).stdout;
        assert.match(conf, /\[json_rpc\][\s\S]*use_ssl = true\ncafile = \/certs\/ca\/ironic\/tls\.crt/);
        assert.match(conf, /^auth_strategy = http_basic$/m);
    });

    describe("the stand-ins refuse a pod that breaks the image contract", function () {
        /** The dev pod with one change, run once (entrypoint only) in the same node namespace. */
        function runVariant(name: string, change: (s: any) => void, container = "ironic", argv = ["/bin/runironic"]): { status: number; stdout: string; stderr: string } {
            const s = JSON.parse(JSON.stringify(spec));
            change(s);
            const p = new PodRunner({ name, namespace: "metal3", spec: s, cluster, images, work, netns: node, nodeName: "cp-0", hostIP: IRONIC_IP, podIP: IRONIC_IP });
            return p.exec(container, argv, 60000);
        }
        const ironicOf = (s: any) => s.containers.find((c: any) => c.name === "ironic");

        it("a certificate mounted without its key", function () {
            const r = runVariant("no-key", (s) => {
                s.volumes.find((v: any) => v.name === "tls").secret.items = [{ key: "tls.crt", path: "tls.crt" }];
            });
            assert.equal(r.status, 1, r.stdout + r.stderr);
            assert.match(r.stderr, /FATAL: runironic: API TLS \(\/certs\/ironic\): certificate \/certs\/ironic\/tls\.crt is mounted without its key/);
        });

        it("/certs/vmedia mounted while VMEDIA_TLS_PORT is unset (the image's set -u abort)", function () {
            const r = runVariant("no-vmedia-port", (s) => {
                const c = ironicOf(s);
                c.env = c.env.filter((e: any) => e.name !== "VMEDIA_TLS_PORT");
                if (!c.volumeMounts.some((m: any) => m.mountPath === "/certs/vmedia")) c.volumeMounts.push({ name: "tls", mountPath: "/certs/vmedia", readOnly: true });
            });
            assert.equal(r.status, 1, r.stdout + r.stderr);
            assert.match(r.stderr, /FATAL: runironic: VMEDIA_TLS_PORT: unbound variable/);
        });

        it("no writable /conf on the read-only root file system", function () {
            const r = runVariant("no-conf", (s) => {
                const c = ironicOf(s);
                c.volumeMounts = c.volumeMounts.filter((m: any) => m.mountPath !== "/conf");
            });
            assert.equal(r.status, 1, r.stdout + r.stderr);
            assert.match(r.stderr, /FATAL: runironic: \/conf does not exist: mount a writable volume/);
        });

        it("httpd: a key mounted without its certificate for virtual media", function () {
            const r = runVariant(
                "vmedia-key-only",
                (s) => {
                    s.volumes.push({ name: "key-only", secret: { secretName: "ironic-tls", items: [{ key: "tls.key", path: "tls.key" }] } });
                    const c = s.containers.find((x: any) => x.name === "httpd");
                    c.volumeMounts = c.volumeMounts.filter((m: any) => m.mountPath !== "/certs/vmedia");
                    c.volumeMounts.push({ name: "key-only", mountPath: "/certs/vmedia", readOnly: true });
                },
                "httpd",
                ["/bin/runhttpd"],
            );
            assert.equal(r.status, 1, r.stdout + r.stderr);
            assert.match(r.stderr, /FATAL: runhttpd: virtual media TLS \(\/certs\/vmedia\): key \/certs\/vmedia\/tls\.key is mounted without its certificate/);
        });
    });
});

describe("ironic, MariaDB and keepalived stand-ins: the dev stack with database.kind mariadb and provisioning.keepalived (pod runner)", function () {
    this.timeout(600000);
    const lab = new NetnsLab();
    let work = "";
    let rendered: Rendered;
    let cluster: ClusterData;
    let images: Record<string, StandinImage>;
    let cache: ImageCacheLab | undefined;
    let node = "";
    let dbNs = "";
    let jobNs = "";
    let client = "";
    const NODE_IP = "172.22.0.3";
    const DB_IP = "172.22.0.50";
    const JOB_IP = "172.22.0.51";
    let hosts: Record<string, string> = {};
    let db: PodRunner;
    let ironicPod: PodRunner | undefined;
    const pods: PodRunner[] = [];
    let caFile = "";
    let auth = "";

    const newPod = (name: string, spec: any, netns: string, podIP: string) => {
        const p = new PodRunner({ name, namespace: "metal3", spec, cluster, images, work, netns, nodeName: "cp-0", hostIP: NODE_IP, podIP, hosts });
        pods.push(p);
        return p;
    };
    const eth1 = () => run("ip", ["-n", node, "-br", "addr", "show", "dev", "eth1"]).stdout;
    const apiGet = (p: string) => curl(client, ["--cacert", caFile, "-u", auth, "-H", `X-OpenStack-Ironic-API-Version: ${API_VERSION}`, `https://${IRONIC_IP}:${PORTS.api}${p}`]);

    before(async function () {
        prerequisites(this);
        const dev = readStackConfig(DEV) as any;
        ({ rendered, cluster } = await renderStack({ ...dev, database: { kind: "mariadb" }, provisioning: { ...dev.provisioning, keepalived: true } }));
        work = tmpDir("pod-ironic-db");
        fs.chmodSync(work, 0o755);
        images = prepareImages(work);
        caFile = path.join(work, "stack-ca.crt");
        fs.writeFileSync(caFile, cluster.secrets["ironic-cacert"]["tls.crt"]);
        auth = `${cluster.secrets["ironic-credentials"].username}:${cluster.secrets["ironic-credentials"].password}`;
        const mariadbService = objectOf(rendered, "Service", "mariadb");
        cache = new ImageCacheLab({ rendered, cluster, images, work });
        hosts = { [`${mariadbService.metadata.name}.${mariadbService.metadata.namespace}.svc`]: DB_IP, ...cache.hosts };

        const sw = lab.addNamespace("sw");
        const br = lab.addBridge(sw, "br");
        // The node's own address; the provisioning IP is the VIP keepalived must bring up.
        node = lab.addNamespace("node");
        lab.plug(node, "nd", sw, br, { cidr: `${NODE_IP}/24`, rename: "eth1" });
        // Pod network stand-ins (MariaDB and the Jobs are not host-network pods) and a client.
        dbNs = lab.addNamespace("db");
        lab.plug(dbNs, "db", sw, br, { cidr: `${DB_IP}/24`, rename: "eth0" });
        jobNs = lab.addNamespace("job");
        lab.plug(jobNs, "jb", sw, br, { cidr: `${JOB_IP}/24`, rename: "eth0" });
        client = lab.addNamespace("cli");
        lab.plug(client, "cl", sw, br, { cidr: "172.22.0.9/24" });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") printLogs(pods);
    });

    after(async function () {
        for (const p of [...pods].reverse()) await p.stop();
        await cache?.stop();
        lab.destroy();
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it("MariaDB initialises the empty volume, runs the first-start SQL once and passes its health check", async function () {
        db = newPod("ironic-mariadb-0", objectOf(rendered, "StatefulSet", "mariadb").spec.template.spec, dbNs, DB_IP);
        db.startContainers();
        await waitFor(db, ["mariadb"], () => db.probe("mariadb", "readinessProbe"), "healthcheck.sh --connect --innodb_initialized", 120000);
        const log = db.logs("mariadb");
        assert.match(log, /running \/docker-entrypoint-initdb\.d\/10-ironic\.sql/);
        assert.match(log, /mariadbd: ready for connections[\s\S]*port: 3306/);
        assert.equal(db.probe("mariadb", "livenessProbe"), true);
    });

    it("the dbsync Job (rundatabase-upgrade) upgrades the schema over TLS to the Service name and completes", async function () {
        const job = objectOf(rendered, "Job", "dbsync");
        const p = newPod(`${job.metadata.name}-abcde`, job.spec.template.spec, jobNs, JOB_IP);
        const code = await runToCompletion(p);
        const log = p.logs(job.spec.template.spec.containers[0].name);
        assert.equal(code, 0, tail(log));
        assert.match(log, /database: MariaDB ironic@ironic-mariadb\.metal3\.svc\/ironic \(TLS: true\)/);
        assert.match(log, /Running upgrade .*-> 4dbec778866e/);
    });

    it("keepalived brings up the VIP, the ironic container waits for it and runs on MariaDB; the API works through httpd", async function () {
        assert.doesNotMatch(eth1(), /172\.22\.0\.2\//, "the VIP is not up before the pod starts");
        const spec = ironicDeploymentOf(rendered).spec.template.spec;
        assert.ok(spec.containers.some((c: any) => c.name === "keepalived"));
        ironicPod = newPod("ironic-7c9d8b6f5-k8w2p", spec, node, NODE_IP);
        await cache!.serve(node);
        await ironicPod.runInitContainers();
        ironicPod.startContainers();
        const names = spec.containers.map((c: any) => c.name);
        await waitFor(ironicPod, names, () => ironicPod!.probe("ironic", "readinessProbe"), "the ironic container's readiness probe");
        assert.match(eth1(), /172\.22\.0\.2\/24/, "keepalived holds provisioning.ip with the CIDR's prefix");
        assert.match(ironicPod.logs("keepalived"), /holding 172\.22\.0\.2\/24 on eth1/);
        assert.match(ironicPod.logs("ironic"), /IRONIC_SKIP_DBSYNC=true: the schema is left to the upgrade Job/);
        assert.match(ironicPod.logs("ironic"), /Successfully started conductor with hostname 172\.22\.0\.2/);
        await waitFor(ironicPod, names, () => apiGet("/v1/nodes").code === 200, "the API through httpd");
        const created = curl(client, [
            "--cacert", caFile, "-u", auth, "-H", `X-OpenStack-Ironic-API-Version: ${API_VERSION}`, "-H", "Content-Type: application/json",
            "-X", "POST", "-d", JSON.stringify({ name: "node-db", driver: "fake-hardware" }), `https://${IRONIC_IP}:${PORTS.api}/v1/nodes`,
        ]);
        assert.equal(created.code, 201, created.body);
    });

    it("the migrate Job (runonline-data-migrations) completes against the same database", async function () {
        const job = objectOf(rendered, "Job", "migrate");
        const p = newPod(`${job.metadata.name}-fghij`, job.spec.template.spec, jobNs, JOB_IP);
        const code = await runToCompletion(p);
        const log = p.logs(job.spec.template.spec.containers[0].name);
        assert.equal(code, 0, tail(log));
        assert.match(log, /running ironic-dbsync online_data_migrations/);
    });

    it("a restarted MariaDB container keeps its volume: no second initialisation, and Ironic's node is still there", async function () {
        // The kubelet restarting the container (crash, failed liveness probe): same pod and volumes.
        await db.stop();
        db.startContainer("mariadb");
        await waitFor(db, ["mariadb"], () => db.probe("mariadb", "readinessProbe"), "MariaDB's health check after a restart", 120000);
        // Both runs log to the container's one log file.
        const log = db.logs("mariadb");
        assert.equal(log.split("running /docker-entrypoint-initdb.d/10-ironic.sql").length - 1, 1, "the first-start SQL ran exactly once");
        assert.match(log, /is initialized: skipping initialization/);
        assert.match(log, /MariaDB upgrade not required/, "MARIADB_AUTO_UPGRADE=1 with the same server version");
        await waitFor(ironicPod!, ["ironic"], () => apiGet("/v1/nodes/node-db").code === 200, "the node through the API after the database restart", 90000);
    });

    it("keepalived releases the VIP when the pod stops", async function () {
        await ironicPod!.stop();
        assert.doesNotMatch(eth1(), /172\.22\.0\.2\//);
        assert.match(eth1(), /172\.22\.0\.3\/24/, "the node's own address stays");
    });
});
