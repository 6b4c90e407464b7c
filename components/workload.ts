/**
 * The Ironic workload of a stack: one Deployment with its API certificate (single) or the
 * per-node conductors (multi), as children of the stack component. Split from stack.ts to keep
 * each file to one concern; the component names come from topology-switch.ts (aliases).
 */
import * as pulumi from "@pulumi/pulumi";

import { IronicPlan, stackIssuesApiCertificate } from "../core/plan";
import { Conductors } from "./conductors";
import { ExistingTls } from "./existing-tls";
import { Ironic } from "./ironic";
import { StackPki, serverTlsSecret } from "./pki";
import { workloadComponentName } from "./topology-switch";
import { stackMeta } from "../core/manifests/meta";

/**
 * The Ironic workload: one Deployment (single, with its API certificate) or the conductors (multi),
 * waiting for `dependsOn`; with what it mounts of its own (the API certificate's Secret), which
 * those who wire to the API (BMO) wait for too.
 */
export function ironicWorkload(w: WorkloadInputs): { workload: Ironic | Conductors; mounted: pulumi.Resource[] } {
    return WORKLOADS[w.plan.topology.kind](w);
}

/** What the workload is built from: the stack (its parent), the plan, the stack PKI and the user's certificate where there are, what it waits for. */
export interface WorkloadInputs {
    parent: pulumi.ComponentResource;
    name: string;
    plan: IronicPlan;
    namespace: pulumi.Output<string>;
    pki: StackPki | undefined;
    existing: ExistingTls | undefined;
    dependsOn: pulumi.Resource[];
    credentialsHash: pulumi.Input<string>;
    cacheCaPem?: pulumi.Output<string>;
}

/** The workload of each topology of the plan, one entry each (a new topology does not compile without one). */
const WORKLOADS: Record<IronicPlan["topology"]["kind"], (w: WorkloadInputs) => { workload: Ironic | Conductors; mounted: pulumi.Resource[] }> = {
    multi: ({ parent, name, plan, namespace, pki, existing, dependsOn, credentialsHash, cacheCaPem }) => {
        // "generate": the conductor CA is issued from the stack's PKI; "existing": it is the
        // user's Secret, and the API certificate (httpd) is theirs too; "cert-manager": both are
        // Certificates of the issuer (components/cert-manager.ts).
        const own = existing ? { tlsCertPem: existing.tlsCertPem } : stackIssuesApiCertificate(plan) ? { pki: pki! } : {};
        return { workload: new Conductors(workloadComponentName(name, "multi"), { plan, namespace, ...own, credentialsHash, cacheCaPem, dependsOn }, { parent }), mounted: dependsOn };
    },
    single: ({ parent, name, plan, namespace, pki, existing, dependsOn, credentialsHash }) => {
        let tlsCertPem: pulumi.Output<string> | undefined;
        const mounted = [...dependsOn];
        if (stackIssuesApiCertificate(plan) && pki) {
            // Only with "generate": with "existing" the API certificate is the user's, even when a
            // stack PKI exists (for MariaDB), and its Secret is theirs.
            const request = { commonName: `${plan.name}.${plan.namespace}.svc`, dnsNames: plan.certificate.dnsNames, ipAddresses: plan.certificate.ipAddresses };
            const server = serverTlsSecret(pki, name, request, stackMeta(plan, plan.names.tlsSecret, { namespace }), { issue: pki, secret: parent }, `${name}-api`)!;
            mounted.push(server.secret);
            tlsCertPem = server.certPem;
        } else if (existing) {
            // The user's certificate: pods roll when it changes (on the next pulumi up).
            tlsCertPem = existing.tlsCertPem;
        }
        // cert-manager: no hash (this program never sees the certificate); the image restarts httpd
        // when the kubelet updates the mounted Secret (RESTART_CONTAINER_CERTIFICATE_UPDATED).
        return { workload: new Ironic(workloadComponentName(name, "single"), { plan, namespace, tlsCertPem, credentialsHash, dependsOn: mounted }, { parent }), mounted };
    },
};
