/**
 * The whole deployment as one component: namespace, PKI, credentials, the Ironic workload and
 * the objects baremetal-operator consumes. Its argument is the configuration, with the stack
 * config's keys and schema (docs/configuration.md); it validates it completely and plans the
 * deployment (core/plan) before it registers anything (components/args.ts). This is the
 * package's public component (components/index.ts); the root program (components/program.ts) is
 * one user of it.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { kubernetesProviderArgs, Metal3IronicArgs, Metal3IronicOutputs, defaultProvider, maskedOutputs, planFromArgs, userObjectGuard } from "./args";
import { Conductors } from "./conductors";
import { BaremetalOperator } from "./bmo";
import { Credentials } from "./credentials";
import { MariaDB } from "./mariadb";
import { MariaDBOperatorCluster } from "./mariadb-operator";
import { Readiness } from "./readiness";
import { RawConfig } from "../core/config";
import { SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS, bmoConfigMapData, dbJob, inNamespace, namespaceManifest, namespaceNotCreatedNote, schemaJobHint } from "../core/manifests";
import { IronicPlan, stackCaOf, userTlsSecretOf } from "../core/plan";
import { readExistingTls } from "./existing-tls";
import { topologySummary } from "../core/plan/summary";
import { pinNote } from "../core/plan/upgrade";
import { persistedState } from "../core/plan/previous";
import { StackPki } from "./pki";
import { registerCertificates } from "./cert-manager";
import { ironicWorkload } from "./workload";
import { deployImageCache, imageCacheForStack } from "./image-cache";
import { Metrics } from "./metrics";
import { secretNeedles } from "./secret-config";
import { ConfigSecrets, secretTransformations } from "./config-secrets";
import { stackMeta } from "../core/manifests/meta";

/**
 * What each database kind registers before the schema Job: what the workload waits for. One entry
 * per kind of the plan (a new kind does not compile without one); sqlite and external deploy nothing.
 */
const DATABASE_PARTS: Record<IronicPlan["database"]["kind"], (parent: pulumi.ComponentResource, name: string, plan: IronicPlan, namespace: pulumi.Output<string>, pki: StackPki | undefined) => pulumi.Resource[]> = {
    sqlite: () => [],
    external: () => [],
    mariadb: (parent, name, plan, namespace, pki) => [new MariaDB(`${name}-mariadb`, { plan, namespace, pki }, { parent }).statefulSet],
    "mariadb-operator": (parent, name, plan, namespace, pki) => {
        const cluster = new MariaDBOperatorCluster(`${name}-galera`, { plan, namespace, pki: pki! }, { parent });
        return [cluster.credentials, ...cluster.sqlObjects];
    },
};

export class Metal3Ironic extends pulumi.ComponentResource {
    /** The outputs a stack exports, under the names the next run reads back (readPreviousState). */
    public readonly outputs: Metal3IronicOutputs;
    /** The validated configuration, planned: names, URLs, DHCP slices (read-only; for summaries). */
    public readonly plan: IronicPlan;

    /** In-cluster API endpoint, for baremetal-operator; and the other outputs (Metal3IronicOutputs). */
    get apiUrl() { return this.outputs.apiUrl; }
    get apiProvisioningUrl() { return this.outputs.apiProvisioningUrl; }
    get caCertificate() { return this.outputs.caCertificate; }
    get credentialsSecretName() { return this.outputs.credentialsSecretName; }
    get credentials() { return this.outputs.credentials; }
    get topology() { return this.outputs.topology; }
    get ironicImage() { return this.outputs.ironicImage; }
    get ironicVersion() { return this.outputs.ironicVersion; }
    get state() { return this.outputs.state; }
    get conductorsAlive() { return this.outputs.conductorsAlive; }
    get imageCacheUrl() { return this.outputs.imageCacheUrl; }
    get imageCacheCaCertificate() { return this.outputs.imageCacheCaCertificate; }

    constructor(name: string, args: Metal3IronicArgs, opts?: pulumi.ComponentResourceOptions) {
        const plan = planFromArgs(args);
        if (plan.bmo.enabled && !args.bmoRelease) {
            throw new pulumi.RunError(`bmo.enabled: the component needs baremetal-operator's release in args.bmoRelease: (await loadBmoRelease({ version, h1: checksum, goproxy })).config for bmo.version ${plan.bmo.version} (loadBmoRelease is exported by this package; docs/library.md)`);
        }
        const needles = secretNeedles(args.config as RawConfig, args.secretKeys ?? [], args.stated);
        let self: pulumi.Resource | undefined;
        // Set below when the caller passed no Kubernetes provider; it applies to resources registered after that.
        let ownProvider: k8s.Provider | undefined;
        // Made once the namespace exists (secret values in a workload's env move into its Secret).
        let configSecrets: ConfigSecrets | undefined;
        const transformations = [userObjectGuard(plan, () => self), ...secretTransformations(needles, () => configSecrets), defaultProvider(() => ownProvider)];
        super("metal3:index:Metal3Ironic", name, {}, { ...opts, transformations: [...(opts?.transformations ?? []), ...transformations] });
        self = this;
        this.plan = plan;
        if (!this.getProvider("kubernetes::")) ownProvider = new k8s.Provider(`${name}-kubernetes`, kubernetesProviderArgs(plan), { parent: this });
        const namespace = this.namespace(name, plan);
        if (needles.length > 0) configSecrets = new ConfigSecrets(name, plan, namespace, this);
        const creds = new Credentials(`${name}-credentials`, { namespace, secretName: plan.names.credentialsSecret, username: plan.apiUsername, labels: plan.labels }, { parent: this });
        const pki = this.stackPki(name, plan);
        // With tls.mode "existing" the user's Secret is read (never registered: this program must
        // not write, replace or delete it); its CA goes to BMO and to the stack output.
        const userTls = userTlsSecretOf(plan);
        const existing = userTls ? readExistingTls(`${name}-existing-tls`, plan.namespace, userTls, this) : undefined;
        // The CA alone, in the layout baremetal-operator mounts at /opt/metal3/certs/ca (the multi
        // pods verify their peers with it); none with cert-manager: ca.crt of the issuer's Secrets.
        const caPem = existing ? existing.caCertPem : pki?.caCertPem;
        const cacert = caPem ? [new k8s.core.v1.Secret(`${name}-cacert`, { metadata: stackMeta(plan, plan.names.caSecret, { namespace }), stringData: { "tls.crt": caPem } }, { parent: this })] : [];
        const db = this.database(name, plan, namespace, pki, [creds.secret, ...cacert, ...registerCertificates(this, name, plan, namespace)]);
        const cache = imageCacheForStack(this, name, plan, namespace, pki);
        // What the workload mounts or needs first (it waits for all of them), each step's own.
        const { workload, mounted } = ironicWorkload({ parent: this, name, plan, namespace, pki, existing, dependsOn: [...db.mounted, ...cache.mounted], credentialsHash: creds.rollHash, cacheCaPem: cache.ownRootPem });
        const upgrade = db.upgrade;
        deployImageCache(this, name, plan, namespace, cache.pki);
        if (plan.metrics.enabled) new Metrics(`${name}-metrics`, { plan, namespace }, { parent: this });
        const pinned = pinNote(plan, args.previous ?? {});
        if (pinned) pulumi.log.info(pinned, this);
        // Online data migrations once the new workload is ready (the provider awaits it); none while pinned (core/plan/upgrade.ts).
        if (upgrade && plan.database.jobs?.migrate) this.schemaJob(`${name}-db-migrate`, plan, "migrate", namespace, [workload, upgrade]);
        const bmoConfigMap = new k8s.core.v1.ConfigMap(
            `${name}-bmo`,
            { metadata: stackMeta(plan, plan.names.bmoConfigMap, { namespace }), data: bmoConfigMapData(plan) },
            { parent: this, dependsOn: [workload] },
        );
        if (plan.bmo.enabled) {
            new BaremetalOperator(`${name}-baremetal-operator`, { plan, release: args.bmoRelease!, namespace, wiring: [bmoConfigMap, ...mounted], credentialsHash: creds.rollHash }, { parent: this });
        }
        // Live readiness last: every configured conductor alive in the API, or `pulumi up` fails.
        const [pods, service] = workload instanceof Conductors ? [workload.daemonSet, workload.service] : [workload.deployment, workload.service];
        // Every workload is registered: the Secret gets the values they read from it.
        configSecrets?.finish();
        const ready = Readiness.create(`${name}-readiness`, { plan, caPem: caPem ?? "", username: creds.username, password: creds.password, workload: pods, service }, { parent: this });

        // Outputs that carry a secret config value are secret outputs.
        this.outputs = maskedOutputs(
            {
                apiUrl: pulumi.output(plan.urls.apiInCluster),
                apiProvisioningUrl: pulumi.output(plan.urls.apiProvisioning),
                // Empty with cert-manager: the issuer's CA is ca.crt of Secret <name>-tls.
                caCertificate: caPem ?? pulumi.output(""),
                credentialsSecretName: creds.secretName,
                credentials: pulumi.secret(pulumi.all([creds.password]).apply(([password]) => ({ username: creds.username, password }))),
                topology: pulumi.output(topologySummary(plan)),
                ironicImage: pulumi.output(plan.images.ironic),
                ironicVersion: pulumi.output(plan.images.ironicVersion),
                // The stack's own name too: `npm run plan --previous FILE` refuses another stack's outputs.
                state: pulumi.output(persistedState(plan, pulumi.getStack())),
                conductorsAlive: ready?.conductorsAlive,
                imageCacheUrl: cache.url,
                imageCacheCaCertificate: cache.caCertPem,
            },
            needles,
        );
        this.registerOutputs(this.outputs);
    }

    /** The stack CA, where the plan has one (core/plan/certificates.ts tlsPlan); none with cert-manager (components/cert-manager.ts). */
    private stackPki(name: string, plan: IronicPlan): StackPki | undefined {
        const ca = stackCaOf(plan);
        return ca ? new StackPki(`${name}-pki`, ca, { parent: this }) : undefined;
    }

    /** The namespace (kept on destroy when the database volume in it is kept, or with BMO: hosts may live in it), or the configured one. */
    private namespace(name: string, plan: IronicPlan): pulumi.Output<string> {
        if (!plan.createNamespace) {
            pulumi.log.info(namespaceNotCreatedNote(plan), this);
            return pulumi.output(plan.namespace);
        }
        return new k8s.core.v1.Namespace(`${name}-namespace`, namespaceManifest(plan), { parent: this, retainOnDelete: plan.keepNamespaceOnDelete }).metadata.name;
    }

    /**
     * MariaDB (one pod deployed here, or a Galera cluster of the MariaDB operator) or external; then the schema upgrade Job, which must complete before
     * the workload rolls. Returns what the workload waits for (`before`, the database, the Job) and the Job, if there is one.
     */
    private database(name: string, plan: IronicPlan, namespace: pulumi.Output<string>, pki: StackPki | undefined, before: pulumi.Resource[]): { mounted: pulumi.Resource[]; upgrade?: pulumi.Resource } {
        const mounted = [...before, ...DATABASE_PARTS[plan.database.kind](this, name, plan, namespace, pki)];
        if (!plan.database.jobs) return { mounted };
        const upgrade = this.schemaJob(`${name}-db-upgrade`, plan, "upgrade", namespace, [...mounted]);
        return { mounted: [...mounted, upgrade], upgrade };
    }

    /** A schema Job, awaited no longer than it can run; where to look if it fails goes with it into `pulumi up`'s output. */
    private schemaJob(name: string, plan: IronicPlan, which: "upgrade" | "migrate", namespace: pulumi.Output<string>, dependsOn: pulumi.Resource[]): k8s.batch.v1.Job {
        const wait = `${SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS}s`;
        const job = new k8s.batch.v1.Job(name, inNamespace(dbJob(plan, which), namespace), { parent: this, dependsOn, customTimeouts: { create: wait, update: wait } });
        pulumi.log.info(schemaJobHint(plan, which), job);
        return job;
    }
}
