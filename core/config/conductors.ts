/**
 * `conductors`: multi's optional per-node overrides (every selected node runs a conductor, listed
 * or not): its address, IPv6 address, interface, pinned DHCP slot and BMC-facing address. Its schema,
 * defaults, resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import { ipAddress } from "./addresses";
import { externalBlock } from "./reach";
import type { SectionBlocks, SectionDocs } from "./section";
import { nodeName } from "./strings";

/** The `conductors` section; `ifname` is the schema's Linux interface name (schema.ts). */
export function conductorsSection({ strict, ifname }: SectionBlocks & { ifname: z.ZodString }) {
    return z.array(
        strict({
            name: nodeName,
            ip: ipAddress.optional(),
            /** Dual-stack: the node's IPv6 provisioning address (else found at start in provisioning.ipv6.cidr). */
            ipv6: ipAddress.optional(),
            interface: ifname.optional(),
            slot: z.number().int().min(0).optional(),
            /** What BMCs on another network reach this conductor at. */
            external: externalBlock(strict).optional(),
        }),
    );
}

/** A per-node override of topology multi: the node's address (else found at start), interface, slot pin. */
export type ConductorConfig = z.infer<ReturnType<typeof conductorsSection>>[number];

/** Default: none listed. */
export function resolveConductors(c: ConductorConfig[] | undefined): ConductorConfig[] {
    return c ?? [];
}

export const CONDUCTORS_DOCS: SectionDocs = {
    description: "multi, optional: per-node overrides (every control-plane node runs a conductor, listed or not).",
    reference: [
        { keys: ["conductors"], type: "list of `{name, ip?, interface?, slot?, external?}`", default: "`[]`", notes: "multi, optional overrides per node (every selected node runs a conductor, listed or not): Kubernetes node name, its provisioning IP (the conductor's JSON-RPC host; default: found on the node), interface (default `provisioning.interface`), pinned DHCP slot (default: the slot the node had, else the lowest free one)" },
        { keys: ["conductors[].ipv6"], type: "IPv6", default: "found on the node in `provisioning.ipv6.cidr`", notes: "multi, dual-stack: the node's IPv6 provisioning address (`my_ipv6`, its IPv6 boot URLs, its certificate)" },
        { keys: ["conductors[].external.ip","conductors[].external.httpUrl","conductors[].external.callbackUrl"], type: "IP / `https://host[:port]`", default: "—", notes: "multi: what BMCs on another network reach this node's conductor at, as `external.*` (list every conductor node: one without hands BMCs its provisioning-network URLs); its certificate gets the hosts; see [BMCs on another network](networks-and-trust.md#bmcs-on-another-network)" },
    ],
};
