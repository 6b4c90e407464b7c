/**
 * The `database` section: which database Ironic uses and, for the kinds this program deploys, how.
 * Built from schema.ts's blocks, handed in by schema.ts (as resources.ts and image-cache.ts do:
 * importing schema.ts here would make an import circle).
 */
import { z } from "zod";

import type { SchemaBlocks } from "./resources";

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
