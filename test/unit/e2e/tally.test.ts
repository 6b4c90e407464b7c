/**
 * The e2e tally that .ci/run prints (passed/failed of the e2e tier, from $E2E_TALLY_FILE) is written
 * by the reporter of .mocharc.json (test/helpers/e2e-tally-reporter.ts). Here mocha runs, as a child
 * process with the project's .mocharc.json, fixture suites standing in for the e2e tier
 * (test/fixtures/e2e-tally/suites.ts): a suite whose before all hook fails must count each of its
 * tests as failed, as must a before each hook for the tests it kept from running. (The tally used
 * to be written from an afterEach of every e2e suite, which never runs for those tests: a suite
 * failing in `before` was missing from the tally.)
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { FailureNote, readFailures, resultName } from "../../../tools/test-results";
import { tmpDir } from "../../helpers/sys";

const ROOT = path.join(__dirname, "..", "..", "..");
const FIXTURES = path.join(ROOT, "test", "fixtures", "e2e-tally");

function runFixtures(extra: string[] = [], env: Record<string, string> = {}): { status: number | null; out: string; tally: string[]; results: string[]; failures: FailureNote[] } {
    const dir = tmpDir("e2e-tally");
    const file = path.join(dir, "tally");
    const results = path.join(dir, "results.tsv");
    const failures = path.join(dir, "failures.jsonl");
    fs.writeFileSync(file, "");
    const r = spawnSync(process.execPath, [require.resolve("mocha/bin/mocha.js"), "--reporter-option", `e2eDir=${FIXTURES}`, ...extra, path.join(FIXTURES, "suites.ts")], {
        cwd: ROOT,
        env: { ...process.env, E2E_TALLY_FILE: file, TEST_RESULTS_FILE: results, TEST_FAILURES_FILE: failures, ...env },
        encoding: "utf8",
        timeout: 60000,
    });
    const failed = readFailures(failures);
    const tally = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    const lines = fs.existsSync(results) ? fs.readFileSync(results, "utf8").split("\n").filter(Boolean) : [];
    fs.rmSync(dir, { recursive: true, force: true });
    return { status: r.status, out: r.stdout + r.stderr, tally, results: lines, failures: failed };
}

describe("e2e tally (.mocharc.json's reporter): every test of the tier counted, hook failures included", function () {
    this.timeout(60000);

    it("counts the tests a failing before all / before each hook kept from running as failed, an after all failure once, and skips pending tests", function () {
        const r = runFixtures();
        assert.equal(r.status, 4, `mocha's own count of failures (hooks count once):\n${r.out}`);
        assert.match(r.out, /1\) "before all" hook for "deploys"/, "mocha's spec output, unchanged");
        assert.deepEqual(r.tally, [
            'fail fixture: the cluster never comes up deploys (not run: "before all" hook failed)',
            'fail fixture: the cluster never comes up previews quietly (not run: "before all" hook failed)',
            'fail fixture: the cluster never comes up destroy removes everything (not run: "before all" hook failed)',
            "pass fixture: before each fails on the second test first",
            'fail fixture: before each fails on the second test second (not run: "before each" hook failed)',
            'fail fixture: before each fails on the second test third (not run: "before each" hook failed)',
            "pass fixture: after all fails passes before the teardown",
            'fail fixture: after all fails "after all" hook for "passes before the teardown"',
            "pass fixture: plain passes",
            "fail fixture: plain fails",
        ]);
    });

    it("records each test file's wall time, its hooks included, with mocha's own counts (TEST_RESULTS_FILE), and only test files (*.test.ts) by default", function () {
        const r = runFixtures(["--reporter-option", "testFilePattern=suites\\.ts$"]);
        assert.equal(r.results.length, 1, r.results.join("\n"));
        const [tier, file, seconds, passed, failed, pending] = r.results[0].split("\t");
        assert.deepEqual([tier, file, passed, failed, pending], ["fixtures", "test/fixtures/e2e-tally/suites.ts", "3", "4", "1"], "4 failing as mocha counts them (exit status 4), 1 pending");
        assert.ok(Number(seconds) >= 0.3, `the fixture's 300 ms before hook is counted: ${seconds} s`);
        assert.deepEqual(runFixtures().results, [], "suites.ts is no test file: a test that runs mocha on fixtures adds no line to the run's results");
    });

    it("records each failure of a test file with its error's first lines (TEST_FAILURES_FILE), for the digest at the end of CI's output; none of a file that is no test file", function () {
        const r = runFixtures(["--reporter-option", "testFilePattern=suites\\.ts$"]);
        assert.deepEqual(
            r.failures.map((f) => [f.file, f.title, f.error.split("\n")[0]]),
            [
                ["test/fixtures/e2e-tally/suites.ts", 'fixture: the cluster never comes up "before all" hook for "deploys"', "cluster did not come up"],
                ["test/fixtures/e2e-tally/suites.ts", 'fixture: before each fails on the second test "before each" hook for "second"', "workspace lost"],
                ["test/fixtures/e2e-tally/suites.ts", 'fixture: after all fails "after all" hook for "passes before the teardown"', "teardown failed"],
                ["test/fixtures/e2e-tally/suites.ts", "fixture: plain fails", "a real failure"],
            ],
        );
        assert.match(r.failures[3].error, /\nat .*test\/fixtures\/e2e-tally\/suites\.ts:\d+/, "the failing line in the test file");
        assert.deepEqual(runFixtures().failures, [], "suites.ts is no test file: a test that runs mocha on fixtures adds no failure to the run's digest");
    });

    it("names the part of a file a unit runs ($TEST_FILE_PART) in its results and failures, as the runner looks them up (resultName)", function () {
        const r = runFixtures(["--reporter-option", "testFilePattern=suites\\.ts$"], { TEST_FILE_PART: "!ha" });
        const name = resultName("test/fixtures/e2e-tally/suites.ts", "!ha");
        assert.equal(name, "test/fixtures/e2e-tally/suites.ts [!ha]");
        assert.deepEqual(r.results.map((l) => l.split("\t").slice(0, 2)), [["fixtures", name]], "its tier is still the directory's");
        assert.deepEqual([...new Set(r.failures.map((f) => f.file))], [name]);
        assert.equal(resultName("test/fixtures/e2e-tally/suites.ts", undefined), "test/fixtures/e2e-tally/suites.ts");
    });

    it("counts only the tests the grep selects", function () {
        assert.deepEqual(runFixtures(["--grep", "plain"]).tally, ["pass fixture: plain passes", "fail fixture: plain fails"]);
    });

    it("counts nothing outside the e2e tier's directory", function () {
        const dir = tmpDir("e2e-tally-other");
        const file = path.join(dir, "tally");
        fs.writeFileSync(file, "");
        spawnSync(process.execPath, [require.resolve("mocha/bin/mocha.js"), path.join(FIXTURES, "suites.ts")], { cwd: ROOT, env: { ...process.env, E2E_TALLY_FILE: file }, encoding: "utf8", timeout: 60000 });
        assert.equal(fs.readFileSync(file, "utf8"), "", "the default directory is test/e2e/");
        fs.rmSync(dir, { recursive: true, force: true });
    });
});
