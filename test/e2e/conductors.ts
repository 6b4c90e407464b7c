/**
 * Conductors come and go on a real cluster with no configuration change (topology multi, the ha
 * example without a conductors list): a control-plane node that joins gets a conductor pod, one
 * that leaves loses it, and no `pulumi up` is needed for either. Asserted through pod UIDs (only
 * the changed node's pod appears or goes; every other pod keeps running), the DaemonSet's template
 * (never changed by a node change), and a preview that stays quiet after each step. Listing a node
 * afterwards only overrides its address: no pod is replaced.
 * On the ha stack its example checks deployed, after the day-2 scenarios (ha-stack.ts): they change
 * the cluster's nodes, so they come last and stop the cluster.
 */
import { strict as assert } from "assert";

import { deployedHaStack, releaseHaStack } from "./ha-stack";
import { Cluster, Workspace } from "./harness";
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

/** Registered by examples.test.ts after the ha example's checks and the day-2 scenarios. */
export function describeConductorScenarios(): void {
    describe("e2e: conductors come and go with no config change (ha example, real Pulumi CLI, local cluster)", conductorScenarios);
}

function conductorScenarios(this: Mocha.Suite): void {
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
            if (!p.spec.nodeName || p.status.phase !== "Running") continue;
            out[p.spec.nodeName] = p.metadata.uid;
        }
        return out;
    }
    const daemonSet = () => cluster.get(["daemonset", "ironic", "-n", NS]);
    const state = () => ws.outputs().state.dhcpSlots;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function until(what: string, probe: () => boolean, timeoutMs = 120000): Promise<void> {
        const end = Date.now() + timeoutMs;
        while (!probe()) {
            if (Date.now() > end) throw new Error(`timed out waiting for ${what}: conductor pods on ${JSON.stringify(Object.keys(podsByNode()).sort())}`);
            await sleep(1000);
        }
    }
    function quietPreview(): void {
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    }

    before(function () {
        requireToolchain(this);
        ({ cluster, ws } = deployedHaStack());
        // Zero-touch: no node listed; each finds its address on provisioning.interface.
        ws.pulumi(["config", "rm", "metal3-ironic:conductors"]);
        ws.up();
        selector = Object.entries(daemonSet().spec.selector.matchLabels as Record<string, string>)
            .map(([k, v]) => `${k}=${v}`)
            .join(",");
    });
    after(function () {
        releaseHaStack();
    });

    it("deploys one conductor pod on every control-plane node, none listed, tolerating its taint; workers get none and no node is labelled", async function () {
        await until("a Running conductor pod on cp-0, cp-1 and cp-2", () => Object.keys(podsByNode()).sort().join() === "cp-0,cp-1,cp-2");
        assert.deepEqual(daemonSet().spec.template.spec.nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        assert.deepEqual(cluster.get<{ items: any[] }>(["nodes", "-l", "metal3-ironic.metal3.io/conductor"]).items, [], "the program patches no Node");
        // The layout is the default (4 slots) with no node remembered: holders are decided by the pods' Leases.
        assert.deepEqual([state().slots, state().nodes], [4, {}]);
        quietPreview();
    });

    it("a control-plane node joins: its conductor pod appears with no pulumi run; every other pod and the template stay; preview stays quiet", async function () {
        const before = podsByNode();
        const generation = daemonSet().metadata.generation;
        addControlPlaneNode(cluster, "cp-3", "192.0.2.20");
        await until("a conductor pod on cp-3", () => "cp-3" in podsByNode());
        const after = podsByNode();
        assert.deepEqual(Object.keys(after).sort(), ["cp-0", "cp-1", "cp-2", "cp-3"]);
        for (const n of ["cp-0", "cp-1", "cp-2"]) assert.equal(after[n], before[n], `the pod on ${n} kept running`);
        assert.equal(daemonSet().metadata.generation, generation, "the pod template did not change");
        quietPreview();
    });

    it("a control-plane node leaves: its pod goes with no pulumi run; the others keep running; preview stays quiet", async function () {
        const before = podsByNode();
        cluster.kubectl(["delete", "node", "cp-1", "--wait=true"]);
        // The pod garbage collector removes pods bound to a deleted node (after its quarantine).
        await until("cp-1's pod to go", () => !("cp-1" in podsByNode()) && cluster.pods(NS, selector).every((p) => p.spec.nodeName !== "cp-1"), 180000);
        const after = podsByNode();
        assert.deepEqual(Object.keys(after).sort(), ["cp-0", "cp-2", "cp-3"]);
        for (const n of ["cp-0", "cp-2", "cp-3"]) assert.equal(after[n], before[n], `the pod on ${n} kept running`);
        quietPreview();
    });

    it("listing a node afterwards only overrides its address: its entry appears, no pod is replaced, the template stays", function () {
        const before = podsByNode();
        const generation = daemonSet().metadata.generation;
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[0].name", "cp-3"]);
        ws.pulumi(["config", "set", "--path", "metal3-ironic:conductors[0].ip", "172.22.0.5"]);
        ws.up();
        assert.deepEqual(podsByNode(), before, "every pod kept running (the wrapper restarts only cp-3's containers, in the pod)");
        assert.equal(daemonSet().metadata.generation, generation, "the pod template did not change");
        // The entries' ConfigMap, as the pods mount it.
        const nodeData = daemonSet().spec.template.spec.volumes.find((v: { name: string }) => v.name === "node-data").configMap.name;
        assert.match(nodeData, /^ironic-conductors-[0-9a-f]{10}$/);
        const entries = cluster.get(["configmap", nodeData, "-n", NS]).data;
        assert.equal(entries["cp-3.env"], "CONDUCTOR_NODE_IP='172.22.0.5'\n");
        assert.deepEqual(state().nodes, { "cp-3": 0 });
        quietPreview();
    });
}
