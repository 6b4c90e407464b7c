/**
 * The Metal3Ironic component's arguments and outputs (the package's public types), and what it
 * does with its arguments before it registers anything: validate, plan, refuse; and the
 * transformations it puts on its own tree.
 */
import * as pulumi from "@pulumi/pulumi";

import { Metal3IronicConfig, RawConfig, StackConfig, formatIssues, validateConfig } from "../core/config";
import { IronicPlan, admitPlan, buildPlan } from "../core/plan";
import { userConfigMaps, userSecretIssues, userSecrets } from "../core/plan/secrets";
import { TopologySummary } from "../core/plan/summary";
import type { BmoReleaseFiles } from "../core/manifests/bmo";
import { PersistedState, PreviousState } from "../core/plan/previous";
import { maskOutput, maskProps } from "./secret-config";

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
     * With bmo.enabled: baremetal-operator's release, its `config/` tree as `loadBmoRelease`
     * (components/bmo-release.ts) returns it for `config.bmo`; the stack program loads it.
     */
    bmoRelease?: BmoReleaseFiles;
    /**
     * Top-level keys of `config` whose values are secret (the stack program passes the keys set
     * with `pulumi config set --secret`): never shown in an error, and every resource property
     * and output that carries one of their values becomes a Pulumi secret.
     */
    secretKeys?: string[];
    /**
     * The config as the stack file states it in plain text, each encrypted leaf null (the stack
     * program reads `Pulumi.<stack>.yaml`; `stackFileStated`). Below a secret key, a string is
     * public only where this states the same string at the same path (a nested `--secret` leaves
     * the rest of its key in clear); every other string of a secret key is secret.
     */
    stated?: RawConfig;
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
 * Validated, then admitted against what the previous run left (core/plan/admit.ts, as `npm run
 * plan` does). Throws a RunError listing every problem at once (a Secret name of yours that this
 * program writes, a schema downgrade, DHCP slots that would move, ...).
 */
export function planFromArgs(args: Metal3IronicArgs): IronicPlan {
    const known = planned.get(args);
    if (known) return known;
    const result = validateConfig(args.config as RawConfig, { configKeys: args.configKeys ?? [], secretKeys: args.secretKeys ?? [] });
    if (!result.ok) throw new pulumi.RunError(formatIssues(result.issues));
    const { plan, issues } = admitPlan(result.config, args.previous ?? {});
    if (issues.length > 0) throw new pulumi.RunError(formatIssues(issues));
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

/** The args of the Kubernetes provider the root program and the component each make: the stack's kubeconfig context and the options above. */
export function kubernetesProviderArgs(config: { kubernetes: { context?: string } }): { context: string | undefined } & typeof KUBERNETES_PROVIDER_OPTIONS {
    return { context: config.kubernetes.context, ...KUBERNETES_PROVIDER_OPTIONS };
}

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
export function secretMask(needles: string[]): pulumi.ResourceTransformation {
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

/** Puts `provider()`, once there is one, on the tree's Kubernetes resources that name none. */
export function defaultProvider(provider: () => pulumi.ProviderResource | undefined): pulumi.ResourceTransformation {
    return (a) => {
        const p = provider();
        return p && a.type.startsWith("kubernetes:") && !a.opts.provider ? { props: a.props, opts: { ...a.opts, provider: p } } : undefined;
    };
}

/** The outputs, each that carries a secret config value made secret; optional ones only when set. */
export function maskedOutputs(o: Metal3IronicOutputs, needles: string[]): Metal3IronicOutputs {
    const out: Record<string, pulumi.Output<unknown>> = {};
    for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = k === "credentials" ? v : maskOutput(v, needles);
    return out as unknown as Metal3IronicOutputs;
}
