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
import { bmoConfigMapData, dbJob, inNamespace } from "../core/manifests";
import { IronicPlan } from "../core/plan";
import { userSecrets } from "../core/plan/secrets";
import { TopologySummary, topologySummary } from "../core/plan/summary";
import { StackPki } from "./pki";

/** Stack output name of the deployed Ironic image. */
export const IRONIC_IMAGE_OUTPUT = "ironicImage";

/** Keys a Secret named by tls.existingSecret must hold. */
export const EXISTING_TLS_KEYS = ["tls.crt", "tls.key", "ca.crt"] as const;

/** For tools/plan.ts, which checks user Secret names before rendering. */
export { userSecretIssues } from "../core/plan/secrets";

export interface Metal3IronicArgs {
    plan: IronicPlan;
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
        // Guard: no resource of this component tree may write a Secret the user owns (reads are fine).
        const owned = new Map(userSecrets(args.plan).map((u) => [u.name, u.key]));
        let self: pulumi.Resource | undefined;
        const guard: pulumi.ResourceTransformation = (a) => {
            const target = a.props?.metadata?.name;
            if (a.opts.id === undefined && a.type.startsWith("kubernetes:core/v1:Secret") && typeof target === "string" && owned.has(target)) {
                throw new pulumi.ResourceError(`${owned.get(target)}: Secret ${args.plan.namespace}/${target} belongs to you; ${a.name} must not write it (a bug of this program)`, self, true);
            }
            return undefined;
        };
        super("metal3:index:Metal3Ironic", name, {}, { ...opts, transformations: [...(opts?.transformations ?? []), guard] });
        self = this;
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
        // With tls.mode "existing" the user's Secret is read (never registered: this program must
        // not write, replace or delete it); its CA goes to BMO and to the stack output.
        const existing = c.tls.mode === "existing" ? readExistingTls(`${name}-existing-tls`, plan.namespace, plan.names.tlsSecret, this) : undefined;
        caPem = existing ? existing.caCertPem : pki!.caCertPem;
        // The CA alone, in the layout baremetal-operator mounts at /opt/metal3/certs/ca; the
        // multi-conductor pods verify their peers with it.
        mounted.push(
            new k8s.core.v1.Secret(
                `${name}-cacert`,
                { metadata: { name: plan.names.caSecret, namespace, labels: plan.labels }, stringData: { "tls.crt": caPem } },
                { parent: this },
            ),
        );

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
            if (c.tls.mode === "generate" && pki) {
                // Only with "generate": with "existing" the API certificate is the user's, even when a
                // stack PKI exists (for MariaDB), and its Secret is theirs.
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
                // The user's certificate: pods roll when it changes (on the next pulumi up).
                tlsCertPem = existing!.tlsCertPem;
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

/** The public parts of the user's TLS Secret, read at deploy time. */
interface ExistingTls {
    caCertPem: pulumi.Output<string>;
    tlsCertPem: pulumi.Output<string>;
}

/** Message for a user's TLS Secret that lacks keys or holds no PEM CA: the key, what is wrong, the fix. */
export function existingTlsError(namespace: string, secretName: string, data: Record<string, string> | undefined, caPem?: string): string | undefined {
    const id = `${namespace}/${secretName}`;
    const missing = EXISTING_TLS_KEYS.filter((k) => !data?.[k]);
    const fix =
        `it must hold tls.crt (the API and virtual-media certificate), tls.key (its private key) and ca.crt (the PEM CA certificate that signed tls.crt, ` +
        `which baremetal-operator and Ironic trust); recreate it with e.g. \`kubectl -n ${namespace} create secret generic ${secretName} --from-file=tls.crt --from-file=tls.key --from-file=ca.crt ` +
        `--dry-run=client -o yaml | kubectl apply -f -\`, or set tls.mode to "generate"`;
    if (missing.length > 0) {
        const present = Object.keys(data ?? {}).filter((k) => data![k]).sort();
        const has = present.length > 0 ? present.map((k) => `"${k}"`).join(", ") : "no non-empty key";
        return `tls.existingSecret: Secret ${id} lacks ${missing.map((k) => `"${k}"`).join(", ")} (missing or empty; it has ${has}): ${fix}`;
    }
    if (caPem !== undefined && !/-----BEGIN CERTIFICATE-----/.test(caPem)) {
        return `tls.existingSecret: Secret ${id}: "ca.crt" is not a PEM certificate (no -----BEGIN CERTIFICATE----- line): ${fix}`;
    }
    return undefined;
}

/**
 * An error about something the program found at deploy time, reported like a config error: no
 * stack trace, and the message as written. (The SDK prefixes the message of an error thrown in an
 * apply with the property path of every resource that awaited it: `error serializing property
 * "stringData": ...`.)
 */
class DeployTimeError extends pulumi.ResourceError {
    constructor(message: string, resource: pulumi.Resource) {
        super(message, resource, true);
        Object.defineProperty(this, "message", { get: () => message, set: () => undefined, enumerable: false, configurable: true });
    }
}

/**
 * Read the user's Secret `namespace/secretName` through the parent's (explicit) provider. A read
 * registers nothing: the object is neither managed, replaced nor deleted by this stack.
 */
function readExistingTls(name: string, namespace: string, secretName: string, parent: pulumi.Resource): ExistingTls {
    const secret = k8s.core.v1.Secret.get(name, `${namespace}/${secretName}`, { parent });
    const decode = (v: string) => Buffer.from(v, "base64").toString("utf8");
    // `data` is a secret output (it holds tls.key); the certificates taken from it are public.
    const pems = secret.data.apply((data) => {
        const ca = data?.["ca.crt"] ? decode(data["ca.crt"]) : undefined;
        const error = existingTlsError(namespace, secretName, data, ca);
        if (error) throw new DeployTimeError(error, parent);
        return { ca: ca!, cert: decode(data["tls.crt"]) };
    });
    return { caCertPem: pulumi.unsecret(pems.apply((p) => p.ca)), tlsCertPem: pulumi.unsecret(pems.apply((p) => p.cert)) };
}
