/**
 * Config as the Pulumi CLI writes it, read with the meaning the user gave it.
 *
 * The CLI stores what `pulumi config set` is given in two ways (pulumi/sdk config/object.go,
 * `coerce`): a top-level value is kept as the string typed (`createNamespace false` stores
 * `"false"`), while with `--path` the strings `true`/`false` become booleans and base-10 digits
 * that do not start with `0` become integers (`--path provisioning.dhcp.leaseTime 3600` stores the
 * number 3600). The program sees every top-level value as a string (objects as JSON).
 *
 * So where the schema wants a string and finds an integer or a boolean, it takes the decimal or
 * `true`/`false` spelling (the CLI's coercion undone exactly, since it only ever converted those);
 * where it wants a boolean and finds "true"/"false", or a number and finds such digits, it takes
 * the value. Nothing else is converted: `"yes"` stays a wrong boolean, `3.5` a wrong string.
 * Driven by the schema's own type errors, so every key gets the same rule, at any depth.
 */
import type { z } from "zod";

const DIGITS = /^(0|-?[1-9][0-9]*)$/;

/** The value `v` spelled as the schema expects, or undefined when the CLI cannot have meant that. */
export function cliSpelling(expected: string, v: unknown): { value: unknown } | undefined {
    if (expected === "string") {
        if (typeof v === "number" && Number.isSafeInteger(v)) return { value: String(v) };
        if (typeof v === "boolean") return { value: String(v) };
    } else if (expected === "boolean") {
        if (v === "true" || v === "false") return { value: v === "true" };
    } else if (expected === "number" || expected === "int") {
        if (typeof v === "string" && DIGITS.test(v) && Number.isSafeInteger(Number(v))) return { value: Number(v) };
    }
    return undefined;
}

type Path = PropertyKey[];

export function getAt(root: unknown, path: Path): unknown {
    let v: unknown = root;
    for (const p of path) {
        if (v === null || typeof v !== "object") return undefined;
        v = (v as Record<PropertyKey, unknown>)[p];
    }
    return v;
}

/** A copy of `root` with the value at `path` replaced (path non-empty). */
function setAt(root: unknown, path: Path, value: unknown): unknown {
    if (path.length === 0) return value;
    const [head, ...rest] = path;
    const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<PropertyKey, unknown>;
    copy[head] = setAt(copy[head], rest, value);
    return copy;
}

/** Type mismatches of a failed parse that the CLI's storage explains: where, and the value meant. */
function cliFixes(issues: z.core.$ZodIssue[], input: unknown): { path: Path; value: unknown }[] {
    const fixes: { path: Path; value: unknown }[] = [];
    for (const iss of issues) {
        if (iss.code !== "invalid_type") continue;
        const fix = cliSpelling(String(iss.expected), getAt(input, iss.path as Path));
        if (fix) fixes.push({ path: iss.path as Path, value: fix.value });
    }
    return fixes;
}

/**
 * Parse `input` with `schema`, first respelling every value the CLI's storage explains. Each
 * round fixes every mismatch found; a fix can reveal checks that were not reached before (e.g.
 * the refinements of an object whose field had the wrong type), hence the bounded loop.
 */
export function parseAsCliWrote<T extends z.ZodTypeAny>(schema: T, input: unknown): ReturnType<T["safeParse"]> {
    let value = input;
    let result = schema.safeParse(value);
    for (let round = 0; round < 8 && !result.success; round++) {
        const fixes = cliFixes(result.error.issues, value);
        if (fixes.length === 0) break;
        for (const f of fixes) value = setAt(value, f.path, f.value);
        result = schema.safeParse(value);
    }
    return result as ReturnType<T["safeParse"]>;
}
