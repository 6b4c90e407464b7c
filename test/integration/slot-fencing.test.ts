/**
 * The DHCP slot agent's fencing under faults, on the fast fake Lease API (test/helpers/lease-fake.ts):
 * the real agent (assets/dhcp-slot-agent.py, Python) supervising a dnsmasq stand-in that records
 * its own start and stop. The shared cases (test/helpers/fencing-cases.ts) take any Lease API
 * that can fault answers; the ones here need the fake's control: a claim answered slowly while the
 * agent is asked to stop, and every request the agents made (their verbs).
 *
 * Timings are short (a Lease of 1 s) so that each case takes seconds; the agent refuses timings
 * that break the fencing inequality, and these keep its proportions.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { slotRole } from "../../core/manifests/slots";
import { fakeBackend, FENCING_CASES } from "../helpers/fencing-cases";
import { LeaseFake } from "../helpers/lease-fake";
import { AGENT_SCRIPT, FAST, PYTHON, SlotAgentLab, SlotTimings, waitFor } from "../helpers/slot-agents";
import { requireOrSkip, tmpDir, which } from "../helpers/sys";

const NS = "slots";
const TOKEN = "fake-token";

describe("DHCP slot agent fencing under faults, on a fake Lease API (dhcp-slot-agent.py)", function () {
    this.timeout(60000);
    let dir = "";
    let fake: LeaseFake;
    let lab: SlotAgentLab;
    let n = 0;
    const methods = new Set<string>();

    before(function () {
        requireOrSkip(this, !!which(PYTHON) && !!which("bash"), "python3, bash");
        dir = tmpDir("fencing");
        fs.writeFileSync(path.join(dir, "token"), TOKEN, { mode: 0o600 });
        console.log(`      agent: ${AGENT_SCRIPT}`);
    });
    beforeEach(async function () {
        fake = new LeaseFake(NS, TOKEN);
        await fake.listen();
    });
    afterEach(async function () {
        if (this.currentTest?.state === "failed" && lab) console.log(lab.dump());
        lab?.cleanup();
        for (const r of fake.log) methods.add(r.method);
        await fake.close();
    });
    after(function () {
        if (dir && process.env.KEEP_WORK !== "1") fs.rmSync(dir, { recursive: true, force: true });
    });

    const newLab = (count: number, timing: SlotTimings = FAST) => (lab = new SlotAgentLab(dir, { url: (id) => fake.url(id), tokenFile: path.join(dir, "token"), namespace: NS, prefix: `f${n++}-`, count, timing }));

    for (const c of FENCING_CASES) {
        it(c.name, async function () {
            const l = newLab(1);
            await c.run({ backend: fakeBackend(fake, path.join(dir, "token")), lab: l, timing: FAST, prefix: l.o.prefix });
        });
    }

    it("SIGTERM while a claim is on its way never starts the child; the Lease got is released", async function () {
        // A retry period (a claim's time limit) long enough for a slow answer to still count.
        const l = newLab(1, { leaseDuration: 2, renewDeadline: 1.2, retryPeriod: 0.6, claimMargin: 0.5, stopGrace: 0.25 });
        let asked = 0;
        fake.policy = (r) => (r.kind === "create" || r.kind === "claim" ? (asked++, { kind: "slow", ms: 450 }) : undefined);
        const a = l.start("a");
        await waitFor("a's claim", () => asked > 0, 5000, 5);
        a.signal("SIGTERM");
        const code = await a.exited(10000);
        assert.equal(code, 0, a.log());
        // A child TERMed as it starts may die before it writes a record: its start is in the agent's log.
        assert.deepEqual(l.runs(), [], "no child ran");
        assert.doesNotMatch(a.log(), /held: started/, "no child started");
        assert.equal(fake.get(`${l.o.prefix}0`)?.spec.holderIdentity, undefined, "released");
    });

    it("the agents used only the verbs the rendered Role grants (get, create, update)", function () {
        const verbs = new Set((slotRole({ namespace: NS, name: "x", leaseNames: [], labels: {} }).rules as { verbs: string[] }[]).flatMap((r) => r.verbs));
        const used = new Set([...methods].map((m) => ({ GET: "get", POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" })[m] ?? m));
        assert.deepEqual([...used].sort(), ["create", "get", "update"]);
        assert.deepEqual([...verbs].sort(), [...used].sort(), "the Role grants exactly what the agents use");
    });
});
