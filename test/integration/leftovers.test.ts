/**
 * A test process that is killed (npm test's runner stopping it, CI's time limit, Ctrl-C) leaves
 * nothing running and no network namespace behind: test/helpers/sys.ts's onInterrupt undoes what is
 * still registered. Real mocha runs a fixture suite that starts a daemon with a child and makes a
 * namespace; it gets SIGTERM (or SIGINT) mid-test.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { until } from "../helpers/ironic-lab";
import { canUseNetns, requireOrSkip, run, tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const alive = (pid: number) => {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
};

describe("a killed test process leaves nothing behind", function () {
    this.timeout(120000);
    let work: string;
    before(function () {
        requireOrSkip(this, canUseNetns(), "root and ip netns");
        work = tmpDir("leftovers");
    });
    after(() => work && fs.rmSync(work, { recursive: true, force: true }));

    for (const sig of ["SIGTERM", "SIGINT"] as const) {
        it(`${sig} mid-test: the daemon's process group is killed (its child too) and the namespace deleted`, async function () {
            const file = path.join(work, `made-${sig}`);
            const mocha = spawn(process.execPath, [require.resolve("mocha/bin/mocha.js"), path.join(ROOT, "test", "fixtures", "leftovers", "killed.ts")], {
                cwd: ROOT,
                env: { ...process.env, LEFTOVERS_FILE: file, TEST_RESULTS_FILE: "", E2E_TALLY_FILE: "" },
                stdio: "ignore",
            });
            const exited = new Promise<number | null>((r) => mocha.once("exit", (code) => r(code)));
            await until(async () => fs.existsSync(file) && fs.existsSync(`${file}.child`) && fs.readFileSync(`${file}.child`, "utf8").trim() !== "", 60000, "the fixture suite to start its daemon and namespace");
            const made = JSON.parse(fs.readFileSync(file, "utf8")) as { pid: number; ns: string };
            const child = Number(fs.readFileSync(`${file}.child`, "utf8"));
            assert.ok(alive(made.pid) && alive(child), "daemon and its child run before the signal");
            assert.ok(run("ip", ["netns", "list"]).stdout.includes(made.ns), "namespace made before the signal");
            mocha.kill(sig);
            assert.equal(await exited, sig === "SIGTERM" ? 143 : 130, `mocha exits 128 + the signal's number after ${sig}`);
            await until(async () => !alive(made.pid) && !alive(child), 5000, "the daemon and its child to be gone");
            assert.ok(!run("ip", ["netns", "list"]).stdout.split("\n").some((l) => l.split(" ")[0] === made.ns), `namespace ${made.ns} deleted`);
        });
    }
});
