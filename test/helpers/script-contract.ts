/**
 * A script's text against its row of core/scripts.ts: what it reads, what it cannot do without,
 * the paths it names. Read from the text as bash and Python write them, so a rename on one side
 * only is reported (test/unit/render/assets.test.ts runs these on the real scripts and on edited
 * copies).
 */
import type { ScriptContract } from "../../core/scripts";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Variables a bash script expands directly: `$NAME`, `${NAME}`, `${NAME:-…}` and the like. */
const shellExpands = (script: string): string[] => [...script.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]);

/** Variables a bash script reads: those it expands, and the names a `for v in A b; do` loop reads through `${!v}`. */
export function shellReads(script: string): Set<string> {
    const direct = shellExpands(script);
    const indirect = [...script.matchAll(/\bfor (\w+) in ([A-Za-z_][\w ]*); do/g)].filter((m) => script.includes(`\${!${m[1]}`)).flatMap((m) => m[2].split(/\s+/));
    return new Set([...direct, ...indirect]);
}

/** Variables a bash script cannot do without: `${NAME:?…}`, or only ever expanded bare (under `set -u` an unset one fails). */
export function shellRequired(script: string): Set<string> {
    const guarded = new Set([...script.matchAll(/\$\{([A-Z_][A-Z0-9_]*)(?::?[-+=])/g)].map((m) => m[1]));
    const demanded = [...script.matchAll(/\$\{([A-Z_][A-Z0-9_]*):?\?/g)].map((m) => m[1]);
    // Reads through ${!v} are guarded where they happen (`${!v-}`, `${!var:-}`): only direct expansions count here.
    return new Set([...demanded, ...shellExpands(script).filter((n) => !guarded.has(n) && !demanded.includes(n))]);
}

/** Variables a Python script reads: `os.environ["NAME"]`, `os.environ.get("NAME"…)` or its own `env("NAME"…)`. */
export function pythonReads(script: string): Set<string> {
    return new Set([...script.matchAll(/(?:os\.environ(?:\[|\.get\()|\benv\()\s*"([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1]));
}

/** Variables a Python script cannot do without: read as `os.environ["NAME"]` (a KeyError when unset). */
export function pythonRequired(script: string): Set<string> {
    return new Set([...script.matchAll(/os\.environ\[\s*"([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1]));
}

/** Paths the script does not contain as a whole (not as part of a longer path or name). */
export function missingPaths(script: string, paths: readonly string[]): string[] {
    return paths.filter((p) => !new RegExp(`(^|[^\\w./])${escape(p)}($|[^\\w.-])`, "m").test(script));
}

/** Every way `script` departs from its row, one line each; empty when it keeps to it. */
export function contractProblems(contract: ScriptContract, script: string): string[] {
    const bash = contract.language === "bash";
    const reads = bash ? shellReads(script) : pythonReads(script);
    const required = bash ? shellRequired(script) : pythonRequired(script);
    const problems: string[] = [];
    for (const n of contract.reads) if (!reads.has(n)) problems.push(`listed but not read: ${n}`);
    for (const n of reads) if (!contract.reads.includes(n)) problems.push(`read but not listed: ${n}`);
    for (const n of required) if (contract.reads.includes(n) && !contract.required.includes(n)) problems.push(`read with no default but not required: ${n}`);
    for (const n of contract.required) if (!contract.reads.includes(n)) problems.push(`required but not read: ${n}`);
    for (const p of missingPaths(script, contract.paths ?? [])) problems.push(`path not named: ${p}`);
    return problems;
}
