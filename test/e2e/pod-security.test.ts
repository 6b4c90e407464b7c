/**
 * Pod Security admission of the local cluster's real kube-apiserver against the pods we render:
 * each pod template of the dev and ha stacks (host network, host ports, NET_ADMIN/NET_RAW) is
 * refused in a namespace at the `baseline` level, as on a cluster that hardens its defaults, and
 * admitted in the namespace exactly as we render it (its Pod Security labels). Pods are created
 * with --dry-run=server: admission runs in full, nothing is stored. On the cluster the suites that
 * deploy no stack share (shared-cluster.ts): namespaces of its own.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { POD_SECURITY_LABELS } from "../../core/manifests";
import { readStackConfig, renderOffline } from "../../tools/render";
import { Cluster, ROOT } from "./harness";
import { sharedCluster } from "./shared-cluster";
import { requireToolchain } from "./toolchain";

/** A Pod of each workload's template, placed in `ns`. */
function podsOf(objects: any[], ns: string): any[] {
    return objects
        .filter((o) => ["Deployment", "DaemonSet", "StatefulSet"].includes(o.kind))
        .map((o) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: `${o.metadata.name}-probe`, namespace: ns, labels: o.spec.template.metadata?.labels }, spec: o.spec.template.spec }));
}

describe("e2e: Pod Security admission of the real API server admits the rendered pods only in the namespace as rendered", function () {
    this.timeout(10 * 60 * 1000);
    let kube: Cluster | undefined;

    before(function () {
        requireToolchain(this);
        kube = sharedCluster();
    });

    for (const stack of ["dev", "ha"]) {
        it(`${stack}: every pod template is refused at the baseline level and admitted in our namespace`, async function () {
            const r = await renderOffline(readStackConfig(path.join(ROOT, `Pulumi.${stack}.yaml`)), stack);
            const ns = r.objects.find((o) => o.kind === "Namespace")!;
            for (const [k, v] of Object.entries(POD_SECURITY_LABELS)) assert.equal(ns.metadata.labels[k], v, `the rendered namespace has ${k}=${v}`);
            // Our namespace as rendered, under another name (both stacks share one), and a hardened one.
            const ours = `${stack}-as-rendered`;
            const hardened = `${stack}-baseline`;
            kube!.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ ...ns, metadata: { ...ns.metadata, name: ours } }) });
            kube!.kubectl(["create", "namespace", hardened]);
            kube!.kubectl(["label", "namespace", hardened, "pod-security.kubernetes.io/enforce=baseline"]);
            // The ServiceAccounts the pods name (multi: the slot agents'), as the program creates them.
            for (const n of [ours, hardened]) {
                for (const sa of r.objects.filter((o) => o.kind === "ServiceAccount")) kube!.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ ...sa, metadata: { ...sa.metadata, namespace: n } }) });
            }
            const pods = podsOf(r.objects, ours);
            assert.ok(pods.length >= 2, `pod templates of ${stack}: ${pods.map((p) => p.metadata.name).join(", ")}`);
            const hostNetwork = pods.filter((p) => p.spec.hostNetwork);
            assert.ok(hostNetwork.length >= 1, "the Ironic pod runs on the host network");
            for (const pod of pods) {
                const admitted = kube!.kubectl(["create", "--dry-run=server", "-f", "-"], { input: JSON.stringify(pod), allowFail: true });
                assert.equal(admitted.status, 0, `${pod.metadata.name} admitted in ${ours}: ${admitted.stderr}`);
            }
            for (const pod of hostNetwork) {
                const refused = kube!.kubectl(["create", "--dry-run=server", "-f", "-"], { input: JSON.stringify({ ...pod, metadata: { ...pod.metadata, namespace: hardened } }), allowFail: true });
                assert.notEqual(refused.status, 0, `${pod.metadata.name} refused in ${hardened}`);
                assert.match(refused.stderr, /violates PodSecurity "baseline:latest"/);
                assert.match(refused.stderr, /host namespaces \(hostNetwork=true\)/);
            }
        });
    }
});
