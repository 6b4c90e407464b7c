/**
 * baremetal-operator deployed by the stack (bmo.enabled): every object of its release, wired to
 * this Ironic by core/manifests/bmo.ts, and the webhook's serving certificate from a CA of its own
 * (@pulumi/tls): the API server trusts that CA through the webhook's caBundle, so a renewed serving
 * certificate is trusted before the pod serves it. Only the API server trusts it, from the
 * configuration this program writes on every run: its key is not protected, and turning
 * bmo.enabled off removes it cleanly. The CRDs are kept on delete (the hosts are objects of them).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { ANNOTATIONS, bmoLabels, bmoNames, BmoReleaseFiles, bmoObjects, bmoWebhookDnsNames, inNamespace } from "../core/manifests";
import { IronicPlan } from "../core/plan";
import { StackPki, serverTlsSecret } from "./pki";

export interface BaremetalOperatorArgs {
    plan: IronicPlan;
    /** The release's `config/` tree (components/bmo-release.ts). */
    release: BmoReleaseFiles;
    namespace: pulumi.Input<string>;
    /** What the manager mounts and reads: the `<name>-bmo` ConfigMap, the CA and credentials Secrets. */
    wiring: pulumi.Resource[];
    /**
     * Hash of the API credentials (Credentials.rollHash): the manager reads them once at start
     * (environment-variable mode, clients.LoadAuth), so a new password rolls its pod.
     */
    credentialsHash: pulumi.Input<string>;
}

/** One resource of a kind the release ships, typed by its kind. */
function resourceOf(name: string, o: any, opts: pulumi.CustomResourceOptions): pulumi.CustomResource {
    switch (o.kind) {
        case "ServiceAccount":
            return new k8s.core.v1.ServiceAccount(name, o, opts);
        case "Service":
            return new k8s.core.v1.Service(name, o, opts);
        case "Role":
            return new k8s.rbac.v1.Role(name, o, opts);
        case "RoleBinding":
            return new k8s.rbac.v1.RoleBinding(name, o, opts);
        case "ClusterRole":
            return new k8s.rbac.v1.ClusterRole(name, o, opts);
        case "ClusterRoleBinding":
            return new k8s.rbac.v1.ClusterRoleBinding(name, o, opts);
        default:
            throw new Error(`baremetal-operator's release ships a ${o.kind} (${o.metadata?.name}) in base/rbac, which this program does not deploy`);
    }
}

export class BaremetalOperator extends pulumi.ComponentResource {
    public readonly deployment: k8s.apps.v1.Deployment;

    constructor(name: string, args: BaremetalOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:bmo:BaremetalOperator", name, {}, opts);
        const { plan, release, namespace } = args;
        const names = bmoNames(plan);
        const pki = new StackPki(
            `${name}-webhook-pki`,
            { commonName: `metal3-ironic ${plan.namespace}/${plan.name} baremetal-operator webhook CA`, ...plan.tls.validity, protectKey: false },
            { parent: this },
        );
        const secretMeta = { name: names.webhookSecret, namespace, labels: bmoLabels(plan) };
        // The names are in the SANs; the common name is short (at most 64 characters in X.509).
        const tlsSecret = serverTlsSecret(pki, `${name}-webhook`, { commonName: "baremetal-operator webhook", dnsNames: bmoWebhookDnsNames(plan), ipAddresses: [] }, secretMeta, { issue: this, secret: this })!;
        const objs = bmoObjects({ plan, release, webhookCaBundle: pki.caCertPem.apply((pem) => Buffer.from(pem).toString("base64")), podAnnotations: { [ANNOTATIONS.credentials]: args.credentialsHash } });
        const crds = objs.crds.map((o) => new k8s.apiextensions.v1.CustomResourceDefinition(`${name}-crd-${o.metadata.name}`, o, { parent: this, retainOnDelete: true }));
        const placed = (o: any) => (o.metadata.namespace !== undefined ? inNamespace(o, namespace) : o);
        const rbac = objs.rbac.map((o) => resourceOf(`${name}-${o.kind.toLowerCase()}-${o.metadata.name}`, placed(o), { parent: this }));
        const secret = tlsSecret.secret;
        const service = new k8s.core.v1.Service(`${name}-webhook-service`, placed(objs.webhookService), { parent: this });
        this.deployment = new k8s.apps.v1.Deployment(`${name}-deployment`, placed(objs.deployment), { parent: this, dependsOn: [...crds, ...rbac, secret, ...args.wiring] });
        // After the manager: with failurePolicy Fail, BareMetalHosts are refused while nothing serves the webhook.
        new k8s.admissionregistration.v1.ValidatingWebhookConfiguration(`${name}-webhook`, objs.webhookConfiguration, { parent: this, dependsOn: [service, this.deployment] });
        this.registerOutputs({ deployment: this.deployment.metadata.name });
    }
}
