/**
 * The `database` section: which database Ironic uses and, for the kinds this program deploys, how.
 * Its schema, defaults, resolved type and documentation in one place (core/config/section.ts).
 * Built from schema.ts's blocks, handed in by schema.ts (as resources.ts and image-cache.ts do:
 * importing schema.ts here would make an import circle).
 */
import { z } from "zod";

import type { SchemaBlocks } from "./resources";
import type { SectionDocs } from "./section";

export const DATABASE_KINDS = ["sqlite", "mariadb", "mariadb-operator", "external"] as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[number];

/** The kinds whose database this program deploys (volumes, protect, retainOnDelete, NetworkPolicy). */
export const DEPLOYED_DATABASE_KINDS: readonly DatabaseKind[] = ["mariadb", "mariadb-operator"];

/** Galera members of `mariadb-operator` by default: the smallest cluster that keeps a quorum when one node is lost. */
export const DEFAULT_GALERA_REPLICAS = 3;

/** Where `database.operator.install` puts the MariaDB operator (the namespace of its Helm chart's own docs). */
export const DEFAULT_OPERATOR_NAMESPACE = "mariadb-operator";

interface DatabaseBlocks extends SchemaBlocks {
    hostName: z.ZodType<string>;
    port: z.ZodType<number>;
    dnsLabel: z.ZodType<string>;
    storageClassName: z.ZodType<string>;
    cidr: z.ZodType<string>;
}

export function databaseSection({ strict, quantity, hostName, port, dnsLabel, storageClassName, cidr }: DatabaseBlocks) {
    return strict({
        kind: z.enum(DATABASE_KINDS, {
            error:
                'must be "mariadb" (one MariaDB pod deployed by this program), "mariadb-operator" (a replicated Galera cluster run by the MariaDB operator), ' +
                '"external" (your own MariaDB/MySQL) or "sqlite" (single only, reset on every restart)',
        }),
        host: hostName.optional(),
        port: port.optional(),
        name: z.string().regex(/^[A-Za-z0-9_]{1,64}$/, "must be a database name: letters, digits and '_' (at most 64)").optional(),
        credentialsSecret: dnsLabel.optional(),
        caSecret: dnsLabel.optional(),
        storageSize: quantity.optional(),
        storageClass: storageClassName.optional(),
        retainOnDelete: z.boolean().optional(),
        protect: z.boolean().optional(),
        allowDowngrade: z.boolean().optional(),
        tls: z.boolean().optional(),
        networkPolicy: strict({ enabled: z.boolean().optional(), hostSources: z.array(cidr).optional() }).optional(),
        replicas: z
            .number()
            .int("must be a whole number")
            .min(3, "must be at least 3: Galera keeps a quorum only with three members or more")
            .max(9, "must be at most 9")
            .refine((n) => n % 2 === 1, "must be odd (3, 5, 7 or 9): an even Galera cluster split in half has no quorum on either side")
            .optional(),
        operator: strict({ install: z.boolean().optional(), namespace: dnsLabel.optional() }).optional(),
        allowKindChange: z.boolean().optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof databaseSection>> | undefined;

/** Defaults: sqlite; a deployed database keeps (retainOnDelete) and protects its volume of 10Gi; external connects with TLS. */
export function resolveDatabase(d: Parsed) {
    return {
        kind: d?.kind ?? "sqlite",
        host: d?.host,
        port: d?.port,
        /** Database name (default ironic). */
        name: d?.name ?? "ironic",
        credentialsSecret: d?.credentialsSecret,
        caSecret: d?.caSecret,
        /** external: connect with TLS (needs caSecret); false states a plain connection on purpose. */
        tls: d?.tls ?? true,
        storageSize: d?.storageSize ?? "10Gi",
        storageClass: d?.storageClass,
        retainOnDelete: d?.retainOnDelete ?? true,
        /** mariadb: the volume claim is `protect`ed (Pulumi refuses to delete or replace it). */
        protect: d?.protect ?? true,
        /** Allow an Ironic image older than the deployed one (Ironic does not support schema downgrades). */
        allowDowngrade: d?.allowDowngrade ?? false,
        networkPolicy: {
            // On once its host sources are named: which addresses host-network traffic arrives from
            // depends on the CNI, and a guess that misses cuts Ironic off its database.
            enabled: d?.networkPolicy?.enabled ?? d?.networkPolicy?.hostSources !== undefined,
            hostSources: d?.networkPolicy?.hostSources ?? [],
        },
        /** mariadb-operator: Galera members (odd, at least 3), one per node. */
        replicas: d?.replicas ?? DEFAULT_GALERA_REPLICAS,
        /** mariadb-operator: install the operator's Helm charts (off: the operator is a prerequisite). */
        operator: { install: d?.operator?.install ?? false, namespace: d?.operator?.namespace ?? DEFAULT_OPERATOR_NAMESPACE },
        /** Allow moving a deployed `mariadb` to `mariadb-operator` (a new, empty database: dump and restore). */
        allowKindChange: d?.allowKindChange ?? false,
    };
}

/** What StackConfig holds for `database`. */
export type DatabaseConfig = ReturnType<typeof resolveDatabase>;

export const DATABASE_DOCS: SectionDocs = {
    description: "sqlite, mariadb (one pod deployed here), mariadb-operator (a Galera cluster of the MariaDB operator) or external.",
    reference: [
        { keys: ["database.kind"], default: "`sqlite`", notes: "multi needs a shared database: `mariadb-operator` (survives a node loss) or `external`; `mariadb` is one pod (see [Database](database.md#what-survives-a-node-loss))" },
        { keys: ["database.host","database.port"], type: "", default: "—", notes: "with `external`; host name (≤ 253) or IPv4 address" },
        { keys: ["database.name"], type: "string", default: "`ironic`", notes: "database name" },
        { keys: ["database.storageSize"], type: "quantity", default: "`10Gi`", notes: "with `mariadb`; with `mariadb-operator` per member" },
        { keys: ["database.storageClass"], type: "StorageClass name", default: "cluster default", notes: "with `mariadb` or `mariadb-operator`" },
        { keys: ["database.retainOnDelete"], type: "bool", default: "`true`", notes: "with `mariadb`: keep the volume (and namespace) on `pulumi destroy`; with `mariadb-operator`: keep the MariaDB object (and namespace)" },
        { keys: ["database.protect"], type: "bool", default: "`true`", notes: "with `mariadb`: `protect` the volume claim (Pulumi refuses to delete or replace it); with `mariadb-operator`: the MariaDB object" },
        { keys: ["database.allowDowngrade"], type: "bool", default: "`false`", notes: "allow an older Ironic image on a shared database" },
        { keys: ["database.credentialsSecret"], type: "Secret name", default: "—", notes: "with `external`: keys `username`, `password` (mounted at `/auth/mariadb`)" },
        { keys: ["database.caSecret"], type: "Secret name", default: "—", notes: "with `external`: key `ca.crt`, the DB server's CA; **required** unless `database.tls: false`" },
        { keys: ["database.tls"], type: "bool", default: "`true`", notes: "with `external`: `false` connects without TLS (then no `caSecret`)" },
        { keys: ["database.networkPolicy.enabled"], type: "bool", default: "`true` once `hostSources` is set, else `false`", notes: "with `mariadb` or `mariadb-operator`: the NetworkPolicy admitting only Ironic and the schema Jobs (and, for the operator's cluster, Galera among its members and the operator) (see [Database](database.md#a-networkpolicy-guards-mariadb) for the CNI caveat)" },
        { keys: ["database.networkPolicy.hostSources"], type: "list of IPv4 CIDRs", default: "— (policy off)", notes: "with `mariadb` or `mariadb-operator`: where the host-network Ironic pods connect from as your CNI sees them" },
        { keys: ["database.replicas"], type: "odd number 3–9", default: "`3`", notes: "with `mariadb-operator`: Galera members, one per node (pod anti-affinity)" },
        { keys: ["database.operator.install"], type: "bool", default: "`false`", notes: "with `mariadb-operator`: install the operator's Helm charts (`mariadb-operator-crds`, `mariadb-operator`, release 0.38.1); off, the operator (0.38.x) is a prerequisite ([Database](database.md#the-replicated-kind-mariadb-operator))" },
        { keys: ["database.operator.namespace"], type: "DNS label", default: "`mariadb-operator`", notes: "with `mariadb-operator`: where the operator runs (installed there with `install`; the NetworkPolicy admits it from there)" },
        { keys: ["database.allowKindChange"], type: "bool", default: "`false`", notes: "with `mariadb-operator`: allow moving a deployed `mariadb` to it (a new, empty cluster: dump and restore first, see [Database](database.md#moving-from-mariadb-to-mariadb-operator))" },
    ],
};
