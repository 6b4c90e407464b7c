/**
 * What a validator's bare words leave out: the value that was found and what to type instead.
 *
 * - A type error names the value and the spelling the key takes ("must be true or false"), not
 *   zod's "Invalid input: expected boolean, received string".
 * - A value with characters outside ASCII (an en dash pasted from a document, a non-breaking
 *   space) is shown escaped, with the code points named: in a terminal "master–2" and "master-2"
 *   look alike.
 * - A key under another project's prefix (`metal3:namespace`) is never read by this program; it is
 *   reported instead of silently falling back to the default.
 */
import { distance } from "fastest-levenshtein";

import { PROJECT } from "./raw";

/** `s` as a JSON string literal with every character outside printable ASCII escaped as \uXXXX. */
export function asciiQuoted(s: string): string {
    return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Short, terminal-safe rendering of a config value of any type. */
export function shown(v: unknown): string {
    if (typeof v === "string") return asciiQuoted(v.length > 60 ? `${v.slice(0, 60)}...` : v);
    if (v === null) return "null";
    if (Array.isArray(v)) return "a list";
    if (typeof v === "object") return "a map";
    return String(v);
}

/** The code points of `s` outside ASCII, as U+XXXX (at most 5). */
export function nonAscii(s: string): string[] {
    const found = [...new Set([...s].filter((c) => c.codePointAt(0)! > 0x7e))];
    return found.slice(0, 5).map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`);
}

/** What to say about a string value that holds characters outside ASCII (undefined: none). */
export function nonAsciiNote(v: unknown): string | undefined {
    if (typeof v !== "string") return undefined;
    const cps = nonAscii(v);
    if (cps.length === 0) return undefined;
    return `the value ${asciiQuoted(v)} contains ${cps.join(", ")}, outside ASCII (a typographic dash, quote or non-breaking space pasted from a document looks like '-', '"' or ' '): retype it`;
}

/** What an issue shows of a value set with --secret: never the value, whatever its type. */
export const SECRET_VALUE = Symbol("secret");

/** A type error in the user's words: what the key takes, and what was found. */
export function typeHint(expected: string, key: string, value: unknown): string {
    if (value === undefined) return "required";
    const got = value === SECRET_VALUE ? "got a value set with --secret, not shown" : `got ${shown(value)}`;
    switch (expected) {
        case "boolean":
            return `must be true or false (${got})`;
        case "number":
            return `must be a number (${got})`;
        case "int":
            return `must be a whole number (${got})`;
        case "string":
            return `must be a string (${got})`;
        case "object":
        case "record":
            return `must be a map of keys (${got}); set each key with pulumi config set --path ${PROJECT}:${key}.<key> <value>`;
        case "array":
            return `must be a list (${got}); set each item with pulumi config set --path '${PROJECT}:${key}[0]' <value>`;
        default:
            return `must be ${expected} (${got})`;
    }
}

/** Namespaces of config keys that are not this project's but belong in its stacks (the engine, our providers). */
const KNOWN_NAMESPACES = ["pulumi", "kubernetes", "tls", "random", "command"];

/**
 * Keys of the stack's config (`namespace:key[.path]`, as the engine or a Pulumi.<stack>.yaml has
 * them) that look meant for this program but sit under another prefix, so nothing reads them: any
 * key under a namespace that names metal3 or ironic, or is one or two edits from the project's
 * name (`metal3:`, `metal3-ironc:`, `Metal3-Ironic:`). Other namespaces are other programs' or
 * providers' (`vault:namespace`, `postgresql:database`), whatever their keys are called.
 */
export function misplacedKeys(keys: string[], topLevelKeys: readonly string[]): { key: string; message: string }[] {
    const out: { key: string; message: string }[] = [];
    for (const full of [...keys].sort()) {
        const i = full.indexOf(":");
        if (i <= 0) continue;
        const ns = full.slice(0, i);
        const key = full.slice(i + 1);
        if (ns === PROJECT || KNOWN_NAMESPACES.includes(ns)) continue;
        const top = key.split(/[.[]/)[0];
        const near = distance(ns.toLowerCase(), PROJECT) <= 2 || /metal3|ironic/i.test(ns);
        if (!near) continue;
        const ours = topLevelKeys.includes(top);
        const target = ours ? `${PROJECT}:${asciiQuoted(key).slice(1, -1)}` : `${PROJECT}:<key>`;
        const shownKey = asciiQuoted(full).slice(1, -1);
        out.push({
            key: shownKey,
            message: `is under the prefix ${asciiQuoted(ns)}, but this project is ${PROJECT}: the program reads ${target} and never this key, so its value is ignored. Move it: pulumi config rm ${shownKey}, then pulumi config set ${ours && key === top ? "" : "--path "}${target} <value>`,
        });
    }
    return out;
}
