/**
 * The live readiness check (assets/ironic-readiness.py) against real Ironic: Debian's ironic-api
 * and three ironic-conductor processes on MariaDB (test/helpers/ironic-lab.ts), the API over TLS
 * with a certificate for the program's Service names, HTTP basic auth, and the program's
 * heartbeat timing. The script runs exactly as the Command runs it (`/bin/sh -c "python3 -"`, the
 * script on stdin) with the environment the program gives it (the offline render of the ha stack),
 * only the API address, the CA and the credentials taken from the lab. The conductors register
 * under the hostnames the program configures (each node's IRONIC_CONDUCTOR_HOST), listening on
 * loopback aliases; port-forward mode runs test/standins/kubectl, which relays to the lab's API.
 * Per-run ports and work directory: two runs can share the machine. KEEP_WORK=1 keeps the work
 * directory; the daemons' log tails are printed on a failure.
 */
import { strict as assert } from "assert";
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { osloEnvName } from "../../core/contract";
import { READINESS_COMMAND } from "../../core/plan/readiness";
import { FAILOVER_SETTINGS } from "../../core/timings";
import { unwrapSecrets } from "../../tools/offline";
import { readStackConfig, renderOffline } from "../../tools/render";
import { IronicLab, LabConductor, printLogTails, TestCa, until } from "../helpers/ironic-lab";
import { isRoot, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { planOf } from "../helpers/plan";

const ROOT = path.join(__dirname, "..", "..");
const KUBECTL_STANDIN = path.join(ROOT, "test", "standins", "kubectl", "usr", "bin");
const PASSWORD = "readiness-api-password-from-the-test";
const CONTEXT = "lab-admin";

interface Outcome {
    status: number | null;
    stdout: string;
    stderr: string;
    ms: number;
}

interface Running {
    proc: ChildProcess;
    stderr: () => string;
    done: Promise<Outcome>;
}

describe("live readiness against real Ironic: 3 of 3 alive passes, a killed conductor is named", function () {
    this.timeout(900000);
    const haRaw = { ...readStackConfig(path.join(ROOT, "Pulumi.ha.yaml")), kubernetes: { context: CONTEXT } };
    let work = "";
    let lab: IronicLab;
    let ca: TestCa;
    let script = "";
    /** The Command's environment as the program renders it (credentials: the ones the lab uses). */
    let programEnv: Record<string, string> = {};
    let expected: string[] = [];
    const conductors: LabConductor[] = [];
    const basePath = () => `${process.env.PATH ?? "/usr/bin:/bin"}`;

    const postMortem = (what: string) => {
        printLogTails(what, lab?.logFiles() ?? [], 40);
        console.error(work && process.env.KEEP_WORK === "1" ? `work directory kept: ${work}` : `work directory ${work} is removed after the suite; KEEP_WORK=1 keeps it`);
    };

    before(async function () {
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        requireOrSkip(this, !!which("mariadbd") && !!which("openssl") && !!which("python3"), "mariadb-server, openssl, python3");
        requireOrSkip(this, isRoot(), "root (the lab's MariaDB runs as the mysql user)");
        work = tmpDir("readiness");
        try {
            await setUp();
        } catch (e) {
            postMortem(`set-up failed (${(e as Error).message.split("\n")[0]})`);
            throw e;
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") postMortem(`"${this.currentTest.title}" failed`);
    });

    after(async function () {
        if (lab) await lab.stop();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    async function setUp() {
        // What the program hands to the Command (known password from the random provider's stand-in).
        const rendered = await renderOffline(haRaw, "ha", {
            hook: (type) => (type === "random:index/randomPassword:RandomPassword" ? { result: PASSWORD, bcryptHash: "(unused)" } : undefined),
        });
        const command = rendered.resources.find((r) => r.type === "command:local:Command");
        assert.ok(command, "the ha stack registers the readiness Command");
        const inputs = unwrapSecrets(command!.rawInputs);
        assert.equal(inputs.create, READINESS_COMMAND);
        script = inputs.stdin;
        programEnv = inputs.environment;
        expected = programEnv.READINESS_CONDUCTORS.split(",");
        assert.deepEqual(expected, ["172.22.0.2", "172.22.0.3", "172.22.0.4"], "each node's IRONIC_CONDUCTOR_HOST");
        assert.equal(programEnv.READINESS_PASSWORD, PASSWORD);

        // The API's certificate carries the program's API names (the Service names) and the lab's address.
        const plan = planOf(haRaw);
        ca = new TestCa(path.join(work, "ca"));
        const apiTls = { certFile: path.join(work, "api", "tls.crt"), keyFile: path.join(work, "api", "tls.key"), caFile: ca.certFile };
        ca.issue("ironic-api", { dnsNames: plan.certificate.dnsNames, ipAddresses: ["127.0.0.1"] }, apiTls.certFile, apiTls.keyFile);

        // The program's heartbeat timing, on the API (it computes `alive`) and the conductors.
        const timing = Object.fromEntries(FAILOVER_SETTINGS.map(([g, o, v]) => [osloEnvName(g, o), v]));
        lab = new IronicLab({ work, api: { username: programEnv.READINESS_USERNAME, password: PASSWORD }, rpc: { username: "ironic-rpc", password: "rpc-password-from-the-test" }, apiEnv: timing, apiTls });
        // [DEFAULT]host is the hostname the program configures; the process listens on a loopback alias.
        expected.forEach((host, i) => conductors.push(lab.addConductor(`127.0.0.${31 + i}`, timing, { DEFAULT: { host } })));
        await lab.startDatabase();
        await lab.writeConfig();
        lab.dbsync();
        lab.startApi();
        for (const c of conductors) lab.startConductor(c);
        await lab.untilRunning(async () => (await lab.aliveConductors()).length === 3, 240000, "API and 3 conductors alive", 500);
        assert.deepEqual(await lab.aliveConductors(), expected);
    }

    /** The program's environment with the lab's API address and CA; `extra` last. */
    function envFor(extra: Record<string, string>): Record<string, string> {
        return {
            ...programEnv,
            READINESS_API_URL: `https://127.0.0.1:${lab.apiPort}`,
            READINESS_CA_PEM: fs.readFileSync(ca.certFile, "utf8"),
            READINESS_INTERVAL: "1",
            PATH: basePath(),
            ...extra,
        };
    }

    /** Run the script as the Command does; `env` is its whole environment. */
    function start(env: Record<string, string>): Running {
        const t0 = Date.now();
        const proc = spawn("/bin/sh", ["-c", READINESS_COMMAND], { env, stdio: ["pipe", "pipe", "pipe"] });
        let stdout = "";
        let stderr = "";
        proc.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
        proc.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
        proc.stdin!.end(script);
        const done = new Promise<Outcome>((resolve) => proc.on("close", (status) => resolve({ status, stdout, stderr, ms: Date.now() - t0 })));
        return { proc, stderr: () => stderr, done };
    }

    const check = (env: Record<string, string>) => start(env).done;

    function neverPrintsPassword(o: Outcome, ...passwords: string[]) {
        for (const p of [PASSWORD, ...passwords]) assert.ok(!o.stdout.includes(p) && !o.stderr.includes(p), "the password is never printed");
    }

    const lines = (s: string) => s.split("\n").filter((l) => l !== "");

    function pidAlive(pid: number): boolean {
        try {
            process.kill(pid, 0);
            return true;
        } catch {
            return false;
        }
    }

    it("in-cluster: with 3 of 3 alive it exits 0 and prints exactly the configured conductors (single: any one)", async function () {
        const o = await check(envFor({ READINESS_MODE: "in-cluster", READINESS_TIMEOUT: "60" }));
        assert.equal(o.status, 0, o.stderr);
        assert.deepEqual(lines(o.stdout), expected);
        assert.match(o.stderr, /ready: 172\.22\.0\.2, 172\.22\.0\.3, 172\.22\.0\.4 alive/);
        assert.match(o.stderr, /\(in-cluster: https:\/\/127\.0\.0\.1:\d+\)/);
        neverPrintsPassword(o);
        // The single topology expects no particular host name: any alive conductor will do.
        const single = await check(envFor({ READINESS_MODE: "in-cluster", READINESS_CONDUCTORS: "", READINESS_TIMEOUT: "60" }));
        assert.equal(single.status, 0, single.stderr);
        assert.deepEqual(lines(single.stdout), expected);
    });

    it("auto inside a cluster (KUBERNETES_SERVICE_HOST set) calls the API directly: kubectl is not run", async function () {
        const log = path.join(work, "kubectl-auto-in-cluster.log");
        const o = await check(envFor({ KUBERNETES_SERVICE_HOST: "10.96.0.1", PATH: `${KUBECTL_STANDIN}:${basePath()}`, STANDIN_KUBECTL_LOG: log, READINESS_TIMEOUT: "60" }));
        assert.equal(programEnv.READINESS_MODE, "auto");
        assert.equal(o.status, 0, o.stderr);
        assert.deepEqual(lines(o.stdout), expected);
        assert.ok(!fs.existsSync(log), "kubectl was run");
    });

    it("port-forward (auto outside a cluster): kubectl with the provider's context, the namespace, Service and port; TLS checked for the Service name; kubectl stopped after", async function () {
        const log = path.join(work, "kubectl-port-forward.log");
        const o = await check(envFor({ PATH: `${KUBECTL_STANDIN}:${basePath()}`, STANDIN_KUBECTL_LOG: log, STANDIN_KUBECTL_TARGET: `127.0.0.1:${lab.apiPort}`, READINESS_TIMEOUT: "60" }));
        assert.equal(o.status, 0, o.stderr);
        assert.deepEqual(lines(o.stdout), expected);
        assert.equal(programEnv.READINESS_TLS_NAME, "ironic.metal3.svc", "verified against the Service name");
        const calls = lines(fs.readFileSync(log, "utf8")).map((l) => JSON.parse(l));
        assert.equal(calls.length, 1);
        assert.deepEqual(calls[0].args, ["--context", CONTEXT, "--namespace", "metal3", "port-forward", "--address", "127.0.0.1", "service/ironic", ":6385"]);
        assert.ok(!pidAlive(calls[0].pid), "kubectl port-forward is stopped when the check ends");
        assert.match(o.stderr, /port-forward: kubectl port-forward service\/ironic \(namespace metal3, context lab-admin\)/);
        neverPrintsPassword(o);
    });

    it("trusts nothing else: a certificate for another name, wrong credentials, no kubectl; the password is never printed", async function () {
        const viaKubectl = { PATH: `${KUBECTL_STANDIN}:${basePath()}`, STANDIN_KUBECTL_TARGET: `127.0.0.1:${lab.apiPort}`, READINESS_TIMEOUT: "3" };
        const wrongName = await check(envFor({ ...viaKubectl, READINESS_TLS_NAME: "ironic.other.svc" }));
        assert.equal(wrongName.status, 1, wrongName.stderr);
        assert.match(wrongName.stderr, /TLS: the API's certificate is not valid for ironic\.other\.svc or not signed by the stack CA/);
        assert.match(wrongName.stderr, /conductors never came alive within 3 s: 172\.22\.0\.2, 172\.22\.0\.3, 172\.22\.0\.4/);
        assert.equal(wrongName.stdout, "");

        const wrong = "not-the-password";
        const refused = await check(envFor({ READINESS_MODE: "in-cluster", READINESS_PASSWORD: wrong, READINESS_TIMEOUT: "3" }));
        assert.equal(refused.status, 1, refused.stderr);
        assert.match(refused.stderr, /HTTP 401, the API refused the credentials/);
        neverPrintsPassword(refused, wrong);

        // A PATH with python3 and nothing else: port-forward cannot work, and says why at once.
        const bin = path.join(work, "python-only");
        fs.mkdirSync(bin, { recursive: true });
        const python = run("python3", ["-c", "import sys; print(sys.executable)"]).stdout.trim();
        if (!fs.existsSync(path.join(bin, "python3"))) fs.symlinkSync(python, path.join(bin, "python3"));
        const noKubectl = await check(envFor({ PATH: bin, READINESS_MODE: "port-forward", READINESS_TIMEOUT: "60" }));
        assert.equal(noKubectl.status, 2, noKubectl.stderr);
        assert.match(noKubectl.stderr, /kubectl is not on PATH/);
        assert.ok(noKubectl.ms < 30000, `gave up at once, not after the timeout (${noKubectl.ms} ms)`);
    });

    it("a conductor killed by its PID: fails within its timeout, naming it and what it saw", async function () {
        const victim = conductors[1];
        const host = expected[1];
        await victim.daemon!.kill();
        // Ironic reports a conductor alive until its last heartbeat is older than heartbeat_timeout (10 s here).
        await until(async () => !(await lab.aliveConductors()).includes(host), 120000, `${host} reported dead by the API`, 500);
        const o = await check(envFor({ READINESS_MODE: "in-cluster", READINESS_TIMEOUT: "4" }));
        assert.equal(o.status, 1, o.stderr);
        assert.ok(o.ms >= 4000 && o.ms < 4000 + 15000, `failed after ${o.ms} ms (timeout 4 s)`);
        assert.equal(o.stdout, "", "nothing on stdout: conductorsAlive gets no value");
        assert.match(o.stderr, new RegExp(`conductors never came alive within 4 s: ${host.replace(/\./g, "\\.")} \\(expected 172\\.22\\.0\\.2, 172\\.22\\.0\\.3, 172\\.22\\.0\\.4\\)`));
        assert.match(o.stderr, /Last seen: GET \/v1\/conductors: 172\.22\.0\.2 alive, 172\.22\.0\.3 not alive, 172\.22\.0\.4 alive/);
        assert.match(o.stderr, /readiness\.enabled false turns this check off/);
        neverPrintsPassword(o);
        console.log(`      what a failed check prints (after ${(o.ms / 1000).toFixed(1)} s):\n${o.stderr.trimEnd().replace(/^/gm, "        ")}`);
    });

    it("waits: the killed conductor started again while the check polls makes it pass", async function () {
        const victim = conductors[1];
        const host = expected[1];
        const running = start(envFor({ READINESS_MODE: "in-cluster", READINESS_TIMEOUT: "240" }));
        await until(() => running.stderr().includes(`not ready yet: GET /v1/conductors: 172.22.0.2 alive, ${host} not alive`), 30000, "the check to report the missing conductor");
        lab.startConductor(victim);
        const o = await running.done;
        assert.equal(o.status, 0, o.stderr);
        assert.deepEqual(lines(o.stdout), expected);
        assert.deepEqual(await lab.aliveConductors(), expected);
    });
});
