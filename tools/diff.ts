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
 *   the online data migrations after it is ready;
 * - flagged, as the risky events they are: a re-slice (the DHCP slots of the conductors' rendered
 *   slot files move: hosts mid-provisioning may fail their network boot) and a topology switch (a
 *   Deployment and a DaemonSet of one name trade places: the old is deleted first, and no DHCP
 *   server answers until the new pods start).
 * One line per workload, whatever the number of nodes it touches.
 * Objects are matched by kind, namespace and name (from their content, not the file names), so
 * renders with either file layout compare.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { changedFields, K8sObject, objectId } from "./diff-fields";
import { restartReport } from "./restart-report";

export { changedFields, objectId, restartReport };
export type { K8sObject };

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
