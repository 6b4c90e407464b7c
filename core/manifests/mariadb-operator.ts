/**
 * database.kind mariadb-operator: the MariaDB operator's objects (API group k8s.mariadb.com,
 * v1alpha1, as of the operator release MARIADB_OPERATOR pins) for a Galera cluster, the Ironic
 * database, its user and grant, and the NetworkPolicy in front of the cluster.
 *
 * The operator runs the StatefulSet (one volume claim per member), the Galera bootstrap and
 * recovery, and the `<name>-primary` Service that always selects one member: the single writer
 * Ironic connects to. The server certificate and the root and ironic passwords are this stack's
 * own Secrets (the same ones the single-pod kind uses).
 */
import type * as k8s from "@pulumi/kubernetes";

import { MARIADB, MARIADB_OPERATOR } from "../mariadb";
import { databaseOf } from "../plan/read";
import type { IronicPlan } from "../plan/types";
import { renderMariadbConf } from "../render/mariadb";
import { containerResources, sortedRecord, stackMeta } from "./meta";
import { databaseClientSources } from "./networkpolicy";
import { appSelector } from "../labels";

/** A custom object of the operator's API (no typed model in @pulumi/kubernetes). */
export interface OperatorObject {
    apiVersion: string;
    kind: string;
    metadata: { name: string; namespace: string; labels: Record<string, string>; annotations?: Record<string, string> };
    spec: Record<string, unknown>;
}

/** The user Ironic connects as (the same as the single-pod kind's). */
export const OPERATOR_IRONIC_USER = "ironic";

/** Below the server's max_connections (256, renderMariadbConf), leaving room for the operator's own connections. */
export const IRONIC_MAX_USER_CONNECTIONS = 200;

/** The operator's labels of a MariaDB's pods (its WithMariaDBSelectorLabels). */
export function operatorPodSelector(plan: IronicPlan): Record<string, string> {
    return appSelector("mariadb", plan.database.names.mariadb);
}

function meta(plan: IronicPlan, name: string): OperatorObject["metadata"] {
    // The provider waits until the operator reports the object Ready (the schema Job runs after that).
    return { ...stackMeta(plan, name), annotations: { "pulumi.com/waitFor": "condition=Ready" } };
}

/** The server configuration the operator adds to its own: that of the single-pod kind, less the TLS lines (the operator writes those). */
function myCnf(): string {
    return renderMariadbConf()
        .split("\n")
        .filter((l) => !/^(ssl_|tls_version|require_secure_transport)/.test(l))
        .join("\n");
}

/** The Galera cluster: `replicas` members, one per node, TLS required, on this stack's Secrets. */
export function operatorMariadb(plan: IronicPlan): OperatorObject {
    const db = databaseOf(plan.database, "mariadb-operator");
    const n = plan.database.names;
    const { nodeSelector, tolerations, imagePullSecrets: pullSecrets } = plan.placement;
    return {
        apiVersion: MARIADB_OPERATOR.apiVersion,
        kind: "MariaDB",
        metadata: meta(plan, n.mariadb),
        spec: {
            image: plan.images.mariadb,
            replicas: db.replicas,
            rootPasswordSecretKeyRef: { name: n.credentialsSecret, key: MARIADB.rootPasswordKey, generate: false },
            storage: { size: db.storageSize, ...(db.storageClass ? { storageClassName: db.storageClass } : {}) },
            galera: { enabled: true, primary: { automaticFailover: true } },
            // One member per node: losing a node loses one member, and the quorum holds.
            affinity: { antiAffinityEnabled: true },
            podDisruptionBudget: { maxUnavailable: 1 },
            tls: { enabled: true, required: true, serverCertSecretRef: { name: n.tlsSecret }, serverCASecretRef: { name: n.tlsSecret } },
            myCnf: myCnf(),
            resources: containerResources(plan, "mariadb"),
            ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector: sortedRecord(nodeSelector) } : {}),
            ...(tolerations.length > 0 ? { tolerations } : {}),
            ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((name) => ({ name })) } : {}),
        },
    };
}

/** The Ironic database, its user (TLS only, password from the stack's Secret) and its grant. Never dropped when the object goes. */
export function operatorSqlObjects(plan: IronicPlan): OperatorObject[] {
    const n = plan.database.names;
    const ref = { mariaDbRef: { name: n.mariadb, waitForIt: true } };
    const database = plan.database.database;
    return [
        {
            apiVersion: MARIADB_OPERATOR.apiVersion,
            kind: "Database",
            metadata: meta(plan, n.databaseObject),
            spec: { ...ref, name: database, characterSet: "utf8mb3", collate: "utf8mb3_general_ci", cleanupPolicy: "Skip" },
        },
        {
            apiVersion: MARIADB_OPERATOR.apiVersion,
            kind: "User",
            metadata: meta(plan, n.user),
            spec: {
                ...ref,
                name: OPERATOR_IRONIC_USER,
                host: "%",
                passwordSecretKeyRef: { name: n.credentialsSecret, key: "password" },
                require: { ssl: true },
                maxUserConnections: IRONIC_MAX_USER_CONNECTIONS,
                cleanupPolicy: "Skip",
            },
        },
        {
            apiVersion: MARIADB_OPERATOR.apiVersion,
            kind: "Grant",
            metadata: meta(plan, n.grant),
            spec: { ...ref, privileges: ["ALL PRIVILEGES"], database, table: "*", username: OPERATOR_IRONIC_USER, host: "%", cleanupPolicy: "Skip" },
        },
    ];
}

/**
 * Ingress to the Galera members: SQL from Ironic, the schema Jobs, `hostSources` and the
 * operator; Galera replication (4567), IST (4568) and SST (4444) among the members; the
 * operator's agent (5555, probes 5566) from the operator's namespace.
 */
export function operatorNetworkPolicy(plan: IronicPlan): k8s.types.input.networking.v1.NetworkPolicy {
    const members = { podSelector: { matchLabels: operatorPodSelector(plan) } };
    const operator = { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": databaseOf(plan.database, "mariadb-operator").operator.namespace } } };
    const tcp = (...ports: number[]) => ports.map((port) => ({ protocol: "TCP", port }));
    return {
        apiVersion: "networking.k8s.io/v1",
        kind: "NetworkPolicy",
        metadata: stackMeta(plan, plan.database.names.networkPolicy),
        spec: {
            podSelector: { matchLabels: operatorPodSelector(plan) },
            policyTypes: ["Ingress"],
            ingress: [
                {
                    from: [
                        ...databaseClientSources(plan),
                        members,
                        operator,
                    ],
                    ports: tcp(MARIADB.port),
                },
                { from: [members], ports: tcp(...MARIADB_OPERATOR.galeraPorts) },
                { from: [operator], ports: tcp(...MARIADB_OPERATOR.agentPorts) },
            ],
        },
    };
}
