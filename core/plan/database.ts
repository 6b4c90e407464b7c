/**
 * The database side, pure: the connection the ironic image is given,
 * schema-job identity keyed on the Ironic image, and the downgrade guard. The MariaDB server
 * configuration and first-start SQL are rendered in core/render/mariadb.ts.
 */
import { createHash } from "crypto";

import type { StackConfig } from "../config";
import { ENV } from "../contract";
import { compareVersions, effectiveIronicVersion } from "../config/version";
import { pinnedRelease } from "./upgrade";

/** A database this stack deploys: its volume, what is kept on destroy, and its NetworkPolicy. */
interface DeployedDatabase {
    storageSize: string;
    storageClass?: string;
    retainOnDelete: boolean;
    protect: boolean;
    networkPolicy: { enabled: boolean; hostSources: string[] };
}

/** What is deployed or used, by kind (database.*): components and manifests read this, never database.* of the config. */
export type DatabaseKindPlan =
    | ({ kind: "mariadb" } & DeployedDatabase)
    | ({ kind: "mariadb-operator"; replicas: number; operator: { install: boolean; namespace: string }; /** database.allowKindChange: from a deployed mariadb (a new, empty database). */ allowKindChange: boolean } & DeployedDatabase)
    | { kind: "external"; credentialsSecret: string; caSecret?: string }
    | { kind: "sqlite" };

export type DatabasePlan = DatabaseCommonPlan & DatabaseKindPlan;

export interface DatabaseCommonPlan {
    /** The ironic image's variables for this database (IRONIC_USE_MARIADB, MARIADB_HOST, MARIADB_DATABASE): the ironic containers' and the schema Jobs'. */
    env: Record<string, string>;
    /** MARIADB_HOST for the ironic image (may carry :port). */
    hostForIronic?: string;
    database: string;
    /**
     * Certificate SANs of the server: the MariaDB Service's in-cluster names (mariadb kind); with
     * mariadb-operator the primary Service Ironic connects to first, then the MariaDB's own Service
     * and its members' names under the operator's headless `<name>-internal` Service.
     */
    serviceDnsNames: string[];
    names: {
        statefulSet: string;
        service: string;
        pvc: string;
        credentialsSecret: string;
        tlsSecret: string;
        configMap: string;
        initSecret: string;
        networkPolicy: string;
        /** mariadb-operator: the MariaDB object (and its Service), its single-writer Service, Database, User and Grant. */
        mariadb: string;
        primaryService: string;
        databaseObject: string;
        user: string;
        grant: string;
    };
    /** database.allowDowngrade: an Ironic image older than the deployed one is allowed (core/plan/previous.ts). */
    allowDowngrade: boolean;
    /** Schema jobs; absent for SQLite (the image creates its schema at start). `migrate` is absent while the conductors are pinned to an older release (core/plan/upgrade.ts). */
    jobs?: { upgrade: string; migrate?: string };
}

function kindPlan(db: StackConfig["database"]): DatabaseKindPlan {
    const deployed: DeployedDatabase = { storageSize: db.storageSize, ...(db.storageClass ? { storageClass: db.storageClass } : {}), retainOnDelete: db.retainOnDelete, protect: db.protect, networkPolicy: db.networkPolicy };
    if (db.kind === "mariadb") return { kind: "mariadb", ...deployed };
    if (db.kind === "mariadb-operator") return { kind: "mariadb-operator", replicas: db.replicas, operator: db.operator, allowKindChange: db.allowKindChange, ...deployed };
    // Validation requires the credentials Secret of an external database (core/config/database.ts).
    if (db.kind === "external") return { kind: "external", credentialsSecret: db.credentialsSecret!, ...(db.caSecret ? { caSecret: db.caSecret } : {}) };
    return { kind: "sqlite" };
}

/** A short, stable key of an image reference: jobs run again on every image change, never on a no-op. */
export function imageKey(image: string): string {
    return createHash("sha256").update(image).digest("hex").slice(0, 10);
}

/** What the ironic image reads to reach the database (credentials and CA are mounted files). */
export function databaseEnv(db: Pick<DatabasePlan, "kind" | "hostForIronic" | "database">): Record<string, string> {
    if (db.kind === "sqlite") return { [ENV.useMariadb]: "false" };
    return { [ENV.useMariadb]: "true", [ENV.mariadbHost]: db.hostForIronic!, [ENV.mariadbDatabase]: db.database };
}

export function databasePlan(config: StackConfig): DatabasePlan {
    const { name, namespace } = config;
    const db = config.database;
    const svc = `${name}-mariadb`;
    const dnsNames = (s: string) => [s, `${s}.${namespace}`, `${s}.${namespace}.svc`, `${s}.${namespace}.svc.${config.clusterDomain}`];
    // The operator names its single-writer Service `<MariaDB name>-primary` (its PrimaryServiceKey)
    // and points it at the current primary pod; members are `<pod>.<name>-internal`.
    const primary = `${svc}-primary`;
    const serviceDnsNames =
        db.kind === "mariadb-operator"
            ? [...dnsNames(primary), ...dnsNames(svc), `*.${svc}-internal.${namespace}.svc`, `*.${svc}-internal.${namespace}.svc.${config.clusterDomain}`]
            : dnsNames(svc);
    let hostForIronic: string | undefined;
    if (db.kind === "mariadb") hostForIronic = `${svc}.${namespace}.svc`;
    if (db.kind === "mariadb-operator") hostForIronic = `${primary}.${namespace}.svc`;
    if (db.kind === "external") hostForIronic = db.port ? `${db.host}:${db.port}` : db.host;
    const key = imageKey(config.images.ironic);
    const kind = kindPlan(db);
    return {
        ...kind,
        env: databaseEnv({ kind: kind.kind, hostForIronic, database: db.name }),
        hostForIronic,
        database: db.name,
        serviceDnsNames,
        allowDowngrade: db.allowDowngrade,
        names: {
            statefulSet: svc,
            service: svc,
            pvc: `${svc}-data`,
            credentialsSecret: `${svc}-credentials`,
            tlsSecret: `${svc}-tls`,
            configMap: `${svc}-config`,
            initSecret: `${svc}-init`,
            networkPolicy: svc,
            mariadb: svc,
            primaryService: primary,
            databaseObject: `${svc}-db`,
            user: `${svc}-ironic`,
            grant: `${svc}-ironic-all`,
        },
        jobs: db.kind === "sqlite" ? undefined : { upgrade: `${name}-dbsync-${key}`, ...(pinnedRelease(config) === undefined ? { migrate: `${name}-migrate-${key}` } : {}) },
    };
}

export { ironicVersion } from "../config/version";

/** An Ironic image and, when its reference names no version (a bare digest), the version stated for it. */
export interface IronicImage {
    image: string;
    version?: string;
}

export { effectiveIronicVersion } from "../config/version";

/**
 * Refuse moving a shared database to an older Ironic: the schema cannot be downgraded. Returns the
 * error message, or undefined when the change is allowed (no previous image, no comparable
 * versions, same or newer, or explicitly allowed). Tags compare with or without a digest
 * (`:release-38.0@sha256:…`); a bare digest compares by its stated version (images.ironicVersion).
 */
export function downgradeError(previous: string | IronicImage | undefined, next: string | IronicImage, allowDowngrade: boolean): string | undefined {
    if (!previous || allowDowngrade) return undefined;
    const p = typeof previous === "string" ? { image: previous } : previous;
    const n = typeof next === "string" ? { image: next } : next;
    const prev = effectiveIronicVersion(p);
    const nextVersion = effectiveIronicVersion(n);
    if (!prev || !nextVersion || compareVersions(nextVersion, prev) >= 0) return undefined;
    return (
        `images.ironic: ${n.image} is older than the deployed ${p.image} (${nextVersion.join(".")} < ${prev.join(".")}). ` +
        "Ironic cannot downgrade its database schema; keep the newer image, or set database.allowDowngrade to true if the schema is known to be compatible"
    );
}
