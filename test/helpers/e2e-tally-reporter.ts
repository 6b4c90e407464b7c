/**
 * The mocha reporter of every tier (.mocharc.json): mocha's spec output, plus the e2e tally that
 * .ci/run prints. With $E2E_TALLY_FILE set, each test of a file under test/e2e/ (reporter option
 * `e2eDir` moves it) adds a line: `pass <full title>` or `fail <full title>`. A failing hook fails
 * the tests it keeps from running (a "before all" hook: every test of its suite, nested suites
 * included), each as `fail <full title> (not run: <hook> failed)`, so a suite that dies in its
 * `before` is counted, not silently absent; a failing hook that keeps no test from running (an
 * "after all" hook) is one `fail` line of its own. Pending tests and tests the grep leaves out are
 * not counted. It listens to the runner's events, so a suite needs no hook of its own to be counted.
 *
 * With $TEST_RESULTS_FILE set, it also appends one line per test file when the run leaves that file:
 * `tier<TAB>file<TAB>seconds<TAB>passed<TAB>failed<TAB>pending`, where seconds is the file's wall time
 * from its first hook, suite or test to the first event of the next file (or the end of the run), so
 * its before/after hooks (clusters, labs, VM boots) are counted, and failed counts as mocha's own
 * "failing" does (a failed hook once). Only test files (reporter option `testFilePattern`, default
 * `\.test\.ts$`) are recorded. tools/run-tests.ts reads these lines for the per-tier and
 * slowest-file breakdown that `npm test` and .ci/run print. With $TEST_END_DIR set, it writes
 * `mocha-<pid>.end` there when the run ends, so that the runner can tell a mocha process that
 * finished its tests but does not exit (a leaked process or handle) from one still testing.
 *
 * With $TEST_FAILURES_FILE set, each failure (a test or a hook) appends one JSON line `{file, title,
 * error}`: the file, the full title and the error's first lines, so that the end of CI's output
 * (tools/test-results.ts failureDigest) says what failed and why, not only where.
 */
import * as fs from "fs";
import * as path from "path";

import Mocha from "mocha";

import { resultName, tierOf } from "../../tools/test-results";

const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_SUITE_BEGIN, EVENT_TEST_BEGIN, EVENT_HOOK_BEGIN, EVENT_RUN_END } = Mocha.Runner.constants;
const CHECKOUT = path.join(__dirname, "..", "..");

/** A test file's name in the results: its path in the checkout, with the part of it this process runs (resultName). */
function relativeName(file: string): string {
    return resultName(path.relative(CHECKOUT, path.resolve(file)).split(path.sep).join("/"), process.env.TEST_FILE_PART);
}

/** Per-file wall time (hooks included) and counts, appended to `file` as each test file ends. */
function recordFileTimes(runner: Mocha.Runner, file: string, testFile: RegExp): void {
    let current: { file: string; start: bigint; passed: number; failed: number; pending: number } | undefined;
    const close = () => {
        if (!current) return;
        const seconds = Number(process.hrtime.bigint() - current.start) / 1e9;
        const rel = relativeName(current.file);
        fs.appendFileSync(file, [tierOf(rel), rel, seconds.toFixed(1), current.passed, current.failed, current.pending].join("\t") + "\n");
        current = undefined;
    };
    // Test files only (*.test.ts): a test that runs mocha on fixture suites inherits $TEST_RESULTS_FILE.
    const enter = (r: { file?: string }) => {
        if (!r.file || r.file === current?.file || !testFile.test(r.file)) return;
        close();
        current = { file: r.file, start: process.hrtime.bigint(), passed: 0, failed: 0, pending: 0 };
    };
    runner.on(EVENT_SUITE_BEGIN, enter);
    runner.on(EVENT_HOOK_BEGIN, enter);
    runner.on(EVENT_TEST_BEGIN, enter);
    runner.on(EVENT_TEST_PASS, (t) => {
        enter(t);
        if (current) current.passed += 1;
    });
    runner.on(EVENT_TEST_FAIL, (t) => {
        enter(t);
        if (current) current.failed += 1;
    });
    runner.on(EVENT_TEST_PENDING, (t) => {
        enter(t);
        if (current) current.pending += 1;
    });
    runner.on(EVENT_RUN_END, close);
}
/** Lines of a failure's message kept for the digest (the stack's first frame in test/ is added). */
const FAILURE_LINES = 12;
/** And of each line (a one-line JSON dump can be megabytes). */
const FAILURE_LINE_CHARS = 1000;

/** One JSON line per failure, with the file and the error's first lines (see the header). */
function recordFailures(runner: Mocha.Runner, file: string, testFile: RegExp): void {
    runner.on(EVENT_TEST_FAIL, (r, err: Error) => {
        // Test files only: a test that runs mocha on fixture suites (failing by design) inherits the variable.
        if (!r.file || !testFile.test(r.file)) return;
        const rel = relativeName(r.file);
        const message = String(err?.message ?? err).split("\n").slice(0, FAILURE_LINES).map((l) => l.slice(0, FAILURE_LINE_CHARS));
        // The first frame in the checkout's test/ (mocha has made the stack's paths relative to it).
        const frame = String(err?.stack ?? "").split("\n").find((l) => /^\s+at /.test(l) && (l.includes("(test/") || l.includes(`(${path.join(CHECKOUT, "test")}${path.sep}`)));
        fs.appendFileSync(file, JSON.stringify({ file: rel, title: r.fullTitle(), error: [...message, ...(frame ? [frame.trim()] : [])].join("\n") }) + "\n");
    });
}
const DEFAULT_E2E_DIR = path.join(__dirname, "..", "e2e");

/** The tests of `suite` (nested suites included) that have not run, are not pending and match the grep. */
function notRun(suite: Mocha.Suite, runner: Mocha.Runner): Mocha.Test[] {
    const r = runner as unknown as { _grep?: RegExp; _invert?: boolean };
    const matches = (t: Mocha.Test) => !r._grep || r._grep.test(t.fullTitle()) !== !!r._invert;
    const own = suite.tests.filter((t) => t.state === undefined && !t.isPending() && matches(t));
    return [...own, ...suite.suites.flatMap((s) => notRun(s, runner))];
}

export default class E2eTallyReporter extends Mocha.reporters.Spec {
    constructor(runner: Mocha.Runner, options: Mocha.MochaOptions = {}) {
        super(runner, options);
        const opts = (options as { reporterOptions?: Record<string, string> }).reporterOptions ?? {};
        const testFile = new RegExp(opts.testFilePattern ?? "\\.test\\.ts$");
        if (process.env.TEST_FAILURES_FILE) recordFailures(runner, process.env.TEST_FAILURES_FILE, testFile);
        if (process.env.TEST_RESULTS_FILE) recordFileTimes(runner, process.env.TEST_RESULTS_FILE, testFile);
        // tools/run-tests.ts: the run's tests are over; if this process does not exit soon after,
        // something a test started is still holding it (named by the process id: fixture suites
        // run by tests are other processes and inherit the variable).
        const endDir = process.env.TEST_END_DIR;
        if (endDir) runner.on(EVENT_RUN_END, () => fs.writeFileSync(path.join(endDir, `mocha-${process.pid}.end`), ""));
        const file = process.env.E2E_TALLY_FILE;
        if (!file) return;
        const dir = path.resolve(opts.e2eDir ?? DEFAULT_E2E_DIR);
        const inTier = (r: Mocha.Runnable) => !!r.file && path.resolve(r.file).startsWith(dir + path.sep);
        // Each test once (mocha's failHookAffectedTests, if set, also fails the tests a hook kept from running).
        const counted = new Set<Mocha.Runnable>();
        const tally = (r: Mocha.Runnable, line: string) => {
            if (counted.has(r)) return;
            counted.add(r);
            fs.appendFileSync(file, `${line}\n`);
        };
        runner.on(EVENT_TEST_PASS, (t) => {
            if (inTier(t)) tally(t, `pass ${t.fullTitle()}`);
        });
        // The event's runnable is a test or, when a hook failed, the hook (typed as a test by @types/mocha).
        runner.on(EVENT_TEST_FAIL, (failed) => {
            const r = failed as Mocha.Runnable & { type?: string; originalTitle?: string };
            if (!inTier(r)) return;
            if (r.type !== "hook") return tally(r, `fail ${r.fullTitle()}`);
            const skipped = r.parent ? notRun(r.parent, runner) : [];
            if (skipped.length === 0) tally(r, `fail ${r.fullTitle()}`);
            for (const t of skipped) tally(t, `fail ${t.fullTitle()} (not run: ${r.originalTitle ?? r.title} failed)`);
        });
    }
}
