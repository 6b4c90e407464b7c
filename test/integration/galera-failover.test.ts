/**
 * database.kind mariadb-operator's promise, with real software: Ironic keeps serving when the
 * database member it writes to is lost. A three-member Galera cluster (Debian's mariadb-server and
 * galera-4) behind Debian's haproxy as the single writer, as the operator's `-primary` Service
 * would be (test/helpers/galera-lab.ts says how the two differ), and real Ironic (Debian's
 * ironic-api and two ironic-conductors, test/helpers/ironic-lab.ts) on it:
 *
 *   nodes enrolled → the writer is killed (SIGKILL by its PID) → the time until the API answers a
 *   read and a write again is measured and bounded → every node enrolled before is there, a
 *   conductor still acts on them (a power change through JSON-RPC) → the killed member is started
 *   again and rejoins (wsrep_cluster_size back to 3, Synced) and the writes made without it are on it.
 *
 * Everything listens on 127.0.0.0/8 with ports reserved per run. On a failure the daemons' log
 * tails are printed; KEEP_WORK=1 keeps the work directory.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { GaleraLab } from "../helpers/galera-lab";
import { IronicLab, printLogTails, until } from "../helpers/ironic-lab";
import { requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";

/** The bound asserted on "API requests succeed again" after the writer is killed (docs/database.md states it and what was measured). */
export const FAILOVER_BOUND_MS = 30000;
const START = 240000;
const NODES = 12;

describe("Galera failover under real Ironic: the writer killed, the API back within the bound, nothing lost, the member rejoins", function () {
    this.timeout(15 * 60 * 1000);
    let work = "";
    let galera: GaleraLab;
    let lab: IronicLab;
    let failed = false;
    const ironicPassword = "ironicpw";

    before(async function () {
        requireOrSkip(this, !!which("mariadbd") && !!which("mariadb-install-db") && fs.existsSync("/usr/lib/galera/libgalera_smm.so"), "Debian's mariadb-server and galera-4");
        requireOrSkip(this, !!which("haproxy"), "Debian's haproxy");
        requireOrSkip(this, !!which("rsync"), "rsync (Galera's state transfer)");
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        requireOrSkip(this, process.getuid?.() === 0, "root (mariadbd runs as the mysql user)");
        work = tmpDir("galera");
        // mariadbd runs as the mysql user: it must reach its directories.
        fs.chmodSync(work, 0o755);
        galera = new GaleraLab(path.join(work, "galera"), ["127.0.41.1", "127.0.41.2", "127.0.41.3"], "127.0.41.10");
        await galera.prepare();
        await galera.startCluster(ironicPassword);
        galera.startProxy();
        await until(() => galera.writer("ironic", ironicPassword) !== undefined, 30000, "the proxy reaches a writer", 500);

        lab = new IronicLab({
            work: path.join(work, "ironic"),
            api: { username: "admin", password: "apipw" },
            rpc: { username: "rpc", password: "rpcpw" },
            apiEnv: {},
            database: `mysql+pymysql://ironic:${ironicPassword}@${galera.proxyAddr}:${galera.proxyPort}/ironic?charset=utf8`,
        });
        for (const host of ["127.0.41.21", "127.0.41.22"]) lab.addConductor(host, {}, {});
        await lab.writeConfig();
        lab.dbsync();
        lab.startApi();
        for (const c of lab.conductors) lab.startConductor(c);
        await lab.untilRunning(async () => {
            try {
                return (await lab.aliveConductors()).length === 2;
            } catch {
                return false;
            }
        }, START, "API and 2 conductors alive", 500);
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") failed = true;
    });

    after(async function () {
        if (failed) {
            printLogTails("galera failover", [...(galera?.logFiles() ?? []), ...(lab?.logFiles() ?? [])], 40);
            console.error(process.env.KEEP_WORK === "1" ? `work directory kept: ${work}` : `work directory ${work} is removed; KEEP_WORK=1 keeps it`);
        }
        await lab?.stop();
        await galera?.stop();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("the cluster is three Synced members and every connection through the proxy reaches one writer", function () {
        for (const m of galera.members) assert.ok(galera.synced(m, 3), `${m.name} Synced in a Primary component of 3`);
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) seen.add(galera.writer("ironic", ironicPassword)!);
        assert.equal(seen.size, 1, `one writer for every connection, got ${[...seen].join(", ")}`);
    });

    it("kill the writer: the API reads and writes again within the bound, every node is there, conductors act, the member rejoins", async function () {
        const names: string[] = [];
        for (let i = 0; i < NODES; i++) {
            const n = await lab.api("POST", "/v1/nodes", { name: `galera-node-${i}`, driver: "fake-hardware" });
            names.push(n.name);
        }
        const before = (await lab.nodes()).map((n) => n.name).sort();
        assert.deepEqual(before, [...names].sort());

        const writerName = galera.writer("ironic", ironicPassword)!;
        const victim = galera.members.find((m) => m.name === writerName)!;
        assert.ok(victim, `the writer ${writerName} is a member`);
        const probe = names[0];
        const t0 = Date.now();
        await galera.kill(victim);
        let attempts = 0;
        let lastError = "";
        // A read and a write through the API, each attempt bounded by the request's own timeout.
        const elapsed = await until(
            async () => {
                attempts++;
                try {
                    await lab.api("GET", "/v1/nodes");
                    await lab.api("PATCH", `/v1/nodes/${probe}`, [{ op: "add", path: "/extra/failover", value: String(attempts) }]);
                    return true;
                } catch (e) {
                    lastError = (e as Error).message.slice(0, 200);
                    return false;
                }
            },
            FAILOVER_BOUND_MS + 30000,
            "the API reads and writes after the writer was killed",
            200,
        );
        const ms = Date.now() - t0;
        const newWriter = galera.writer("ironic", ironicPassword);
        console.log(`      failover: ${victim.name} killed; the API read and wrote again after ${ms} ms (${attempts} attempts; last error before: ${lastError || "none"}); new writer ${newWriter}`);
        assert.ok(elapsed >= 0);
        assert.ok(ms <= FAILOVER_BOUND_MS, `the API came back after ${ms} ms, bound ${FAILOVER_BOUND_MS} ms`);
        assert.notEqual(newWriter, victim.name);

        // Nothing lost: every node enrolled before the kill, and the write made after it.
        const after = await lab.nodes();
        assert.deepEqual(after.map((n) => n.name).sort(), before);
        assert.equal(after.find((n) => n.name === probe).extra.failover, String(attempts));
        // The conductors still serve: both alive, and one carries out a power change on the new writer.
        assert.equal((await lab.aliveConductors()).length, 2);
        await lab.api("PUT", `/v1/nodes/${names[1]}/states/power`, { target: "power on" });
        await until(async () => (await lab.api("GET", `/v1/nodes/${names[1]}`)).power_state === "power on", 60000, "power on carried out by a conductor", 500);

        // The killed member rejoins and catches up with what was written without it.
        const survivors = galera.members.filter((m) => m !== victim);
        for (const m of survivors) assert.ok(galera.synced(m, 2), `${m.name} Synced in a Primary component of 2`);
        galera.restart(victim);
        await until(() => galera.synced(victim, 3), START, `${victim.name} rejoined`, 1000);
        for (const m of galera.members) assert.equal(galera.status(m)?.wsrep_cluster_size, "3", `${m.name} sees 3 members`);
        const onVictim = run("mariadb", ["--no-defaults", "-S", victim.sock, "-uroot", "-N", "-B", "-e", `SELECT COUNT(*) FROM ironic.nodes; SELECT extra FROM ironic.nodes WHERE name = '${probe}'`]).stdout.trim().split("\n");
        assert.equal(onVictim[0], String(NODES));
        assert.match(onVictim[1], new RegExp(`"failover": "${attempts}"`));
    });
});
