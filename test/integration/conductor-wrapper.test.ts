/**
 * The multi-conductor start wrapper, run by real bash: it resolves the node's entry, fails with
 * what to add when there is none, mints the container's certificate from the conductor CA with
 * the real conductor-cert.py (Debian's python3-cryptography here; the image's release from PyPI in
 * conductor-cert.test.ts), and restarts its container only when this node's data or the conductor
 * CA changes.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { renderConductorWrapper } from "../../core/plan/conductor";
import { renderEnvFile } from "../../core/render/envfile";
import { readAsset } from "../../core/render/assets";
import { makeCa, makeIntermediate } from "../helpers/openssl-ca";
import { requireOrSkip, run, tmpDir, which } from "../helpers/sys";

describe("conductor start wrapper (bash)", function () {
    this.timeout(30000);
    let dir = "";
    let wrapper = "";
    let env: NodeJS.ProcessEnv = {};
    let root = "";

    before(function () {
        requireOrSkip(this, ["openssl", "/usr/bin/python3"].every((c) => !!which(c)) && run("/usr/bin/python3", ["-c", "import cryptography"], { allowFail: true }).status === 0, "openssl, python3-cryptography");
    });

    beforeEach(function () {
        dir = tmpDir("wrapper");
        wrapper = path.join(dir, "conductor-start.sh");
        fs.writeFileSync(wrapper, renderConductorWrapper());
        for (const d of ["data", "ca", "scripts", "out-a", "out-b"]) fs.mkdirSync(path.join(dir, d));
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.3", IRONIC_CONDUCTOR_HOST: "172.22.0.3", CONDUCTOR_NODE_IP: "172.22.0.3", ODD: "it's $HOME" }));
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.4", CONDUCTOR_NODE_IP: "172.22.0.4" }));
        fs.writeFileSync(path.join(dir, "scripts", "conductor-cert.py"), readAsset("conductor-cert.py"));
        root = makeCa(path.join(dir, "root"));
        makeIntermediate(root, path.join(dir, "ca"));
        env = {
            PATH: process.env.PATH,
            NODE_NAME: "cp-1",
            CONDUCTOR_NAMESPACE: "metal3",
            CONDUCTOR_CONFIGMAP: "ironic-conductors",
            CONDUCTOR_DATA_DIR: path.join(dir, "data"),
            CONDUCTOR_CA_DIR: path.join(dir, "ca"),
            CONDUCTOR_SCRIPTS_DIR: path.join(dir, "scripts"),
            CONDUCTOR_PYTHON: "/usr/bin/python3",
            CONDUCTOR_CERT_SANS: "DNS:ironic DNS:ironic.metal3.svc",
            CONDUCTOR_CERT_DIRS: `${path.join(dir, "out-a")} ${path.join(dir, "out-b")}`,
            CONDUCTOR_WATCH_INTERVAL: "0.2",
        };
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("exports the node's environment (quoted safely) and mints one certificate for the node's address into every cert dir", function () {
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$PROVISIONING_IP|$IRONIC_CONDUCTOR_HOST|$ODD"'], { env });
        assert.equal(r.stdout.trim().split("\n").pop(), "172.22.0.3|172.22.0.3|it's $HOME");
        const crt = fs.readFileSync(path.join(dir, "out-a", "tls.crt"), "utf8");
        for (const f of ["tls.crt", "tls.key"]) assert.equal(fs.readFileSync(path.join(dir, "out-b", f), "utf8"), fs.readFileSync(path.join(dir, "out-a", f), "utf8"), `out-b/${f}`);
        assert.equal(fs.statSync(path.join(dir, "out-a", "tls.key")).mode & 0o777, 0o600);
        // The chain as served: this certificate, then the conductor CA; the stack CA verifies it for this IP.
        assert.ok(crt.endsWith(fs.readFileSync(path.join(dir, "ca", "tls.crt"), "utf8")));
        const v = run("openssl", ["verify", "-CAfile", path.join(root, "ca.crt"), "-untrusted", path.join(dir, "ca", "tls.crt"), "-verify_ip", "172.22.0.3", "-purpose", "sslserver", path.join(dir, "out-a", "tls.crt")], { allowFail: true });
        assert.equal(v.status, 0, v.stdout + v.stderr);
        const text = run("openssl", ["x509", "-noout", "-subject", "-ext", "subjectAltName", "-in", path.join(dir, "out-a", "tls.crt")]).stdout;
        assert.match(text, /CN\s*=\s*cp-1\b/);
        assert.match(text, /IP Address:172\.22\.0\.3, DNS:cp-1, DNS:ironic, DNS:ironic\.metal3\.svc/);
        assert.ok(!text.includes("172.22.0.4"));
        // The key matches the certificate.
        const pub = (args: string[]) => run("openssl", args).stdout;
        assert.equal(pub(["x509", "-noout", "-pubkey", "-in", path.join(dir, "out-a", "tls.crt")]), pub(["pkey", "-pubout", "-in", path.join(dir, "out-a", "tls.key")]));
    });

    it("fails, naming the file, when the conductor CA is unusable: its key missing, or a certificate that is no CA", function () {
        fs.rmSync(path.join(dir, "ca", "tls.key"));
        let r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /conductor-cert: cannot read the conductor CA in .*\/ca: .*tls\.key/);
        // A leaf signed by the stack CA in its place.
        makeIntermediate(root, path.join(dir, "ca"), { ca: false });
        r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /tls\.crt is not a CA certificate \(basicConstraints CA:TRUE missing\)/);
        assert.ok(!fs.existsSync(path.join(dir, "out-a", "tls.crt")), "nothing written");
    });

    it("fails when the node's entry names no address for its certificate", function () {
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.3" }));
        const r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 1);
        assert.match(r.stderr, /node cp-1's entry sets no CONDUCTOR_NODE_IP/);
    });

    it("passes the command's exit status through", function () {
        assert.equal(run("bash", [wrapper, "bash", "-c", "exit 7"], { env, allowFail: true }).status, 7);
    });

    it("fails on a node without an entry and says what to add to stack config", function () {
        const r = run("bash", [wrapper, "true"], { env: { ...env, NODE_NAME: "cp-9" }, allowFail: true });
        assert.equal(r.status, 1);
        assert.match(r.stderr, /node cp-9 has no conductor entry in ConfigMap metal3\/ironic-conductors/);
        assert.match(r.stderr, /pulumi config set --path 'metal3-ironic:conductors\[N\]\.name' cp-9/);
    });

    function start(): { exited: Promise<{ code: number | null; out: string }>; kill: () => void; alive: () => boolean } {
        const child = spawn("bash", [wrapper, "sleep", "60"], { env });
        let out = "";
        let done = false;
        child.stdout.on("data", (d) => (out += d));
        child.stderr.on("data", (d) => (out += d));
        const exited = new Promise<{ code: number | null; out: string }>((res) =>
            child.on("exit", (code) => {
                done = true;
                res({ code, out });
            }),
        );
        return { exited, kill: () => child.kill("SIGTERM"), alive: () => !done };
    }

    it("restarts (exits) when this node's entry changes, and not when another node's does", async function () {
        const w = start();
        await new Promise((r) => setTimeout(r, 2500)); // minted, watching
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.99" }));
        await new Promise((r) => setTimeout(r, 1000));
        assert.ok(w.alive(), "another node's change must not restart this conductor");
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.33" }));
        const t0 = Date.now();
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /per-node data of cp-1 or the conductor CA changed: restarting/);
        assert.ok(Date.now() - t0 < 5000);
    });

    it("restarts (exits) when the conductor CA is re-issued, so the next start mints from the new one", async function () {
        const w = start();
        await new Promise((r) => setTimeout(r, 2500));
        assert.ok(w.alive());
        makeIntermediate(root, path.join(dir, "ca"));
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /conductor-cert: minted .*out-a\/tls\.crt for cp-1 \(IP:172\.22\.0\.3, DNS:cp-1, DNS:ironic, DNS:ironic\.metal3\.svc\)/);
        assert.match(out, /per-node data of cp-1 or the conductor CA changed: restarting/);
    });

    it("forwards SIGTERM to the command", async function () {
        const w = start();
        await new Promise((r) => setTimeout(r, 2500));
        const t0 = Date.now();
        w.kill();
        await w.exited;
        assert.ok(Date.now() - t0 < 3000, "stopped promptly");
    });
});
