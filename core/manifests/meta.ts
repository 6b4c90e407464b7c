/**
 * What every object and pod of the stack shares: the annotation keys, placement in the namespace,
 * content hashes, and the pod and container security baseline with the configured placement.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";

import type { Amounts, ResourceRole } from "../config/resources";
import { COMMANDS } from "../contract";
import type { EnvMap, IronicPlan } from "../plan/types";

export type PodSpec = k8s.types.input.core.v1.PodSpec;
export type Container = k8s.types.input.core.v1.Container;
export type EnvVar = k8s.types.input.core.v1.EnvVar;
export type SecurityContext = k8s.types.input.core.v1.SecurityContext;

export const ANNOTATIONS = {
    dnsmasqConfig: "metal3-ironic.metal3.io/dnsmasq-config-hash",
    tlsCert: "metal3-ironic.metal3.io/tls-cert-hash",
    /** The API credentials' htpasswd line (bcrypt, salted): the image reads it at start only. */
    credentials: "metal3-ironic.metal3.io/credentials-hash",
    /** The IPA cache's own root (multi with tls generate): the cache client builds its trust bundle at start only. */
    cacheCa: "metal3-ironic.metal3.io/ipa-cache-ca-cert-hash",
} as const;

/**
 * A rendered object placed in the namespace as the program registers it (an Output, so that it
 * depends on the Namespace being created). The pure renderers use the plain name.
 */
export function inNamespace<T extends { metadata?: unknown }>(o: T, namespace: pulumi.Input<string>): T {
    // The renderers always build metadata as a plain object.
    return { ...o, metadata: { ...(o.metadata as k8s.types.input.meta.v1.ObjectMeta), namespace } };
}

/**
 * The metadata of an object of the stack: its name, namespace and labels (the stack's unless
 * given). Components pass the namespace as registered (an Output, so that the object depends on
 * the Namespace being created); the pure renderers use the plan's.
 */
export function stackMeta<NS extends pulumi.Input<string> = string>(plan: IronicPlan, name: string, o: { namespace?: NS; labels?: Record<string, string> } = {}): { name: string; namespace: NS; labels: Record<string, string> } {
    return { name, namespace: o.namespace ?? (plan.namespace as NS), labels: o.labels ?? plan.labels };
}

/**
 * The body of every kubernetes.io/tls Secret of the stack: the certificate, its key and, for a
 * server's, the CA its clients verify with (ca.crt; a CA's own Secret has none).
 */
export function tlsSecretBody<M, S>(metadata: M, pem: { cert: S; key: S; ca?: S }): { metadata: M; type: "kubernetes.io/tls"; stringData: Record<string, S> } {
    const stringData: Record<string, S> = { "tls.crt": pem.cert, "tls.key": pem.key };
    if (pem.ca !== undefined) stringData["ca.crt"] = pem.ca;
    return { metadata, type: "kubernetes.io/tls", stringData };
}

export function sha256(s: string): string {
    return createHash("sha256").update(s).digest("hex");
}

/** Hash of ConfigMap-like data, independent of key order: a pod-template annotation, so a change rolls the pod. */
export function contentHash(data: Record<string, string>): string {
    return sha256(Object.keys(data).sort().map((k) => `${k}\n${data[k]}`).join("\n"));
}

/** `r` with its keys in sorted order (rendered YAML follows insertion order). */
export function sortedRecord<V>(r: Record<string, V>): Record<string, V> {
    const out: Record<string, V> = {};
    for (const k of Object.keys(r).sort()) out[k] = r[k];
    return out;
}

/** Sorted copy of an env map: stable order in manifests regardless of insertion order. */
export function sortedEnv(env: EnvMap): { name: string; value: string }[] {
    return Object.keys(env)
        .sort()
        .map((name) => ({ name, value: env[name] }));
}

/** A container that cannot escalate, writes only to its volumes, runs as non-root, with no capability. */
export function restrictedSecurityContext(): SecurityContext {
    return {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ["ALL"] },
    };
}

/**
 * The descriptor the image's shell trace goes to (BASH_XTRACEFD), opened on /dev/null by untraced().
 * 9 is the highest bash leaves to scripts; the image's scripts redirect none of 3-9.
 */
export const TRACE_FD = 9;

/**
 * `command` with the image's shell trace discarded. The image's scripts run under `set -x` and read
 * the mounted credentials while tracing (auth-common.sh: the MariaDB password and both htpasswd files,
 * sourced by runironic, runhttpd, the schema Jobs and the probes), so every value would reach the
 * container's log, readable by anyone allowed `pods/log`, and a failed exec probe's output reaches
 * the pod's events. Bash writes its trace to the descriptor BASH_XTRACEFD names, takes it from the
 * environment and passes it to every script it starts; a closed descriptor would not do (bash
 * falls back to stderr), so this opens TRACE_FD on /dev/null first, then runs the command.
 */
export function untraced(command: string[]): string[] {
    return [COMMANDS.shell, "-c", `exec ${TRACE_FD}>/dev/null; export BASH_XTRACEFD=${TRACE_FD}; exec "$@"`, "untraced", ...command];
}

/** What every pod of the stack shares: non-root identity, no API token, the configured placement and image pull Secrets. */
export function podBase(plan: IronicPlan, uid: number, gid: number, extraNodeSelector: Record<string, string> = {}): Omit<PodSpec, "containers"> {
    const nodeSelector = { ...plan.placement.nodeSelector, ...extraNodeSelector };
    const tolerations = plan.placement.tolerations;
    const pullSecrets = plan.placement.imagePullSecrets;
    return {
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: { runAsUser: uid, runAsGroup: gid, fsGroup: gid, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        nodeSelector: Object.keys(nodeSelector).length > 0 ? sortedRecord(nodeSelector) : undefined,
        tolerations: tolerations.length > 0 ? tolerations : undefined,
        ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((name) => ({ name })) } : {}),
    };
}

/** A container's requests and limits: the configured ones for its role (`resources.<role>`), defaults included. */
export function containerResources(plan: IronicPlan, role: ResourceRole): k8s.types.input.core.v1.ResourceRequirements {
    const r = plan.resources[role];
    const amounts = (a: Amounts) => ({ ...(a.cpu !== undefined ? { cpu: a.cpu } : {}), ...(a.memory !== undefined ? { memory: a.memory } : {}) });
    return { requests: amounts(r.requests), limits: amounts(r.limits) };
}
