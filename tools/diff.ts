/**
 * `npm run plan -- --diff DIR`: compares a render with a previous one (a directory `npm run plan`
 * wrote, e.g. from the base branch) and says what a reviewer needs before approving: per object,
 * which fields are added, removed or changed (Secret values are redacted in both renders, so
 * never shown), and a restart report: which pods on which nodes restart and why, and which Jobs
 * run, in order.
 *
 * How restarts follow from a render (the behaviour this program builds in):
 * - a changed pod template (image, env, or the content-hash annotations of mounted config) rolls
 *   every pod of its workload; a DaemonSet's pods are one per labelled node;
 * - multi: a node's own entries (`<node>.*` keys of a ConfigMap the DaemonSet mounts) are watched by
 *   the conductor start wrapper, which restarts only that node's containers when they change;
 *   entries of a node that is added or removed start or stop that node's pod and touch no other;
 * - a Job that was not in the previous render runs: the schema upgrade before the workload rolls,
 *   the online data migrations after it is ready.
 * Objects are matched by kind, namespace and name (from their content, not the file names), so
 * renders with either file layout compare.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

export type K8sObject = Record<string, any>;

/** `kind/namespace/name`, or `kind/name` for cluster-scoped objects. */
export function objectId(o: K8sObject): string {
    const ns = o.metadata?.namespace;
    return [String(o.kind), ...(ns ? [String(ns)] : []), String(o.metadata?.name ?? "unnamed")].join("/");
}

/** Every object of a render directory (YAML files, searched recursively), by id. */
export function readRender(dir: string): Map<string, K8sObject> {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`--diff: ${dir} is not a directory (render the base with npm run plan -- --out DIR first)`);
    const objects = new Map<string, K8sObject>();
    const walk = (d: string) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const p = path.join(d, e.name);
            if (e.isDirectory()) walk(p);
            else if (/\.ya?ml$/.test(e.name)) {
                for (const doc of YAML.parseAllDocuments(fs.readFileSync(p, "utf8"))) {
                    const o = doc.toJS();
                    if (o && typeof o === "object" && o.kind) objects.set(objectId(o), o);
                }
            }
        }
    };
    walk(dir);
    return objects;
}

/** Every file under `dir`, by its path relative to `dir` (forward slashes), sorted. */
export function readRenderTree(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (rel: string) => {
        for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const r = rel ? `${rel}/${e.name}` : e.name;
            if (e.isDirectory()) walk(r);
            else out[r] = fs.readFileSync(path.join(dir, r), "utf8");
        }
    };
    walk("");
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
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

export interface ObjectChange {
    id: string;
    change: "added" | "removed" | "changed";
    fields: string[];
}

export function diffRenders(before: Map<string, K8sObject>, after: Map<string, K8sObject>): ObjectChange[] {
    const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
    const out: ObjectChange[] = [];
    for (const id of ids) {
        const a = before.get(id);
        const b = after.get(id);
        if (!a) out.push({ id, change: "added", fields: [] });
        else if (!b) out.push({ id, change: "removed", fields: [] });
        else {
            const fields = changedFields(a, b, "", a.kind !== "Secret");
            if (fields.length > 0) out.push({ id, change: "changed", fields });
        }
    }
    return out;
}

const WORKLOADS = ["Deployment", "DaemonSet", "StatefulSet"];

/** Where a DaemonSet's pods run: the nodes its node selector matches, in the cluster (not in the render). */
function daemonSetPlacement(ds: K8sObject): string {
    const selector: Record<string, string> = ds.spec?.template?.spec?.nodeSelector ?? {};
    const terms = Object.entries(selector).map(([k, v]) => (v === "" ? k : `${k}=${v}`));
    return terms.length > 0 ? `every node with ${terms.join(", ")}` : "every node";
}

/** Nodes that have an entry (`<node>.env`) in a per-node data object of either render. */
function entryNodes(...objects: (K8sObject | undefined)[]): string[] {
    const keys = objects.flatMap((o) => Object.keys(o?.data ?? o?.stringData ?? {}));
    return [...new Set(keys.flatMap((k) => (k.endsWith(".env") ? [k.slice(0, -".env".length)] : [])))].sort();
}

/** Names of the ConfigMaps and Secrets a workload's pods mount. */
function mounted(w: K8sObject): { configMaps: string[]; secrets: string[] } {
    const vols: any[] = w.spec?.template?.spec?.volumes ?? [];
    return { configMaps: vols.filter((v) => v.configMap).map((v) => v.configMap.name), secrets: vols.filter((v) => v.secret).map((v) => v.secret.secretName) };
}

const short = (fields: string[], n = 4) => (fields.length <= n ? fields.join(", ") : `${fields.slice(0, n).join(", ")} and ${fields.length - n} more`);

/** Per-node keys (`<node>.<file>`) of a data object that differ between two renders, by node. */
function nodeKeyChanges(a: K8sObject | undefined, b: K8sObject | undefined, nodes: string[]): Map<string, string[]> {
    const byNode = new Map<string, string[]>();
    const da: Record<string, string> = a?.data ?? a?.stringData ?? {};
    const db: Record<string, string> = b?.data ?? b?.stringData ?? {};
    for (const key of [...new Set([...Object.keys(da), ...Object.keys(db)])].sort()) {
        if (da[key] === db[key]) continue;
        const node = nodes.find((n) => key.startsWith(`${n}.`));
        if (node) byNode.set(node, [...(byNode.get(node) ?? []), key]);
    }
    return byNode;
}

/**
 * How a Deployment's or StatefulSet's pods are replaced, with the downtime it means: Recreate
 * stops the old pod before the new one starts (the single Ironic and the IPA cache use it: host
 * ports and a ReadWriteOnce volume cannot be held twice), a rolling update starts the new pod
 * first, and a StatefulSet of one replica is down while its pod restarts.
 */
function podReplacement(w: K8sObject): string {
    const replicas = Number(w.spec?.replicas ?? 1);
    if (w.kind === "StatefulSet") return replicas === 1 ? "its one pod restarts: down until the new pod is ready" : `its ${replicas} pods restart one at a time, highest ordinal first`;
    if (w.spec?.strategy?.type === "Recreate") return "its pod stops, then the new one starts (Recreate): down until the new pod is ready";
    return "its pods are replaced (rolling update: the new one starts before the old one stops)";
}

function workloadRestarts(id: string, a: K8sObject | undefined, b: K8sObject | undefined, before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const what = `${b?.kind ?? a?.kind} ${id.split("/").slice(1).join("/")}`;
    if (!a) return [`${what}: new, its pods start${b!.kind === "DaemonSet" ? ` on ${daemonSetPlacement(b!)}` : ""}`];
    if (!b) return [`${what}: removed, its pods stop`];
    const template = changedFields(a.spec?.template, b.spec?.template, "spec.template");
    if (b.kind !== "DaemonSet") return template.length > 0 ? [`${what}: ${podReplacement(b)}, because of ${short(template)}`] : [];
    if (template.length > 0) {
        const step = b.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
        return [`${what}: every pod restarts, ${step === 1 ? "one node" : `${step} nodes`} at a time (${daemonSetPlacement(b)}), because of ${short(template)}`];
    }
    // Pods follow the cluster's nodes, not the config. The start wrapper restarts a node's
    // containers when that node's own entry changes (added, changed or removed).
    const m = mounted(b);
    const changed = new Map<string, string[]>();
    for (const [kind, names] of [["ConfigMap", m.configMaps], ["Secret", m.secrets]] as const) {
        for (const name of names) {
            const key = `${kind}/${b.metadata?.namespace}/${name}`;
            const nodes = entryNodes(before.get(key), after.get(key));
            for (const [node, keys] of nodeKeyChanges(before.get(key), after.get(key), nodes)) changed.set(node, [...(changed.get(node) ?? []), ...keys.map((k) => `${name}[${k}]`)]);
        }
    }
    return [...changed]
        .sort()
        .map(([node, keys]) => `${what}: only the containers on ${node} restart, if it runs a conductor (its own entry changed: ${short(keys)}); pods on other nodes keep running`);
}

/** Jobs new in this render, in the order they run. */
function jobRuns(before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const order: Record<string, string> = { "db-upgrade": "1", "db-migrate": "2" };
    const when: Record<string, string> = { "db-upgrade": "before any Ironic pod rolls", "db-migrate": "after the Ironic pods are ready" };
    return [...after.entries()]
        .filter(([id, o]) => o.kind === "Job" && !before.has(id))
        .map(([, o]) => ({ o, c: String(o.metadata?.labels?.["app.kubernetes.io/component"] ?? "") }))
        .sort((x, y) => (order[x.c] ?? "9").localeCompare(order[y.c] ?? "9") || String(x.o.metadata.name).localeCompare(String(y.o.metadata.name)))
        .map(({ o, c }, i) => `Job ${o.metadata.namespace}/${o.metadata.name} runs ${i === 0 ? "first" : "next"}${when[c] ? `, ${when[c]}` : ""}`);
}

/** The restart report: one line per workload that restarts (and why), then the Jobs that will run. */
export function restartReport(before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const ids = [...new Set([...before.keys(), ...after.keys()])].filter((id) => WORKLOADS.includes(id.split("/")[0])).sort();
    const lines = ids.flatMap((id) => workloadRestarts(id, before.get(id), after.get(id), before, after));
    lines.push(...jobRuns(before, after));
    return lines.length > 0 ? lines : ["no pod restarts and no Job runs"];
}

/** The text `npm run plan -- --diff DIR` prints. */
export function formatDiff(base: string, before: Map<string, K8sObject>, after: Map<string, K8sObject>): string {
    const changes = diffRenders(before, after);
    const count = (c: ObjectChange["change"]) => changes.filter((x) => x.change === c).length;
    const lines = [`diff against ${base}: ${count("changed")} changed, ${count("added")} added, ${count("removed")} removed`];
    const mark = { added: "+", removed: "-", changed: "~" };
    for (const c of changes) {
        lines.push(`${mark[c.change]} ${c.id}`);
        for (const f of c.fields) lines.push(`    ${f}`);
    }
    lines.push("restart report:");
    for (const l of restartReport(before, after)) lines.push(`  - ${l}`);
    return lines.join("\n");
}
