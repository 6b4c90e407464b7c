/**
 * `npm test`: every tier of the suite (unit, program, integration, e2e), run so that a fresh 2-core
 * machine gets through it in time, and a breakdown of where the time went.
 *
 * The test files are grouped into units, each run by one mocha process (.mocharc.json: the spec
 * reporter, the e2e tally and one line per file in $TEST_RESULTS_FILE with its wall time, hooks
 * included). Units that need the local-cluster toolchain (a file that calls requireToolchain) start
 * only once it is built: when $METAL3_TOOLCHAIN_STATUS names a file, a build is running in the
 * background (.ci/run starts it first thing) and its exit code appears in that file when it ends; a
 * failed build fails those units, naming the target that failed. `--lanes N` (or $TEST_LANES;
 * default 3) runs up to N units at once: the tests pass with two suites on one machine, and most
 * integration time is spent waiting on daemons, firmware and VMs, not computing (with two lanes
 * a 2-core machine was idle 37 % of a warm run). While a toolchain build runs, two of them (see
 * lane()). With more than one lane, a unit's spec output goes to its log file and is printed
 * whole when the unit ends.
 *
 * Everything lands in the log dir ($TEST_LOG_DIR, or a new one under the temp dir): results.tsv,
 * failures.jsonl, each unit's log, and timings.txt, the table printed at the end: per tier (files,
 * tests, seconds), per lane (wall time, time waiting for the toolchain), the 15 slowest files and
 * what failed, with each error's first lines (CI shows the end of its output). The last line is
 * `npm test: N passed, N failed` (also in totals.txt); the exit code is non-zero when anything failed, including a unit
 * that exited non-zero without a test failure (a crash or a compile error: counted as one failure).
 *
 *   npm test [-- --lanes N] [-- --tier unit,program] [-- MOCHA_ARGS...]   e.g. npm test -- --grep dnsmasq
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

import { exitFlushed } from "./exit-flushed";
import { LaneTimes, nextUnit, planUnits, readFailures, readResults, report, resultName, tierOf, TIERS, ToolchainNeed, Unit } from "./test-results";
import { sleep, toolchainEnded, waitForToolchain } from "./toolchain-wait";

const ROOT = path.join(__dirname, "..");
const MOCHA = require.resolve("mocha/bin/mocha.js");
/**
 * How long a mocha process may take to exit once its tests are over (the reporter's end marker):
 * longer means something a test started still holds it (a process, a server, a timer) and it would
 * hold the lane until CI's own limit. It is stopped then, and counted as one failure naming that.
 */
const EXIT_AFTER_END_MAX_S = Number(process.env.TEST_EXIT_AFTER_END_MAX_S || 60);
/** How many lanes run while the toolchain builds in the background (the others wait for it to end). */
const LANES_WHILE_BUILDING = 2;

/** Every test file, relative to the checkout, sorted. */
export function testFiles(root = ROOT): string[] {
    // test/fixtures/ holds suites that tests run on purpose (some fail by design): no test files.
    return (fs.readdirSync(path.join(root, "test"), { recursive: true }) as string[])
        .map((f) => path.posix.join("test", f.split(path.sep).join("/")))
        .filter((f) => f.endsWith(".test.ts") && !f.startsWith("test/fixtures/"))
        .sort();
}

/**
 * What of the toolchain a test file needs, from its calls of requireToolchain: none; `cluster`
 * when every call asks only for that stage (`requireToolchain(this, "cluster")`); else all of it.
 */
export function needsToolchain(rel: string, root = ROOT): ToolchainNeed {
    const calls = fs.readFileSync(path.join(root, rel), "utf8").match(/\brequireToolchain\([^)]*\)/g) ?? [];
    if (calls.length === 0) return "none";
    return calls.every((c) => /,\s*"cluster"\s*\)$/.test(c)) ? "cluster" : "all";
}

function parseArgs(argv: string[]): { lanes: number; logDir: string; tiers: string[]; mochaArgs: string[] } {
    let lanes = Number(process.env.TEST_LANES ?? 3);
    let logDir = process.env.TEST_LOG_DIR ?? "";
    let tiers = TIERS;
    const mochaArgs: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === "--lanes") lanes = Number(argv[++i]);
        else if (argv[i] === "--log-dir") logDir = argv[++i];
        else if (argv[i] === "--tier") tiers = (argv[++i] ?? "").split(",");
        else mochaArgs.push(argv[i]);
    }
    const bad: string[] = [];
    if (!Number.isInteger(lanes) || lanes < 1) bad.push(`--lanes (or TEST_LANES) must be a whole number of at least 1, got ${JSON.stringify(String(lanes))}`);
    for (const t of tiers) if (!TIERS.includes(t)) bad.push(`--tier: no tier ${JSON.stringify(t)}; the tiers are ${TIERS.join(", ")} (comma-separated)`);
    if (bad.length > 0) {
        process.stderr.write(bad.map((b) => `npm test: ${b}\n`).join(""));
        process.exit(2);
    }
    if (!logDir) logDir = fs.mkdtempSync(path.join(os.tmpdir(), "m3i-test-"));
    fs.mkdirSync(logDir, { recursive: true });
    return { lanes, logDir, tiers, mochaArgs };
}

interface Run {
    lanes: number;
    logDir: string;
    mochaArgs: string[];
    resultsFile: string;
    queue: Unit[];
    extraFailures: string[];
    laneTimes: LaneTimes[];
    toolchain: Partial<Record<ToolchainNeed, Promise<string | undefined>>>;
    children: Set<number>;
}

/** One mocha process for a unit's files; resolves to its exit code. */
function runUnit(run: Run, u: Unit, lane: number): Promise<number> {
    return new Promise((resolve) => {
        const log = path.join(run.logDir, `${u.name}.log`);
        const inherit = run.lanes === 1;
        const out = inherit ? "inherit" : fs.openSync(log, "w");
        // A process group of its own, so an interrupted run stops it and what it started.
        const child = spawn(process.execPath, [MOCHA, ...run.mochaArgs, ...u.files], {
            cwd: ROOT,
            env: { ...process.env, ...u.env, TEST_RESULTS_FILE: run.resultsFile, TEST_FAILURES_FILE: failuresFile(run.logDir), TEST_END_DIR: run.logDir },
            stdio: ["ignore", out, out],
            detached: true,
        });
        run.children.add(child.pid!);
        if (!inherit) console.log(`[lane ${lane}] ${u.name}: started (${u.files.length} files; output in ${log})`);
        const endMarker = path.join(run.logDir, `mocha-${child.pid}.end`);
        let hung = false;
        const watchdog = setInterval(() => {
            let ended: number;
            try {
                ended = fs.statSync(endMarker).mtimeMs;
            } catch {
                return; // still testing
            }
            if (Date.now() - ended < EXIT_AFTER_END_MAX_S * 1000) return;
            clearInterval(watchdog);
            hung = true;
            run.extraFailures.push(
                `${u.name}: its tests ended but mocha had not exited ${EXIT_AFTER_END_MAX_S} s later: something a test started (a process, a server, a timer) is still running; stopped (its output: ${log})`,
            );
            try {
                process.kill(-child.pid!, "SIGKILL");
            } catch {
                /* gone */
            }
        }, 2000);
        child.on("exit", (code, signal) => {
            clearInterval(watchdog);
            fs.rmSync(endMarker, { force: true });
            run.children.delete(child.pid!);
            if (typeof out === "number") {
                fs.closeSync(out);
                console.log(`\n===== [lane ${lane}] ${u.name}: exited ${code ?? signal} =====`);
                process.stdout.write(fs.readFileSync(log, "utf8"));
                console.log(`===== end of ${u.name} =====\n`);
            }
            // A hung unit is already counted as one failure, not again as a non-zero exit.
            resolve(hung ? 0 : (code ?? 1));
        });
    });
}

/**
 * A lane: takes the next unit off the queue until none is left, waiting for the toolchain where
 * needed. Lanes after the first LANES_WHILE_BUILDING start once no stage of the toolchain is
 * building: the build (niced) is the critical path on an empty cache, and a third lane of VMs
 * beside it starved it (0 % idle; the Pulumi stage slowed about twofold).
 */
async function lane(run: Run, n: number): Promise<void> {
    const times: LaneTimes = { lane: n, units: [], waitedSeconds: 0 };
    run.laneTimes.push(times);
    // (Counted as it goes: an interrupted run's breakdown shows the wait so far.)
    while (n > LANES_WHILE_BUILDING && !toolchainEnded("all") && run.queue.length > 0) {
        await sleep(2000);
        times.waitedSeconds += 2;
    }
    for (let i = nextUnit(run.queue, toolchainEnded); i >= 0; i = nextUnit(run.queue, toolchainEnded)) {
        const u = run.queue.splice(i, 1)[0];
        if (u.needsToolchain !== "none") {
            const w = Date.now();
            run.toolchain[u.needsToolchain] ??= waitForToolchain(u.needsToolchain);
            const failed = await run.toolchain[u.needsToolchain];
            times.waitedSeconds += (Date.now() - w) / 1000;
            if (failed) {
                run.extraFailures.push(`${u.name} (${u.files.join(", ")}) not run: ${failed}`);
                continue;
            }
        }
        const s = Date.now();
        const code = await runUnit(run, u, n);
        times.units.push({ name: u.name, seconds: (Date.now() - s) / 1000 });
        const names = u.files.map((f) => resultName(f, u.env?.TEST_FILE_PART));
        const failedInFiles = readResults(run.resultsFile).filter((r) => names.includes(r.file)).reduce((a, r) => a + r.failed, 0);
        if (code !== 0 && failedInFiles === 0) run.extraFailures.push(`${u.name}: mocha exited ${code} without a test failure (a crash or a compile error: see ${path.join(run.logDir, `${u.name}.log`)})`);
    }
}

async function main(): Promise<void> {
    const started = Date.now();
    const { lanes, logDir, tiers, mochaArgs } = parseArgs(process.argv.slice(2));
    const resultsFile = path.join(logDir, "results.tsv");
    fs.writeFileSync(resultsFile, "");
    fs.writeFileSync(failuresFile(logDir), "");
    const units = planUnits(testFiles().filter((f) => tiers.includes(tierOf(f))), (f) => needsToolchain(f));
    const run: Run = { lanes, logDir, mochaArgs, resultsFile, queue: [...units], extraFailures: [], laneTimes: [], toolchain: {}, children: new Set() };
    let interrupted = false;
    for (const [sig, n] of [["SIGINT", 2], ["SIGTERM", 15]] as const) {
        process.on(sig, () => {
            if (interrupted) return;
            interrupted = true;
            // Each mocha stops what it started (test/helpers/sys.ts onInterrupt); the breakdown covers what ran.
            for (const pid of run.children) {
                try {
                    process.kill(-pid, "SIGTERM");
                } catch {
                    /* gone */
                }
            }
            const notStarted = run.queue.length > 0 ? `; not started: ${run.queue.map((u) => u.name).join(", ")}` : "";
            run.extraFailures.push(`interrupted by ${sig}: ${run.children.size} running unit(s) stopped${notStarted}`);
            run.queue.length = 0; // the lanes must not start another unit while the output drains
            finish(run, started);
            exitFlushed(128 + n);
        });
    }
    console.log(`npm test: ${units.map((u) => `${u.name} (${u.files.length} files)`).join(", ")} in ${lanes} lane(s); logs in ${logDir}`);
    await Promise.all(Array.from({ length: lanes }, (_, i) => lane(run, i + 1)));
    // Interrupted: the handler printed the totals and exits once they are out.
    if (!interrupted) exitFlushed(finish(run, started) > 0 ? 1 : 0);
}

/** Prints and keeps the breakdown and the totals line; returns the number of failures. */
function finish(run: Run, started: number): number {
    return report(run.logDir, readResults(run.resultsFile), run.laneTimes, (Date.now() - started) / 1000, run.extraFailures, readFailures(failuresFile(run.logDir)));
}

/** Where the reporter appends each failure with its error's first lines (test/helpers/e2e-tally-reporter.ts). */
function failuresFile(logDir: string): string {
    return path.join(logDir, "failures.jsonl");
}

if (require.main === module) void main();
