/**
 * The DHCP pruner script, run by real Python against a stand-in Ironic API on loopback: what it
 * prunes, what it must never touch, and that it changes nothing while the API is unusable.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as http from "http";
import { AddressInfo } from "net";
import * as path from "path";
import { execFile, spawnSync } from "child_process";

import { PRUNER_ENV } from "../../core/contract";
import { renderPrunerScript } from "../../core/render/pruner";
import { PRUNER_TIMINGS } from "../../core/timings";
import { PRUNER_HEARTBEAT_FILE, dhcpPrunerContainer } from "../../core/manifests/containers";
import { multiTopology } from "../../core/manifests/topology";
import { Daemon, requireOrSkip, tmpDir, which } from "../helpers/sys";
import { ha, plain } from "../unit/manifests/support";

const ME = "172.22.0.3";
const OTHER = "172.22.0.4";
/** Requests the stand-in API must have had before a window closes: two or three full passes, or a dozen polls of an API that is down. */
const MIN_WINDOW_REQUESTS = 12;

interface FakeState {
    meAlive: boolean;
    nodes: any[];
    ports: any[];
    down: boolean;
    requests: number;
    unauthorized: number;
    /** Conductors that joined (a ring change). */
    joined: string[];
    /** Each node listing's kind, in order: "detail" (owners) or "fields=…"; "ports". */
    listings: string[];
    /** A slow API: each answer this late. */
    delayMs: number;
    /** When each request came in and was answered (ms since the epoch). */
    answered: [number, number][];
}

describe("DHCP pruner (python, stand-in Ironic API on loopback)", function () {
    this.timeout(90000);
    let dir = "";
    let server: http.Server;
    let url = "";
    const state: FakeState = { meAlive: false, nodes: [], ports: [], down: false, requests: 0, unauthorized: 0, joined: [], listings: [], delayMs: 0, answered: [] };
    let testNo = 0;
    const expectedAuth = "Basic " + Buffer.from("metal3:pw").toString("base64");

    before(async function () {
        requireOrSkip(this, !!which("python3"), "python3");
        server = http.createServer((req, res) => {
            const t0 = Date.now();
            res.on("finish", () => state.answered.push([t0, Date.now()]));
            // A request that arrived during an earlier test and is answered late belongs to that test:
            // it must not count in the next one's listings (CI of 447b00d saw one such stray listing).
            const test = testNo;
            if (state.delayMs > 0) setTimeout(() => (test === testNo ? answer(req, res) : res.destroy()), state.delayMs);
            else answer(req, res);
        });
        const answer = (req: http.IncomingMessage, res: http.ServerResponse) => {
            state.requests++;
            if (req.headers.authorization !== expectedAuth) {
                state.unauthorized++;
                res.writeHead(401).end();
                return;
            }
            if (state.down) {
                res.writeHead(503).end("maintenance");
                return;
            }
            const u = new URL(req.url!, "http://x");
            // Two pages of nodes, to exercise pagination through "next"; `fields` as Ironic 38 answers
            // it (only those fields: no owner), detail=true with each node's owner.
            const fields = u.searchParams.get("fields");
            const view = (n: any) => (fields ? Object.fromEntries(fields.split(",").map((f) => [f, n[f]])) : n);
            if (u.pathname === "/v1/nodes" && !u.searchParams.get("marker")) {
                state.listings.push(fields ? `fields=${fields}` : u.searchParams.get("detail") === "true" ? "detail" : "bare");
                const next = new URL(u.toString().replace("http://x", url));
                next.searchParams.set("marker", "1");
                res.end(JSON.stringify({ nodes: state.nodes.slice(0, 1).map(view), next: next.toString() }));
            } else if (u.pathname === "/v1/nodes") {
                res.end(JSON.stringify({ nodes: state.nodes.slice(1).map(view) }));
            } else if (u.pathname === "/v1/ports") {
                state.listings.push("ports");
                res.end(JSON.stringify({ ports: state.ports }));
            } else if (u.pathname === "/v1/conductors") {
                res.end(JSON.stringify({ conductors: [{ hostname: ME, alive: state.meAlive }, { hostname: OTHER, alive: true }, ...state.joined.map((h) => ({ hostname: h, alive: true }))] }));
            } else res.writeHead(404).end();
        };
        await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => server?.close());

    beforeEach(function () {
        testNo++;
        dir = tmpDir("pruner");
        for (const d of ["hosts", "opts", "auth"]) fs.mkdirSync(path.join(dir, d));
        fs.writeFileSync(path.join(dir, "auth", "username"), "metal3\n");
        fs.writeFileSync(path.join(dir, "auth", "password"), "pw\n");
        fs.writeFileSync(path.join(dir, "pruner.py"), renderPrunerScript());
        state.down = false;
        state.meAlive = false;
        state.joined = [];
        state.listings = [];
        state.delayMs = 0;
        state.answered = [];
        state.nodes = [
            { uuid: "n-mine", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-mine" } },
            { uuid: "n-moved", conductor: OTHER, driver_internal_info: { dnsmasq_tag: "tag-moved" } },
            { uuid: "n-cleaned", conductor: ME, driver_internal_info: {} },
            { uuid: "n-fresh", conductor: OTHER, driver_internal_info: { dnsmasq_tag: "tag-fresh" } },
            { uuid: "n-retagged", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-new" } },
            { uuid: "n-ownerless", conductor: null, driver_internal_info: { dnsmasq_tag: "tag-ownerless" } },
        ];
        state.ports = [
            { address: "52:54:00:00:00:01", node_uuid: "n-mine" },
            { address: "52:54:00:00:00:02", node_uuid: "n-moved" },
            { address: "52:54:00:00:00:03", node_uuid: "n-cleaned" },
            { address: "52:54:00:00:00:05", node_uuid: "n-fresh" },
            { address: "52:54:00:00:00:06", node_uuid: "n-retagged" },
            { address: "52:54:00:00:00:07", node_uuid: "n-ownerless" },
            { address: "52:54:00:00:00:09", node_uuid: "n-unlisted" },
        ];
        const old = new Date(Date.now() - 60000);
        const host = (mac: string, tag: string, fresh = false) => {
            const f = path.join(dir, "hosts", `ironic-${mac}.conf`);
            fs.writeFileSync(f, `${mac},set:${tag},set:ironic\n`);
            if (!fresh) fs.utimesSync(f, old, old);
        };
        host("52:54:00:00:00:01", "tag-mine");
        host("52:54:00:00:00:02", "tag-moved");
        host("52:54:00:00:00:03", "tag-gone");
        host("52:54:00:00:00:04", "tag-deleted"); // no port: its node was deleted
        host("52:54:00:00:00:07", "tag-ownerless"); // its node has no conductor: cannot be attributed
        host("52:54:00:00:00:08", "tag-deleted-fresh", true); // no port, but just written
        host("52:54:00:00:00:09", "tag-unlisted"); // a port whose node the listing did not show
        host("52:54:00:00:00:05", "tag-fresh", true); // just written: within the grace period
        host("52:54:00:00:00:06", "tag-old"); // own node whose tag differs: may be a racing takeover
        for (const n of ["n-mine", "n-moved", "n-deleted", "n-ownerless"]) {
            const f = path.join(dir, "opts", `ironic-${n}.conf`);
            fs.writeFileSync(f, `tag:x,67,snponly.efi\n`);
            fs.utimesSync(f, old, old);
        }
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    function startPruner(rebalanceDelay = "1", extra: Record<string, string> = {}): { stop(): Promise<string> } {
        const log = path.join(dir, "pruner.log");
        const d = new Daemon("python3", [path.join(dir, "pruner.py")], log, {
            PATH: process.env.PATH,
            [PRUNER_ENV.apiUrl]: url,
            [PRUNER_ENV.authDir]: path.join(dir, "auth"),
            [PRUNER_ENV.hostsDir]: path.join(dir, "hosts"),
            [PRUNER_ENV.optsDir]: path.join(dir, "opts"),
            [PRUNER_ENV.interval]: "0.2",
            // Entries written in beforeEach are "fresh" for the whole test however slow the machine; the old ones are 60 s old.
            [PRUNER_ENV.grace]: "45",
            [PRUNER_ENV.rebalanceDelay]: rebalanceDelay,
            [PRUNER_ENV.conductorHost]: ME,
            // Passes as often as the interval says (the windows below count on several), unless a test sets the pod's.
            [PRUNER_ENV.pausePerPass]: "0",
            ...extra,
        });
        return {
            async stop() {
                await d.stop();
                return fs.readFileSync(log, "utf8");
            },
        };
    }
    /** A steady fleet: both entries are this conductor's own and current, so no verdict waits. */
    function steadyFleet(): void {
        state.nodes = [
            { uuid: "n-mine", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-mine" } },
            { uuid: "n-a", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-a" } },
            { uuid: "n-b", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-b" } },
        ];
        state.ports = [
            { address: "52:54:00:00:00:01", node_uuid: "n-mine" },
            { address: "52:54:00:00:00:0a", node_uuid: "n-a" },
            { address: "52:54:00:00:00:0b", node_uuid: "n-b" },
        ];
        for (const d of ["hosts", "opts"]) for (const f of fs.readdirSync(path.join(dir, d))) fs.rmSync(path.join(dir, d, f));
        const old = new Date(Date.now() - 60000);
        for (const [mac, tag, uuid] of [["52:54:00:00:00:01", "tag-mine", "n-mine"], ["52:54:00:00:00:0a", "tag-a", "n-a"], ["52:54:00:00:00:0b", "tag-b", "n-b"]]) {
            fs.writeFileSync(path.join(dir, "hosts", `ironic-${mac}.conf`), `${mac},set:${tag},set:ironic\n`);
            fs.writeFileSync(path.join(dir, "opts", `ironic-${uuid}.conf`), "tag:x,67,snponly.efi\n");
            fs.utimesSync(path.join(dir, "hosts", `ironic-${mac}.conf`), old, old);
            fs.utimesSync(path.join(dir, "opts", `ironic-${uuid}.conf`), old, old);
        }
    }
    /**
     * The window the tests are about: what the pruner did, and did not do, in it. It opens at the
     * pruner's first request (a loaded machine may take seconds to start python) and closes `ms`
     * later, once the API has had at least MIN_WINDOW_REQUESTS of its requests (several 0.2 s polls).
     */
    async function runPruner(ms: number, rebalanceDelay = "1", extra: Record<string, string> = {}): Promise<string> {
        const before = state.requests;
        const p = startPruner(rebalanceDelay, extra);
        const waitFor = async (what: string, ok: () => boolean) => {
            const log = () => (fs.existsSync(path.join(dir, "pruner.log")) ? fs.readFileSync(path.join(dir, "pruner.log"), "utf8").slice(-2000) : "none");
            for (const t0 = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 50))) if (Date.now() - t0 > 20000) throw new Error(`the pruner: no ${what} in 20 s (log: ${log()})`);
        };
        try {
            await waitFor("first request", () => state.requests > before);
            await new Promise((r) => setTimeout(r, ms));
            await waitFor(`${MIN_WINDOW_REQUESTS} requests`, () => state.requests - before >= MIN_WINDOW_REQUESTS);
        } finally {
            await p.stop();
        }
        return fs.readFileSync(path.join(dir, "pruner.log"), "utf8");
    }
    const host = (mac: string) => fs.readFileSync(path.join(dir, "hosts", `ironic-${mac}.conf`), "utf8");

    it("ignores entries of nodes another conductor owns or whose tag is gone, and keeps its own", async function () {
        const log = await runPruner(1500);
        assert.equal(host("52:54:00:00:00:01"), "52:54:00:00:00:01,set:tag-mine,set:ironic\n", "own, current: kept");
        assert.equal(host("52:54:00:00:00:02"), "52:54:00:00:00:02,ignore\n", "owned by another conductor: ignored");
        assert.equal(host("52:54:00:00:00:03"), "52:54:00:00:00:03,ignore\n", "node has no tag any more (cleaned up elsewhere): ignored");
        assert.ok(fs.existsSync(path.join(dir, "opts", "ironic-n-mine.conf")));
        assert.ok(!fs.existsSync(path.join(dir, "opts", "ironic-n-moved.conf")), "the moved node's option file is removed");
        assert.equal(host("52:54:00:00:00:04"), "52:54:00:00:00:04,ignore\n", "no port has the MAC (node deleted): ignored");
        assert.ok(!fs.existsSync(path.join(dir, "opts", "ironic-n-deleted.conf")), "a deleted node's option file is removed");
        assert.match(log, /host 52:54:00:00:00:04 belongs to no port in Ironic \(its node or port was deleted\): entry ironic-52:54:00:00:00:04\.conf set to ignore/);
        assert.match(log, /node n-deleted no longer exists: removed option file ironic-n-deleted\.conf/);
        assert.match(log, /host 52:54:00:00:00:02 \(node n-moved\) is owned by 172\.22\.0\.4: entry ironic-52:54:00:00:00:02\.conf set to ignore/);
        assert.equal(state.unauthorized, 0, "authenticates with the API credentials");
        assert.deepEqual(fs.readdirSync(path.join(dir, "hosts")).filter((f) => f.startsWith(".")), [], "no temp file left behind");
    });

    it("reads owners and ports (detailed listings) at start, on a change of the conductors and while a verdict waits; a deleted node on every pass", async function () {
        this.timeout(60000);
        steadyFleet();
        const until = async (what: string, ok: () => boolean, ms = 20000) => {
            for (const t0 = Date.now(); !ok(); await new Promise((r) => setTimeout(r, 50))) if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
        };
        const p = startPruner("1", { [PRUNER_ENV.fullInterval]: "600" });
        try {
            await until("a quick pass after the first", () => state.listings.length >= 4);
            assert.deepEqual(state.listings.slice(0, 2), ["detail", "ports"], "the first pass reads every owner and port");
            assert.deepEqual(state.listings.slice(2), state.listings.slice(2).map(() => "fields=uuid"), "nothing waits: later passes list node UUIDs only, no ports");
            // n-a moves with the conductors unchanged (an edit of its group); n-mine is deleted, its
            // port with it (as Ironic does); n-b's port alone is deleted.
            state.nodes[1].conductor = OTHER;
            state.nodes = state.nodes.filter((n) => n.uuid !== "n-mine");
            state.ports = state.ports.filter((x) => x.node_uuid === "n-a");
            const moved = state.listings.length;
            await until("the deleted node's entry ignored", () => host("52:54:00:00:00:01") === "52:54:00:00:00:01,ignore\n");
            await until("its option file removed", () => !fs.existsSync(path.join(dir, "opts", "ironic-n-mine.conf")));
            await until("two more quick passes", () => state.listings.length >= moved + 3);
            assert.ok(state.listings.slice(moved).every((l) => l === "fields=uuid"), `quick passes only: ${state.listings.slice(moved)}`);
            assert.equal(host("52:54:00:00:00:0a"), "52:54:00:00:00:0a,set:tag-a,set:ironic\n", "an owner change is not seen between full passes");
            assert.ok(fs.existsSync(path.join(dir, "opts", "ironic-n-a.conf")));
            assert.equal(host("52:54:00:00:00:0b"), "52:54:00:00:00:0b,set:tag-b,set:ironic\n", "a port deleted alone is not seen between full passes");
            // A conductor joins: the ring changed, owners and ports are read again and both entries go.
            state.joined = ["172.22.0.9"];
            const joined = state.listings.length;
            await until("the moved entry ignored", () => host("52:54:00:00:00:0a") === "52:54:00:00:00:0a,ignore\n");
            await until("its option file removed", () => !fs.existsSync(path.join(dir, "opts", "ironic-n-a.conf")));
            await until("the portless entry ignored", () => host("52:54:00:00:00:0b") === "52:54:00:00:00:0b,ignore\n");
            assert.ok(!state.listings.slice(joined + 1).includes("fields=uuid"), `owners read on every pass after the change: ${state.listings.slice(joined)}`);
        } finally {
            const log = await p.stop();
            assert.match(log, /host 52:54:00:00:00:01 belongs to no port in Ironic/);
            assert.match(log, /node n-mine no longer exists: removed option file ironic-n-mine\.conf/);
            assert.match(log, /host 52:54:00:00:00:0a \(node n-a\) is owned by 172\.22\.0\.4: entry ironic-52:54:00:00:00:0a\.conf set to ignore/);
        }
        assert.ok(fs.existsSync(path.join(dir, "opts", "ironic-n-b.conf")), "n-b still exists: its option file stays");
    });

    it("between full passes, leaves an entry rewritten since the last one alone (a deleted node's MAC enrolled again)", async function () {
        steadyFleet();
        const p = startPruner("1", { [PRUNER_ENV.fullInterval]: "600", [PRUNER_ENV.grace]: "0.5" });
        let log = "";
        try {
            for (const t0 = Date.now(); state.listings.length < 4; await new Promise((r) => setTimeout(r, 50))) if (Date.now() - t0 > 20000) throw new Error("no quick pass");
            // n-b is deleted and its MAC enrolled again as n-c, whose owner (this conductor) writes the entry.
            state.nodes = [...state.nodes.filter((n) => n.uuid !== "n-b"), { uuid: "n-c", conductor: ME, driver_internal_info: { dnsmasq_tag: "tag-c" } }];
            state.ports = [...state.ports.filter((x) => x.node_uuid !== "n-b"), { address: "52:54:00:00:00:0b", node_uuid: "n-c" }];
            fs.writeFileSync(path.join(dir, "hosts", "ironic-52:54:00:00:00:0b.conf"), "52:54:00:00:00:0b,set:tag-c,set:ironic\n");
            const quick = state.listings.length;
            // Past the grace period, over several quick passes: the old MAC-to-node view must not prune it.
            await new Promise((r) => setTimeout(r, 2000));
            assert.ok(state.listings.length >= quick + 3 && state.listings.slice(quick).every((l) => l === "fields=uuid"), `quick passes: ${state.listings.slice(quick)}`);
            assert.equal(host("52:54:00:00:00:0b"), "52:54:00:00:00:0b,set:tag-c,set:ironic\n", "the new node's entry is kept");
            // The next full pass (a conductor joins) sees the port on n-c, this conductor's: kept too.
            state.joined = ["172.22.0.9"];
            const joined = state.listings.length;
            for (const t0 = Date.now(); !state.listings.slice(joined).includes("ports"); await new Promise((r) => setTimeout(r, 50))) if (Date.now() - t0 > 20000) throw new Error("no full pass");
            await new Promise((r) => setTimeout(r, 1000));
            assert.equal(host("52:54:00:00:00:0b"), "52:54:00:00:00:0b,set:tag-c,set:ironic\n", "kept by the full pass");
        } finally {
            log = await p.stop();
        }
        assert.doesNotMatch(log, /52:54:00:00:00:0b/);
    });

    it("after each pass waits three times as long as it took, when that is longer than its interval: a slow API (a large fleet) is listed at most a quarter of the time", async function () {
        this.timeout(30000);
        steadyFleet();
        state.delayMs = 200; // a quick pass: conductors and two pages of nodes, 0.6 s
        const p = startPruner("1", { [PRUNER_ENV.fullInterval]: "600", [PRUNER_ENV.pausePerPass]: String(PRUNER_TIMINGS.pausePerPass) });
        try {
            await new Promise((r) => setTimeout(r, 9000));
        } finally {
            await p.stop();
        }
        // Passes as the API saw them: requests less than 1 s apart belong to one pass (its interval is 0.2 s).
        const passes: [number, number][] = [];
        for (const [t0, t1] of state.answered) {
            const last = passes[passes.length - 1];
            if (last && t0 - last[1] < 1000) last[1] = Math.max(last[1], t1);
            else passes.push([t0, t1]);
        }
        assert.ok(passes.length >= 3, `it went on polling, with pauses of a second or more between passes: ${JSON.stringify(passes)}`);
        for (let i = 0; i + 1 < passes.length; i++) {
            const [took, paused] = [passes[i][1] - passes[i][0], passes[i + 1][0] - passes[i][1]];
            assert.ok(paused >= 2.5 * took, `pass ${i} took ${took} ms (the API's answers) and was followed by a pause of ${paused} ms, not three times as long`);
        }
    });

    it("with PRUNER_ONCE=1 runs passes until a quick one, says how long each took, and exits", async function () {
        steadyFleet();
        // Asynchronously: the stand-in API answers from this process's event loop.
        const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
            const env = { PATH: process.env.PATH, [PRUNER_ENV.apiUrl]: url, [PRUNER_ENV.authDir]: path.join(dir, "auth"), [PRUNER_ENV.hostsDir]: path.join(dir, "hosts"), [PRUNER_ENV.optsDir]: path.join(dir, "opts"), [PRUNER_ENV.interval]: "0.1", [PRUNER_ENV.conductorHost]: ME, [PRUNER_ENV.once]: "1" };
            execFile("python3", [path.join(dir, "pruner.py")], { env, timeout: 20000 }, (e, stdout, stderr) => resolve({ code: e ? ((e as any).code ?? null) : 0, out: stdout + stderr }));
        });
        assert.equal(r.code, 0, r.out);
        assert.match(r.out, /full pass: \d+\.\d\d s\n/);
        assert.match(r.out, /quick pass: \d+\.\d\d s\n/);
        assert.deepEqual(state.listings, ["detail", "ports", "fields=uuid"], "ports are listed on full passes only");
    });

    it("never touches what it cannot attribute (a node with no owner, or not listed), nor an entry written within the grace period", async function () {
        const log = await runPruner(1500);
        assert.equal(host("52:54:00:00:00:07"), "52:54:00:00:00:07,set:tag-ownerless,set:ironic\n");
        assert.match(log, /leaving ironic-52:54:00:00:00:07\.conf alone: cannot attribute/);
        assert.ok(fs.existsSync(path.join(dir, "opts", "ironic-n-ownerless.conf")), "an ownerless node's option file is kept");
        assert.equal(host("52:54:00:00:00:09"), "52:54:00:00:00:09,set:tag-unlisted,set:ironic\n", "a port whose node was not listed: kept");
        assert.equal(host("52:54:00:00:00:08"), "52:54:00:00:00:08,set:tag-deleted-fresh,set:ironic\n", "no port, but fresh: kept (the port may be newer than the listing)");
        assert.equal(host("52:54:00:00:00:05"), "52:54:00:00:00:05,set:tag-fresh,set:ironic\n", "fresh entry kept: the API may lag the ring");
        assert.equal(host("52:54:00:00:00:06"), "52:54:00:00:00:06,set:tag-old,set:ironic\n", "own node with another tag: not silenced");
    });

    it("while its own conductor is alive (a rebalance), waits the rebalance delay before pruning", async function () {
        state.meAlive = true;
        // A delay no window here comes near, however slow the machine.
        await runPruner(1200, "60");
        assert.equal(host("52:54:00:00:00:02"), "52:54:00:00:00:02,set:tag-moved,set:ironic\n", "kept: the new owner has not taken over yet");
        assert.equal(host("52:54:00:00:00:04"), "52:54:00:00:00:04,ignore\n", "a deleted node's entry is no rebalance: pruned without the delay");
        state.meAlive = false;
        await runPruner(1200, "3");
        assert.equal(host("52:54:00:00:00:02"), "52:54:00:00:00:02,ignore\n", "its conductor is dead: pruned once confirmed");
    });

    it("changes nothing while the API is unusable, and resumes when it is back", async function () {
        state.down = true;
        const log = await runPruner(1200);
        assert.equal(host("52:54:00:00:00:02"), "52:54:00:00:00:02,set:tag-moved,set:ironic\n");
        assert.match(log, /Ironic API not usable .*changing nothing/);
        assert.equal((log.match(/not usable/g) ?? []).length, 1, "logged once, not per poll");
        state.down = false;
        await runPruner(1500);
        assert.equal(host("52:54:00:00:00:02"), "52:54:00:00:00:02,ignore\n");
    });

    it("touches its heartbeat on every poll, also while the API is unusable; the pod's liveness probe reads its age", async function () {
        const beat = path.join(dir, "heartbeat");
        // The probe as rendered for the pod, run with this machine's python3 (the image has python3.12).
        const probe = plain(dhcpPrunerContainer(ha, [], multiTopology(ha)).livenessProbe).exec.command as string[];
        assert.equal(probe[3], PRUNER_HEARTBEAT_FILE);
        const check = (file: string) => spawnSync("python3", [probe[1], probe[2], file, probe[4]]).status;
        assert.notEqual(check(beat), 0, "no heartbeat yet: the probe fails");
        state.down = true;
        const t0 = Date.now() / 1000;
        const log = await runPruner(1200, "1", { [PRUNER_ENV.heartbeatFile]: beat });
        assert.match(log, /not usable/);
        const mtime = fs.statSync(beat).mtimeMs / 1000;
        assert.ok(mtime >= t0 + 0.5, `touched after the first polls, not only at start (${(mtime - t0).toFixed(2)} s after start)`);
        assert.equal(check(beat), 0, "fresh heartbeat: the probe passes");
        const stale = Date.now() / 1000 - Number(probe[4]) - 5;
        fs.utimesSync(beat, stale, stale);
        assert.notEqual(check(beat), 0, `a heartbeat older than ${probe[4]} s fails the probe`);
    });
});
