/**
 * The stack's namespace (when `createNamespace`), labelled for Pod Security admission.
 *
 * Every Ironic pod runs on the host network with host ports, and dnsmasq and keepalived need
 * NET_ADMIN/NET_RAW: the `baseline` and `restricted` Pod Security levels refuse all three. A
 * cluster that enforces `baseline` by default (a common hardening) would refuse our pods at the
 * controller, after `pulumi up` had reported the workload created. So the namespace states the
 * level it needs, `privileged`, for enforce, audit and warn alike (audit or warn at a stricter
 * cluster default would log every pod of the stack as a violation it cannot fix).
 */
import type { IronicPlan } from "../plan/types";
import { sortedRecord } from "./meta";

export const POD_SECURITY_LABELS = {
    "pod-security.kubernetes.io/enforce": "privileged",
    "pod-security.kubernetes.io/audit": "privileged",
    "pod-security.kubernetes.io/warn": "privileged",
} as const;

export function namespaceManifest(plan: IronicPlan): { apiVersion: "v1"; kind: "Namespace"; metadata: { name: string; labels: Record<string, string> } } {
    return { apiVersion: "v1", kind: "Namespace", metadata: { name: plan.namespace, labels: sortedRecord({ ...plan.labels, ...POD_SECURITY_LABELS }) } };
}

/** Said when the stack does not create its namespace: what the namespace must admit. */
export function namespaceNotCreatedNote(plan: IronicPlan): string {
    return (
        `namespace ${plan.namespace} is not created by this stack (createNamespace: false): it must admit privileged pods ` +
        `(the Ironic pods use the host network, host ports and NET_ADMIN/NET_RAW), e.g. kubectl label namespace ${plan.namespace} ` +
        Object.entries(POD_SECURITY_LABELS)
            .map(([k, v]) => `${k}=${v}`)
            .join(" ") +
        "; with a stricter Pod Security level the controllers cannot create the pods"
    );
}
