/**
 * The whole deployment as one component: namespace, PKI, credentials, the Ironic workload and
 * the objects baremetal-operator consumes. Takes a validated plan; registers nothing else.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { Conductors } from "./conductors";
import { Credentials } from "./credentials";
import { MariaDB } from "./mariadb";
import { Ironic } from "./ironic";
import { bmoConfigMapData, dbJob, inNamespace } from "./manifests";
import { IronicPlan } from "./plan";
import { StackPki } from "./pki";

/** Stack output name of the deployed Ironic image. */
export const IRONIC_IMAGE_OUTPUT = "ironicImage";

export interface Metal3IronicArgs {
    plan: IronicPlan;
}

export interface TopologySummary {
    topology: "single" | "multi";
    namespace: string;
    conductors: { node: string; ip: string; slot?: number; dhcpRange: string | null }[];
}

export function topologySummary(plan: IronicPlan): TopologySummary {
    return {
        topology: plan.config.topology,
        namespace: plan.namespace,
        conductors: plan.conductors.map((c) => ({
            node: c.node || "(any node)",
            ip: c.ip,
            ...(c.slot !== undefined ? { slot: c.slot } : {}),
            dhcpRange: c.range ? `${c.range.start}-${c.range.end} (${c.range.size} addresses)` : null,
        })),
    };
}

export class Metal3Ironic extends pulumi.ComponentResource {
    public readonly apiUrl: pulumi.Output<string>;
    public readonly apiProvisioningUrl: pulumi.Output<string>;
    public readonly caCertificate: pulumi.Output<string>;
    public readonly credentialsSecretName: pulumi.Output<string>;
    public readonly credentials: pulumi.Output<{ username: string; password: string }>;
    public readonly topology: pulumi.Output<TopologySummary>;
    /** The Ironic image this stack runs; read back on the next run to refuse schema downgrades. */
    public readonly ironicImage: pulumi.Output<string>;

    constructor(name: string, args: Metal3IronicArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:index:Metal3Ironic", name, {}, opts);
        const { plan } = args;
        const c = plan.config;

        let namespace: pulumi.Output<string>;
        if (c.createNamespace) {
            // Deleting a namespace deletes the volumes in it: keep it when the database volume is kept.
            const keep = c.database.kind === "mariadb" && c.database.retainOnDelete;
            const ns = new k8s.core.v1.Namespace(`${name}-namespace`, { metadata: { name: plan.namespace, labels: plan.labels } }, { parent: this, retainOnDelete: keep });
            namespace = ns.metadata.name;
        } else {
            namespace = pulumi.output(plan.namespace);
        }

        const creds = new Credentials(
            `${name}-credentials`,
            { namespace, secretName: plan.names.credentialsSecret, username: c.ironic.apiUsername, labels: plan.labels },
            { parent: this },
        );

        const mounted: pulumi.Resource[] = [creds.secret];
        let pki: StackPki | undefined;
        let caPem: pulumi.Output<string>;
        if (c.tls.mode === "generate" || c.database.kind === "mariadb") {
            pki = new StackPki(
                `${name}-pki`,
                { commonName: `metal3-ironic ${plan.namespace}/${plan.name} CA`, caValidityDays: c.tls.caValidityDays, validityDays: c.tls.validityDays, renewBeforeDays: c.tls.renewBeforeDays },
                { parent: this },
            );
        }
        if (c.tls.mode === "generate" && pki) {
            // The CA alone, in the layout baremetal-operator mounts at /opt/metal3/certs/ca; the
            // multi-conductor pods verify their peers with it.
            mounted.push(
                new k8s.core.v1.Secret(
                    `${name}-cacert`,
                    { metadata: { name: plan.names.caSecret, namespace, labels: plan.labels }, stringData: { "tls.crt": pki.caCertPem } },
                    { parent: this },
                ),
            );
            caPem = pki.caCertPem;
        } else {
            caPem = pulumi.output(`(from Secret ${plan.namespace}/${plan.names.tlsSecret}, key ca.crt)`);
        }

        // Database: MariaDB (deployed here) or external; then the schema upgrade, which must
        // complete before the workload rolls.
        const dbJobs = plan.database.jobs;
        if (c.database.kind === "mariadb") {
            const mariadb = new MariaDB(`${name}-mariadb`, { plan, namespace, pki: pki! }, { parent: this });
            mounted.push(mariadb.statefulSet);
        }
        let migrateAfter: pulumi.Resource[] = [];
        if (dbJobs) {
            const job = dbJob(plan, "upgrade");
            const upgrade = new k8s.batch.v1.Job(`${name}-db-upgrade`, inNamespace(job, namespace), { parent: this, dependsOn: [...mounted] });
            mounted.push(upgrade);
            migrateAfter = [upgrade];
        }

        let workload: pulumi.Resource;
        if (c.topology === "single") {
            let tlsCertPem: pulumi.Output<string>;
            if (pki) {
                const server = pki.issue(
                    `${name}-api`,
                    {
                        commonName: `${plan.name}.${plan.namespace}.svc`,
                        dnsNames: plan.certificate.dnsNames,
                        ipAddresses: plan.certificate.ipAddresses,
                    },
                    pki,
                );
                mounted.push(
                    new k8s.core.v1.Secret(
                        `${name}-tls`,
                        {
                            metadata: { name: plan.names.tlsSecret, namespace, labels: plan.labels },
                            type: "kubernetes.io/tls",
                            stringData: { "tls.crt": server.certPem, "tls.key": server.keyPem, "ca.crt": pki.caCertPem },
                        },
                        { parent: this },
                    ),
                );
                tlsCertPem = server.certPem;
            } else {
                tlsCertPem = pulumi.output(`existing:${plan.names.tlsSecret}`);
            }
            workload = new Ironic(`${name}-ironic`, { plan, namespace, tlsCertPem, dependsOn: mounted }, { parent: this });
        } else {
            // Validation guarantees tls.mode "generate" with multi: node certificates are issued here.
            workload = new Conductors(`${name}-conductors`, { plan, namespace, pki: pki!, dependsOn: mounted }, { parent: this });
        }

        if (dbJobs) {
            // Online data migrations run once the new workload is ready (the provider awaits it).
            const job = dbJob(plan, "migrate");
            new k8s.batch.v1.Job(`${name}-db-migrate`, inNamespace(job, namespace), { parent: this, dependsOn: [workload, ...migrateAfter] });
        }

        new k8s.core.v1.ConfigMap(
            `${name}-bmo`,
            { metadata: { name: plan.names.bmoConfigMap, namespace, labels: plan.labels }, data: bmoConfigMapData(plan) },
            { parent: this, dependsOn: [workload] },
        );

        this.apiUrl = pulumi.output(plan.urls.apiInCluster);
        this.apiProvisioningUrl = pulumi.output(plan.urls.apiProvisioning);
        this.caCertificate = caPem;
        this.credentialsSecretName = creds.secretName;
        this.credentials = pulumi.secret(pulumi.all([creds.password]).apply(([password]) => ({ username: creds.username, password })));
        this.topology = pulumi.output(topologySummary(plan));
        this.ironicImage = pulumi.output(c.images.ironic);
        this.registerOutputs({
            apiUrl: this.apiUrl,
            apiProvisioningUrl: this.apiProvisioningUrl,
            caCertificate: this.caCertificate,
            credentialsSecretName: this.credentialsSecretName,
            credentials: this.credentials,
            topology: this.topology,
            ironicImage: this.ironicImage,
        });
    }
}
