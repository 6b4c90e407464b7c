/**
 * `npm run -s slots -- [--namespace NS] [--name NAME] [--context CTX]`: the DHCP slot table of a
 * multi-conductor stack, read from the cluster (the slot Leases the conductors' agents hold), with
 * the user's own kubectl and kubeconfig. Holders are decided in the cluster, so this table, not the
 * stack's outputs, says which node serves which slice right now.
 *
 * Same as `kubectl get leases -n NS -l app.kubernetes.io/instance=NAME,app.kubernetes.io/component=dhcp-slot`,
 * with the expiry worked out: a Lease not renewed within its duration is free for a new node.
 */
import { spawnSync } from "child_process";

import { SLOT_NODE_ANNOTATION } from "../core/slot-agent";
import { DHCP_SLOT_COMPONENT, LABEL } from "../core/labels";

export interface LeaseLike {
    metadata: { name: string; annotations?: Record<string, string> };
    spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string; acquireTime?: string; leaseTransitions?: number };
}

export interface SlotRow {
    slot: number;
    lease: string;
    holder: string;
    node: string;
    renewed: string;
    state: "held" | "expired" | "released";
}

/** One row per Lease named `<prefix><k>`, by slot; `now` in ms since the epoch. */
export function slotRows(leases: LeaseLike[], prefix: string, now: number): SlotRow[] {
    const rows: SlotRow[] = [];
    for (const l of leases) {
        const m = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\d+)$`).exec(l.metadata.name);
        if (!m) continue;
        const spec = l.spec ?? {};
        const renewedAt = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
        const age = Number.isNaN(renewedAt) ? undefined : Math.max(0, Math.round((now - renewedAt) / 1000));
        const duration = spec.leaseDurationSeconds ?? 0;
        const state: SlotRow["state"] = !spec.holderIdentity ? "released" : age !== undefined && age <= duration ? "held" : "expired";
        rows.push({
            slot: Number(m[1]),
            lease: l.metadata.name,
            holder: spec.holderIdentity ?? "-",
            node: l.metadata.annotations?.[SLOT_NODE_ANNOTATION] ?? "-",
            renewed: age === undefined ? "-" : `${age}s ago`,
            state,
        });
    }
    return rows.sort((a, b) => a.slot - b.slot);
}

export function formatSlotTable(rows: SlotRow[]): string {
    const header = ["SLOT", "NODE", "HOLDER", "RENEWED", "STATE", "LEASE"];
    const cells = rows.map((r) => [String(r.slot), r.node, r.holder, r.renewed, r.state, r.lease]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
    const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join("  ").trimEnd();
    return [line(header), ...cells.map(line)].join("\n");
}

function main(argv: string[]): number {
    const opts: Record<string, string> = { namespace: "metal3", name: "ironic" };
    for (let i = 0; i < argv.length; i++) {
        const m = /^--(namespace|name|context)$/.exec(argv[i]);
        if (!m || argv[i + 1] === undefined) {
            process.stderr.write(`slots: unknown or incomplete argument ${argv[i]}; usage: npm run -s slots -- [--namespace NS] [--name NAME] [--context CTX]\n`);
            return 2;
        }
        opts[m[1]] = argv[++i];
    }
    const args = ["get", "leases", "-n", opts.namespace, "-l", `${LABEL.instance}=${opts.name},${LABEL.component}=${DHCP_SLOT_COMPONENT}`, "-o", "json"];
    if (opts.context) args.unshift("--context", opts.context);
    const r = spawnSync("kubectl", args, { encoding: "utf8" });
    if (r.error || r.status !== 0) {
        process.stderr.write(`slots: kubectl ${args.join(" ")} failed: ${r.error?.message ?? r.stderr}\n`);
        return 1;
    }
    const rows = slotRows(JSON.parse(r.stdout).items, `${opts.name}-dhcp-slot-`, Date.now());
    if (rows.length === 0) {
        process.stdout.write(`no slot Leases of ${opts.namespace}/${opts.name} (topology single, no DHCP, or no conductor has started yet)\n`);
        return 0;
    }
    process.stdout.write(formatSlotTable(rows) + "\n");
    return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
