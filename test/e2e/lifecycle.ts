/**
 * Day-2 on a real cluster with the real Pulumi CLI (the ha example, MariaDB and schema Jobs):
 * an Ironic release bump in two runs (refused without the pin; pinned, the schema upgrade Job
 * completes before the rollout; unpinned, the online migrations run after it), a rotated API password (the conductors roll onto it), a release with new scripts (new ConfigMaps, the old ones kept until
 * the DaemonSet no longer names them), a topology switch multi → single → multi (no pod left Pending on a
 * host-port conflict, the API Service and the database claim kept), and `pulumi destroy` (refused
 * on protected resources until unprotected; the claim and namespace survive) followed by a
 * re-created stack that adopts the kept claim in its first update, with no extra step. After
 * each step the offline render equals what is deployed, both ways, and a preview is quiet.
 * On the ha stack its example checks deployed (ha-stack.ts), which the conductor scenarios use after these.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { readRender } from "../../tools/diff";
import { planCli } from "../helpers/plan-cli";
import { compareStack } from "./compare";
import { deployedHaStack } from "./ha-stack";
import { Cluster, ROOT, Workspace } from "./harness";
import { requireToolchain } from "./toolchain";

const NS = "metal3";
const NEW_IMAGE = "quay.io/metal3-io/ironic:v39.0.0";
const CONDUCTORS: [string, string][] = [
    ["cp-0", "172.22.0.2"],
    ["cp-1", "172.22.0.3"],
    ["cp-2", "172.22.0.4"],
];

const time = (t: string) => Date.parse(t);

/** Registered by examples.test.ts after the ha example's checks, before the conductor scenarios. */
export function describeLifecycleScenarios(): void {
    describe("e2e: image bump, topology switch, destroy and re-create (ha example, real Pulumi CLI, local cluster)", lifecycleScenarios);
}

function lifecycleScenarios(this: Mocha.Suite): void {
    this.timeout(40 * 60 * 1000);
    let cluster: Cluster;
    let ws: Workspace;

    const claimUid = () => cluster.get(["pvc", "-n", NS, "ironic-mariadb-data"]).metadata.uid as string;
    const serviceUid = () => cluster.get(["service", "-n", NS, "ironic"]).metadata.uid as string;
    const jobs = () => cluster.get<{ items: any[] }>(["jobs", "-n", NS]).items;
    const workloadPods = (kind: string) =>
        cluster.get<{ items: any[] }>(["pods", "-n", NS]).items.filter((p) => !p.metadata.deletionTimestamp && (p.metadata.ownerReferences ?? []).some((o: any) => o.kind === kind));
    const pending = () => cluster.get<{ items: any[] }>(["pods", "-A", "--field-selector", "status.phase=Pending"]).items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    let renders = 0;
    /**
     * After a step: the offline render of the stack file the CLI now holds, with the stack's
     * outputs as the previous run's (npm run plan --previous), equals what is deployed both ways,
     * and a second preview changes nothing.
     */
    const quiet = () => {
        const dir = path.join(ws.tmp, `render-${++renders}`);
        fs.mkdirSync(dir, { recursive: true });
        const previous = path.join(dir, "outputs.json");
        fs.writeFileSync(previous, ws.pulumi(["stack", "output", "--json"]).stdout);
        const out = path.join(dir, "objects");
        const r0 = planCli(["--file", ws.stackFile, "--out", out, "--previous", previous], { timeout: 180000 });
        assert.equal(r0.status, 0, r0.stderr);
        assert.deepEqual(compareStack([...readRender(out).values()] as Record<string, any>[], (args) => cluster.get(args)), [], "render = deployed");
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    };

    before(function () {
        requireToolchain(this);
        // The stack as Pulumi.ha.yaml configures it, deployed; its cluster goes on to the conductor scenarios.
        ({ cluster, ws } = deployedHaStack());
    });

    it("an images.ironic bump to the next release: refused without the pin; run 1 pinned to 38.0 (the schema upgrade completes before the rollout, no migrations), run 2 unpinned (every pod again, the migrations after them)", function () {
        const PIN = 'metal3-ironic:ironic.config["default.pin_release_version"]';
        const pinEnv = (p: any) => (p.spec.containers.find((c: any) => c.name === "ironic").env ?? []).filter((e: any) => e.name === "OS_DEFAULT__PIN_RELEASE_VERSION").map((e: any) => e.value);
        const before = new Set(jobs().map((j) => j.metadata.name));
        ws.pulumi(["config", "set", "--path", "metal3-ironic:images.ironic", NEW_IMAGE]);
        // The three conductors would mix 38 and 39 while they roll: refused before anything is registered, naming the key and the value.
        const refused = ws.pulumi(["preview"], { allowFail: true });
        assert.notEqual(refused.status, 0);
        assert.match(refused.stdout + refused.stderr, /ironic\.config\.default\.pin_release_version: images\.ironic moves the 3 conductors from Ironic 38\.0 to 39\.0/);
        assert.deepEqual(jobs().map((j) => j.metadata.name).sort(), [...before].sort(), "nothing ran");
        // Run 1: pinned to the deployed release.
        ws.pulumi(["config", "set", "--path", PIN, "38.0"]);
        ws.up();
        const run1 = jobs().filter((j) => !before.has(j.metadata.name));
        const upgrade = run1.find((j) => /dbsync|upgrade/.test(j.metadata.name) && !/migrat/.test(j.metadata.name));
        assert.ok(upgrade, `a new upgrade Job for the new image (new Jobs: ${run1.map((j) => j.metadata.name).join(", ")})`);
        assert.ok(!run1.some((j) => /migrat/.test(j.metadata.name)), "no migrations while pinned");
        assert.ok(upgrade.status.succeeded >= 1, "the schema upgrade completed");
        assert.equal(upgrade.spec.template.spec.containers[0].image, NEW_IMAGE);
        const pinned = workloadPods("DaemonSet");
        assert.equal(pinned.length, 3);
        for (const p of pinned) {
            assert.equal(p.spec.containers.find((c: any) => c.name === "ironic").image, NEW_IMAGE, `${p.metadata.name} runs the new image`);
            assert.deepEqual(pinEnv(p), ["38.0"], `${p.metadata.name} is pinned to 38.0`);
            assert.ok(time(p.metadata.creationTimestamp) >= time(upgrade.status.completionTime), `${p.metadata.name} started after the schema upgrade completed`);
        }
        quiet();
        // Run 2: the pin removed; every conductor again, then the migrations.
        ws.pulumi(["config", "rm", "--path", PIN]);
        ws.up();
        const migrate = jobs().find((j) => !before.has(j.metadata.name) && /migrat/.test(j.metadata.name));
        assert.ok(migrate && migrate.status.succeeded >= 1, "the migrations Job completed");
        assert.equal(migrate.spec.template.spec.containers[0].image, NEW_IMAGE);
        const pods = workloadPods("DaemonSet");
        assert.equal(pods.length, 3);
        for (const p of pods) {
            assert.ok(!pinned.some((x) => x.metadata.uid === p.metadata.uid), `${p.metadata.name} is a new pod`);
            assert.deepEqual(pinEnv(p), [], `${p.metadata.name} is not pinned`);
            assert.ok(time(migrate.metadata.creationTimestamp) >= time(p.metadata.creationTimestamp), `the migrations started after ${p.metadata.name}`);
        }
        quiet();
    });

    it("a rotated API password (pulumi up --replace of the generated password): the preview shows the password replaced and its Secret and the DaemonSet updated; the pod template's credentials-hash changes, so every conductor pod is replaced onto the new htpasswd", function () {
        const CREDS_HASH = "metal3-ironic.metal3.io/credentials-hash";
        const ds = () => cluster.get(["daemonset", "-n", NS, "ironic"]);
        const secret = () => cluster.get(["secret", "-n", NS, "ironic-credentials"]);
        const before = { hash: ds().spec.template.metadata.annotations[CREDS_HASH], password: secret().data.password, pods: workloadPods("DaemonSet").map((p) => p.metadata.uid) };
        assert.match(before.hash, /^[0-9a-f]{64}$/);
        const resources = JSON.parse(ws.pulumi(["stack", "export"]).stdout).deployment.resources as any[];
        const urn = resources.find((r) => r.type === "random:index/randomPassword:RandomPassword" && r.urn.endsWith("::ironic-credentials-password"))?.urn;
        assert.ok(urn, `the API password in the state: ${resources.filter((r) => /RandomPassword/.test(r.type)).map((r) => r.urn).join(", ")}`);
        // What a reviewer sees: the password replaced, the Secret and the DaemonSet (its annotation) updated.
        const preview = JSON.parse(ws.pulumi(["preview", "--json", "--replace", urn]).stdout);
        const steps = (preview.steps as any[]).filter((st) => !["same", "refresh"].includes(st.op)).map((st) => `${st.urn.split("::").slice(-2).join("::")}: ${st.op}`);
        assert.ok(steps.some((st) => /RandomPassword::ironic-credentials-password: .*replace/.test(st)), steps.join(", "));
        assert.ok(steps.some((st) => /:Secret::ironic-credentials-secret: update/.test(st)), steps.join(", "));
        assert.ok(steps.some((st) => /:DaemonSet::\S+: update/.test(st)), steps.join(", "));
        ws.up(["--replace", urn]);
        const after = ds();
        assert.notEqual(secret().data.password, before.password, "a new password");
        const htpasswd = Buffer.from(secret().data.htpasswd, "base64").toString();
        assert.equal(after.spec.template.metadata.annotations[CREDS_HASH], createHash("sha256").update(htpasswd).digest("hex"), "the annotation hashes the new htpasswd line");
        const pods = workloadPods("DaemonSet");
        assert.equal(pods.length, 3);
        for (const p of pods) {
            assert.ok(!before.pods.includes(p.metadata.uid), `${p.metadata.name} is a new pod`);
            assert.equal(p.metadata.annotations[CREDS_HASH], after.spec.template.metadata.annotations[CREDS_HASH], `${p.metadata.name} runs the new template`);
        }
        quiet();
    });

    it("a release with a new start wrapper: its scripts and the entries are new ConfigMaps (replaced, never rewritten under running pods), the DaemonSet rolls onto them, the old ones go", function () {
        // A later release of this program: the workspace runs a copy of the checkout whose
        // wrapper differs (the program reads assets/ next to core/, so both are copied).
        const linked = ["index.ts", "components", "core", "assets"];
        const mounted = () => {
            const vols: any[] = cluster.get(["daemonset", "-n", NS, "ironic"]).spec.template.spec.volumes;
            return { scripts: vols.find((v) => v.name === "scripts").configMap.name as string, nodeData: vols.find((v) => v.name === "node-data").configMap.name as string };
        };
        const old = mounted();
        assert.match(old.scripts, /^ironic-scripts-[0-9a-f]{10}$/);
        assert.match(old.nodeData, /^ironic-conductors-[0-9a-f]{10}$/);
        try {
            for (const f of linked) {
                fs.rmSync(path.join(ws.dir, f), { recursive: true, force: true });
                fs.cpSync(path.join(ROOT, f), path.join(ws.dir, f), { recursive: true });
            }
            fs.appendFileSync(path.join(ws.dir, "assets", "conductor-start.sh"), "# a later release\n");
            const preview = JSON.parse(ws.pulumi(["preview", "--json"]).stdout);
            // The preview refreshes first (refresh steps); what it would change is the rest.
            const configMapSteps = (preview.steps as any[]).filter((st) => /kubernetes:core\/v1:ConfigMap::/.test(st.urn) && !["same", "refresh"].includes(st.op));
            const ops = configMapSteps.map((st) => `${st.urn.split("::").pop()}: ${st.op}`).sort();
            assert.ok(configMapSteps.length === 2 && configMapSteps.every((st) => st.op === "replace"), `both ConfigMaps replaced, none updated in place: ${ops.join(", ")}`);
            ws.up();
            const now = mounted();
            assert.notEqual(now.scripts, old.scripts);
            assert.notEqual(now.nodeData, old.nodeData);
            assert.match(cluster.get(["configmap", "-n", NS, now.scripts]).data["conductor-start.sh"], /# a later release\n$/);
            assert.equal(cluster.get(["configmap", "-n", NS, now.scripts]).immutable, true);
            for (const name of [old.scripts, old.nodeData]) {
                const gone = cluster.kubectl(["get", "configmap", "-n", NS, name], { allowFail: true });
                assert.notEqual(gone.status, 0, `${name} is deleted once the DaemonSet no longer names it`);
                assert.match(gone.stderr, /NotFound/);
            }
            assert.equal(workloadPods("DaemonSet").length, 3);
            // Quiet (the render of this checkout's scripts would differ: it is compared once they are back).
            assert.equal(ws.previewNoChanges().status, 0);
        } finally {
            for (const f of linked) {
                fs.rmSync(path.join(ws.dir, f), { recursive: true, force: true });
                fs.symlinkSync(path.join(ROOT, f), path.join(ws.dir, f));
            }
        }
        // Back to this checkout's scripts: the objects the first run made, by name.
        ws.up();
        assert.deepEqual(mounted(), old);
        quiet();
    });

    it("switches multi → single: one Deployment pod, no conductor pod, nothing Pending; the Service and the claim are kept", function () {
        const [claim, service] = [claimUid(), serviceUid()];
        ws.pulumi(["config", "rm", "metal3-ironic:conductors"]);
        ws.pulumi(["config", "set", "--path", "metal3-ironic:provisioning.ip", "172.22.0.2"]);
        ws.pulumi(["config", "set", "metal3-ironic:topology", "single"]);
        ws.up();
        assert.equal(workloadPods("DaemonSet").length, 0);
        assert.equal(workloadPods("ReplicaSet").filter((p) => p.metadata.name.startsWith("ironic-") && !p.metadata.name.startsWith("ironic-ipa-cache")).length, 1);
        assert.deepEqual(pending(), []);
        assert.equal(claimUid(), claim, "the database claim is the same object");
        assert.equal(serviceUid(), service, "the API Service kept its identity");
        quiet();
    });

    it("switches back single → multi: a conductor pod on each node, nothing Pending; the Service and the claim are kept", function () {
        const [claim, service] = [claimUid(), serviceUid()];
        ws.pulumi(["config", "rm", "--path", "metal3-ironic:provisioning.ip"]);
        CONDUCTORS.forEach(([node, ip], i) => {
            ws.pulumi(["config", "set", "--path", `metal3-ironic:conductors[${i}].name`, node]);
            ws.pulumi(["config", "set", "--path", `metal3-ironic:conductors[${i}].ip`, ip]);
        });
        ws.pulumi(["config", "set", "metal3-ironic:topology", "multi"]);
        ws.up();
        assert.deepEqual(workloadPods("DaemonSet").map((p) => p.spec.nodeName).sort(), ["cp-0", "cp-1", "cp-2"]);
        assert.deepEqual(pending(), []);
        assert.equal(claimUid(), claim);
        assert.equal(serviceUid(), service);
        quiet();
    });

    it("pulumi destroy is refused while resources are protected; unprotected, it keeps the claim and the namespace", function () {
        const claim = claimUid();
        const refused = ws.pulumi(["destroy", "--yes", "--skip-preview"], { allowFail: true });
        assert.notEqual(refused.status, 0);
        assert.match(refused.stdout + refused.stderr, /protected/);
        assert.equal(claimUid(), claim, "nothing deleted by the refused destroy");
        ws.pulumi(["state", "unprotect", "--all", "--yes"]);
        ws.pulumi(["destroy", "--yes", "--skip-preview"]);
        assert.equal(claimUid(), claim, "the claim survives the destroy");
        assert.equal(cluster.get(["namespace", NS]).status.phase, "Active", "the namespace survives the destroy");
        assert.equal(workloadPods("DaemonSet").length, 0);
        assert.equal(cluster.kubectl(["get", "secrets", "-n", NS, "-o", "name"]).stdout.trim(), "", "the stack's Secrets are gone");
    });

    it("a re-created stack adopts the kept claim and namespace in its first pulumi up (server-side apply)", function () {
        const claim = claimUid();
        ws.up();
        assert.equal(claimUid(), claim, "the stack opened the kept claim");
        assert.equal(cluster.get(["pvc", "-n", NS, "ironic-mariadb-data"]).status.phase, "Bound");
        assert.deepEqual(workloadPods("DaemonSet").map((p) => p.spec.nodeName).sort(), ["cp-0", "cp-1", "cp-2"]);
        quiet();
    });
}
