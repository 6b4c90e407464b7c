/**
 * `npm test` (tools/run-tests.ts): which files run together and when, the breakdown of where the
 * time went, and a failed toolchain build failing the units that need it, naming the target.
 */
import { strict as assert } from "assert";
import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { needsToolchain, testFiles } from "../../tools/run-tests";
import { breakdown, failureDigest, readFailures, nextUnit, planUnits, selectExamples, selectsTheRest, tierOf, ToolchainNeed } from "../../tools/test-results";
import { tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");

describe("npm test (tools/run-tests.ts)", function () {
    this.timeout(120000);

    it("groups the files into units, longest first; a free lane takes the first it can run now, and waits for the toolchain stage that comes first only when nothing else is left", function () {
        const files = ["test/components/a.test.ts", "test/e2e/b.test.ts", "test/e2e/examples.test.ts", "test/integration/c.test.ts", "test/integration/c2.test.ts", "test/integration/c3.test.ts", "test/integration/pods.test.ts", "test/integration/pods-single-bmo.test.ts", "test/integration/pods-vmedia-bmo.test.ts", "test/integration/pods-v6.test.ts", "test/unit/d.test.ts"];
        const tc = (f: string): ToolchainNeed => (f.includes("/e2e/") ? "all" : f.includes("/pods") ? "cluster" : "none");
        const units = planUnits(files, tc);
        assert.deepEqual(
            units.map((u) => [u.name, u.files, u.needsToolchain]),
            [
                ["integration+toolchain", ["test/integration/pods.test.ts"], "cluster"],
                ["integration+toolchain-2", ["test/integration/pods-v6.test.ts"], "cluster"],
                ["integration-2", ["test/integration/c2.test.ts"], "none"],
                ["integration-1", ["test/integration/c.test.ts", "test/integration/c3.test.ts"], "none"],
                ["integration+toolchain-single", ["test/integration/pods-single-bmo.test.ts"], "cluster"],
                ["integration+toolchain-vmedia", ["test/integration/pods-vmedia-bmo.test.ts"], "cluster"],
                ["e2e-examples", ["test/e2e/examples.test.ts"], "all"],
                ["e2e-examples-ha", ["test/e2e/examples.test.ts"], "all"],
                ["e2e", ["test/e2e/b.test.ts"], "all"],
                ["unit+program", ["test/components/a.test.ts", "test/unit/d.test.ts"], "none"],
            ],
        );
        assert.equal(tierOf("test/components/a.test.ts"), "program");
        const built = (stages: ToolchainNeed[]) => (need: ToolchainNeed) => need === "none" || stages.includes(need);
        // Two lanes while the toolchain builds: both integration halves, then unit+program; a lane
        // with nothing to run waits for the cluster stage (the pod tier first, then the other
        // files that need that stage), then for all of it (the example stacks, the other e2e suites).
        const queue = [...units];
        const take = (stages: ToolchainNeed[]) => queue.splice(nextUnit(queue, built(stages)), 1)[0].name;
        assert.deepEqual(
            [take([]), take([]), take([]), take([]), take(["cluster"]), take(["cluster"]), take(["cluster"]), take(["cluster"]), take(["cluster", "all"]), take(["cluster", "all"])],
            ["integration-2", "integration-1", "unit+program", "integration+toolchain", "integration+toolchain-2", "integration+toolchain-single", "integration+toolchain-vmedia", "e2e-examples", "e2e-examples-ha", "e2e"],
        );
        assert.equal(nextUnit(queue, built(["cluster", "all"])), -1);
        // With the cluster stage built and the rest not: the pod tier goes first, whatever its place.
        const waiting = planUnits(files, tc).filter((u) => u.needsToolchain !== "none");
        assert.equal(waiting[nextUnit(waiting, built(["cluster"]))].name, "integration+toolchain");
        // With the toolchain there (a warm cache), the longest first.
        const warm = planUnits(files, tc);
        assert.deepEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0].map(() => warm.splice(nextUnit(warm, built(["cluster", "all"])), 1)[0].name), ["integration+toolchain", "integration+toolchain-2", "integration-2", "integration-1", "integration+toolchain-single", "integration+toolchain-vmedia", "e2e-examples", "e2e-examples-ha", "e2e", "unit+program"]);
        // The example stacks' two units: the ha stack (and the scenarios that go on with it), and the rest.
        assert.deepEqual(units.filter((u) => u.env).map((u) => [u.name, u.env]), [
            ["e2e-examples", { E2E_EXAMPLES: "!ha", TEST_FILE_PART: "!ha" }],
            ["e2e-examples-ha", { E2E_EXAMPLES: "ha", TEST_FILE_PART: "ha" }],
        ]);
        // A file that needs all of it makes its unit wait for all of it.
        const mixed = planUnits(["test/integration/x.test.ts", "test/integration/y.test.ts", "test/integration/pods.test.ts"], (f) => (f.endsWith("x.test.ts") ? "all" : "cluster"));
        assert.deepEqual(mixed.map((u) => [u.name, u.needsToolchain]), [["integration+toolchain", "cluster"], ["integration+toolchain-2", "all"]]);
    });

    it("splits the example stacks by $E2E_EXAMPLES: those named, or all but those; the coverage check runs where the rest does; a wrong name is an error naming the stacks", function () {
        const all = ["dev", "ha", "vmedia", "v6"].map((stack) => ({ stack }));
        const names = (sel: string | undefined) => selectExamples(all, sel).map((ex) => ex.stack);
        assert.deepEqual(names(undefined), ["dev", "ha", "vmedia", "v6"]);
        assert.deepEqual(names(""), ["dev", "ha", "vmedia", "v6"]);
        assert.deepEqual(names("ha"), ["ha"]);
        assert.deepEqual(names("!ha"), ["dev", "vmedia", "v6"]);
        assert.deepEqual(names(" v6, dev "), ["dev", "v6"]);
        assert.deepEqual(names("!ha,!v6"), ["dev", "vmedia"]);
        // Each part plus the other is every stack, once: the units of planUnits leave none out.
        const parts = planUnits(["test/e2e/examples.test.ts"], () => "all").map((u) => names(u.env?.E2E_EXAMPLES));
        assert.deepEqual(parts.flat().sort(), ["dev", "ha", "v6", "vmedia"]);
        assert.throws(() => names("ha,hx"), /E2E_EXAMPLES names no example stack: hx \(the stacks: dev, ha, vmedia, v6\)/);
        assert.throws(() => names("ha,!dev"), /E2E_EXAMPLES mixes stacks and exclusions: ha,!dev/);
        assert.deepEqual([undefined, "", "!ha", "ha", "dev,v6", " , !ha"].map(selectsTheRest), [true, true, true, false, false, true]);
        assert.deepEqual(names(" , !ha"), ["dev", "vmedia", "v6"], "an empty name is dropped before the first is read, in both");
    });

    it("finds every test file of the checkout, and the ones that need the toolchain from their source", function () {
        const files = testFiles();
        assert.ok(files.includes("test/unit/run-tests.test.ts") && files.includes("test/e2e/examples.test.ts"), files.join(" "));
        assert.ok(files.every((f) => f.endsWith(".test.ts") && !f.startsWith("test/fixtures/")), "fixture suites are no test files");
        assert.equal(needsToolchain("test/e2e/examples.test.ts"), "all");
        assert.equal(needsToolchain("test/unit/ip.test.ts"), "none");
        // The pod tier needs a local cluster and BMO, no Pulumi: it starts once the toolchain's first stage is built.
        for (const f of ["test/integration/pods.test.ts", "test/integration/pods-single-bmo.test.ts", "test/integration/pods-vmedia-bmo.test.ts", "test/integration/pods-v6.test.ts", "test/integration/bmo-release.test.ts"]) assert.equal(needsToolchain(f), "cluster", f);
        const dir = tmpDir("needs");
        fs.mkdirSync(path.join(dir, "test"));
        // (Spelt in two parts: this file itself must not read as one that needs the toolchain.)
        const call = "require" + "Toolchain";
        fs.writeFileSync(path.join(dir, "test", "x.test.ts"), `${call}(this, "cluster");\n${call}(this);\n`);
        assert.equal(needsToolchain("test/x.test.ts", dir), "all", "one call that wants all of it is enough");
        fs.rmSync(dir, { recursive: true, force: true });
    });

    it("prints per-tier totals, each lane's time and the slowest files first", function () {
        const t = breakdown(
            [
                { tier: "unit", file: "test/unit/a.test.ts", seconds: 3, passed: 5, failed: 0, pending: 0 },
                { tier: "e2e", file: "test/e2e/b.test.ts", seconds: 300, passed: 2, failed: 1, pending: 0 },
                { tier: "unit", file: "test/unit/c.test.ts", seconds: 9, passed: 1, failed: 0, pending: 2 },
            ],
            [{ lane: 1, units: [{ name: "unit+program", seconds: 13 }], waitedSeconds: 40 }],
            353,
            ["e2e (x) not run: the toolchain build exited 1"],
        );
        assert.match(t, /^ {2}unit +2 +6 +0 +2 +12 +0\.2$/m);
        assert.match(t, /^ {2}e2e +1 +2 +1 +0 +300 +5\.0$/m);
        assert.match(t, /lane 1: unit\+program 13 s, waited 40 s for the toolchain/);
        const slow = t.split("\n").filter((l) => / s {2}\w/.test(l));
        assert.deepEqual(slow.map((l) => l.trim().split(/\s+/)[3]), ["test/e2e/b.test.ts", "test/unit/c.test.ts", "test/unit/a.test.ts"]);
        assert.match(t, /failed outside a test: e2e \(x\) not run/);
    });

    it("ends with what failed: each failure's file, title and its error's first lines, long lines cut and at most ten failures, so that the tail of CI's output says why", function () {
        const note = (i: number) => ({ file: "test/integration/pods.test.ts", title: `pods as declared: case ${i}`, error: `expected 3 conductors, got 2\n\n+ actual - expected\n${"x".repeat(500)}\nat Context.<anonymous> (test/integration/pods.test.ts:${400 + i}:16)` });
        const t = breakdown([{ tier: "integration", file: "test/integration/pods.test.ts", seconds: 9, passed: 1, failed: 1, pending: 0 }], [], 9, [], [note(1)]);
        const tail = t.trimEnd().split("\n").slice(-6);
        assert.deepEqual(tail.slice(0, 4), [
            "  what failed (the error's first lines; the whole in the unit's log):",
            "    ✗ test/integration/pods.test.ts: pods as declared: case 1",
            "        expected 3 conductors, got 2",
            "        + actual - expected",
        ]);
        assert.equal(tail[4], `        ${"x".repeat(240)}…`, "a long line is cut");
        assert.equal(tail[5], "        at Context.<anonymous> (test/integration/pods.test.ts:401:16)", "the failing line");
        assert.match(t, /x…\n {8}at Context\.<anonymous> \(test\/integration\/pods\.test\.ts:401:16\)\n$/);
        const many = failureDigest(Array.from({ length: 12 }, (_, i) => note(i)));
        assert.equal(many.filter((l) => l.startsWith("    ✗")).length, 10);
        assert.equal(many[many.length - 1], "    and 2 more");
        assert.deepEqual(failureDigest([]), [], "nothing when nothing failed");
        // A record cut short (a unit stopped while writing it) is shown for what it is; the totals still come.
        const dir = tmpDir("run-tests");
        const file = path.join(dir, "failures.jsonl");
        fs.writeFileSync(file, JSON.stringify(note(1)) + "\n" + '{"file":"test/integration/pods.test.ts","title":"cut');
        const read = readFailures(file);
        fs.rmSync(dir, { recursive: true, force: true });
        assert.deepEqual(read.map((f) => f.title), ["pods as declared: case 1", "(a failure record cut short)"]);
    });

    it("a failed toolchain build fails the units that need it, naming the target it was building, and runs no test of theirs", function () {
        const dir = tmpDir("run-tests");
        fs.writeFileSync(path.join(dir, "status"), "1\n");
        fs.writeFileSync(path.join(dir, "toolchain.log"), "[toolchain] etcd: building\n[toolchain] etcd: done\n[toolchain] k8s: building\ngo: some error\n");
        const r = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "run-tests.ts"), "--tier", "e2e", "--log-dir", path.join(dir, "logs")], {
            cwd: ROOT,
            env: { ...process.env, METAL3_TOOLCHAIN_STATUS: path.join(dir, "status"), METAL3_TOOLCHAIN_LOG: path.join(dir, "toolchain.log") },
            encoding: "utf8",
            timeout: 60000,
        });
        const totals = fs.readFileSync(path.join(dir, "logs", "totals.txt"), "utf8");
        fs.rmSync(dir, { recursive: true, force: true });
        assert.equal(r.status, 1, r.stdout + r.stderr);
        // CI reads the totals from this file (.ci/run), not only from the output it tees.
        assert.equal(totals, "npm test: 0 passed, 3 failed\n");
        // The three e2e units (the example stacks in two parts, the other suites), each named with the target.
        assert.match(r.stdout, /e2e-examples-ha \(test\/e2e\/examples\.test\.ts\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /e2e-examples \(test\/e2e\/examples\.test\.ts\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /e2e \(test\/e2e\/consumer\.test\.ts, .*\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /^npm test: 0 passed, 3 failed/m);
    });

    it("a failed cluster stage fails the units that wait for it, naming the target, while the rest of the build may still run", function () {
        const dir = tmpDir("run-tests");
        fs.writeFileSync(path.join(dir, "cluster.status"), "1\n");
        fs.writeFileSync(path.join(dir, "status"), ""); // the whole build: still running, never asked for here
        fs.writeFileSync(path.join(dir, "toolchain.log"), "[toolchain] etcd: building\n[toolchain] etcd: built in 1 s\n[toolchain] k8s: building\ngo: some error\n");
        const r = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "run-tests.ts"), "--tier", "integration", "--log-dir", path.join(dir, "logs"), "--grep", "matches no test at all"], {
            cwd: ROOT,
            env: { ...process.env, METAL3_TOOLCHAIN_STATUS: path.join(dir, "status"), METAL3_TOOLCHAIN_CLUSTER_STATUS: path.join(dir, "cluster.status"), METAL3_TOOLCHAIN_LOG: path.join(dir, "toolchain.log") },
            encoding: "utf8",
            timeout: 100000,
        });
        fs.rmSync(dir, { recursive: true, force: true });
        assert.equal(r.status, 1, r.stdout + r.stderr);
        assert.match(r.stdout, /integration\+toolchain \(test\/integration\/pods\.test\.ts\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /integration\+toolchain-single \(test\/integration\/pods-single-bmo\.test\.ts\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /integration\+toolchain-2 \(test\/integration\/bmo-release\.test\.ts, .*pods-v6\.test\.ts.*\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /integration\+toolchain-vmedia \(test\/integration\/pods-vmedia-bmo\.test\.ts\) not run: the toolchain build \(tools\/toolchain\/build\.sh\) exited 1 while building k8s/);
        assert.match(r.stdout, /^npm test: 0 passed, 4 failed/m);
    });

    it("a mocha process whose tests ended but that does not exit (a leaked process or timer) is stopped and counted as a failure naming it, not left to hold its lane", function () {
        const dir = tmpDir("run-tests");
        const fixture = path.join(ROOT, "test", "fixtures", "hang", "leaks-a-timer.ts");
        const t0 = Date.now();
        const r = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "run-tests.ts"), "--tier", "unit", "--lanes", "1", "--log-dir", path.join(dir, "logs"), "--grep", "leaves a timer running", fixture], {
            cwd: ROOT,
            env: { ...process.env, TEST_EXIT_AFTER_END_MAX_S: "3" },
            encoding: "utf8",
            timeout: 100000,
        });
        const seconds = (Date.now() - t0) / 1000;
        const left = fs.readdirSync(path.join(dir, "logs")).filter((f) => f.endsWith(".end"));
        fs.rmSync(dir, { recursive: true, force: true });
        assert.equal(r.status, 1, r.stdout + r.stderr);
        assert.match(r.stdout, /leaves a timer running/);
        assert.match(r.stdout, /unit\+program: its tests ended but mocha had not exited 3 s later: something a test started .* is still running; stopped/);
        // The fixture is no test file, so its pass is not counted; the hang is.
        assert.match(r.stdout, /^npm test: 0 passed, 1 failed/m);
        assert.ok(seconds < 90, `took ${seconds} s`);
        assert.deepEqual(left, [], "the end marker is removed");
    });

    it("its last lines reach a reader slower than it (CI's `npm test | tee`): it exits only once its output is out", function () {
        // 2 MB then the totals line, into a pipe whose reader starts a second later. A pipe holds 64 KiB;
        // Node queues the rest, and a bare process.exit drops it (what CI saw: every test passed, no
        // totals line). The bare exit is run too, so that this test shows the loss it guards against.
        const script = (exit: string) =>
            `const { exitFlushed } = require(${JSON.stringify(path.join(ROOT, "tools", "exit-flushed"))}); ` +
            `process.stdout.write("x".repeat(2e6) + "\\n"); console.log("npm test: 7 passed, 0 failed"); ${exit};`;
        const run = (exit: string) =>
            spawnSync("bash", ["-c", `"$0" -r ts-node/register/transpile-only -e "$1" | { sleep 1; tail -c 64; }`, process.execPath, script(exit)], { cwd: ROOT, encoding: "utf8", timeout: 60000 });
        const flushed = run("exitFlushed(0)");
        assert.equal(flushed.status, 0, flushed.stderr);
        assert.match(flushed.stdout, /x\nnpm test: 7 passed, 0 failed\n$/);
        const bare = run("process.exit(0)");
        assert.doesNotMatch(bare.stdout, /npm test: 7 passed/, "a bare process.exit kept the last line: the pipe must be slower than this");
    });

    it("while the toolchain builds, two lanes run (the build is the critical path on an empty cache); a third starts once it has ended", async function () {
        const dir = tmpDir("run-tests");
        fs.writeFileSync(path.join(dir, "status"), ""); // the whole build: running
        fs.writeFileSync(path.join(dir, "cluster.status"), "0\n");
        const child = spawn(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "run-tests.ts"), "--tier", "integration,unit", "--lanes", "3", "--log-dir", path.join(dir, "logs"), "--grep", "matches no test at all"], {
            cwd: ROOT,
            env: { ...process.env, METAL3_TOOLCHAIN_STATUS: path.join(dir, "status"), METAL3_TOOLCHAIN_CLUSTER_STATUS: path.join(dir, "cluster.status"), METAL3_TOOLCHAIN_LOG: path.join(dir, "toolchain.log") },
        });
        let out = "";
        child.stdout.on("data", (b) => (out += b));
        child.stderr.on("data", (b) => (out += b));
        const exited = new Promise<number | null>((res) => child.on("exit", (c) => res(c)));
        try {
            // Both building lanes take a unit; the third takes none while the build runs.
            for (const end = Date.now() + 60000; (out.match(/^\[lane [12]\] \S+: started/gm) ?? []).length < 2; await new Promise((r) => setTimeout(r, 200))) {
                assert.ok(Date.now() < end, `two lanes started within 60 s:\n${out}`);
            }
            await new Promise((r) => setTimeout(r, 3000));
            assert.doesNotMatch(out, /^\[lane 3\]/m, out);
            fs.writeFileSync(path.join(dir, "status"), "0\n");
            assert.equal(await exited, 0, out);
            const timings = fs.readFileSync(path.join(dir, "logs", "timings.txt"), "utf8");
            // Lane 3 waited for the build, then ran what was left (or found nothing left).
            const waited = Number(/lane 3: .*waited (\d+) s for the toolchain/.exec(timings)?.[1]);
            assert.ok(waited >= 3, timings);
        } finally {
            child.kill();
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("refuses a bad --tier or --lanes, naming the option and the choices", function () {
        const r = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "run-tests.ts"), "--tier", "unit,e2f", "--lanes", "0"], { cwd: ROOT, encoding: "utf8", timeout: 60000 });
        assert.equal(r.status, 2);
        assert.match(r.stderr, /--lanes \(or TEST_LANES\) must be a whole number of at least 1, got "0"/);
        assert.match(r.stderr, /--tier: no tier "e2f"; the tiers are unit, program, integration, e2e/);
    });
});

describe("the suite leaves nothing behind", function () {
    this.timeout(300000);

    it("loading every test file makes no temp dir (each is made in a hook, so a --grep or an interrupted run leaves none behind)", function () {
        const tmp = tmpDir("load");
        const r = spawnSync(process.execPath, [require.resolve("mocha/bin/mocha.js"), "--dry-run", "--reporter", "dot", ...testFiles()], {
            cwd: ROOT,
            env: { ...process.env, TMPDIR: tmp, TEST_RESULTS_FILE: "", E2E_TALLY_FILE: "" },
            encoding: "utf8",
            timeout: 240000,
        });
        // v8-compile-cache-<uid>: a dependency's compile cache, not a test's.
        const left = fs.readdirSync(tmp).filter((e) => !/^v8-compile-cache-\d+$/.test(e));
        fs.rmSync(tmp, { recursive: true, force: true });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        assert.deepEqual(left, [], "temp dirs made while the test files load (describe bodies), not in a before hook");
    });
});

