/**
 * A test process that is killed (npm test's runner stopping it, CI's time limit, Ctrl-C) leaves
 * nothing running and no network namespace behind: test/helpers/sys.ts's onInterrupt undoes what is
 * still registered. Real mocha runs a fixture suite that starts a daemon with a child and makes a
 * namespace, or a local cluster (the e2e tier's); it gets SIGTERM (or SIGINT) mid-test.
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { until } from "../helpers/ironic-lab";
import { alive, canUseNetns, requireOrSkip, run, tmpDir } from "../helpers/sys";
import { requireToolchain } from "../e2e/toolchain";

const ROOT = path.join(__dirname, "..", "..");

describe("a killed test process leaves nothing behind", function () {
    this.timeout(120000);
    let work: string;
    before(function () {
        requireOrSkip(this, canUseNetns(), "root and ip netns");
        work = tmpDir("leftovers");
    });
    after(() => work && fs.rmSync(work, { recursive: true, force: true }));

    /** Real mocha on a fixture suite; resolves once the suite has written what it made to `file`. */
    async function startFixture(fixture: string, file: string): Promise<{ mocha: ReturnType<typeof spawn>; exited: Promise<number | null> }> {
        const mocha = spawn(process.execPath, [require.resolve("mocha/bin/mocha.js"), path.join(ROOT, "test", "fixtures", "leftovers", fixture)], {
            cwd: ROOT,
            env: { ...process.env, LEFTOVERS_FILE: file, TEST_RESULTS_FILE: "", E2E_TALLY_FILE: "" },
            stdio: "ignore",
        });
        const exited = new Promise<number | null>((r) => mocha.once("exit", (code) => r(code)));
        await until(async () => fs.existsSync(file), 300000, `the fixture suite ${fixture} to write ${file}`);
        return { mocha, exited };
    }

    it("SIGTERM with a local cluster up: every process cluster.sh started is stopped and its directory removed", async function () {
        requireToolchain(this, "cluster");
        this.timeout(400000);
        const { mocha, exited } = await startFixture("killed-cluster.ts", path.join(work, "cluster"));
        const dir = fs.readFileSync(path.join(work, "cluster"), "utf8");
        const pids = fs.readFileSync(path.join(dir, "pids"), "utf8").split("\n").filter(Boolean).map(Number);
        assert.ok(pids.length >= 5 && pids.slice(1).every(alive), `etcd, the API server, controllers and kwok run before the signal: ${pids}`);
        mocha.kill("SIGTERM");
        assert.equal(await exited, 143);
        await until(async () => !pids.some(alive), 10000, "every cluster process to be gone");
        assert.ok(!fs.existsSync(dir), `${dir} removed`);
    });

    for (const sig of ["SIGTERM", "SIGINT"] as const) {
        it(`${sig} mid-test: the daemon's process group is killed (its child too) and the namespace deleted`, async function () {
            const file = path.join(work, `made-${sig}`);
            const { mocha, exited } = await startFixture("killed.ts", file);
            await until(async () => fs.existsSync(`${file}.child`) && fs.readFileSync(`${file}.child`, "utf8").trim() !== "", 60000, "the fixture's daemon to start its child");
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
