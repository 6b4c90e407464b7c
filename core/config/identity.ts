/**
 * The stack's identity, five scalar top-level keys: `topology`, `namespace`, `name`,
 * `createNamespace`, `clusterDomain`. Their schemas, defaults, resolved type and documentation in
 * one place (core/config/section.ts).
 */
import { z } from "zod";

import type { ParsedOf, SectionsDocs } from "./section";
import { dnsName } from "./strings";

/** The five sections; `dnsLabel` is the schema's RFC 1123 label (schema.ts). */
export function identitySections({ dnsLabel }: { dnsLabel: z.ZodString }) {
    return {
        topology: z.enum(["single", "multi"], { error: 'must be "single" (one Ironic) or "multi" (one Ironic per control-plane node)' }),
        namespace: dnsLabel,
        name: dnsLabel.refine((s) => s.length <= 40, "must be at most 40 characters (object names append suffixes)"),
        createNamespace: z.boolean(),
        clusterDomain: dnsName,
    };
}

type Parsed = ParsedOf<ReturnType<typeof identitySections>>;

/** Defaults: one Ironic, in namespace `metal3`, objects named `ironic-…`, the namespace created, `cluster.local`. */
export function resolveIdentity(p: Parsed) {
    return {
        topology: p.topology ?? "single",
        namespace: p.namespace ?? "metal3",
        name: p.name ?? "ironic",
        createNamespace: p.createNamespace ?? true,
        clusterDomain: p.clusterDomain ?? "cluster.local",
    };
}

/** What StackConfig holds for these keys. */
export type IdentityConfig = ReturnType<typeof resolveIdentity>;

/** Pulumi.yaml's line for each key, and the reference rows in the table's order. */
export const IDENTITY_DOCS: SectionsDocs<keyof Parsed> = {
    descriptions: {
        topology: "single (one Ironic) or multi (one Ironic + dnsmasq per control-plane node).",
        namespace: "Namespace of every object.",
        name: "Name prefix of every object (DNS label, at most 40 characters).",
        createNamespace: "Create the namespace (false when it is managed elsewhere).",
        clusterDomain: "Cluster DNS domain, used in the certificate SANs.",
    },
    reference: [
        { keys: ["topology"], default: "`single`", notes: "`multi` needs `provisioning.interface` (a node that joins unlisted finds its address there) and a shared database: `database.kind` `mariadb-operator` or `external` (or `mariadb`, which a node loss stops: [Database](database.md#what-survives-a-node-loss))" },
        { keys: ["namespace"], type: "DNS label", default: "`metal3`" },
        { keys: ["name"], type: "DNS label (≤ 40)", default: "`ironic`", notes: "prefix of every object name" },
        { keys: ["createNamespace"], type: "bool", default: "`true`", notes: "`false` when the namespace is managed elsewhere; it must then admit privileged pods (Pod Security label `pod-security.kubernetes.io/enforce=privileged`)" },
        { keys: ["clusterDomain"], type: "DNS domain", default: "`cluster.local`", notes: "used in the certificate SANs" },
    ],
};
