/**
 * `npm run plan -- --diff DIR` (tools/diff.ts): the object diff and the restart report, on the
 * scenarios a reviewer meets: list a node, change one node's IP, bump the Ironic image. Pods follow
 * the cluster's nodes (the DaemonSet's placement), so the config never adds or removes a pod.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { K8sObject, changedFields, diffRenders, objectId, readRender, restartReport } from "../../tools/diff";
import { valueOf } from "../../tools/offline";
import { renderOffline, readStackConfig } from "../../tools/render";
import { nodeDataReadersHash } from "../../core/plan/conductor";
import { buildPlanCliFirst, planCli } from "../helpers/plan-cli";
import { tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
/** The per-node entries' ConfigMap (named for the scripts that read it). */
const NODE_DATA = `ironic-conductors-${nodeDataReadersHash()}`;
const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
const conductors = haRaw.conductors as { name: string; ip: string; slot?: number }[];

/** The render of `raw` as the stack's next run: with the outputs its previous run left (kept DHCP slots). */
async function objects(raw: RawConfig, previousOutputs: Record<string, unknown> = {}): Promise<Map<string, K8sObject>> {
    const r = await renderOffline(raw, "ha", { previousOutputs });
    return new Map(r.objects.map((o) => [objectId(o), o]));
}

describe("plan --diff: what changes and what restarts", function () {
    this.timeout(120000);
    let base: Map<string, K8sObject>;
    let previous: Record<string, unknown>;
    before(async () => {
        const first = await renderOffline(haRaw, "ha");
        base = new Map(first.objects.map((o) => [objectId(o), o]));
        previous = { ironicImage: await valueOf(first.outputs.ironicImage), state: await valueOf(first.outputs.state) };
    });
    buildPlanCliFirst();

    it("list a node: only its containers restart (its entry is new); the diff shows its entry and its preferred slot, no Node", async function () {
        const after = await objects({ ...haRaw, conductors: [...conductors, { name: "cp-3", ip: "172.22.0.5" }] }, previous);
        assert.deepEqual(restartReport(base, after), [
            `DaemonSet metal3/ironic: only the containers on cp-3 restart, if it runs a conductor (its own entry changed: ${NODE_DATA}[cp-3.env]); pods on other nodes keep running`,
        ]);
        const changes = diffRenders(base, after);
        assert.ok(!changes.some((c) => c.id.startsWith("Node/")), "the program patches no Node");
        assert.deepEqual(changes.find((c) => c.id === `ConfigMap/metal3/${NODE_DATA}`)!.fields, ['+ data["cp-3.env"]', '~ data["slot-preferences.json"]']);
        assert.equal(changes.find((c) => c.id === "DaemonSet/metal3/ironic"), undefined, "the pod template is untouched");
    });

    it("file names follow the objects, not their positions: listing a node adds no file and renames none", async function () {
        const before = (await renderOffline(haRaw, "ha")).files.map((f) => f.name);
        const after = (await renderOffline({ ...haRaw, conductors: [...conductors, { name: "cp-3", ip: "172.22.0.5" }] }, "ha", { previousOutputs: previous })).files.map((f) => f.name);
        assert.deepEqual(after, before);
        const noEntries = (await renderOffline({ ...haRaw, conductors: [] }, "ha")).files.map((f) => f.name);
        assert.deepEqual(noEntries, before, "the same objects with no node listed");
        assert.ok(before.includes("daemonset/metal3/ironic.yaml") && !before.some((f) => f.startsWith("node/")));
    });

    it("unlist a node: only its containers restart (they find the address themselves); its pod stays", async function () {
        const after = await objects({ ...haRaw, conductors: conductors.filter((c) => c.name !== "cp-0") }, previous);
        assert.deepEqual(restartReport(base, after), [
            `DaemonSet metal3/ironic: only the containers on cp-0 restart, if it runs a conductor (its own entry changed: ${NODE_DATA}[cp-0.env]); pods on other nodes keep running`,
        ]);
    });

    it("change one node's IP: only that node's containers restart", async function () {
        const after = await objects({ ...haRaw, conductors: conductors.map((c) => (c.name === "cp-1" ? { ...c, ip: "172.22.0.6" } : c)) }, previous);
        const report = restartReport(base, after);
        assert.equal(report.length, 1, report.join("\n"));
        assert.match(report[0], /^DaemonSet metal3\/ironic: only the containers on cp-1 restart, if it runs a conductor \(its own entry changed: ironic-conductors-[0-9a-f]{10}\[cp-1\.env\]\); pods on other nodes keep running$/);
    });

    it("a pure reorder of the three nodes, rendered as the next run (--previous): nothing changes, nothing restarts", async function () {
        const after = await objects({ ...haRaw, conductors: [conductors[2], conductors[0], conductors[1]] }, previous);
        assert.deepEqual(diffRenders(base, after), []);
        assert.deepEqual(restartReport(base, after), ["no pod restarts and no Job runs"]);
    });

    it("three nodes' entries change: one line for the workload, naming the three nodes (not three lines each saying the other pods keep running)", async function () {
        const after = await objects({ ...haRaw, conductors: conductors.map((c, i) => ({ ...c, ip: `172.22.0.${6 + i}` })) }, previous);
        const report = restartReport(base, after);
        assert.equal(report.length, 1, report.join("\n"));
        assert.match(report[0], /^DaemonSet metal3\/ironic: only the containers on cp-0, cp-1 and cp-2 restart, each if it runs a conductor \(their own entries changed: ironic-conductors-[0-9a-f]{10}\[cp-0\.env\], ironic-conductors-[0-9a-f]{10}\[cp-1\.env\], ironic-conductors-[0-9a-f]{10}\[cp-2\.env\]\); pods on other nodes keep running$/);
    });

    it("a re-slice is flagged first in the conductors' line, with the slices that move; a new lease time moves none and is not", async function () {
        const p = haRaw.provisioning as Record<string, any>;
        const resliced = await objects({ ...haRaw, provisioning: { ...p, dhcp: { ...p.dhcp, rangeEnd: "172.22.0.249", reslice: true } } }, previous);
        const report = restartReport(base, resliced);
        assert.equal(report.length, 1, report.join("\n"));
        assert.match(
            report[0],
            /^DaemonSet metal3\/ironic: RE-SLICE, every conductor's DHCP slice moves \(slot 0 172\.22\.0\.10-172\.22\.0\.59 → 172\.22\.0\.10-172\.22\.0\.69, slot 1 172\.22\.0\.60-172\.22\.0\.109 → 172\.22\.0\.70-172\.22\.0\.129 and 2 more\): .*a host that is provisioning, inspecting or cleaning meanwhile may fail its network boot; every pod restarts, one node at a time/,
        );
        const moreSlots = restartReport(base, await objects({ ...haRaw, provisioning: { ...p, dhcp: { ...p.dhcp, slots: 5, reslice: true } } }, previous));
        assert.match(moreSlots[0], /^DaemonSet metal3\/ironic: RE-SLICE, every conductor's DHCP slice moves \(4 → 5 slots; /);
        const lease = restartReport(base, await objects({ ...haRaw, provisioning: { ...p, dhcp: { ...p.dhcp, leaseTime: "2h" } } }, previous));
        assert.equal(lease.length, 1, lease.join("\n"));
        assert.doesNotMatch(lease[0], /RE-SLICE/);
        assert.match(lease[0], /^DaemonSet metal3\/ironic: every pod restarts/);
    });

    it("a topology switch is one flagged line: the old workload deleted first, the new one's pods and where, the DHCP gap", async function () {
        const single: RawConfig = { ...devRaw, database: { kind: "mariadb" } };
        const multi: RawConfig = { ...single, topology: "multi", provisioning: haRaw.provisioning, conductors };
        const first = await renderOffline(single, "dev");
        const s = new Map(first.objects.map((o) => [objectId(o), o]));
        const m = new Map((await renderOffline(multi, "dev", { previousOutputs: { ironicImage: await valueOf(first.outputs.ironicImage), state: await valueOf(first.outputs.state) } })).objects.map((o) => [objectId(o), o]));
        const up = restartReport(s, m).filter((l) => !l.startsWith("Job "));
        assert.deepEqual(up, [
            "Deployment metal3/ironic → DaemonSet metal3/ironic: TOPOLOGY SWITCH single → multi, Deployment deleted first (its pods stop), then the DaemonSet created: its pods start on every node with node-role.kubernetes.io/control-plane; no DHCP server answers in between (hosts that PXE-boot meanwhile retry): run it when no host is being provisioned, inspected or cleaned",
        ]);
        const down = restartReport(m, s).filter((l) => !l.startsWith("Job "));
        assert.equal(down.length, 1, down.join("\n"));
        assert.match(down[0], /^DaemonSet metal3\/ironic → Deployment metal3\/ironic: TOPOLOGY SWITCH multi → single, DaemonSet deleted first \(its pods stop\), then the Deployment created: its pod starts; no DHCP server answers in between/);
    });

    it("bump the Ironic image to a patch release: every pod rolls, the schema upgrade runs first and the migrations after", async function () {
        const after = await objects({ ...haRaw, images: { ironic: "quay.io/metal3-io/ironic:v38.0.1" } }, previous);
        const report = restartReport(base, after);
        assert.equal(report.length, 4, report.join("\n"));
        assert.match(report[0], /^DaemonSet metal3\/ironic: every pod restarts, one node at a time \(every node with node-role\.kubernetes\.io\/control-plane\), because of ~ spec\.template\.spec\.containers\[ironic\]\.image/);
        // The IPA cache's server runs in the ironic image; its downloaders' version keys do not change, so it downloads nothing.
        // The cache's Deployment is Recreate (its ReadWriteOnce volume): the report says it is down meanwhile.
        assert.match(report[1], /^Deployment metal3\/ironic-ipa-cache: its pod stops, then the new one starts \(Recreate\): down until the new pod is ready, because of ~ spec\.template\.spec\.containers\[server\]\.image: "quay\.io\/metal3-io\/ironic:v38\.0\.0" → "quay\.io\/metal3-io\/ironic:v38\.0\.1"$/);
        assert.match(report[2], /^Job metal3\/ironic-dbsync-[0-9a-f]+ runs first, before any Ironic pod rolls$/);
        assert.match(report[3], /^Job metal3\/ironic-migrate-[0-9a-f]+ runs next, after the Ironic pods are ready$/);
    });

    it("bump the Ironic image to a newer release: pinned to the deployed one (else refused), every pod rolls, the schema upgrade first, the migrations wait for the next run", async function () {
        const bumped = { ...haRaw, images: { ironic: "quay.io/metal3-io/ironic:v38.1.0" } };
        await assert.rejects(objects(bumped, previous), /pin_release_version/);
        const after = await objects({ ...bumped, ironic: { ...(haRaw.ironic as object), config: { "default.pin_release_version": "38.0" } } }, previous);
        const report = restartReport(base, after);
        assert.equal(report.length, 3, report.join("\n"));
        assert.match(report[0], /^DaemonSet metal3\/ironic: every pod restarts, one node at a time .*containers\[ironic\]\.env\[OS_DEFAULT__PIN_RELEASE_VERSION\]/);
        assert.match(report[2], /^Job metal3\/ironic-dbsync-[0-9a-f]+ runs first, before any Ironic pod rolls$/);
        assert.ok(!report.some((l) => /ironic-migrate/.test(l)), report.join("\n"));
    });

    it("single: an image bump stops the one Ironic pod before its successor starts, and says so", async function () {
        const dev = await objects(devRaw, {});
        const bumped = await objects({ ...devRaw, images: { ironic: "quay.io/metal3-io/ironic:v38.1.0" } }, {});
        const report = restartReport(dev, bumped);
        assert.match(report[0], /^Deployment metal3\/ironic: its pod stops, then the new one starts \(Recreate\): down until the new pod is ready, because of /);
        // The values a reviewer needs: the image before and after.
        assert.match(report[0], /~ spec\.template\.spec\.containers\[ironic\]\.image: "quay\.io\/metal3-io\/ironic:v38\.0\.0" → "quay\.io\/metal3-io\/ironic:v38\.1\.0"/);
        assert.ok(!report.some((l) => /rolling update/.test(l)), report.join("\n"));
    });

    it("the same config: no change at all", async function () {
        assert.deepEqual(diffRenders(base, await objects(haRaw, previous)), []);
        assert.deepEqual(restartReport(base, base), ["no pod restarts and no Job runs"]);
    });

    it("field paths: named lists by name, odd keys quoted, added/removed/changed marked", function () {
        const a = { spec: { containers: [{ name: "x", image: "a" }, { name: "y", image: "b" }] }, data: { "k.env": "1", gone: "2" } };
        const b = { spec: { containers: [{ name: "y", image: "b" }, { name: "x", image: "c" }] }, data: { "k.env": "1", fresh: "3" } };
        assert.deepEqual(changedFields(a, b), ["+ data.fresh", "- data.gone", '~ spec.containers[x].image: "a" → "c"']);
        // Values only where they are one short line, and never without asking (Secrets).
        assert.deepEqual(changedFields(a, b, "", false), ["+ data.fresh", "- data.gone", "~ spec.containers[x].image"]);
        assert.deepEqual(changedFields({ d: "x\ny" }, { d: "x\nz" }), ["~ d"]);
        assert.deepEqual(changedFields({ n: 1, t: true }, { n: 2, t: false }), ["~ n: 1 → 2", "~ t: true → false"]);
    });

    it("the CLI: --diff against an earlier render prints the report; Secret values never appear", function () {
        const work = tmpDir("plan-diff");
        try {
            const plan = (args: string[]) => planCli(args, { timeout: 180000 });
            const first = plan(["--stack", "ha", "--out", path.join(work, "base")]);
            assert.equal(first.status, 0, first.stderr);
            const file = path.join(work, "Pulumi.ha.yaml");
            fs.writeFileSync(file, fs.readFileSync(path.join(ROOT, "Pulumi.ha.yaml"), "utf8").replace("ip: 172.22.0.3\n", "ip: 172.22.0.6\n"));
            const r = plan(["--stack", "ha", "--file", file, "--out", path.join(work, "next"), "--diff", path.join(work, "base")]);
            assert.equal(r.status, 0, r.stderr);
            // Followed without --previous, a review compares first runs: the tool says how to render the deployed stack's next run.
            assert.match(r.stdout, /note: --diff without --previous compares this render as a first run; .*pulumi stack output --json > deployed\.json/);
            assert.match(r.stdout, /diff against .*base: 1 changed, 0 added, 0 removed\n~ ConfigMap\/metal3\/ironic-conductors-[0-9a-f]{10}\n    ~ data\["cp-1\.env"\]\nrestart report:\n  - DaemonSet metal3\/ironic: only the containers on cp-1 restart/);
            assert.equal(readRender(path.join(work, "base")).size, readRender(path.join(work, "next")).size);
            assert.doesNotMatch(r.stdout, /BEGIN (RSA |EC )?PRIVATE KEY|password: [^<]/);
            // A pull request's flow: the base render writes its outputs, the head renders as its next run.
            const baseOut = path.join(work, "base-outputs.json");
            assert.equal(plan(["--stack", "ha", "--out", path.join(work, "base2"), "--write-outputs", baseOut]).status, 0);
            const outputs = JSON.parse(fs.readFileSync(baseOut, "utf8"));
            assert.equal(outputs.credentials, "[secret]", "secret outputs as pulumi stack output --json prints them");
            assert.deepEqual(Object.keys(outputs.state.dhcpSlots.nodes), ["cp-0", "cp-1", "cp-2"]);
            const added = path.join(work, "Pulumi.added.yaml");
            fs.writeFileSync(added, fs.readFileSync(path.join(ROOT, "Pulumi.ha.yaml"), "utf8").replace("        ip: 10.20.0.14\n", "        ip: 10.20.0.14\n    - name: cp-3\n      ip: 172.22.0.5\n"));
            const head = plan(["--stack", "ha", "--file", added, "--out", path.join(work, "head"), "--previous", baseOut, "--diff", path.join(work, "base2")]);
            assert.equal(head.status, 0, head.stderr);
            assert.doesNotMatch(head.stdout, /--diff without --previous/);
            assert.match(head.stdout, /restart report:\n {2}- DaemonSet metal3\/ironic: only the containers on cp-3 restart, if it runs a conductor \(its own entry changed: ironic-conductors-[0-9a-f]{10}\[cp-3\.env\]\)/);
            const missing = plan(["--stack", "ha", "--out", path.join(work, "x"), "--diff", path.join(work, "nope")]);
            assert.notEqual(missing.status, 0);
            assert.match(missing.stderr, /--diff: .*nope is not a directory/);
        } finally {
            fs.rmSync(work, { recursive: true, force: true });
        }
    });
});
