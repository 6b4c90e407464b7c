/**
 * The whole deployment as one component: namespace, PKI, credentials, the Ironic workload and
 * the objects baremetal-operator consumes. Its argument is the configuration, with the stack
 * config's keys and schema (docs/configuration.md); it validates it completely and plans the
 * deployment (core/plan) before it registers anything. This is the package's public component
 * (components/index.ts); the root program (components/program.ts) is one user of it.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { Conductors } from "./conductors";
import { Credentials } from "./credentials";
import { MariaDB } from "./mariadb";
import { Readiness } from "./readiness";
import { Metal3IronicConfig, RawConfig, StackConfig, formatIssues, validateConfig } from "../core/config";
import { SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS, bmoConfigMapData, dbJob, inNamespace, namespaceManifest, namespaceNotCreatedNote, schemaJobHint } from "../core/manifests";
import { IronicPlan, buildPlan } from "../core/plan";
import { userConfigMaps, userSecretIssues, userSecrets } from "../core/plan/secrets";
import { readExistingTls } from "./existing-tls";
import { TopologySummary, topologySummary } from "../core/plan/summary";
import { PersistedState, PreviousState, persistedState, previousStateIssues } from "../core/plan/previous";
import { StackPki } from "./pki";
import { ironicWorkload } from "./workload";
import { deployImageCache, imageCacheForStack } from "./image-cache";
import { maskOutput, maskProps, secretNeedles } from "./secret-config";

export interface Metal3IronicArgs {
    /**
     * The configuration: the keys and schema of the stack config (docs/configuration.md), as
     * plain values. The whole deployment is planned from them before any resource is registered,
     * which is what makes a preview exact; every problem is reported at once, naming the key.
     */
    config: Metal3IronicConfig;
    /**
     * What this component's previous run exported (`readPreviousState()`, or
     * `parsePreviousState(outputs)` of your own outputs); omit it on a first run. With it, DHCP
     * slots stay where they are and changes that would lose data or downgrade the schema are refused.
     */
    previous?: PreviousState;
    /**
     * Top-level keys of `config` whose values are secret (the stack program passes the keys set
     * with `pulumi config set --secret`): never shown in an error, and every resource property
     * and output that carries one of their values becomes a Pulumi secret.
     */
    secretKeys?: string[];
    /**
     * Every key of the stack's config as `namespace:key`, for programs that read their config from
     * the stack: a key of this program under another prefix (`metal3:namespace`) is then refused
     * instead of silently ignored.
     */
    configKeys?: string[];
}

/**
 * Validate completely, and check the names of Secrets the user owns (a Secret the user owns must
 * not share a name with one this program writes; names do not depend on the previous run).
 * Throws a RunError (printed without a stack trace) listing every problem.
 */
export function validateArgs(args: Metal3IronicArgs): StackConfig {
    const result = validateConfig(args.config as RawConfig, { configKeys: args.configKeys ?? [], secretKeys: args.secretKeys ?? [] });
    if (!result.ok) throw new pulumi.RunError(formatIssues(result.issues));
    const named = userSecretIssues(buildPlan(result.config));
    if (named.length > 0) throw new pulumi.RunError(formatIssues(named));
    return result.config;
}

/**
 * validateArgs, then the plan against what the previous run left. Throws a RunError listing
 * everything the previous run forbids (a schema downgrade, DHCP slots that would move, ...).
 */
export function planFromArgs(args: Metal3IronicArgs): IronicPlan {
    const known = planned.get(args);
    if (known) return known;
    const previous = args.previous ?? {};
    const plan = buildPlan(validateArgs(args), previous);
    const refused = previousStateIssues(plan, previous);
    if (refused.length > 0) throw new pulumi.RunError(formatIssues(refused));
    planned.set(args, plan);
    return plan;
}

/** Plans by the args object they were made from: a program that plans first (to refuse before its own resources) plans once. */
const planned = new WeakMap<Metal3IronicArgs, IronicPlan>();

/**
 * How the Kubernetes provider must be set for this component: fixed object names are updated in
 * place (ConfigMaps and Secrets are mutable; pods roll through content-hash annotations). The
 * component makes its own provider with these unless you pass one (`providers: { kubernetes }`),
 * which must be created with them too.
 */
export const KUBERNETES_PROVIDER_OPTIONS = { enableServerSideApply: true, enableConfigMapMutable: true, enableSecretMutable: true } as const;

/** Guard: no resource of this component tree may write a Secret or ConfigMap the user owns (reads are fine). */
export function userObjectGuard(plan: IronicPlan, component: () => pulumi.Resource | undefined): pulumi.ResourceTransformation {
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

/** Values of secret config keys stay secret in every resource of the tree that carries them. */
function secretMask(needles: string[]): pulumi.ResourceTransformation {
    return (a) => {
        const props = maskProps(a.props as Record<string, unknown>, needles);
        return props ? { props, opts: a.opts } : undefined;
    };
}

/**
 * The stack outputs of one Metal3Ironic, under the names a stack exports and the next run reads
 * back (core/plan/previous.ts PREVIOUS_OUTPUTS: ironicImage, ironicVersion, state). Export them
 * as they are (`return ironic.outputs`) so that `readPreviousState()` finds them.
 */
export interface Metal3IronicOutputs {
    /** In-cluster API endpoint, for baremetal-operator. */
    apiUrl: pulumi.Output<string>;
    /** The API on the provisioning network (hosts, IPA, BMCs). */
    apiProvisioningUrl: pulumi.Output<string>;
    /** The CA that signs the API certificate (PEM). */
    caCertificate: pulumi.Output<string>;
    credentialsSecretName: pulumi.Output<string>;
    /** The API credentials (secret). */
    credentials: pulumi.Output<{ username: string; password: string }>;
    /** Conductors and their DHCP slices. */
    topology: pulumi.Output<TopologySummary>;
    ironicImage: pulumi.Output<string>;
    ironicVersion: pulumi.Output<string | undefined>;
    state: pulumi.Output<PersistedState>;
    /** Conductors the live readiness check saw alive (absent with readiness.enabled false). */
    conductorsAlive?: pulumi.Output<string[]>;
    /** The IPA image cache's base URL and CA, for other stacks' imageCache.mode external. */
    imageCacheUrl?: pulumi.Output<string>;
    imageCacheCaCertificate?: pulumi.Output<string>;
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

    /** The outputs a stack exports, under the names the next run reads back (readPreviousState). */
    public readonly outputs: Metal3IronicOutputs;
    /** The validated configuration, planned: names, URLs, DHCP slices (read-only; for summaries). */
    public readonly plan: IronicPlan;

    constructor(name: string, args: Metal3IronicArgs, opts?: pulumi.ComponentResourceOptions) {
        const plan = planFromArgs(args);
        const needles = secretNeedles(args.config as RawConfig, args.secretKeys ?? []);
        let self: pulumi.Resource | undefined;
        // Set below when the caller passed no Kubernetes provider; the transformation runs only
        // for resources registered after that.
        let ownProvider: k8s.Provider | undefined;
        const withProvider: pulumi.ResourceTransformation = (a) =>
            ownProvider && a.type.startsWith("kubernetes:") && !a.opts.provider ? { props: a.props, opts: { ...a.opts, provider: ownProvider } } : undefined;
        const transformations = [userObjectGuard(plan, () => self), ...(needles.length > 0 ? [secretMask(needles)] : []), withProvider];
        super("metal3:index:Metal3Ironic", name, {}, { ...opts, transformations: [...(opts?.transformations ?? []), ...transformations] });
        self = this;
        this.plan = plan;
        if (!this.getProvider("kubernetes::")) {
            ownProvider = new k8s.Provider(`${name}-kubernetes`, { context: plan.config.kubernetes.context, ...KUBERNETES_PROVIDER_OPTIONS }, { parent: this });
        }
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

        // Outputs that carry a secret config value are secret outputs.
        const m = <T>(o: pulumi.Output<T>) => maskOutput(o, needles);
        this.apiUrl = m(pulumi.output(plan.urls.apiInCluster));
        this.apiProvisioningUrl = m(pulumi.output(plan.urls.apiProvisioning));
        this.caCertificate = m(caPem);
        this.credentialsSecretName = m(creds.secretName);
        this.credentials = pulumi.secret(pulumi.all([creds.password]).apply(([password]) => ({ username: creds.username, password })));
        this.topology = m(pulumi.output(topologySummary(plan)));
        this.ironicImage = m(pulumi.output(c.images.ironic));
        // The stack's own name too: `npm run plan --previous FILE` refuses another stack's outputs.
        this.state = m(pulumi.output(persistedState(plan, pulumi.getStack())));
        this.ironicVersion = m(pulumi.output(c.images.ironicVersion));
        this.conductorsAlive = ready ? m(ready.conductorsAlive) : undefined;
        this.imageCacheUrl = cache.url ? m(cache.url) : undefined;
        this.imageCacheCaCertificate = cache.caCertPem ? m(cache.caCertPem) : undefined;
        this.outputs = {
            apiUrl: this.apiUrl,
            apiProvisioningUrl: this.apiProvisioningUrl,
            caCertificate: this.caCertificate,
            credentialsSecretName: this.credentialsSecretName,
            credentials: this.credentials,
            topology: this.topology,
            ironicImage: this.ironicImage,
            ironicVersion: this.ironicVersion,
            state: this.state,
            ...(this.conductorsAlive ? { conductorsAlive: this.conductorsAlive } : {}),
            ...(this.imageCacheUrl ? { imageCacheUrl: this.imageCacheUrl } : {}),
            ...(this.imageCacheCaCertificate ? { imageCacheCaCertificate: this.imageCacheCaCertificate } : {}),
        };
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
