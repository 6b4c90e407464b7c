/**
 * What a stack file states in plain (Metal3IronicArgs.stated) when `raw` was written to it with the
 * values at `secretPaths` set with `pulumi config set --path --secret`: the same config, each of
 * those leaves null (as components/secret-config.ts stackFileStated reads an encrypted leaf).
 */
import type { RawConfig, SecretPath } from "../../core/config";

export function statedExcept(raw: RawConfig, secretPaths: SecretPath[]): RawConfig {
    const stated = JSON.parse(JSON.stringify(raw)) as RawConfig;
    for (const p of secretPaths) {
        const parent = p.slice(0, -1).reduce<any>((v, seg) => v?.[seg], stated);
        if (parent === undefined || parent === null || typeof parent !== "object") throw new Error(`statedExcept: no value at ${p.join(".")}`);
        parent[p[p.length - 1]] = null;
    }
    return stated;
}
