/**
 * The root program: the stack config, read from the engine, handed to the Metal3Ironic component
 * as any other program would hand it its configuration. Shared by `index.ts` (the Pulumi CLI) and
 * `tools/plan.ts` (offline rendering).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { Metal3IronicConfig, RawConfig, rawConfigFromEntries } from "../core/config";
import { bmoObjects } from "../core/manifests";
import { loadBmoRelease } from "./bmo-release";
import { maskProps, secretConfigKeys, secretNeedles, stackFileStated } from "./secret-config";
import { kubernetesProviderArgs, Metal3Ironic, Metal3IronicArgs, Metal3IronicOutputs, planFromArgs, readPreviousState, validateArgs } from "./index";

/** Raw stack config of this project, as the engine hands it to the program. */
export function readRawConfig(): RawConfig {
    return rawConfigFromEntries(pulumi.runtime.allConfig());
}

/**
 * `stated`: the config as the stack file states it in plain text (Metal3IronicArgs.stated); by
 * default the stack file in the project directory (the offline render passes the one it read).
 */
export async function runProgram(raw: RawConfig = readRawConfig(), stated: RawConfig | undefined = stackFileStated(pulumi.getStack())): Promise<Metal3IronicOutputs> {
    const args: Metal3IronicArgs = {
        config: raw as Metal3IronicConfig,
        // Every key of the stack, so one of ours under another prefix is named; the keys set with
        // --secret, so their values are never shown and stay secret end to end.
        configKeys: Object.keys(pulumi.runtime.allConfig()),
        secretKeys: secretConfigKeys(raw),
        // What the stack file states in plain below those keys (a nested --secret): only those values are public.
        stated,
    };
    // In this order, all before any managed resource (this provider included): the config alone,
    // then what the previous run left (a StackReference read), then the plan with it, which
    // refuses what the previous run forbids. The component takes that same plan (planFromArgs
    // plans an args object once).
    const config = validateArgs(args);
    const withPrevious: Metal3IronicArgs = { ...args, previous: await readPreviousState() };
    // baremetal-operator's release (bmo.enabled): its module zip, verified, from the cache or the
    // proxy; rendered once here, so that a release this program cannot wire is refused now.
    if (config.bmo.enabled) {
        try {
            withPrevious.bmoRelease = (await loadBmoRelease({ version: config.bmo.version, h1: config.bmo.checksum!, goproxy: config.bmo.goproxy })).config;
            bmoObjects({ plan: planFromArgs(withPrevious), release: withPrevious.bmoRelease, webhookCaBundle: "" });
        } catch (e) {
            throw new pulumi.RunError(e instanceof Error ? e.message : String(e));
        }
    }
    planFromArgs(withPrevious);
    // An explicit provider: nothing is deployed through an ambient default provider. It is the
    // root's (not the component's own) so that stacks deployed before the component took its
    // configuration keep every resource's provider.
    const providerArgs = kubernetesProviderArgs(config);
    const provider = new k8s.Provider("kubernetes", (maskProps(providerArgs, secretNeedles(raw, args.secretKeys ?? [], args.stated)) ?? providerArgs) as k8s.ProviderArgs);
    return new Metal3Ironic(config.name, withPrevious, { providers: { kubernetes: provider } }).outputs;
}
