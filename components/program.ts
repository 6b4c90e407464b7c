/**
 * The program: read stack config, validate it completely, then register resources. Shared by
 * `index.ts` (the Pulumi CLI) and `tools/plan.ts` (offline rendering).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, StackConfig, formatIssues, rawConfigFromEntries, validateConfig } from "../core/config";
import { IronicPlan, buildPlan } from "../core/plan";
import { PREVIOUS_OUTPUTS, PersistedState, PreviousState, parsePreviousState, previousStateIssues } from "../core/plan/previous";
import { userSecretIssues } from "../core/plan/secrets";
import { keepConfigSecretsSecret, maskOutput, secretConfigKeys } from "./secret-config";
import { Metal3Ironic } from "./stack";

/** Raw stack config of this project, as the engine hands it to the program. */
export function readRawConfig(): RawConfig {
    return rawConfigFromEntries(pulumi.runtime.allConfig());
}

/**
 * Validate completely, and check the names of Secrets the user owns (a Secret the user owns must
 * not share a name with one this program writes; names do not depend on the previous run).
 * Throws a RunError (printed without a stack trace) listing every problem.
 */
export function configFromRaw(raw: RawConfig, configKeys: string[] = [], secretKeys: string[] = []): StackConfig {
    const result = validateConfig(raw, { configKeys, secretKeys });
    if (!result.ok) throw new pulumi.RunError(formatIssues(result.issues));
    const issues = userSecretIssues(buildPlan(result.config));
    if (issues.length > 0) throw new pulumi.RunError(formatIssues(issues));
    return result.config;
}

/**
 * Plan against what the previous run left (`{}` for a first run). Throws a RunError listing
 * everything the previous run forbids (a schema downgrade, DHCP slots that would move, ...).
 */
export function planFromConfig(config: StackConfig, previous: PreviousState = {}): IronicPlan {
    const plan = buildPlan(config, previous);
    const issues = previousStateIssues(plan, previous);
    if (issues.length > 0) throw new pulumi.RunError(formatIssues(issues));
    return plan;
}

export interface ProgramOutputs {
    apiUrl: pulumi.Output<string>;
    apiProvisioningUrl: pulumi.Output<string>;
    caCertificate: pulumi.Output<string>;
    credentialsSecretName: pulumi.Output<string>;
    credentials: pulumi.Output<{ username: string; password: string }>;
    topology: pulumi.Output<unknown>;
    ironicImage: pulumi.Output<string>;
    ironicVersion: pulumi.Output<string | undefined>;
    state: pulumi.Output<PersistedState>;
    /** Hostnames of the conductors alive after the workload (absent with readiness.enabled false). */
    conductorsAlive?: pulumi.Output<string[]>;
    /** The IPA image cache's base URL and CA (mode deploy: this stack's; external: the one used), for other stacks. */
    imageCacheUrl?: pulumi.Output<string>;
    imageCacheCaCertificate?: pulumi.Output<string>;
}

/** What the previous run of this very stack left (its own last outputs; nothing on a first run). */
async function readPreviousState(): Promise<PreviousState> {
    const self = new pulumi.StackReference(`${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`);
    const read = (name: string) => new Promise<unknown>((resolve) => self.getOutput(name).apply(resolve));
    const outputs: Record<string, unknown> = {};
    for (const name of Object.values(PREVIOUS_OUTPUTS)) outputs[name] = await read(name);
    return parsePreviousState(outputs);
}

export async function runProgram(raw: RawConfig = readRawConfig()): Promise<ProgramOutputs> {
    // In this order, all before any managed resource: the config alone (with every key of the
    // stack, so one of ours under another prefix is named), then what the previous run left (a
    // StackReference read), then the plan with it.
    const config = configFromRaw(raw, Object.keys(pulumi.runtime.allConfig()), secretConfigKeys(raw));
    const plan = planFromConfig(config, await readPreviousState());
    // Values set with --secret stay secret in every resource and output that carries them.
    const needles = keepConfigSecretsSecret(raw);
    // An explicit provider: nothing is deployed through an ambient default provider.
    const provider = new k8s.Provider("kubernetes", {
        context: plan.config.kubernetes.context,
        enableServerSideApply: true,
        // Fixed object names are updated in place; pods roll through content-hash annotations.
        enableConfigMapMutable: true,
        enableSecretMutable: true,
    });
    const stack = new Metal3Ironic(plan.name, { plan }, { providers: { kubernetes: provider } });
    const m = <T>(o: pulumi.Output<T>) => maskOutput(o, needles);
    return {
        apiUrl: m(stack.apiUrl),
        apiProvisioningUrl: m(stack.apiProvisioningUrl),
        caCertificate: m(stack.caCertificate),
        credentialsSecretName: m(stack.credentialsSecretName),
        credentials: stack.credentials,
        topology: m(stack.topology),
        ironicImage: m(stack.ironicImage),
        ironicVersion: m(stack.ironicVersion),
        state: m(stack.state),
        ...(stack.conductorsAlive ? { conductorsAlive: m(stack.conductorsAlive) } : {}),
        ...(stack.imageCacheUrl ? { imageCacheUrl: m(stack.imageCacheUrl) } : {}),
        ...(stack.imageCacheCaCertificate ? { imageCacheCaCertificate: m(stack.imageCacheCaCertificate) } : {}),
    };
}
