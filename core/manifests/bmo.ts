/**
 * baremetal-operator (bmo.enabled) as its release ships it, wired to this stack: the objects of
 * the release's `config/base` kustomization (CRDs, RBAC, the manager Deployment with its webhook
 * patch, the webhook Service and ValidatingWebhookConfiguration) and its `tls` and `basic-auth`
 * components, put together the way kustomize does (names, namespace, patches), with what the
 * README's overlay changes: the manager reads the stack's `<name>-bmo` ConfigMap instead of its
 * `ironic` one, and mounts `<name>-cacert` and `<name>-credentials` instead of `ironic-cacert` and
 * `ironic-credentials`. The webhook's serving certificate is the program's (components/bmo.ts), not
 * cert-manager's: the release's certmanager/ objects are left out and the CA is set in caBundle.
 *
 * Pure: the release's files come in as text (core/bmo-release.ts reads its module zip). Every
 * assumption about their shape is checked, so a release laid out differently fails here, naming
 * what it lacks, instead of deploying something half-wired.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";

import type { IronicPlan } from "../plan/types";
import { appSelector, asApp } from "../labels";

/** The release's `config/` tree: path relative to it → text. */
export type BmoReleaseFiles = ReadonlyMap<string, string>;

/** Names of the objects, per stack: namespaced ones under `<name>-`, cluster-wide ones also under the namespace. */
export function bmoNames(plan: IronicPlan) {
    const n = plan.name;
    const cluster = `${plan.namespace}-${n}-bmo`;
    return {
        /** The Deployment and its ServiceAccount. */
        manager: `${n}-baremetal-operator`,
        webhookService: `${n}-bmo-webhook`,
        metricsService: `${n}-bmo-metrics`,
        webhookSecret: `${n}-bmo-webhook-cert`,
        /** Prefix of the namespaced Roles and RoleBindings. */
        namespaced: `${n}-bmo-`,
        /** Prefix of the ClusterRoles, ClusterRoleBindings and the ValidatingWebhookConfiguration. */
        clusterWide: `${cluster}-`,
    };
}

/** The labels of every object of BMO the stack deploys (besides the release's own). */
export function bmoLabels(plan: IronicPlan): Record<string, string> {
    return asApp(plan.labels, "baremetal-operator", "baremetal-operator");
}

export interface BmoObjects {
    crds: any[];
    /** ServiceAccount, Roles, ClusterRoles and their bindings, the metrics Service. */
    rbac: any[];
    webhookService: any;
    webhookConfiguration: any;
    deployment: any;
}

export interface BmoRender {
    plan: IronicPlan;
    release: BmoReleaseFiles;
    /** The CA of the webhook's serving certificate, base64 of its PEM (caBundle): the API server verifies the webhook with it. */
    webhookCaBundle: pulumi.Input<string>;
    /** Pod-template annotations of the manager (the credentials hash that rolls it), as ironicDeployment takes them. */
    podAnnotations?: Record<string, pulumi.Input<string>>;
}

const CLUSTER_SCOPED = new Set(["ClusterRole", "ClusterRoleBinding", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"]);

function file(release: BmoReleaseFiles, rel: string): string {
    const text = release.get(rel);
    if (text === undefined) throw new Error(`baremetal-operator's release has no config/${rel}: bmo.version names a release laid out differently from v0.13 (this program renders that layout)`);
    return text;
}

function docs(release: BmoReleaseFiles, rel: string): any[] {
    return YAML.parseAllDocuments(file(release, rel))
        .map((d) => d.toJS())
        .filter((o) => o && typeof o === "object");
}

/** The objects a kustomization's `resources` list (files only, as the release's are), in its order. */
function resources(release: BmoReleaseFiles, dir: string): any[] {
    const list = docs(release, `${dir}/kustomization.yaml`)[0]?.resources;
    if (!Array.isArray(list) || !list.every((r) => typeof r === "string")) throw new Error(`baremetal-operator's release: config/${dir}/kustomization.yaml lists no resources`);
    return list.flatMap((r) => docs(release, `${dir}/${r}`));
}

function need<T>(v: T | undefined, what: string): T {
    if (v === undefined) throw new Error(`baremetal-operator's release: ${what}`);
    return v;
}

/** `add` merged into `list` as a strategic merge does: an item with the key of one there replaces it, the others are added. */
function mergeList(list: any[] | undefined, add: any[], key: (x: any) => unknown): any[] {
    const out = [...(list ?? [])];
    for (const item of add) {
        const at = out.findIndex((x) => key(x) !== undefined && key(x) === key(item));
        if (at >= 0) out[at] = item;
        else out.push(item);
    }
    return out;
}

/** The merge key of each list of a pod the release's patches touch (Kubernetes' patchMergeKey). */
const MERGE_KEYS: Record<string, (x: any) => unknown> = { ports: (x) => x.containerPort, volumeMounts: (x) => x.mountPath, env: (x) => x.name, envFrom: () => undefined };

/** A Deployment patch's pod template merged into `spec` (a strategic merge, as far as the release's patches go). */
function mergePod(spec: any, patch: any, from: string): void {
    const p = need(patch?.spec?.template?.spec, `${from} is not a Deployment patch`);
    for (const pc of p.containers ?? []) {
        const c = need(spec.containers.find((x: any) => x.name === pc.name), `${from} patches container ${pc.name}, which the manager Deployment does not have`);
        for (const [list, key] of Object.entries(MERGE_KEYS)) if (pc[list]) c[list] = mergeList(c[list], pc[list], key);
    }
    if (p.volumes) spec.volumes = mergeList(spec.volumes, p.volumes, (x) => x.name);
}

/** Every object of the release, wired to the stack (see the file comment). */
export function bmoObjects(r: BmoRender): BmoObjects {
    const { plan, release } = r;
    const names = bmoNames(plan);
    const labels = bmoLabels(plan);
    // The release selects its pods by kubebuilder's `control-plane: controller-manager` alone, which
    // any other operator's pods in the namespace carry too: its selectors also name this stack's BMO.
    const selector = appSelector("baremetal-operator", plan.name);
    const releaseNs = "system";
    // The release's own names (kustomize's namePrefix is "baremetal-operator-"; these are before it).
    const renamed = new Map<string, string>([
        ["controller-manager", names.manager],
        ["webhook-service", names.webhookService],
        ["controller-manager-metrics-service", names.metricsService],
    ]);
    const nameOf = (kind: string, n: string) => renamed.get(n) ?? (CLUSTER_SCOPED.has(kind) ? names.clusterWide : names.namespaced) + n;
    const place = (o: any) => {
        o.metadata.name = nameOf(o.kind, o.metadata.name);
        o.metadata.labels = { ...(o.metadata.labels ?? {}), ...labels };
        if (CLUSTER_SCOPED.has(o.kind)) delete o.metadata.namespace;
        else o.metadata.namespace = plan.namespace;
        if (o.kind === "Service") o.spec.selector = { ...need(o.spec?.selector, `Service ${o.metadata.name} selects nothing`), ...selector };
        return o;
    };

    const crds = resources(release, "base/crds").map((o) => {
        if (o.kind !== "CustomResourceDefinition") throw new Error(`baremetal-operator's release: base/crds lists a ${o.kind}`);
        o.metadata.labels = { ...(o.metadata.labels ?? {}), ...labels };
        return o;
    });

    const rbac = resources(release, "base/rbac").map((o) => {
        place(o);
        if (o.roleRef) o.roleRef.name = nameOf(o.roleRef.kind, o.roleRef.name);
        for (const s of o.subjects ?? []) {
            if (s.kind !== "ServiceAccount") throw new Error(`baremetal-operator's release: ${o.metadata.name} binds a ${s.kind}`);
            Object.assign(s, { name: nameOf("ServiceAccount", s.name), namespace: plan.namespace });
        }
        return o;
    });

    const webhook = resources(release, "base/webhook");
    const webhookService = place(need(webhook.find((o) => o.kind === "Service"), "base/webhook has no Service"));
    const webhookConfiguration = place(need(webhook.find((o) => o.kind === "ValidatingWebhookConfiguration"), "base/webhook has no ValidatingWebhookConfiguration"));
    for (const w of webhookConfiguration.webhooks ?? []) {
        const svc = need(w.clientConfig?.service, `webhook ${w.name} is not served by a Service`);
        if (svc.name !== "webhook-service" || svc.namespace !== releaseNs) throw new Error(`baremetal-operator's release: webhook ${w.name} is served by ${svc.namespace}/${svc.name}, not the webhook Service`);
        w.clientConfig = { ...w.clientConfig, service: { ...svc, name: names.webhookService, namespace: plan.namespace }, caBundle: r.webhookCaBundle };
    }

    const deployment = place(need(docs(release, "base/manager.yaml").find((o) => o.kind === "Deployment"), "base/manager.yaml has no Deployment"));
    need(deployment.spec?.selector?.matchLabels && deployment.spec.template?.spec?.containers, "the manager Deployment has no selector or no containers");
    deployment.spec.selector.matchLabels = { ...deployment.spec.selector.matchLabels, ...selector };
    const template = deployment.spec.template;
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...labels }, ...(r.podAnnotations ? { annotations: { ...template.metadata?.annotations, ...r.podAnnotations } } : {}) };
    const spec = deployment.spec.template.spec;
    mergePod(spec, docs(release, "base/manager_webhook_patch.yaml")[0], "base/manager_webhook_patch.yaml");
    spec.serviceAccountName = nameOf("ServiceAccount", spec.serviceAccountName);
    const manager = need(spec.containers.find((c: any) => c.name === "manager"), "base/manager.yaml has no manager container");
    const ironicCm = (manager.envFrom ?? []).find((e: any) => e.configMapRef);
    if (ironicCm?.configMapRef.name !== "ironic") throw new Error(`baremetal-operator's release: the manager reads ConfigMap ${JSON.stringify(ironicCm?.configMapRef?.name)}, not "ironic"`);
    ironicCm.configMapRef.name = plan.names.bmoConfigMap;
    manager.image = plan.images.baremetalOperator;
    const secrets: Record<string, string> = { "ironic-cacert": plan.names.caSecret, "ironic-credentials": plan.names.credentialsSecret };
    for (const component of ["components/tls/tls_ca_patch.yaml", "components/basic-auth/credentials_patch.yaml"]) {
        const patch = docs(release, component)[0];
        for (const v of patch?.spec?.template?.spec?.volumes ?? []) {
            if (!v.secret || !(v.secret.secretName in secrets)) throw new Error(`baremetal-operator's release: ${component} mounts ${JSON.stringify(v)}, not ironic-cacert or ironic-credentials`);
            v.secret.secretName = secrets[v.secret.secretName];
        }
        mergePod(spec, patch, component);
    }
    const cert = need(spec.volumes.find((v: any) => v.name === "cert")?.secret, "the webhook patch mounts no serving certificate Secret (volume cert)");
    cert.secretName = names.webhookSecret;
    const pullSecrets = plan.placement.imagePullSecrets;
    if (pullSecrets.length > 0) spec.imagePullSecrets = pullSecrets.map((name) => ({ name }));
    return { crds, rbac, webhookService, webhookConfiguration, deployment };
}

/** DNS names of the webhook Service, for its serving certificate. */
export function bmoWebhookDnsNames(plan: IronicPlan): string[] {
    const svc = `${bmoNames(plan).webhookService}.${plan.namespace}.svc`;
    return [svc, `${svc}.${plan.clusterDomain}`];
}
