/**
 * baremetal-operator's pod in a pod lab (test/helpers/ha-pod-lab.ts), as the stack deploys it with
 * bmo.enabled: its CRDs, RBAC and Services from the render applied to the lab's kube-apiserver, its
 * Deployment's pod started by the pod runner in a namespace of its own on the lab's network (the
 * kubernetes Service reached through the lab's bridge, the Ironic API Service's names resolving to
 * `apiIp`, a conductor), and its validating webhook called the way the API server calls it. Shared
 * by the provisioning tiers of both topologies (pods.test.ts, pods-single-bmo.test.ts).
 */
import { uefiImagePrerequisites } from "./bmh";
import { bmoBuilt, bmoImage, bmoRelease, checkWebhook, SUSHY_VENV, SUSHY_VERSION, sushyReady } from "./bmo";
import { CLUSTER_IP, HaPodLab, LabNode } from "./ha-pod-lab";
import { PodRunner } from "./pod-runner";
import { podRunnerPrerequisites } from "./pod-stacks";
import { requireOrSkip } from "./sys";
import { vmPrerequisites } from "./vm";

export interface OperatorPod {
    pod: PodRunner;
    /** Every object of BMO the stack renders. */
    objs: any[];
    /** Its pod's address on the lab's network. */
    ip: string;
}

/** The objects of the render that belong to baremetal-operator. */
export const renderedBmoObjects = (objects: any[]) => objects.filter((o) => o.metadata?.labels?.["app.kubernetes.io/name"] === "baremetal-operator");

/**
 * Starts BMO's pod, ready, its webhook checked. Every object of BMO the stack renders goes to the
 * API server but the webhook configuration: the local cluster's API server cannot reach a pod (no
 * kube-proxy); checkWebhook calls the webhook as it would.
 */
export async function startOperator<N extends LabNode>(lab: HaPodLab<N>, o: { ip: string; apiIp: string }): Promise<OperatorPod> {
    const kube = lab.kube!;
    const ns = lab.plan.namespace;
    const objs = renderedBmoObjects(lab.o.rendered.objects);
    kube.kubectl(["create", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objs.filter((x) => x.kind === "CustomResourceDefinition") }) });
    kube.kubectl(["wait", "--for=condition=Established", "--timeout=60s", "crd/baremetalhosts.metal3.io"]);
    const rbacKinds = ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "Service"];
    kube.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objs.filter((x) => rbacKinds.includes(x.kind)) }) });
    const dep = objs.find((x) => x.kind === "Deployment")!;
    const spec = dep.spec.template.spec;
    const token = kube.kubectl(["create", "token", spec.serviceAccountName, "-n", ns, "--duration", "2h"]).stdout.trim();
    // The operator's pod on the cluster network, on the first node.
    const podNs = lab.net.addNamespace(`${lab.o.tag}bo`);
    const podIf = lab.net.plug(podNs, `${lab.o.tag}bo`, lab.sw, lab.br, { cidr: `${o.ip}/${lab.prefix}` });
    lab.net.routeOnLink(podNs, `${CLUSTER_IP}/32`, podIf);
    const first = lab.o.nodes[0];
    const pod = new PodRunner({ name: `${dep.metadata.name}-0`, namespace: ns, spec, cluster: lab.cluster, images: bmoImage(lab.work), work: lab.work, netns: podNs, nodeName: first.node, hostIP: first.ip, podIP: o.ip, hosts: lab.serviceHosts(o.apiIp), serviceAccount: { ...lab.serviceAccount!, token } });
    lab.others.push(pod);
    pod.startContainers();
    await pod.waitReady("manager", 120000);
    // The webhook as the API server calls it: at its Service's name (here the pod's address), TLS
    // verified with the configuration's caBundle alone, an AdmissionReview of a host without a BMC address.
    const webhook = objs.find((x) => x.kind === "ValidatingWebhookConfiguration")!;
    await checkWebhook({ work: lab.work, vwc: webhook, services: objs.filter((x) => x.kind === "Service"), podLabels: dep.spec.template.metadata.labels, netns: podNs, podIp: o.ip });
    return { pod, objs, ip: o.ip };
}

/**
 * The hooks of a provisioning tier's describe (BMO and VMs on a pod lab): on a failed test, the
 * end of every pod's logs; at the end, each of `stopAfter` (image servers, BMCs, captures, in the
 * order the test added them) on its own, so that one that fails leaves nothing running, then the
 * lab, and METAL3_IRONIC_CACHE as it was when the describe was declared (the tier points it at its lab).
 */
export function provisioningHooks<N extends LabNode>(lab: HaPodLab<N>): { stopAfter: (() => Promise<void>)[] } {
    const stopAfter: (() => Promise<void>)[] = [];
    const cacheBefore = process.env.METAL3_IRONIC_CACHE;
    afterEach(function () {
        if (this.currentTest?.state === "failed") lab.printLogs(3000);
    });
    after(async function () {
        try {
            for (const stop of stopAfter) await stop().catch((e) => console.error(`      stopping: ${e.message}`));
            await lab.tearDown();
        } finally {
            if (cacheBefore === undefined) delete process.env.METAL3_IRONIC_CACHE;
            else process.env.METAL3_IRONIC_CACHE = cacheBefore;
        }
    });
    return { stopAfter };
}

/**
 * What a provisioning tier needs besides the toolchain's cluster stage (the pod runner, BMO, sushy-tools,
 * VMs with real firmware), or why not. The tier's file calls requireToolchain itself: npm test reads
 * that call from the file's source to schedule it after the stage (tools/run-tests.ts needsToolchain).
 */
export function provisioningPrerequisites(ctx: Mocha.Context): void {
    podRunnerPrerequisites(ctx);
    requireOrSkip(ctx, bmoBuilt(), `baremetal-operator in the toolchain (${bmoRelease().binary}): tools/toolchain/build.sh bmo`);
    requireOrSkip(ctx, sushyReady(), `sushy-tools ${SUSHY_VERSION} in ${SUSHY_VENV} (.ci/run installs it)`);
    const vm = vmPrerequisites() ?? uefiImagePrerequisites();
    requireOrSkip(ctx, !vm, vm ?? "");
}
