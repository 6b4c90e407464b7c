/**
 * Least privilege for the DHCP slot agents of a multi-conductor stack: a ServiceAccount for the
 * conductor pods and a Role in the stack's namespace that reaches only this stack's slot Leases;
 * and the agent's place in the pod: a container of its own, the only one with the token volume;
 * dnsmasq runs under the agent's fence, with no token.
 *
 * Kubernetes RBAC cannot limit `create` by name (the name is not known when a create is
 * authorized), so creating Leases is allowed in this namespace; reading and updating (claims,
 * renewals, releases) are allowed only on the stack's own slot names. No delete: the agent never
 * deletes a Lease. Nothing is cluster-wide, and the pods may touch no other kind of object.
 */
import type * as k8s from "@pulumi/kubernetes";

import { COMMANDS, CONDUCTOR_PATHS } from "../contract";
import { dhcpSlotsOf, listedConductorsByNode } from "../plan/read";
import { SLOT_PREFERENCES_KEY } from "../names";
import { SLOT_TIMINGS } from "../timings";
import type { IronicPlan } from "../plan/types";
import { SLOT_AGENT_CONTAINER, SLOT_AGENT_ENV, SLOT_PATHS } from "../slot-agent";
import { containerResources, restrictedSecurityContext, sortedEnv } from "./meta";
import type { Container, EnvVar } from "./meta";
import { SCRIPT_FILES } from "../scripts";
import { dhcpSlotLeaseLabels } from "../labels";

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
        // Only the dhcp-slot-agent container mounts a token (slotApiVolume); the pod's automount stays off.
        automountServiceAccountToken: false,
    };
}

export function slotRole(a: SlotLeaseAccess): k8s.types.input.rbac.v1.Role {
    return {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "Role",
        metadata: { name: a.name, namespace: a.namespace, labels: a.labels },
        rules: [
            // Only the verbs the agent uses. An agent of an earlier release that deletes its Lease
            // on a clean stop is refused while its pod rolls: it logs it, and the Lease frees when
            // it expires.
            { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: a.leaseNames, verbs: ["get", "update"] },
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

/** The API token volume of the Ironic pod's slot agent container: the files the kubelet would automount, for that container only. */
export const SLOT_API_VOLUME = "slot-api";

/**
 * What the kubelet mounts for `automountServiceAccountToken: true`, as an explicit projected volume:
 * the pod keeps automount off so that only the slot agent's container gets a token.
 */
export function slotApiVolume(): k8s.types.input.core.v1.Volume {
    return {
        name: SLOT_API_VOLUME,
        projected: {
            sources: [
                { serviceAccountToken: { path: "token", expirationSeconds: 3607 } },
                { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
                { downwardAPI: { items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }] } },
            ],
        },
    };
}

/** Labels the agents put on their Leases (`npm run slots` and `kubectl get leases -l` select them). */
export function slotLeaseLabels(plan: IronicPlan): Record<string, string> {
    return dhcpSlotLeaseLabels(plan.name);
}

const SLOT_AGENT_PATH = `${CONDUCTOR_PATHS.scripts}/${SCRIPT_FILES.slotAgent}`;

/** The fence's command line in front of `command` (dnsmasq's start script), in dnsmasq's container. */
export function slotFenceCommand(command: string[]): string[] {
    return [COMMANDS.python, SLOT_AGENT_PATH, "--fence", ...command];
}

const sharedDirs = { [SLOT_AGENT_ENV.grantDir]: SLOT_PATHS.grantDir, [SLOT_AGENT_ENV.fenceDir]: SLOT_PATHS.fenceDir };

/** The fence's environment: the shared directories, and the timings it applies (its log names the pod). */
export function slotFenceEnv(): EnvVar[] {
    return [
        { name: SLOT_AGENT_ENV.identity, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ...sortedEnv({ ...sharedDirs, [SLOT_AGENT_ENV.renewDeadline]: String(SLOT_TIMINGS.renewDeadline), [SLOT_AGENT_ENV.stopGrace]: String(SLOT_TIMINGS.stopGrace) }),
    ];
}

/**
 * The slot agent: no capability, no privilege escalation, the pod's only API token (`mounts`: the
 * token, the node's data with its preferences, the script, the grant directory it writes and the
 * fence's it reads). No probe: whatever it does, the fence stops dnsmasq at the renew deadline.
 */
export function slotAgentContainer(plan: IronicPlan, volumeMounts: k8s.types.input.core.v1.VolumeMount[]): Container {
    return {
        name: SLOT_AGENT_CONTAINER,
        image: plan.images.ironic,
        command: [COMMANDS.python, SLOT_AGENT_PATH],
        env: slotAgentEnv(plan),
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        resources: containerResources(plan, "slotAgent"),
    };
}

/** The agent's environment; the timings are SLOT_TIMINGS, stated so that a preview shows them. */
export function slotAgentEnv(plan: IronicPlan): EnvVar[] {
    const slots = dhcpSlotsOf(plan)?.slots ?? 0;
    const labels = slotLeaseLabels(plan);
    return [
        { name: SLOT_AGENT_ENV.identity, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        { name: SLOT_AGENT_ENV.node, valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
        ...sortedEnv({
            [SLOT_AGENT_ENV.namespace]: plan.namespace,
            [SLOT_AGENT_ENV.leasePrefix]: plan.names.slotLeasePrefix,
            [SLOT_AGENT_ENV.count]: String(slots),
            [SLOT_AGENT_ENV.preferencesFile]: `${CONDUCTOR_PATHS.nodeData}/${SLOT_PREFERENCES_KEY}`,
            [SLOT_AGENT_ENV.leaseLabels]: Object.keys(labels)
                .sort()
                .map((k) => `${k}=${labels[k]}`)
                .join(","),
            [SLOT_AGENT_ENV.statusFile]: SLOT_PATHS.status,
            ...sharedDirs,
            [SLOT_AGENT_ENV.leaseDuration]: String(SLOT_TIMINGS.leaseDuration),
            [SLOT_AGENT_ENV.renewDeadline]: String(SLOT_TIMINGS.renewDeadline),
            [SLOT_AGENT_ENV.retryPeriod]: String(SLOT_TIMINGS.retryPeriod),
            [SLOT_AGENT_ENV.claimMargin]: String(SLOT_TIMINGS.claimMargin),
            [SLOT_AGENT_ENV.stopGrace]: String(SLOT_TIMINGS.stopGrace),
        }),
    ];
}

/** Whether the pods run slot agents: multi with DHCP (the only plans that have a slot layout). */
export function usesSlotAgents(plan: IronicPlan): boolean {
    return dhcpSlotsOf(plan) !== undefined;
}

/** The RBAC objects' parameters for a multi stack with DHCP (undefined otherwise). */
export function slotLeaseAccess(plan: IronicPlan): SlotLeaseAccess | undefined {
    const layout = dhcpSlotsOf(plan);
    if (!layout) return undefined;
    return { namespace: plan.namespace, name: plan.names.slotAccount, leaseNames: slotLeaseNames(plan.names.slotLeasePrefix, layout.slots), labels: plan.labels };
}

/**
 * The slot agents' preferences (the per-node ConfigMap's SLOT_PREFERENCES_KEY): pinned slots
 * (`conductors[i].slot`), and the slot this plan allocated to every other node (the previous
 * run's, or first-fit), so that the first run with Leases keeps every slice where it was.
 */
export function slotPreferences(plan: IronicPlan): string {
    const pinned: Record<string, number> = {};
    const remembered: Record<string, number> = {};
    for (const c of listedConductorsByNode(plan)) {
        if (c.slot === undefined) continue;
        (c.slot.source === "pinned" ? pinned : remembered)[c.node] = c.slot.index;
    }
    return JSON.stringify({ pinned, remembered }, null, 2) + "\n";
}
