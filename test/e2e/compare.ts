/**
 * The offline render against what the engine deployed, both ways:
 *  - every field the render shows is deployed with that value (the API server may add defaults,
 *    never change what was applied);
 *  - every field Pulumi's field manager owns on the deployed object (server-side apply's
 *    managedFields) is in the render: nothing deployed that the render did not show.
 * Values the render redacts (Secret data, properties masked as secret) are compared by presence.
 */
import { REDACTED } from "../../tools/offline";

export interface Difference {
    path: string;
    render: unknown;
    deployed: unknown;
}

function isObj(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Kubernetes' JSON drops what YAML/JS keep as empty: compare an absent field and an empty map or list as one. */
function isEmpty(v: unknown): boolean {
    return v === undefined || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
}

/** Quantities the API server canonicalises ("1024Mi" → "1Gi"): compare by value. */
function sameQuantity(a: unknown, b: unknown): boolean {
    const units: Record<string, number> = { "": 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
    const parse = (v: unknown) => {
        const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(v));
        return m ? Number(m[1]) * units[m[2] ?? ""] : NaN;
    };
    const x = parse(a);
    return !Number.isNaN(x) && Math.abs(x - parse(b)) < 1e-9;
}

/**
 * Annotations that hash generated key material (a certificate the stack issues, the generated API
 * password's htpasswd line, secret config values keyed with a generated salt) and a webhook's
 * caBundle (BMO's, a certificate the stack generates):
 * the offline render's are the mock engine's stand-ins, so only their presence can agree.
 */
const GENERATED_HASH = /\.annotations\.metal3-ironic\.metal3\.io\/(?:[a-z-]*cert|credentials|config-secrets)-hash$|\.clientConfig\.caBundle$/;

/** Render ⊆ deployed. */
export function renderedNotDeployed(render: unknown, deployed: unknown, path = ""): Difference[] {
    if (render === REDACTED) return deployed === undefined ? [{ path, render, deployed }] : [];
    if (GENERATED_HASH.test(path) && typeof render === "string" && typeof deployed === "string") return [];
    if (Array.isArray(render)) {
        if (!Array.isArray(deployed) || deployed.length !== render.length) {
            return isEmpty(render) && isEmpty(deployed) ? [] : [{ path, render, deployed }];
        }
        return render.flatMap((x, i) => renderedNotDeployed(x, deployed[i], `${path}[${i}]`));
    }
    if (isObj(render)) {
        if (isEmpty(render) && isEmpty(deployed)) return [];
        if (!isObj(deployed)) return [{ path, render, deployed }];
        return Object.entries(render).flatMap(([k, v]) => (k === "[masked]" ? [] : renderedNotDeployed(v, deployed[k], `${path}.${k}`)));
    }
    if (render === deployed || String(render) === String(deployed) || sameQuantity(render, deployed)) return [];
    return [{ path, render, deployed }];
}

/** The element of `list` a managedFields list key (`k:{"name":"x"}`, `v:"x"`) names. */
function listElement(list: unknown[], key: string): unknown {
    if (key.startsWith("v:")) {
        const want = JSON.parse(key.slice(2));
        return list.find((x) => JSON.stringify(x) === JSON.stringify(want));
    }
    if (key.startsWith("i:")) return list[Number(key.slice(2))];
    const want = JSON.parse(key.slice(2)) as Record<string, unknown>;
    return list.find((x) => isObj(x) && Object.entries(want).every(([k, v]) => String(x[k] ?? KEY_DEFAULTS[k]) === String(v)));
}

/**
 * List-key fields the API server defaults when they are left out, so that server-side apply keys
 * the element with the default: a Service or container port applied without `protocol` is keyed
 * `{"port":8443,"protocol":"TCP"}` (baremetal-operator's release leaves it out).
 */
const KEY_DEFAULTS: Record<string, string> = { protocol: "TCP" };

/** Fields owned by the manager (fieldsV1) that the render lacks. */
export function ownedNotRendered(fields: Record<string, any>, render: unknown, path = ""): string[] {
    if (render === REDACTED) return [];
    const missing: string[] = [];
    for (const [k, sub] of Object.entries(fields)) {
        if (k === ".") continue;
        let next: unknown;
        let label: string;
        if (k.startsWith("f:")) {
            label = `${path}.${k.slice(2)}`;
            next = isObj(render) ? render[k.slice(2)] : undefined;
            if (isObj(render) && render["[masked]"] !== undefined && next === undefined) continue;
        } else {
            label = `${path}[${k}]`;
            next = Array.isArray(render) ? listElement(render, k) : undefined;
        }
        if (next === undefined) {
            missing.push(label);
            continue;
        }
        if (isObj(sub) && Object.keys(sub).length > 0) missing.push(...ownedNotRendered(sub, next, label));
    }
    return missing;
}

/** Both directions for one object; `manager` is the field manager the provider applies with. */
export function compareObject(render: Record<string, any>, deployed: Record<string, any>, managerPrefix = "pulumi-kubernetes"): string[] {
    if (render.kind === "Secret" && render.stringData) {
        // The provider applies stringData as data (base64); the API server keeps only data.
        const { stringData, ...rest } = render;
        render = { ...rest, data: { ...(rest.data ?? {}), ...stringData } };
    }
    const problems = renderedNotDeployed(render, deployed).map((d) => `${d.path}: render ${JSON.stringify(d.render)}, deployed ${JSON.stringify(d.deployed)}`);
    const managed = (deployed.metadata?.managedFields ?? []).filter((m: any) => String(m.manager).startsWith(managerPrefix) && m.operation === "Apply");
    if (managed.length === 0) problems.push(`no server-side-apply entry of a ${managerPrefix}* field manager`);
    for (const m of managed) for (const p of ownedNotRendered(m.fieldsV1 ?? {}, render)) problems.push(`${p}: applied by ${m.manager}, missing from the render`);
    return problems;
}

/** What `kubectl get` returns for one object: enough to name it and see who applied it. */
interface Listed {
    kind: string;
    metadata: { name: string; namespace?: string; managedFields?: { manager?: string; operation?: string }[] };
}

const objectKey = (o: Record<string, any>) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;

/**
 * Render = deployed, both ways, for a whole stack: each rendered object is deployed as rendered
 * (compareObject, field by field), and each object of a rendered kind that the provider applied
 * (a server-side-apply entry of `managerPrefix`) is in the render. `get` lists or reads objects as
 * `kubectl get … -o json` does (Cluster.get).
 */
export function compareStack(rendered: Record<string, any>[], get: (args: string[]) => any, managerPrefix = "pulumi-kubernetes"): string[] {
    const problems: string[] = [];
    for (const o of rendered) {
        const ns = o.metadata?.namespace;
        for (const p of compareObject(o, get([o.kind.toLowerCase(), o.metadata.name, ...(ns ? ["-n", ns] : [])]), managerPrefix)) problems.push(`${objectKey(o)}${p}`);
    }
    const renderedKeys = new Set(rendered.map(objectKey));
    const kinds = [...new Set(rendered.map((o) => o.kind as string))].sort();
    const listed = (get([kinds.map((k) => k.toLowerCase()).join(","), "-A"]).items ?? []) as Listed[];
    for (const o of listed) {
        const applied = (o.metadata.managedFields ?? []).some((m) => String(m.manager).startsWith(managerPrefix) && m.operation === "Apply");
        if (applied && !renderedKeys.has(objectKey(o))) problems.push(`${objectKey(o)}: deployed by ${managerPrefix}, missing from the render`);
    }
    return problems;
}
