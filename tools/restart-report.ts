/**
 * The restart report of `npm run plan -- --diff` (tools/diff.ts describes the rules it applies):
 * one line per workload that restarts, and why, then the Jobs that run, in order.
 */
import { changedFields, K8sObject, objectId } from "./diff-fields";
import { LABEL } from "../core/labels";

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

/** What happens to one workload's pods: one line (none when nothing restarts), flagged first when it is a re-slice. */
function workloadRestarts(id: string, a: K8sObject | undefined, b: K8sObject | undefined, before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const what = `${b?.kind ?? a?.kind} ${id.split("/").slice(1).join("/")}`;
    const reslice = resliceNote(a, b, before, after);
    const lines = podRestarts(what, a, b, before, after);
    if (!reslice) return lines;
    return lines.length > 0 ? lines.map((l) => l.replace(`${what}: `, `${what}: ${reslice}; `)) : [`${what}: ${reslice}; no pod restarts`];
}

function podRestarts(what: string, a: K8sObject | undefined, b: K8sObject | undefined, before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
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
    if (changed.size === 0) return [];
    const nodes = [...changed.keys()].sort();
    const keys = nodes.flatMap((n) => changed.get(n)!);
    // One line per workload: the nodes whose containers restart, together (each line of its own
    // would say that the pods on the other nodes keep running, next to a line restarting them).
    if (nodes.length === 1) return [`${what}: only the containers on ${nodes[0]} restart, if it runs a conductor (its own entry changed: ${short(keys)}); pods on other nodes keep running`];
    return [`${what}: only the containers on ${listed(nodes)} restart, each if it runs a conductor (their own entries changed: ${short(keys)}); pods on other nodes keep running`];
}

const listed = (xs: string[]) => (xs.length <= 1 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);

/** The address range of each DHCP slot (`slot-<n>.dnsmasq.conf` of the ConfigMaps `w` mounts), by slot and relay tag. */
function sliceLayout(w: K8sObject | undefined, objects: Map<string, K8sObject>): Map<string, string> {
    const out = new Map<string, string>();
    if (!w) return out;
    for (const name of mounted(w).configMaps) {
        const data: Record<string, string> = objects.get(`ConfigMap/${w.metadata?.namespace}/${name}`)?.data ?? {};
        for (const [key, text] of Object.entries(data)) {
            const slot = /^slot-(\d+)\.dnsmasq\.conf$/.exec(key)?.[1];
            if (slot === undefined) continue;
            for (const m of String(text).matchAll(/^dhcp-range=(?:set:([^,]+),)?([^,\s]+),([^,\s]+)/gm)) out.set(`slot ${slot}${m[1] ? ` (${m[1]})` : ""}`, `${m[2]}-${m[3]}`);
        }
    }
    return out;
}

/**
 * A re-slice: the DHCP slots a conductor answers from move (the range or the slot count changed,
 * provisioning.dhcp.reslice). Undefined when every slot both renders have keeps its addresses
 * (a changed lease time or a new relayed subnet moves nothing).
 */
function resliceNote(a: K8sObject | undefined, b: K8sObject | undefined, before: Map<string, K8sObject>, after: Map<string, K8sObject>): string | undefined {
    const was = sliceLayout(a, before);
    const now = sliceLayout(b, after);
    if (was.size === 0 || now.size === 0) return undefined;
    const slots = (m: Map<string, string>) => new Set([...m.keys()].map((k) => k.split(" ")[1])).size;
    const moved = [...now].filter(([k, r]) => was.has(k) && was.get(k) !== r).map(([k, r]) => `${k} ${was.get(k)} → ${r}`);
    const count = slots(was) !== slots(now) ? `${slots(was)} → ${slots(now)} slots` : undefined;
    if (moved.length === 0 && !count) return undefined;
    const detail = [...(count ? [count] : []), ...(moved.length > 0 ? [moved.length <= 2 ? moved.join(", ") : `${moved.slice(0, 2).join(", ")} and ${moved.length - 2} more`] : [])].join("; ");
    return `RE-SLICE, every conductor's DHCP slice moves (${detail}): hosts get addresses from the new slices on their next DHCP request, and a host that is provisioning, inspecting or cleaning meanwhile may fail its network boot`;
}

/**
 * A topology switch: a Deployment and a DaemonSet of the same name, one only before and the other
 * only after (the program aliases them: Pulumi deletes the old workload and waits for its pods to
 * go before it creates the new one).
 */
function topologySwitch(id: string, before: Map<string, K8sObject>, after: Map<string, K8sObject>): { from: K8sObject; to: K8sObject } | undefined {
    const [kind, ...rest] = id.split("/");
    const other = kind === "Deployment" ? "DaemonSet" : kind === "DaemonSet" ? "Deployment" : undefined;
    if (!other) return undefined;
    const otherId = [other, ...rest].join("/");
    if (before.has(id) && !after.has(id) && after.has(otherId) && !before.has(otherId)) return { from: before.get(id)!, to: after.get(otherId)! };
    if (after.has(id) && !before.has(id) && before.has(otherId) && !after.has(otherId)) return { from: before.get(otherId)!, to: after.get(id)! };
    return undefined;
}

function switchLine(from: K8sObject, to: K8sObject): string {
    const name = (o: K8sObject) => `${o.kind} ${objectId(o).split("/").slice(1).join("/")}`;
    const topo = (o: K8sObject) => (o.kind === "DaemonSet" ? "multi" : "single");
    const start = to.kind === "DaemonSet" ? `its pods start on ${daemonSetPlacement(to)}` : "its pod starts";
    return (
        `${name(from)} → ${name(to)}: TOPOLOGY SWITCH ${topo(from)} → ${topo(to)}, ${from.kind} deleted first (its pods stop), then the ${to.kind} created: ${start}; ` +
        "no DHCP server answers in between (hosts that PXE-boot meanwhile retry): run it when no host is being provisioned, inspected or cleaned"
    );
}

/** Jobs new in this render, in the order they run. */
function jobRuns(before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const order: Record<string, string> = { "db-upgrade": "1", "db-migrate": "2" };
    const when: Record<string, string> = { "db-upgrade": "before any Ironic pod rolls", "db-migrate": "after the Ironic pods are ready" };
    return [...after.entries()]
        .filter(([id, o]) => o.kind === "Job" && !before.has(id))
        .map(([, o]) => ({ o, c: String(o.metadata?.labels?.[LABEL.component] ?? "") }))
        .sort((x, y) => (order[x.c] ?? "9").localeCompare(order[y.c] ?? "9") || String(x.o.metadata.name).localeCompare(String(y.o.metadata.name)))
        .map(({ o, c }, i) => `Job ${o.metadata.namespace}/${o.metadata.name} runs ${i === 0 ? "first" : "next"}${when[c] ? `, ${when[c]}` : ""}`);
}

/**
 * The restart report: one line per workload that restarts (and why; a topology switch is one line
 * for the workload it replaces and the one replacing it), then the Jobs that will run. Risky
 * events come first in their line: TOPOLOGY SWITCH, RE-SLICE.
 */
export function restartReport(before: Map<string, K8sObject>, after: Map<string, K8sObject>): string[] {
    const ids = [...new Set([...before.keys(), ...after.keys()])].filter((id) => WORKLOADS.includes(id.split("/")[0])).sort();
    const switched = new Set<string>();
    const lines = ids.flatMap((id) => {
        const sw = topologySwitch(id, before, after);
        if (!sw) return workloadRestarts(id, before.get(id), after.get(id), before, after);
        if (switched.has(id)) return [];
        switched.add(objectId(sw.from)).add(objectId(sw.to));
        return [switchLine(sw.from, sw.to)];
    });
    lines.push(...jobRuns(before, after));
    return lines.length > 0 ? lines : ["no pod restarts and no Job runs"];
}
