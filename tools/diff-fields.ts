/**
 * Objects of a render and the fields that differ between two of them: the primitives of
 * `npm run plan -- --diff` (tools/diff.ts) and its restart report (tools/restart-report.ts).
 */
export type K8sObject = Record<string, any>;

/** `kind/namespace/name`, or `kind/name` for cluster-scoped objects. */
export function objectId(o: K8sObject): string {
    const ns = o.metadata?.namespace;
    return [String(o.kind), ...(ns ? [String(ns)] : []), String(o.metadata?.name ?? "unnamed")].join("/");
}

/** A list of named entries (containers, env, volumes, ports) is compared by name, not position. */
const isNamedList = (v: unknown): v is { name: string }[] => Array.isArray(v) && v.length > 0 && v.every((x) => x && typeof x === "object" && typeof x.name === "string");
const fieldKey = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/** A value short and plain enough to print in a diff line (one line, at most 100 characters). */
const printable = (v: unknown): v is string | number | boolean => (typeof v === "number" || typeof v === "boolean" || (typeof v === "string" && v.length <= 100 && !/[\n\r]/.test(v)));
const shownValue = (v: string | number | boolean) => (typeof v === "string" ? JSON.stringify(v) : String(v));

/**
 * Paths of the fields that differ, e.g. `spec.template.spec.containers[ironic].image`; with
 * `values`, a changed one-line value shows both sides (`~ …image: "…:release-38.0" → "…:release-38.1"`).
 * Never given for Secrets (their values are redacted in a render, but a diff shows no value of one).
 */
export function changedFields(a: unknown, b: unknown, at = "", values = true): string[] {
    if (JSON.stringify(a) === JSON.stringify(b)) return [];
    if (isNamedList(a) && isNamedList(b)) {
        const names = [...new Set([...a.map((x) => x.name), ...b.map((x) => x.name)])];
        return names.flatMap((n) => changedFields(a.find((x) => x.name === n), b.find((x) => x.name === n), `${at}[${n}]`, values));
    }
    const isObj = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);
    if (isObj(a) && isObj(b)) {
        const ao = a as Record<string, unknown>;
        const bo = b as Record<string, unknown>;
        const keys = [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort();
        return keys.flatMap((k) => changedFields(ao[k], bo[k], `${at}${fieldKey(k)}`, values));
    }
    const where = at.replace(/^\./, "") || "(whole object)";
    if (a === undefined) return [`+ ${where}`];
    if (b === undefined) return [`- ${where}`];
    return [values && printable(a) && printable(b) ? `~ ${where}: ${shownValue(a)} → ${shownValue(b)}` : `~ ${where}`];
}
