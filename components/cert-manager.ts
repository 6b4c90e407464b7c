/**
 * tls.mode "cert-manager": the stack's cert-manager Certificates (core/manifests/certificates.ts),
 * registered before everything that mounts their Secrets. cert-manager writes those Secrets; this
 * program never does, and never reads them (no key of the stack passes through Pulumi).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { certificateManifests } from "../core/manifests/certificates";
import { inNamespace } from "../core/manifests";
import { IronicPlan } from "../core/plan";

/** One CustomResource per Certificate of the plan (none unless tls.mode is "cert-manager"). */
export function registerCertificates(parent: pulumi.Resource, name: string, plan: IronicPlan, namespace: pulumi.Input<string>): pulumi.Resource[] {
    return certificateManifests(plan).map((m) => new k8s.apiextensions.CustomResource(`${name}-certificate-${m.metadata.name}`, inNamespace(m, namespace), { parent }));
}
