/** The raw stack configuration as the engine (or a Pulumi.<stack>.yaml) hands it over, before validation. */

export const PROJECT = "metal3-ironic";

/** The raw config: top-level key (without the `metal3-ironic:` prefix) → parsed JSON value. */
export type RawConfig = Record<string, unknown>;

/** Raw config from the engine's flat `project:key` map, with JSON values decoded. */
export function rawConfigFromEntries(entries: Record<string, string>, project = PROJECT): RawConfig {
    const raw: RawConfig = {};
    const prefix = `${project}:`;
    for (const [k, v] of Object.entries(entries)) {
        if (!k.startsWith(prefix)) continue;
        raw[k.slice(prefix.length)] = decodeConfigValue(v);
    }
    return raw;
}

/** The engine passes every value as a string: booleans, objects and lists are JSON; anything else (or broken JSON) stays the string. */
export function decodeConfigValue(v: string): unknown {
    const t = v.trim();
    if (t === "true" || t === "false" || t.startsWith("{") || t.startsWith("[")) {
        try {
            return JSON.parse(t);
        } catch {
            return v;
        }
    }
    return v;
}

/** Where a value set with `pulumi config set --secret` is: its top-level key, then the path below it. */
export type SecretPath = [string, ...(string | number)[]];

/**
 * A stack file's config value with every encrypted leaf (`{secure: "v1:..."}`, as `pulumi config
 * set --secret`, with `--path` at any depth, writes it) replaced by `standIn` (null: a value no config states), each one's path
 * appended to `found`.
 */
export function withoutCiphertext(v: unknown, path: SecretPath, found: SecretPath[], standIn: string | null): unknown {
    if (isEncrypted(v)) {
        found.push(path);
        return standIn;
    }
    if (Array.isArray(v)) return v.map((x, i) => withoutCiphertext(x, [...path, i], found, standIn));
    if (v !== null && typeof v === "object") {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutCiphertext(x, [...path, k], found, standIn)]));
    }
    return v;
}

/**
 * What a stack file's `config:` block states in plain for this project: each top-level key without
 * its prefix, every encrypted leaf null (Metal3IronicArgs.stated; the program and `npm run plan`
 * read a stack file's statement alike).
 */
export function statedConfig(config: Record<string, unknown>, project = PROJECT): RawConfig {
    const prefix = `${project}:`;
    const stated: RawConfig = {};
    for (const [k, v] of Object.entries(config)) if (k.startsWith(prefix)) stated[k.slice(prefix.length)] = withoutCiphertext(v, [k.slice(prefix.length)], [], null);
    return stated;
}

function isEncrypted(v: unknown): boolean {
    return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && "secure" in (v as object);
}
