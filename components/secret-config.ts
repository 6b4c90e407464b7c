/**
 * Config set with `pulumi config set --secret` stays secret end to end. The program reads the
 * whole configuration as plain values (it validates them), so a secret value could flow into a
 * pod's environment or a ConfigMap and show in `pulumi preview` and the state in clear text. This
 * module collects the string values of every secret key; the Metal3Ironic component registers a
 * transformation on its tree with them (components/stack.ts): any top-level property of a resource (e.g. a Deployment's `spec`, a ConfigMap's `data`) whose
 * value contains one of them is wrapped in `pulumi.secret`, so the engine encrypts it in the state
 * and masks it in diffs. The whole property is masked, not just the value: a preview then shows
 * that `spec` changed, not how (the price of keeping the value out of it).
 */
import * as pulumi from "@pulumi/pulumi";
// Public in the SDK's runtime module, marked internal; pinned with @pulumi/pulumi's exact version
// and covered by test/components/secret-config.test.ts.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtimeConfig: { isConfigSecret?: (key: string) => boolean } = require("@pulumi/pulumi/runtime/config");

import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { PROJECT, RawConfig } from "../core/config";
import { statedConfig } from "../core/config/raw";

/** Shorter strings would match by accident (`"1"`, `"ssh"`); a secret that short is not one. */
const MIN_SECRET_LENGTH = 4;

/** Every string leaf of `v` (numbers and booleans are not secrets worth the name). */
function stringLeaves(v: unknown): string[] {
    if (typeof v === "string") return [v];
    if (Array.isArray(v)) return v.flatMap(stringLeaves);
    if (v && typeof v === "object") return Object.values(v).flatMap(stringLeaves);
    return [];
}

/** Top-level keys of this project set with --secret. */
export function secretConfigKeys(raw: RawConfig): string[] {
    const isSecret = runtimeConfig.isConfigSecret;
    if (!isSecret) throw new pulumi.RunError("this @pulumi/pulumi has no runtime isConfigSecret: secret config cannot be tracked (pin the version in package.json)");
    return Object.keys(raw).filter((k) => isSecret(`${PROJECT}:${k}`));
}

/**
 * The string values of secret keys, as they appear inside JSON (escaped). A string the config
 * also states in clear under a key that is not secret (`ironic.apiUsername: metal3` beside
 * `namespace: metal3`) is public already: masking every object that names it would hide the
 * namespace of every object in a preview and protect nothing. `stated`: see secretLeaves.
 */
export function secretNeedles(raw: RawConfig, keys: string[], stated?: RawConfig): string[] {
    const secret = new Set(keys);
    const plain = new Set(Object.keys(raw).filter((k) => !secret.has(k)).flatMap((k) => stringLeaves(raw[k])));
    const values = keys.flatMap((k) => secretLeaves(raw[k], stated?.[k])).filter((s) => s.length >= MIN_SECRET_LENGTH && !plain.has(s));
    return [...new Set(values)].map((s) => JSON.stringify(s).slice(1, -1));
}

/**
 * The secret strings of a secret key's value `v`. It fails closed: a string is public only where
 * `stated` (the key's value as the stack file states it, each encrypted leaf null) holds the very
 * same string at the same path below the key. Anything else is secret: a leaf the file encrypts, one
 * it does not have (config from `--config-file`, the Automation API, another directory), one it
 * states otherwise (a stale file), and all of a key that is a single value or that the file lacks.
 */
function secretLeaves(v: unknown, stated: unknown): string[] {
    if (stated === undefined || stated === null || typeof stated !== "object") return stringLeaves(v);
    return publicBelow(v, stated);
}

function publicBelow(v: unknown, stated: unknown): string[] {
    if (typeof v === "string") return v === stated ? [] : [v];
    const at = (k: string | number): unknown => (stated !== null && typeof stated === "object" && Array.isArray(stated) === Array.isArray(v) ? (stated as Record<string | number, unknown>)[k] : undefined);
    if (Array.isArray(v)) return v.flatMap((x, i) => publicBelow(x, at(i)));
    if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => publicBelow(x, at(k)));
    return [];
}

/**
 * This project's config as `Pulumi.<stack>.yaml` of `dir` (the project directory, where the engine
 * runs the program) states it, every encrypted leaf (`pulumi config set --secret`, at any depth)
 * null. Undefined when the file is not there or unreadable: then every value of a secret key
 * counts as secret.
 */
export function stackFileStated(stack: string, dir: string = process.cwd()): RawConfig | undefined {
    const file = path.join(dir, `Pulumi.${stack}.yaml`);
    if (!fs.existsSync(file)) return undefined;
    let config: Record<string, unknown>;
    try {
        config = (YAML.parse(fs.readFileSync(file, "utf8"))?.config ?? {}) as Record<string, unknown>;
    } catch {
        return undefined;
    }
    return statedConfig(config);
}

/** Whether a plain value contains a needle (Outputs are opaque here; what they carry is derived). */
export function carries(v: unknown, needles: string[]): boolean {
    if (needles.length === 0 || v === undefined) return false;
    let text: string;
    try {
        // Outputs and resources are skipped: their internals are not the value (and hold references
        // to the whole program, config included).
        text = JSON.stringify(v, (_k, x) => (pulumi.Output.isInstance(x) || pulumi.Resource.isInstance(x) ? undefined : x)) ?? "";
    } catch {
        return false;
    }
    return needles.some((n) => text.includes(n));
}

/** Wrap the top-level properties that carry a secret value. */
export function maskProps(props: Record<string, unknown>, needles: string[]): Record<string, unknown> | undefined {
    const hit = Object.keys(props).filter((k) => carries(props[k], needles));
    if (hit.length === 0) return undefined;
    const out = { ...props };
    for (const k of hit) out[k] = pulumi.secret(props[k]);
    return out;
}

/** An output that carries a secret value becomes a secret output. */
export function maskOutput<T>(o: pulumi.Output<T>, needles: string[]): pulumi.Output<T> {
    if (needles.length === 0) return o;
    return o.apply((v) => (carries(v, needles) ? pulumi.secret(v) : pulumi.output(v))) as unknown as pulumi.Output<T>;
}
