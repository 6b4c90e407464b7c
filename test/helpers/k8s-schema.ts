/** Kubernetes objects validated against the Kubernetes OpenAPI schema (kubernetes-models, generated from the upstream OpenAPI spec). */
/** kubernetes-models ships ES modules only; a real dynamic import (not compiled to require). */
const esmImport = new Function("specifier", "return import(specifier)") as (s: string) => Promise<any>;

/** The kubernetes-models class for an apiVersion/kind (core objects live under "v1"). */
async function modelFor(apiVersion: string, kind: string): Promise<new (o: any) => { validate(): void }> {
    const cls = (await esmImport(`kubernetes-models/${apiVersion}`))[kind];
    if (!cls) throw new Error(`no schema for ${apiVersion} ${kind}`);
    return cls;
}

/** Validate; returns the error message or undefined. */
export async function schemaError(o: Record<string, any>): Promise<string | undefined> {
    const Model = await modelFor(o.apiVersion, o.kind);
    try {
        new Model(o).validate();
        return undefined;
    } catch (e) {
        return (e as Error).message;
    }
}
