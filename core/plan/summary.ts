/** The `topology` stack output: which conductors run where, and the DHCP range each hands out. */
import type { IronicPlan } from "./types";

export interface TopologySummary {
    topology: "single" | "multi";
    namespace: string;
    conductors: { node: string; ip: string; slot?: number; dhcpRange: string | null }[];
}

export function topologySummary(plan: IronicPlan): TopologySummary {
    return {
        topology: plan.config.topology,
        namespace: plan.namespace,
        conductors: plan.conductors.map((c) => ({
            node: c.node || "(any node)",
            ip: c.ip ?? `found at start on ${c.interface}`,
            ...(c.slot !== undefined ? { slot: c.slot } : {}),
            dhcpRange: c.range ? `${c.range.start}-${c.range.end} (${c.range.size} addresses)` : null,
        })),
    };
}
