/** The `topology` stack output: which conductors run where, and the DHCP range each hands out. */
import { ipv6Range } from "./dual-stack";
import type { IronicPlan, SizedRange } from "./types";

export interface TopologySummary {
    topology: "single" | "multi";
    namespace: string;
    /** Dual-stack: each conductor's IPv6 address and its DHCPv6 range (slice) too. */
    conductors: { node: string; ip: string; slot?: number; dhcpRange: string | null; ipv6?: string; dhcpRange6?: string | null }[];
}

/** A range as the topology output and `npm run plan` show it: `start-end (N addresses)`, null without one. */
export const rangeText = (r: SizedRange | undefined): string | null => (r ? `${r.start}-${r.end} (${r.size} addresses)` : null);

export function topologySummary(plan: IronicPlan): TopologySummary {
    const t = plan.topology;
    const v6 = plan.provisioning.ipv6;
    const dual = (ip: string | undefined, iface: string, range: SizedRange | undefined) => (v6 ? { ipv6: ip ?? `found at start on ${iface}`, dhcpRange6: rangeText(range) } : {});
    const conductors: TopologySummary["conductors"] =
        t.kind === "single"
            ? [{ node: "(any node)", ip: t.conductor.ip, dhcpRange: rangeText(t.conductor.dhcp?.range), ...dual(v6?.ip, "", ipv6Range(plan)) }]
            : t.conductors.map((c) => ({
                  node: c.node,
                  ip: c.ip ?? `found at start on ${c.interface}`,
                  ...(c.slot !== undefined ? { slot: c.slot.index } : {}),
                  dhcpRange: rangeText(c.slot?.range),
                  ...dual(c.ipv6, c.interface, c.slot?.range6),
              }));
    return { topology: t.kind, namespace: plan.namespace, conductors };
}
