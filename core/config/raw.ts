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
