/** The `topology` stack output: which conductors run where, and the DHCP range each hands out. */
import type { IronicPlan, SizedRange } from "./types";

export interface TopologySummary {
    topology: "single" | "multi";
    namespace: string;
    conductors: { node: string; ip: string; slot?: number; dhcpRange: string | null }[];
}

/** A range as the topology output and `npm run plan` show it: `start-end (N addresses)`, null without one. */
export const rangeText = (r: SizedRange | undefined): string | null => (r ? `${r.start}-${r.end} (${r.size} addresses)` : null);

export function topologySummary(plan: IronicPlan): TopologySummary {
    const t = plan.topology;
    const conductors: TopologySummary["conductors"] =
        t.kind === "single"
            ? [{ node: "(any node)", ip: t.conductor.ip, dhcpRange: rangeText(t.conductor.dhcp?.range) }]
            : t.conductors.map((c) => ({
                  node: c.node,
                  ip: c.ip ?? `found at start on ${c.interface}`,
                  ...(c.slot !== undefined ? { slot: c.slot.index } : {}),
                  dhcpRange: rangeText(c.slot?.range),
              }));
    return { topology: t.kind, namespace: plan.namespace, conductors };
}
