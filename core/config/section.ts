/**
 * What a config section module declares in one place (core/config/readiness.ts is one): its schema,
 * what it resolves to with defaults (the type StackConfig takes for it is that function's return
 * type, not written by hand), and its documentation: the line Pulumi.yaml gives its top-level key
 * and its rows of docs/configuration.md's reference table (both written by `npm run config-schema`).
 * A new key of such a section is written in its module only.
 */
import type { z } from "zod";

/** One row of the reference table (docs/configuration.md). */
export interface ReferenceRow {
    keys: string[];
    type?: string;
    default: string;
    notes?: string;
}

/** The schema blocks a section is built from (core/config/schema.ts). */
export interface SectionBlocks {
    strict: <T extends z.ZodRawShape>(shape: T) => z.ZodObject<T, z.core.$strict>;
}

/** A module of several top-level keys (identity.ts, network.ts, reach.ts), as parsed: each absent when unset or unparsed. */
export type ParsedOf<T extends Record<string, z.ZodType>> = { [K in keyof T]?: z.infer<T[K]> };

/** Such a module's documentation: Pulumi.yaml's line for each of its keys, and their reference rows. */
export interface SectionsDocs<K extends string> {
    descriptions: Record<K, string>;
    reference: ReferenceRow[];
}

/** A section's documentation: Pulumi.yaml's line for its top-level key, and its reference rows. */
export interface SectionDocs {
    description: string;
    reference: ReferenceRow[];
}

/** The keys of `o` that are set (an unset optional key stays absent, not undefined). */
export function pick<T extends object, K extends keyof T>(o: T | undefined, keys: K[]): Partial<Pick<T, K>> {
    const out: Partial<Pick<T, K>> = {};
    for (const k of keys) if (o?.[k] !== undefined) out[k] = o[k];
    return out;
}
