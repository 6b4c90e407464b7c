/**
 * Conductors come and go on a real cluster (topology multi, the ha example): add one, remove one,
 * replace one. Asserted through pod UIDs (only the changed node's pod appears or goes; every other
 * pod keeps running), the DaemonSet's template (never changed by a node change), the DHCP slots the
 * stack remembers through the StackReference to itself, and a quiet preview after each step.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { Cluster, ROOT, Workspace, tallyOutcome } from "./harness";
import { requireToolchain } from "./toolchain";

const NS = "metal3";

/** A control-plane node as the cluster's own (labelled, tainted, played by kwok). */
function addControlPlaneNode(c: Cluster, name: string, address: string): void {
    c.kubectl(["apply", "-f", "-"], {
        input: JSON.stringify({
            apiVersion: "v1",
            kind: "Node",
            metadata: {
                name,
                annotations: { "kwok.x-k8s.io/node": "fake" },
                labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": "" },
            },
            spec: { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] },
            status: { addresses: [{ type: "InternalIP", address }] },
        }),
    });
}

describe("e2e: conductors come and go (ha example, real Pulumi CLI, local cluster)", function () {
    this.timeout(30 * 60 * 1000);
    let cluster: Cluster;
    let ws: Workspace;
    let selector: string;

    /** node → UID of the conductor pod there. */
    function podsByNode(): Record<string, string> {
        const out: Record<string, string> = {};
        for (const p of cluster.pods(NS, selector)) {
            // The schema Jobs' pods share the labels: only the DaemonSet's pods are conductors.
            if (p.metadata.deletionTimestamp || !(p.metadata.ownerReferences ?? []).some((o: any) => o.kind === "DaemonSet")) continue;
            assert.ok(p.spec.nodeName, `pod ${p.metadata.name} is scheduled`);
            assert.equal(p.status.phase, "Running", `pod ${p.metadata.name} on ${p.spec.nodeName} runs`);
            out[p.spec.nodeName] = p.metadata.uid;
        }
        return out;
    }
    const daemonSet = () => cluster.get(["daemonset", "ironic", "-n", NS]);
    const slots = (): Record<string, number> => ws.outputs().state.dhcpSlots.nodes;
    const labelled = () =>
        cluster
            .get<{ items: any[] }>(["nodes", "-l", "metal3-ironic.metal3.io/conductor"])
            .items.map((n) => n.metadata.name)
            .sort();

    before(function () {
        requireToolchain(this);
        cluster = Cluster.up();
        addControlPlaneNode(cluster, "cp-3", "192.0.2.20");
        addControlPlaneNode(cluster, "cp-4", "192.0.2.21");
        ws = new Workspace(cluster, "ha");
        ws.configure(path.join(ROOT, "Pulumi.ha.yaml"), [["--path", "metal3-ironic:readiness.enabled", "false"]]);
        ws.up();
        selector = Object.entries(daemonSet().spec.selector.matchLabels as Record<string, string>)
            .map(([k, v]) => `${k}=${v}`)
            .join(",");
    });
    afterEach(function () {
        tallyOutcome(this.currentTest);
    });
    after(function () {
        cluster?.down();
    });

    it("deploys one Ready conductor pod on exactly each configured control-plane node, tolerating its taint", function () {
        assert.deepEqual(Object.keys(podsByNode()).sort(), ["cp-0", "cp-1", "cp-2"]);
        assert.deepEqual(labelled(), ["cp-0", "cp-1", "cp-2"]);
        assert.deepEqual(slots(), { "cp-0": 0, "cp-1": 1, "cp-2": 2 });
        const ds = daemonSet();
        assert.equal(ds.status.numberReady, 3);
    });

    it("adds a conductor: a pod appears on the new node only; every other pod and the template stay", function () {
        const before = podsByNode();
        const generation = daemonSet().metadata.generation;
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[3].name", "cp-3"]);
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[3].ip", "172.22.0.5"]);
        ws.up();
        const after = podsByNode();
        assert.deepEqual(Object.keys(after).sort(), ["cp-0", "cp-1", "cp-2", "cp-3"]);
        for (const n of ["cp-0", "cp-1", "cp-2"]) assert.equal(after[n], before[n], `the pod on ${n} kept running`);
        assert.equal(daemonSet().metadata.generation, generation, "the pod template did not change");
        assert.deepEqual(slots(), { "cp-0": 0, "cp-1": 1, "cp-2": 2, "cp-3": 3 });
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    });

    it("removes a conductor: its pod and node label go; the others keep their pods and slots", function () {
        const before = podsByNode();
        ws.pulumi(["config", "rm", "--path", "metal3-ironic:conductors[1]"]);
        ws.up();
        const after = podsByNode();
        assert.deepEqual(Object.keys(after).sort(), ["cp-0", "cp-2", "cp-3"]);
        for (const n of ["cp-0", "cp-2", "cp-3"]) assert.equal(after[n], before[n], `the pod on ${n} kept running`);
        assert.deepEqual(labelled(), ["cp-0", "cp-2", "cp-3"]);
        assert.deepEqual(slots(), { "cp-0": 0, "cp-2": 2, "cp-3": 3 });
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    });

    it("replaces a conductor: the new node takes the freed slot; nothing else moves", function () {
        const before = podsByNode();
        // The list is now cp-0, cp-2, cp-3: cp-2 makes way for cp-4, a new node with a new address.
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[1].name", "cp-4"]);
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[1].ip", "172.22.0.6"]);
        ws.up();
        const after = podsByNode();
        assert.deepEqual(Object.keys(after).sort(), ["cp-0", "cp-3", "cp-4"]);
        for (const n of ["cp-0", "cp-3"]) assert.equal(after[n], before[n], `the pod on ${n} kept running`);
        assert.deepEqual(slots(), { "cp-0": 0, "cp-3": 3, "cp-4": 1 });
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    });
});
