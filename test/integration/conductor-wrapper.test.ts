/**
 * The multi-conductor start wrapper, run by real bash: it resolves the node's entry, fails with
 * what to add when there is none, and restarts its container only when this node's data changes.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { renderConductorWrapper } from "../../core/plan/conductor";
import { renderEnvFile } from "../../core/render/envfile";
import { run, tmpDir } from "../helpers/sys";

describe("conductor start wrapper (bash)", function () {
    this.timeout(30000);
    let dir = "";
    let wrapper = "";
    let env: NodeJS.ProcessEnv = {};

    beforeEach(function () {
        dir = tmpDir("wrapper");
        wrapper = path.join(dir, "conductor-start.sh");
        fs.writeFileSync(wrapper, renderConductorWrapper());
        for (const d of ["data", "certs", "out-a", "out-b"]) fs.mkdirSync(path.join(dir, d));
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.3", IRONIC_CONDUCTOR_HOST: "172.22.0.3", ODD: "it's $HOME" }));
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.4" }));
        fs.writeFileSync(path.join(dir, "certs", "cp-1.tls.crt"), "CERT-cp-1\n");
        fs.writeFileSync(path.join(dir, "certs", "cp-1.tls.key"), "KEY-cp-1\n");
        env = {
            PATH: process.env.PATH,
            NODE_NAME: "cp-1",
            CONDUCTOR_NAMESPACE: "metal3",
            CONDUCTOR_CONFIGMAP: "ironic-conductors",
            CONDUCTOR_DATA_DIR: path.join(dir, "data"),
            CONDUCTOR_CERTS_DIR: path.join(dir, "certs"),
            CONDUCTOR_CERT_DIRS: `${path.join(dir, "out-a")} ${path.join(dir, "out-b")}`,
            CONDUCTOR_WATCH_INTERVAL: "0.2",
        };
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("exports the node's environment (quoted safely) and places its certificate", function () {
        const r = run("bash", [wrapper, "bash", "-c", 'echo "$PROVISIONING_IP|$IRONIC_CONDUCTOR_HOST|$ODD"'], { env });
        assert.equal(r.stdout.trim(), "172.22.0.3|172.22.0.3|it's $HOME");
        for (const d of ["out-a", "out-b"]) {
            assert.equal(fs.readFileSync(path.join(dir, d, "tls.crt"), "utf8"), "CERT-cp-1\n");
            assert.equal(fs.readFileSync(path.join(dir, d, "tls.key"), "utf8"), "KEY-cp-1\n");
        }
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

    it("fails when the node's certificate is missing", function () {
        fs.rmSync(path.join(dir, "certs", "cp-1.tls.key"));
        const r = run("bash", [wrapper, "true"], { env, allowFail: true });
        assert.equal(r.status, 1);
        assert.match(r.stderr, /no certificate for node cp-1/);
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
        await new Promise((r) => setTimeout(r, 600));
        fs.writeFileSync(path.join(dir, "data", "cp-2.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.99" }));
        await new Promise((r) => setTimeout(r, 1000));
        assert.ok(w.alive(), "another node's change must not restart this conductor");
        fs.writeFileSync(path.join(dir, "data", "cp-1.env"), renderEnvFile({ PROVISIONING_IP: "172.22.0.33" }));
        const t0 = Date.now();
        const { code, out } = await w.exited;
        assert.equal(code, 0);
        assert.match(out, /per-node data of cp-1 changed: restarting/);
        assert.ok(Date.now() - t0 < 5000);
    });

    it("forwards SIGTERM to the command", async function () {
        const w = start();
        await new Promise((r) => setTimeout(r, 400));
        const t0 = Date.now();
        w.kill();
        await w.exited;
        assert.ok(Date.now() - t0 < 3000, "stopped promptly");
    });
});
