/**
 * Validating objects against a CustomResourceDefinition's OpenAPI schema with ajv, as the API server
 * would (structural schema, strict fields): the Pulumi Kubernetes Operator's Stack, the
 * ServiceMonitor, cert-manager's Certificate.
 */
import Ajv, { ErrorObject } from "ajv";

/**
 * The API server's view of unknown fields under `kubectl apply` (field validation "Strict", the
 * default): an object schema with `properties` and no `additionalProperties` rejects other keys,
 * unless it says x-kubernetes-preserve-unknown-fields. Applied to a copy; the fixture stays as is.
 */
export function strictUnknownFields(schema: any): any {
    if (Array.isArray(schema)) return schema.map(strictUnknownFields);
    if (!schema || typeof schema !== "object") return schema;
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(schema)) {
        // Keys under `properties` are field names, not keywords: recurse into each field's schema.
        out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([f, s]) => [f, strictUnknownFields(s)])) : strictUnknownFields(v);
    }
    if (out.properties && out.additionalProperties === undefined && !out["x-kubernetes-preserve-unknown-fields"]) out.additionalProperties = false;
    return out;
}

/**
 * ajv with the Kubernetes structural-schema extensions and OpenAPI formats CRDs use. `celRules`: the
 * CEL rules (x-kubernetes-validations) the caller evaluates itself; ajv cannot. A rule not listed
 * fails the compile, so a new rule in a refreshed schema cannot be skipped silently.
 */
export function kubernetesAjv(celRules: Record<string, (self: any) => boolean> = {}): Ajv {
    const ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false, strictRequired: false });
    for (const keyword of ["x-kubernetes-preserve-unknown-fields", "x-kubernetes-map-type", "x-kubernetes-list-map-keys"]) ajv.addKeyword({ keyword });
    ajv.addKeyword({
        keyword: "x-kubernetes-int-or-string",
        validate: (on: boolean, data: unknown) => !on || typeof data === "string" || Number.isInteger(data),
    });
    ajv.addKeyword({
        keyword: "x-kubernetes-list-type",
        // set: no duplicate items; map: no two items with the same list-map-keys.
        validate: (type: string, data: unknown, parent: any) => {
            if (!Array.isArray(data) || type === "atomic") return true;
            const keyOf = (item: any) => JSON.stringify(type === "map" ? (parent["x-kubernetes-list-map-keys"] ?? []).map((k: string) => item?.[k]) : item);
            return new Set(data.map(keyOf)).size === data.length;
        },
    });
    ajv.addKeyword({
        keyword: "x-kubernetes-validations",
        compile: (rules: { rule: string; message?: string }[]) => {
            for (const r of rules) if (!celRules[r.rule]) throw new Error(`CEL rule not evaluated by this test: ${r.rule}`);
            return (data: unknown) => rules.every((r) => celRules[r.rule](data));
        },
    });
    const int = (bits: number) => ({ type: "number" as const, validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** (bits - 1) });
    ajv.addFormat("int32", int(32));
    ajv.addFormat("int64", int(64));
    ajv.addFormat("date-time", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i);
    return ajv;
}

export function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
    return (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.keyword === "additionalProperties" ? `: ${e.params.additionalProperty}` : ""}`);
}
