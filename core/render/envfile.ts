/**
 * Env files the multi-conductor start wrapper sources (`set -a; . <node>.env`): one `KEY='value'`
 * line per variable, single-quoted so that no value is ever expanded by the shell.
 */
import type { EnvMap } from "../plan/types";

/** Shell-safe single quoting. */
export function shellQuote(v: string): string {
    return `'${v.replace(/'/g, `'\\''`)}'`;
}

/** A node's environment as a file the wrapper sources (`KEY='value'` lines, sorted). */
export function renderEnvFile(env: EnvMap): string {
    return (
        Object.keys(env)
            .sort()
            .map((k) => `${k}=${shellQuote(env[k])}`)
            .join("\n") + "\n"
    );
}
