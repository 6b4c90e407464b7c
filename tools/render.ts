/**
 * Offline rendering shared by `npm run plan` and the tests: stack file → raw config → Kubernetes
 * objects as YAML documents, sorted, with secrets redacted.
 */
import * as fs from "fs";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";

import { PROJECT, RawConfig, UnreadablePath } from "../core/config";
import { decodeConfigValue, statedConfig, withoutCiphertext } from "../core/config/raw";
import { runProgram } from "../components/program";
import { Metal3IronicOutputs } from "../components/args";
import { ExistingHook, REDACTED, RecordedRead, RecordedResource, runOffline, StateHook, unwrapSecrets } from "./offline";

/**
 * A Pulumi.<stack>.yaml read the way the engine hands it to the program: each top-level value as
 * the string the engine passes (the CLI keeps top-level values as strings: `createNamespace:
 * "false"`), decoded as the program decodes it; objects as they are (`--path` integers and
 * booleans included; validation respells them as the schema expects, core/config/cli.ts).
 * Encrypted values (`{secure: v1:...}`, at any depth) cannot be read without the CLI: a
 * placeholder stands in (never the ciphertext), their top-level keys count as secret as the
 * engine reports them, and `unreadable` lists where they are.
 */
export interface StackFile {
    raw: RawConfig;
    /** Top-level keys holding an encrypted value (what the engine reports as secret). */
    secretKeys: string[];
    unreadable: UnreadablePath[];
    /** The config as the file states it in plain, each encrypted leaf null (Metal3IronicArgs.stated). */
    stated: RawConfig;
    /** Every key of the file's config block, with its prefix. */
    configKeys: string[];
}

export function readStackFile(file: string): StackFile {
    if (!fs.existsSync(file)) throw new Error(`${file} does not exist (create it, or pass --stack NAME of an existing Pulumi.NAME.yaml)`);
    const doc = YAML.parse(fs.readFileSync(file, "utf8")) ?? {};
    const config = (doc.config ?? {}) as Record<string, unknown>;
    const raw: RawConfig = {};
    const unreadable: UnreadablePath[] = [];
    // Every key of the file (any prefix): validation names one of ours under another prefix.
    const configKeys = Object.keys(config);
    for (const [k, v] of Object.entries(config)) {
        if (!k.startsWith(`${PROJECT}:`)) continue;
        const key = k.slice(PROJECT.length + 1);
        const value = withoutCiphertext(v, [key], unreadable, REDACTED);
        raw[key] = value !== null && typeof value === "object" ? value : decodeConfigValue(value === null ? "" : String(value));
    }
    const secretKeys = [...new Set(unreadable.map((p) => p[0]))].sort();
    return { raw, secretKeys, unreadable, stated: statedConfig(config), configKeys };
}

/** Read the `config:` block of a Pulumi.<stack>.yaml into raw config (top-level keys of this project). */
export function readStackConfig(file: string): RawConfig {
    return readStackFile(file).raw;
}

/** Kubernetes object (apiVersion/kind/metadata/...) from a recorded registration. */
export function toObject(r: RecordedResource): Record<string, any> {
    const [, groupVersion, typeKind] = r.type.split(":");
    // A NodePatch is a server-side-apply patch of a Node: shown (and validated) as a partial Node.
    const kind = typeKind === "NodePatch" ? "Node" : typeKind;
    const [group, version] = groupVersion.split("/");
    const apiVersion = group === "core" ? version : `${group}/${version}`;
    let inputs = r.inputs;
    if (kind === "Secret") {
        // Show which keys a Secret holds, never their values.
        inputs = unwrapSecrets(r.rawInputs);
        for (const field of ["data", "stringData"]) {
            const d = inputs[field];
            if (d && typeof d === "object") inputs[field] = Object.fromEntries(Object.keys(d).sort().map((k) => [k, REDACTED]));
        }
    }
    const { apiVersion: _a, kind: _k, ...rest } = inputs;
    // A masked metadata (it carried a value of a --secret key) still names its object: names and
    // namespaces are visible to anyone who can list the objects, and the render files by them.
    if (rest.metadata === REDACTED) {
        const m = unwrapSecrets(r.rawInputs).metadata ?? {};
        rest.metadata = { name: m.name, ...(m.namespace ? { namespace: m.namespace } : {}), "[masked]": REDACTED };
    }
    return { apiVersion, kind, ...rest };
}

const KIND_ORDER = ["Namespace", "Node", "Secret", "ConfigMap", "PersistentVolumeClaim", "Service", "Deployment", "DaemonSet", "StatefulSet", "Job"];

export function isKubernetesObject(r: RecordedResource): boolean {
    return r.custom && r.type.startsWith("kubernetes:") && !r.type.startsWith("pulumi:providers:") && r.type.split(":").length === 3 && r.type.split(":")[1].includes("/");
}

export function sortObjects(objs: Record<string, any>[]): Record<string, any>[] {
    const rank = (k: string) => (KIND_ORDER.includes(k) ? KIND_ORDER.indexOf(k) : KIND_ORDER.length);
    return [...objs].sort(
        (a, b) =>
            rank(a.kind) - rank(b.kind) ||
            String(a.kind).localeCompare(String(b.kind)) ||
            String(a.metadata?.namespace ?? "").localeCompare(String(b.metadata?.namespace ?? "")) ||
            String(a.metadata?.name ?? "").localeCompare(String(b.metadata?.name ?? "")),
    );
}

/**
 * Where an object's file goes in a render: `<kind>/<namespace>/<name>.yaml`, or `<kind>/<name>.yaml`
 * for cluster-scoped objects. Named by identity, never by position: adding one node adds its files
 * and renames none, so a review diff shows exactly what changed.
 */
export function renderPath(o: Record<string, any>): string {
    const ns = o.metadata?.namespace;
    return [String(o.kind).toLowerCase(), ...(ns ? [String(ns)] : []), `${o.metadata?.name ?? "unnamed"}.yaml`].join("/");
}

export interface Rendered {
    objects: Record<string, any>[];
    files: { name: string; content: string }[];
    kinds: Record<string, number>;
    redactedSecrets: number;
    resources: RecordedResource[];
    /** Existing objects the program reads (never rendered: it does not create them). */
    reads: RecordedRead[];
    outputs: Metal3IronicOutputs;
}

export async function renderOffline(
    raw: RawConfig,
    stack = "dev",
    opts: {
        hook?: StateHook;
        preview?: boolean;
        onRegister?: (args: pulumi.ResourceTransformationArgs) => void;
        previousOutputs?: Record<string, unknown>;
        existing?: ExistingHook;
        secretKeys?: string[];
        /** The config as the stack file states it (StackFile.stated); without, every string of a secret key is secret. */
        stated?: RawConfig;
    } = {},
): Promise<Rendered> {
    const run = await runOffline(raw, () => runProgram(raw, opts.stated ?? {}), { stack, ...opts });
    const objects = sortObjects(run.resources.filter(isKubernetesObject).map(toObject));
    const kinds: Record<string, number> = {};
    let redactedSecrets = 0;
    const files = objects.map((o) => {
        kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
        const text = YAML.stringify(o, { sortMapEntries: false, lineWidth: 0 });
        redactedSecrets += text.split(REDACTED).length - 1;
        return { name: renderPath(o), content: text };
    });
    return { objects, files, kinds, redactedSecrets, resources: run.resources, reads: run.reads, outputs: run.outputs };
}
