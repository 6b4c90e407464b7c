/**
 * The NetworkPolicy in front of MariaDB (database.kind mariadb): ingress to its port only from
 * Ironic and the schema Jobs.
 *
 * The Ironic pods run on the host network (both topologies). Most CNIs (Calico, Cilium, Antrea…)
 * do not match host-network traffic with a podSelector: it comes from the node, with the node's
 * address or the CNI's tunnel/host address as source. So Ironic is admitted twice: by its pod
 * labels (CNIs that attribute host-network pods) and by `database.networkPolicy.hostSources`
 * (default: the Ironic hosts' own IPs). The schema Jobs run on the pod network: their labels match.
 */
import type * as k8s from "@pulumi/kubernetes";

import { MARIADB } from "../mariadb";
import { databaseOf } from "../plan/read";
import type { IronicPlan } from "../plan/types";
import { SCHEMA_JOB_COMPONENTS, mariadbSelector } from "./mariadb";
import { LABEL } from "../labels";
import { stackMeta } from "./meta";

/** Who may reach the database, whatever its kind: the Ironic pods, the schema Jobs, database.networkPolicy.hostSources. */
export function databaseClientSources(plan: IronicPlan): k8s.types.input.networking.v1.NetworkPolicyPeer[] {
    const jobs = { key: LABEL.component, operator: "In", values: [SCHEMA_JOB_COMPONENTS.upgrade, SCHEMA_JOB_COMPONENTS.migrate] };
    return [
        // The Ironic pods (host network: see above).
        { podSelector: { matchLabels: plan.selector } },
        // The schema Jobs (pod network).
        { podSelector: { matchLabels: plan.selector, matchExpressions: [jobs] } },
        ...databaseOf(plan.database, "mariadb", "mariadb-operator").networkPolicy.hostSources.map((cidr) => ({ ipBlock: { cidr } })),
    ];
}

export function mariadbNetworkPolicy(plan: IronicPlan): k8s.types.input.networking.v1.NetworkPolicy {
    return {
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: stackMeta(plan, plan.database.names.networkPolicy),
        spec: {
            podSelector: { matchLabels: mariadbSelector(plan) },
            policyTypes: ["Ingress"],
            ingress: [
                {
                    from: databaseClientSources(plan),
                    ports: [{ protocol: "TCP", port: MARIADB.port }],
                },
            ],
        },
    };
}
