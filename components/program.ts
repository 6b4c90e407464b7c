/**
 * The program: read stack config, validate it completely, then register resources. Shared by
 * `index.ts` (the Pulumi CLI) and `scripts/plan.ts` (offline rendering).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, formatIssues, rawConfigFromEntries, validateConfig } from "./config";
import { IronicPlan, buildPlan } from "./plan";
import { Metal3Ironic } from "./stack";

/** Raw stack config of this project, as the engine hands it to the program. */
export function readRawConfig(): RawConfig {
    return rawConfigFromEntries(pulumi.runtime.allConfig());
}

/**
 * Validate and plan. Throws a RunError (printed without a stack trace) listing every problem,
 * before any resource is registered.
 */
export function planFromConfig(raw: RawConfig): IronicPlan {
    const result = validateConfig(raw);
    if (!result.ok) throw new pulumi.RunError(formatIssues(result.issues));
    return buildPlan(result.config);
}

export interface ProgramOutputs {
    apiUrl: pulumi.Output<string>;
    apiProvisioningUrl: pulumi.Output<string>;
    caCertificate: pulumi.Output<string>;
    credentialsSecretName: pulumi.Output<string>;
    credentials: pulumi.Output<{ username: string; password: string }>;
    topology: pulumi.Output<unknown>;
    ironicImage: pulumi.Output<string>;
}

export function runProgram(raw: RawConfig = readRawConfig()): ProgramOutputs {
    const plan = planFromConfig(raw);
    // An explicit provider: nothing is deployed through an ambient default provider.
    const provider = new k8s.Provider("kubernetes", {
        context: plan.config.kubernetes.context,
        enableServerSideApply: true,
        // Fixed object names are updated in place; pods roll through content-hash annotations.
        enableConfigMapMutable: true,
        enableSecretMutable: true,
    });
    const stack = new Metal3Ironic(plan.name, { plan }, { providers: { kubernetes: provider } });
    return {
        apiUrl: stack.apiUrl,
        apiProvisioningUrl: stack.apiProvisioningUrl,
        caCertificate: stack.caCertificate,
        credentialsSecretName: stack.credentialsSecretName,
        credentials: stack.credentials,
        topology: stack.topology,
        ironicImage: stack.ironicImage,
    };
}
