/**
 * The program: read stack config, validate it completely, then register resources. Shared by
 * `index.ts` (the Pulumi CLI) and `tools/plan.ts` (offline rendering).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, formatIssues, rawConfigFromEntries, validateConfig } from "../core/config";
import { IronicImage, downgradeError } from "../core/plan/database";
import { IronicPlan, buildPlan } from "../core/plan";
import { userSecretIssues } from "../core/plan/secrets";
import { IRONIC_IMAGE_OUTPUT, IRONIC_VERSION_OUTPUT, Metal3Ironic } from "./stack";

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
    const plan = buildPlan(result.config);
    // A Secret the user owns must not share a name with one this program writes.
    const issues = userSecretIssues(plan);
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
}

/** The Ironic image (and its stated version) the previous run of this very stack deployed (read from its own last outputs). */
async function previousIronicImage(): Promise<IronicImage | undefined> {
    const self = new pulumi.StackReference(`${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`);
    const read = (name: string) => new Promise<unknown>((resolve) => self.getOutput(name).apply(resolve));
    const [image, version] = await Promise.all([read(IRONIC_IMAGE_OUTPUT), read(IRONIC_VERSION_OUTPUT)]);
    if (typeof image !== "string") return undefined;
    return { image, version: typeof version === "string" && version !== "" ? version : undefined };
}

export async function runProgram(raw: RawConfig = readRawConfig()): Promise<ProgramOutputs> {
    const plan = planFromConfig(raw);
    if (plan.database.jobs) {
        // A shared database cannot go back to an older Ironic schema: refuse before registering anything.
        const next = { image: plan.config.images.ironic, version: plan.config.images.ironicVersion };
        const error = downgradeError(await previousIronicImage(), next, plan.config.database.allowDowngrade);
        if (error) throw new pulumi.RunError(formatIssues([{ key: "images.ironic", message: error.replace(/^images\.ironic: /, "") }]));
    }
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
        ironicVersion: stack.ironicVersion,
    };
}
