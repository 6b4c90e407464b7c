/**
 * Validation: every problem of the raw stack configuration at once, each with the config key it
 * concerns and how to fix it; or the defaulted configuration when there is none.
 */
import type { z } from "zod";

import { getAt, parseAsCliWrote } from "./cli";
import { SECRET_VALUE, misplacedKeys, nonAsciiNote, typeHint } from "./hints";
import { applyDefaults } from "./defaults";
import { PROJECT, type RawConfig, type SecretPath } from "./raw";
import { RULES, type RuleInput } from "./rules";
import { type ParsedSections, TOP_LEVEL_KEYS, sections, unknownKeyHint } from "./schema";
import { quoted } from "./strings";
import type { StackConfig } from "./types";

/** One configuration problem: the key path (as typed in `pulumi config set --path`) and the message. */
export interface ConfigIssue {
    key: string;
    message: string;
}

export function formatIssues(issues: ConfigIssue[]): string {
    const lines = issues.map((i) => `  - ${i.key}: ${i.message}`);
    return `invalid stack configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`;
}

/**
 * `section.a[0].b`. A map key that is not a plain word is written `["..."]` (as `--path` takes
 * it), JSON-escaped and shortened, so a hostile key never reaches the terminal raw.
 */
function pathKey(section: string, path: PropertyKey[]): string {
    let key = section;
    for (const p of path) key += typeof p === "number" ? `[${p}]` : plainKey(String(p)) ? `.${String(p)}` : quotedKey(String(p));
    return key;
}

const plainKey = (s: string) => /^[A-Za-z0-9_.\/-]{1,100}$/.test(s);
const quotedKey = (s: string) => `[${quoted(s.length > 100 ? `${s.slice(0, 100)}...` : s)}]`;

/**
 * The message of a zod issue, given the value it is about: a bad map key says what is wrong with
 * the key itself, a type error says what the key takes and what it got, and a string with
 * characters outside ASCII is shown escaped (core/config/hints.ts).
 */
function issueMessage(iss: z.core.$ZodIssue, key: string, value: unknown): string {
    if (iss.code === "invalid_key") return `this key ${iss.issues.map((i) => i.message).join("; ")}`;
    if (iss.code === "invalid_type") return typeHint(String(iss.expected), key, value);
    const note = nonAsciiNote(value);
    return note ? `${iss.message} (${note})` : iss.message;
}

/** Options of validateConfig. */
export interface ValidateOptions {
    /**
     * Every key of the stack's config as `namespace:key` (the engine's or the stack file's), so a
     * key of this program under another prefix is reported instead of silently ignored.
     */
    configKeys?: string[];
    /**
     * Top-level keys whose value was set with --secret (the engine reports secrecy per top-level
     * key): an issue under one never shows the value, not even escaped.
     */
    secretKeys?: string[];
}

/**
 * Validate and default the raw stack configuration. Returns every problem found; structural
 * problems of one section do not prevent checks of the others.
 */
export function validateConfig(raw: RawConfig, opts: ValidateOptions = {}): { ok: true; config: StackConfig } | { ok: false; issues: ConfigIssue[] } {
    const issues: ConfigIssue[] = misplacedKeys(opts.configKeys ?? [], TOP_LEVEL_KEYS);
    const parsed: ParsedSections = {};

    for (const key of Object.keys(raw).sort()) {
        if (!(key in sections)) {
            issues.push({ key: plainKey(key) ? key : quotedKey(key), message: unknownKeyHint(key, TOP_LEVEL_KEYS as string[]) + ` (set with: pulumi config set ${PROJECT}:<key>)` });
        }
    }
    for (const key of TOP_LEVEL_KEYS) {
        if (raw[key] === undefined) continue;
        // As the CLI stores values: top-level strings for booleans, --path integers for strings, ...
        const result = parseAsCliWrote(sections[key] as z.ZodTypeAny, raw[key]);
        if (result.success) {
            (parsed as Record<string, unknown>)[key] = result.data;
        } else {
            const secret = (opts.secretKeys ?? []).includes(key);
            for (const iss of result.error.issues) {
                const at = pathKey(key, iss.path);
                issues.push({ key: at, message: issueMessage(iss, at, secret ? SECRET_VALUE : getAt(raw[key], iss.path as PropertyKey[])) });
            }
        }
    }
    if (raw.provisioning === undefined) {
        issues.push({
            key: "provisioning",
            message: `required: the provisioning network, e.g. pulumi config set --path ${PROJECT}:provisioning.ip 172.22.0.2 and ...provisioning.cidr 172.22.0.0/24`,
        });
    }

    const config = applyDefaults(parsed);
    const failed = new Set(TOP_LEVEL_KEYS.filter((k) => raw[k] !== undefined && !(k in parsed)));
    issues.push(...semanticIssues({ config, parsed, failed }));
    if (issues.length > 0) return { ok: false, issues };
    return { ok: true, config };
}

/** Cross-field checks on sections that parsed: every rule of `rules/`, in order. */
function semanticIssues(input: RuleInput): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    const add = (key: string, message: string) => issues.push({ key, message });
    for (const rule of RULES) rule(input, add);
    return issues;
}

/** A value the offline render cannot read (`{secure: ...}` in a stack file): its path, section first. */
export type UnreadablePath = SecretPath;

/**
 * Validation of a stack file read without the Pulumi CLI: encrypted values stand in as a
 * placeholder. A check that trips over one is skipped and named (the engine sees the plaintext
 * and checks it at `pulumi preview`); the value is left out and everything else is checked as usual.
 */
export function validateReadable(
    raw: RawConfig,
    unreadable: UnreadablePath[],
    opts: ValidateOptions = {},
): { result: ReturnType<typeof validateConfig>; skipped: string[]; checked: RawConfig } {
    const first = validateConfig(raw, opts);
    if (first.ok || unreadable.length === 0) return { result: first, skipped: [], checked: raw };
    const under = (issue: string, key: string) => issue === key || issue.startsWith(`${key}.`) || issue.startsWith(`${key}[`);
    const tripped = unreadable.map((p) => ({ path: p, key: pathKey(p[0], p.slice(1)) })).filter((u) => first.issues.some((i) => under(i.key, u.key)));
    if (tripped.length === 0) return { result: first, skipped: [], checked: raw };
    let pruned: RawConfig = raw;
    for (const u of tripped) pruned = withoutPath(pruned, u.path);
    return { result: validateConfig(pruned, opts), skipped: tripped.map((u) => u.key), checked: pruned };
}

function withoutPath(root: RawConfig, path: UnreadablePath): RawConfig {
    const drop = (v: unknown, rest: PropertyKey[]): unknown => {
        if (v === null || typeof v !== "object") return v;
        const [head, ...tail] = rest;
        if (Array.isArray(v)) return tail.length === 0 ? v.filter((_x, i) => i !== head) : v.map((x, i) => (i === head ? drop(x, tail) : x));
        const copy = { ...(v as Record<PropertyKey, unknown>) };
        if (tail.length === 0) delete copy[head];
        else copy[head] = drop(copy[head], tail);
        return copy;
    };
    return drop(root, path) as RawConfig;
}
