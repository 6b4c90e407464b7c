/**
 * The whole deployment as one component: namespace, PKI, credentials, the Ironic workload and
 * the objects baremetal-operator consumes. Takes a validated plan; registers nothing else.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { Conductors } from "./conductors";
import { Credentials } from "./credentials";
import { MariaDB } from "./mariadb";
import { Readiness } from "./readiness";
import { SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS, bmoConfigMapData, dbJob, inNamespace, namespaceManifest, namespaceNotCreatedNote, schemaJobHint } from "../core/manifests";
import { IronicPlan } from "../core/plan";
import { userConfigMaps, userSecrets } from "../core/plan/secrets";
import { readExistingTls } from "./existing-tls";
import { TopologySummary, topologySummary } from "../core/plan/summary";
import { PersistedState, persistedState } from "../core/plan/previous";
import { StackPki } from "./pki";
import { ironicWorkload } from "./workload";
import { deployImageCache, imageCacheForStack } from "./image-cache";


/** For tools/plan.ts, which checks user Secret names before rendering. */
export { userSecretIssues } from "../core/plan/secrets";

export interface Metal3IronicArgs {
    plan: IronicPlan;
}

/** Guard: no resource of this component tree may write a Secret or ConfigMap the user owns (reads are fine). */
function userObjectGuard(plan: IronicPlan, component: () => pulumi.Resource | undefined): pulumi.ResourceTransformation {
    const owned = { Secret: new Map(userSecrets(plan).map((u) => [u.name, u.key])), ConfigMap: new Map(userConfigMaps(plan).map((u) => [u.name, u.key])) };
    return (a) => {
        const target = a.props?.metadata?.name;
        const kind = a.type.startsWith("kubernetes:core/v1:Secret") ? "Secret" : a.type.startsWith("kubernetes:core/v1:ConfigMap") ? "ConfigMap" : undefined;
        if (a.opts.id === undefined && kind && typeof target === "string" && owned[kind].has(target)) {
            throw new pulumi.ResourceError(`${owned[kind].get(target)}: ${kind} ${plan.namespace}/${target} belongs to you; ${a.name} must not write it (a bug of this program)`, component(), true);
        }
        return undefined;
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
    /** Facts the next run reads back (core/plan/previous.ts): topology, database volume, DHCP slots. */
    public readonly state: pulumi.Output<PersistedState>;
    /** images.ironicVersion when set: a digest-only image's version, for the same check. */
    public readonly ironicVersion: pulumi.Output<string | undefined>;
    /** The IPA image cache's URL and CA (imageCache mode deploy or external), for other stacks to share. */
    public readonly imageCacheUrl?: pulumi.Output<string>;
    public readonly imageCacheCaCertificate?: pulumi.Output<string>;
    /** Conductors alive in the API after the workload (undefined with readiness.enabled false). */
    public readonly conductorsAlive?: pulumi.Output<string[]>;

    constructor(name: string, args: Metal3IronicArgs, opts?: pulumi.ComponentResourceOptions) {
        let self: pulumi.Resource | undefined;
        const guard = userObjectGuard(args.plan, () => self);
        super("metal3:index:Metal3Ironic", name, {}, { ...opts, transformations: [...(opts?.transformations ?? []), guard] });
        self = this;
        const { plan } = args;
        const c = plan.config;
        const namespace = this.namespace(name, plan);
        const creds = new Credentials(
            `${name}-credentials`,
            { namespace, secretName: plan.names.credentialsSecret, username: c.ironic.apiUsername, labels: plan.labels },
            { parent: this },
        );
        /** What the workload mounts or needs first; it waits for all of them. */
        const mounted: pulumi.Resource[] = [creds.secret];
        const pki =
            c.tls.mode === "generate" || c.database.kind === "mariadb" || c.imageCache.mode === "deploy"
                ? new StackPki(
                      `${name}-pki`,
                      { commonName: `metal3-ironic ${plan.namespace}/${plan.name} CA`, caValidityDays: c.tls.caValidityDays, validityDays: c.tls.validityDays, renewBeforeDays: c.tls.renewBeforeDays },
                      { parent: this },
                  )
                : undefined;
        // With tls.mode "existing" the user's Secret is read (never registered: this program must
        // not write, replace or delete it); its CA goes to BMO and to the stack output.
        const existing = c.tls.mode === "existing" ? readExistingTls(`${name}-existing-tls`, plan.namespace, plan.names.tlsSecret, this) : undefined;
        const caPem = existing ? existing.caCertPem : pki!.caCertPem;
        // The CA alone, in the layout baremetal-operator mounts at /opt/metal3/certs/ca; the
        // multi-conductor pods verify their peers with it.
        mounted.push(
            new k8s.core.v1.Secret(`${name}-cacert`, { metadata: { name: plan.names.caSecret, namespace, labels: plan.labels }, stringData: { "tls.crt": caPem } }, { parent: this }),
        );
        const upgrade = this.database(name, plan, namespace, pki, mounted);
        const cache = imageCacheForStack(this, name, plan, namespace, pki);
        mounted.push(...cache.mounted);
        const workload = ironicWorkload(this, name, plan, namespace, pki, existing, mounted);
        deployImageCache(this, name, plan, namespace, pki);
        if (upgrade) {
            // Online data migrations run once the new workload is ready (the provider awaits it).
            this.schemaJob(`${name}-db-migrate`, plan, "migrate", namespace, [workload, upgrade]);
        }

        new k8s.core.v1.ConfigMap(
            `${name}-bmo`,
            { metadata: { name: plan.names.bmoConfigMap, namespace, labels: plan.labels }, data: bmoConfigMapData(plan) },
            { parent: this, dependsOn: [workload] },
        );
        // Live readiness last: every configured conductor alive in the API, or `pulumi up` fails.
        const [pods, service] = workload instanceof Conductors ? [workload.daemonSet, workload.service] : [workload.deployment, workload.service];
        const ready = Readiness.create(`${name}-readiness`, { plan, caPem, username: creds.username, password: creds.password, workload: pods, service }, { parent: this });

        this.apiUrl = pulumi.output(plan.urls.apiInCluster);
        this.apiProvisioningUrl = pulumi.output(plan.urls.apiProvisioning);
        this.caCertificate = caPem;
        this.credentialsSecretName = creds.secretName;
        this.credentials = pulumi.secret(pulumi.all([creds.password]).apply(([password]) => ({ username: creds.username, password })));
        this.topology = pulumi.output(topologySummary(plan));
        this.ironicImage = pulumi.output(c.images.ironic);
        // The stack's own name too: `npm run plan --previous FILE` refuses another stack's outputs.
        this.state = pulumi.output(persistedState(plan, pulumi.getStack()));
        this.ironicVersion = pulumi.output(c.images.ironicVersion);
        this.conductorsAlive = ready?.conductorsAlive;
        this.imageCacheUrl = cache.url;
        this.imageCacheCaCertificate = cache.caCertPem;
        this.registerOutputs({
            apiUrl: this.apiUrl,
            apiProvisioningUrl: this.apiProvisioningUrl,
            caCertificate: this.caCertificate,
            credentialsSecretName: this.credentialsSecretName,
            credentials: this.credentials,
            topology: this.topology,
            ironicImage: this.ironicImage,
            state: this.state,
            ironicVersion: this.ironicVersion,
            conductorsAlive: this.conductorsAlive,
            imageCacheUrl: this.imageCacheUrl,
            imageCacheCaCertificate: this.imageCacheCaCertificate,
        });
    }

    /** The namespace (kept on destroy when the database volume in it is kept), or the configured one. */
    private namespace(name: string, plan: IronicPlan): pulumi.Output<string> {
        const c = plan.config;
        if (!c.createNamespace) {
            pulumi.log.info(namespaceNotCreatedNote(plan), this);
            return pulumi.output(plan.namespace);
        }
        // Deleting a namespace deletes the volumes in it: keep it when the database volume is kept.
        const keep = c.database.kind === "mariadb" && c.database.retainOnDelete;
        return new k8s.core.v1.Namespace(`${name}-namespace`, namespaceManifest(plan), { parent: this, retainOnDelete: keep }).metadata.name;
    }

    /**
     * MariaDB (deployed here) or external; then the schema upgrade Job, which must complete before
     * the workload rolls (it joins `mounted`). Returns the upgrade Job, if there is one.
     */
    private database(name: string, plan: IronicPlan, namespace: pulumi.Output<string>, pki: StackPki | undefined, mounted: pulumi.Resource[]): pulumi.Resource | undefined {
        if (plan.config.database.kind === "mariadb") {
            const mariadb = new MariaDB(`${name}-mariadb`, { plan, namespace, pki: pki! }, { parent: this });
            mounted.push(mariadb.statefulSet);
        }
        if (!plan.database.jobs) return undefined;
        const upgrade = this.schemaJob(`${name}-db-upgrade`, plan, "upgrade", namespace, [...mounted]);
        mounted.push(upgrade);
        return upgrade;
    }

    /** A schema Job, awaited no longer than it can run; where to look if it fails goes with it into `pulumi up`'s output. */
    private schemaJob(name: string, plan: IronicPlan, which: "upgrade" | "migrate", namespace: pulumi.Output<string>, dependsOn: pulumi.Resource[]): k8s.batch.v1.Job {
        const wait = `${SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS}s`;
        const job = new k8s.batch.v1.Job(name, inNamespace(dbJob(plan, which), namespace), { parent: this, dependsOn, customTimeouts: { create: wait, update: wait } });
        pulumi.log.info(schemaJobHint(plan, which), job);
        return job;
    }
}
