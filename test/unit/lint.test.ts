/**
 * The project's scripts as real programs see them: shellcheck on every bash script (the pod
 * scripts under assets/ and the image stand-ins under test/standins/), `python3 -m py_compile`
 * on every Python file. Part of `npm test`, so CI (.ci/run installs shellcheck) counts it; locally
 * a missing shellcheck or python3 skips, in CI it fails (requireOrSkip).
 *
 * shellcheck runs at its default severity (everything down to style) with `-x -P SCRIPTDIR`, so
 * the `# shellcheck source=…` lines of the stand-ins are followed relative to each script. The
 * last tests run the same commands on broken files, so a linter that checks nothing fails here.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { requireOrSkip, tmpDir, which } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const ASSETS = path.join(ROOT, "assets");
const STANDINS = path.join(ROOT, "test", "standins");

function walk(dir: string): string[] {
    return fs
        .readdirSync(dir, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []))
        .sort();
}

const firstLine = (f: string) => fs.readFileSync(f, "utf8").split("\n", 1)[0];
/** Bash by name (`.sh`, also the sourced libraries without a shebang) or by shebang. */
const isShell = (f: string) => f.endsWith(".sh") || /^#!.*\b(bash|sh)\b/.test(firstLine(f));
const isPython = (f: string) => f.endsWith(".py") || /^#!.*\bpython[0-9.]*\b/.test(firstLine(f));

const rel = (f: string) => path.relative(ROOT, f);

/** Run `cmd` in the repository root (so findings name files as `assets/…`, `test/standins/…`). */
function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", env, timeout: 60000 });
    return { status: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/** `shellcheck` on `files`; returns its exit status and findings (gcc format: file:line:col: level: text [SCxxxx]). */
function shellcheck(files: string[]) {
    return exec("shellcheck", ["-x", "-P", "SCRIPTDIR", "-f", "gcc", ...files.map(rel)]);
}

/** `python3 -m py_compile` on `files`, with the bytecode written outside the tree. */
function pyCompile(files: string[], cacheDir: string) {
    return exec("python3", ["-m", "py_compile", ...files.map(rel)], { ...process.env, PYTHONPYCACHEPREFIX: cacheDir });
}

describe("lint: the scripts under assets/ and test/standins/", function () {
    this.timeout(60000);
    const assets = fs.readdirSync(ASSETS).map((f) => path.join(ASSETS, f)).sort();
    const standins = walk(STANDINS);
    let work: string;
    before(() => (work = tmpDir("lint")));
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    const needShellcheck = (ctx: Mocha.Context) => requireOrSkip(ctx, !!which("shellcheck"), "shellcheck");
    const needPython = (ctx: Mocha.Context) => requireOrSkip(ctx, !!which("python3"), "python3");

    it("finds the scripts to lint (every asset, every stand-in)", function () {
        assert.deepEqual(assets.filter(isShell).map(rel), ["assets/conductor-start.sh", "assets/ipa-cache-client.sh", "assets/ipa-cache-sync.sh", "assets/keepalived-start.sh", "assets/provisioning-ip-check.sh", "assets/start-dnsmasq.sh"]);
        assert.deepEqual(assets.filter(isPython).map(rel), ["assets/conductor-address.py", "assets/conductor-cert.py", "assets/dhcp-pruner.py", "assets/dhcp-slot-agent.py", "assets/ipa-cache-server.py", "assets/ironic-readiness.py"]);
        const shell = standins.filter(isShell).map(rel);
        for (const f of [
            "test/standins/ironic/usr/bin/runironic",
            "test/standins/ironic/usr/lib/metal3-standin/common.sh",
            "test/standins/ipa-downloader/usr/local/bin/get-resource.sh",
            "test/standins/mariadb/usr/local/bin/docker-entrypoint.sh",
        ]) {
            assert.ok(shell.includes(f), `${f} is not linted as bash (found: ${shell.join(", ")})`);
        }
        const python = standins.filter(isPython).map(rel);
        for (const f of ["test/standins/ironic/usr/lib/metal3-standin/httpd.py", "test/standins/kubectl/usr/bin/kubectl"]) assert.ok(python.includes(f), `${f} is not linted as Python`);
        const neither = standins.filter((f) => !isShell(f) && !isPython(f)).map(rel);
        assert.deepEqual(neither, [], "files under test/standins/ that are neither bash nor Python (lint them or say why not)");
    });

    it("assets/*.sh pass shellcheck", function () {
        needShellcheck(this);
        const r = shellcheck(assets.filter(isShell));
        assert.equal(r.status, 0, `shellcheck findings:\n${r.stdout}${r.stderr}`);
    });

    it("the local cluster, toolchain, IPA ramdisk, benchmark and workflow scripts (tools/cluster.sh, tools/toolchain/build.sh, tools/ipa-ramdisk/build.sh and init, tools/bench-ci.sh, .ci/run, tools/render-base.sh) pass shellcheck", function () {
        needShellcheck(this);
        const r = shellcheck([path.join(ROOT, "tools", "cluster.sh"), path.join(ROOT, "tools", "toolchain", "build.sh"), path.join(ROOT, "tools", "ipa-ramdisk", "build.sh"), path.join(ROOT, "tools", "ipa-ramdisk", "init"), path.join(ROOT, "tools", "bench-ci.sh"), path.join(ROOT, ".ci", "run"), path.join(ROOT, "tools", "render-base.sh")]);
        assert.equal(r.status, 0, `shellcheck findings:\n${r.stdout}${r.stderr}`);
    });

    it("assets/*.py compile (python3 -m py_compile)", function () {
        needPython(this);
        const r = pyCompile(assets.filter(isPython), path.join(work, "pycache"));
        assert.equal(r.status, 0, r.stderr || r.stdout);
    });

    it("the bash stand-ins under test/standins/ pass shellcheck", function () {
        needShellcheck(this);
        const r = shellcheck(standins.filter(isShell));
        assert.equal(r.status, 0, `shellcheck findings:\n${r.stdout}${r.stderr}`);
    });

    it("the Python stand-ins under test/standins/ compile (python3 -m py_compile)", function () {
        needPython(this);
        const r = pyCompile(standins.filter(isPython), path.join(work, "pycache"));
        assert.equal(r.status, 0, r.stderr || r.stdout);
    });

    it("leaves no bytecode in the tree", function () {
        const pycache = [...walk(ASSETS), ...standins].filter((f) => f.includes("__pycache__") || f.endsWith(".pyc"));
        assert.deepEqual(pycache.map(rel), []);
    });

    describe("the linters can fail", function () {
        it("shellcheck reports an unquoted expansion and an unfollowed source", function () {
            needShellcheck(this);
            const bad = path.join(work, "bad.sh");
            fs.writeFileSync(bad, "#!/bin/bash\nrm -rf $1/tmp\n. ./missing-library.sh\n");
            const r = exec("shellcheck", ["-x", "-P", "SCRIPTDIR", "-f", "gcc", bad]);
            assert.notEqual(r.status, 0);
            assert.match(r.stdout, /SC2086/);
            assert.match(r.stdout, /SC1091/);
        });

        it("py_compile reports a syntax error", function () {
            needPython(this);
            const bad = path.join(work, "bad.py");
            fs.writeFileSync(bad, "def f(:\n    pass\n");
            const r = exec("python3", ["-m", "py_compile", bad], { ...process.env, PYTHONPYCACHEPREFIX: path.join(work, "pycache") });
            assert.notEqual(r.status, 0);
            assert.match(r.stderr + r.stdout, /SyntaxError/);
        });
    });
});
