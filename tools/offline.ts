/**
 * Runs the Pulumi program in-process with no engine, no cluster and no CLI: pulumi.runtime mocks
 * record every registered resource. Used by `npm run plan` and by the tests.
 *
 * Values that only a provider computes (keys, certificates, passwords) are fabricated as
 * obvious placeholders; secret values are redacted in everything this module returns.
 */
import * as pulumi from "@pulumi/pulumi";

import { PROJECT, RawConfig } from "../core/config";
import { ExistingHook, StateHook, existingState, fabricate, redact } from "./offline-state";

export interface RecordedResource {
    type: string;
    name: string;
    /** Inputs with every secret replaced by REDACTED. */
    inputs: Record<string, any>;
    /** Inputs with secrets in clear (tests only; never printed). */
    rawInputs: Record<string, any>;
    provider: string;
    custom: boolean;
}

/** An existing object the program reads (`Resource.get`): never created, updated or deleted by it. */
export interface RecordedRead {
    type: string;
    name: string;
    /** Provider ID of the object read, e.g. "metal3/my-tls" for a namespaced Kubernetes object. */
    id: string;
    provider: string;
}

export { REDACTED, containsSecret, redact, unwrapSecrets } from "./offline-state";
export type { ExistingHook, StateHook } from "./offline-state";

export interface OfflineRun<T> {
    /** Resources the program registers (creates and manages); reads are not among them. */
    resources: RecordedResource[];
    /** Existing objects the program reads, in the order read. */
    reads: RecordedRead[];
    outputs: T;
}

export interface OfflineOptions {
    stack?: string;
    preview?: boolean;
    hook?: StateHook;
    onRegister?: (args: pulumi.ResourceTransformationArgs) => void;
    /** Outputs of the stack's previous run (what a StackReference to itself reads). */
    previousOutputs?: Record<string, unknown>;
    /** Objects the program reads (`.get`), as the cluster holds them; stand-ins otherwise. */
    existing?: ExistingHook;
    /** Top-level keys set with `pulumi config set --secret`. */
    secretKeys?: string[];
}

/** The mock engine's answer to one registration or read, recorded on the way. */
function answer(args: pulumi.runtime.MockResourceArgs, opts: OfflineOptions, resources: RecordedResource[], reads: RecordedRead[]): { id: string; state: Record<string, any> } {
    if (args.id && !args.type.startsWith("pulumi:")) {
        // A read (`Resource.get`, the mock monitor's readResource): an existing object, not one
        // this program creates. (An import would carry an id too; this program imports nothing.
        // A StackReference is a read of stack outputs, answered below.)
        reads.push({ type: args.type, name: args.name, id: args.id, provider: args.provider ?? "" });
        return { id: args.id, state: existingState(args.type, args.id, opts.existing) };
    }
    resources.push({ type: args.type, name: args.name, inputs: redact(args.inputs), rawInputs: args.inputs, provider: args.provider ?? "", custom: args.custom ?? true });
    const previous = args.type === "pulumi:pulumi:StackReference" ? { outputs: opts.previousOutputs ?? {}, secretOutputNames: [] } : {};
    const state = { ...args.inputs, ...fabricate(args.type, args.name, args.inputs), ...previous, ...(opts.hook?.(args.type, args.name, args.inputs) ?? {}) };
    const id = args.type.startsWith("kubernetes:") ? `${args.inputs?.metadata?.namespace ?? ""}/${args.inputs?.metadata?.name ?? args.name}` : `${args.name}-id`;
    return { id, state };
}

/**
 * Run `program` against mocks with the given raw config (top-level keys of this project).
 * Resolves once every registration has been answered.
 */
export async function runOffline<T>(
    raw: RawConfig,
    program: () => T | Promise<T>,
    opts: OfflineOptions = {},
): Promise<OfflineRun<T>> {
    const resources: RecordedResource[] = [];
    const reads: RecordedRead[] = [];
    // An error thrown in an apply that feeds a registration (e.g. a Secret the program reads lacks
    // a key) surfaces as a rejected registration, i.e. an unhandled rejection; the engine reports
    // it the same way. Collect those of this run and fail the run with the first.
    const failures: unknown[] = [];
    // A RunError is the program refusing its input: it also rejects the run itself (below), and
    // copies of it that surface later must not fail the next run.
    const onRejection = (e: unknown) => {
        if (!(e instanceof pulumi.RunError)) failures.push(e);
    };
    process.on("unhandledRejection", onRejection);
    await pulumi.runtime.setMocks(
        {
            newResource: (args: pulumi.runtime.MockResourceArgs) => answer(args, opts, resources, reads),
            call(args: pulumi.runtime.MockCallArgs) {
                return args.inputs;
            },
        },
        PROJECT,
        opts.stack ?? "dev",
        opts.preview ?? false,
        "organization",
    );
    const entries: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) entries[`${PROJECT}:${k}`] = typeof v === "string" ? v : JSON.stringify(v);
    pulumi.runtime.setAllConfig(entries, (opts.secretKeys ?? []).map((k) => `${PROJECT}:${k}`));
    let outputs!: T;
    try {
        await pulumi.runtime.runInPulumiStack(async () => {
            if (opts.onRegister) {
                const cb = opts.onRegister;
                // Sees resource options (parent, protect, dependsOn) that mocks are not given.
                pulumi.runtime.registerStackTransformation((args) => {
                    cb(args);
                    return undefined;
                });
            }
            outputs = await program();
            return undefined;
        });
        await settle();
    } finally {
        // Let this run's own late rejections reach its listener, not the next run's.
        await settle();
        process.off("unhandledRejection", onRejection);
    }
    if (failures.length > 0) throw failures[0];
    return { resources, reads, outputs };
}

/** Wait until output callbacks and mock registrations have drained. */
async function settle(): Promise<void> {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

/** Resolve an Output's value (not for preview-mode unknowns). */
export function valueOf<T>(o: pulumi.Output<T>): Promise<T> {
    return new Promise((resolve) => o.apply((v) => resolve(v)));
}
