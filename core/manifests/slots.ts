/**
 * Least privilege for the DHCP slot agents of a multi-conductor stack: a ServiceAccount for the
 * conductor pods and a Role in the stack's namespace that reaches only this stack's slot Leases.
 *
 * Kubernetes RBAC cannot limit `create` by name (the name is not known when a create is
 * authorized), so creating Leases is allowed in this namespace; reading, renewing and deleting are
 * allowed only on the stack's own slot names. Nothing is cluster-wide, and the pods may touch no
 * other kind of object.
 */
import type * as k8s from "@pulumi/kubernetes";

export interface SlotLeaseAccess {
    namespace: string;
    /** Name of the ServiceAccount, the Role and the RoleBinding. */
    name: string;
    /** Every slot Lease of the stack (`<prefix>0` … `<prefix>N-1`). */
    leaseNames: string[];
    labels: Record<string, string>;
}

/** `<prefix>0` … `<prefix>count-1`. */
export function slotLeaseNames(prefix: string, count: number): string[] {
    return [...Array(count).keys()].map((k) => `${prefix}${k}`);
}

export function slotServiceAccount(a: SlotLeaseAccess): k8s.types.input.core.v1.ServiceAccount {
    return {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: a.name, namespace: a.namespace, labels: a.labels },
        // The agent reads its token from the projected volume; nothing else in the pod uses the API.
        automountServiceAccountToken: true,
    };
}

export function slotRole(a: SlotLeaseAccess): k8s.types.input.rbac.v1.Role {
    return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: a.name, namespace: a.namespace, labels: a.labels },
        rules: [
            { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: a.leaseNames, verbs: ["get", "update", "delete"] },
            { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        ],
    };
}

export function slotRoleBinding(a: SlotLeaseAccess): k8s.types.input.rbac.v1.RoleBinding {
    return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: a.name, namespace: a.namespace, labels: a.labels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: a.name },
        subjects: [{ kind: "ServiceAccount", name: a.name, namespace: a.namespace }],
    };
}

/** The three objects, in the order they must exist. */
export function slotLeaseRbac(a: SlotLeaseAccess): [k8s.types.input.core.v1.ServiceAccount, k8s.types.input.rbac.v1.Role, k8s.types.input.rbac.v1.RoleBinding] {
    return [slotServiceAccount(a), slotRole(a), slotRoleBinding(a)];
}
