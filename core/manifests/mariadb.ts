/**
 * The database side: the MariaDB StatefulSet, its Service and volume claim (database.kind
 * mariadb), and the schema Jobs that run with the Ironic image against any database.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";

import { COMMANDS, ENV, IRONIC_GID, IRONIC_UID, PATHS } from "../contract";
import { MARIADB } from "../mariadb";
import { databaseOf } from "../plan/read";
import { SCHEMA_JOB_TIMINGS } from "../timings";
import type { IronicPlan } from "../plan/types";
import { containerResources, podBase, restrictedSecurityContext, sortedEnv, sortedRecord, stackMeta, untraced } from "./meta";
import { databaseVolumes, fromConfigMap, fromEmptyDir, fromSecret, mount, readOnlyMount } from "./volumes";
import { appSelector, componentLabel } from "../labels";

/** Labels of the MariaDB pod (a selector distinct from Ironic's). */
export function mariadbSelector(plan: IronicPlan): Record<string, string> {
    return appSelector("mariadb", plan.name);
}

function mariadbContainer(plan: IronicPlan): k8s.types.input.core.v1.Container {
    const probe = (initialDelaySeconds: number, periodSeconds: number) => ({
        exec: { command: [MARIADB.healthcheck, "--connect", "--innodb_initialized"] },
        initialDelaySeconds,
        periodSeconds,
        timeoutSeconds: 5,
        failureThreshold: 6,
    });
    return {
        name: "mariadb",
        image: plan.images.mariadb,
        // The image's entrypoint passes arguments after "mariadbd" on to every server it starts.
        args: ["mariadbd", `--init-file=${MARIADB.passwordsDir}/${MARIADB.passwordsFile}`],
        env: [
            { name: "MARIADB_ROOT_PASSWORD_FILE", value: `${MARIADB.credentialsDir}/${MARIADB.rootPasswordKey}` },
            // root only over the local socket: the image's default, '%', lets it in from anywhere in the cluster.
            { name: "MARIADB_ROOT_HOST", value: "localhost" },
            // Runs mariadb-upgrade when the server version changes.
            { name: "MARIADB_AUTO_UPGRADE", value: "1" },
        ],
        ports: [{ name: "mysql", containerPort: MARIADB.port, protocol: "TCP" }],
        securityContext: restrictedSecurityContext(),
        volumeMounts: [
            mount("data", MARIADB.dataDir),
            readOnlyMount("config", MARIADB.confDir),
            readOnlyMount("tls", MARIADB.tlsDir),
            readOnlyMount("credentials", MARIADB.credentialsDir),
            readOnlyMount("init", MARIADB.initDir),
            readOnlyMount("passwords", MARIADB.passwordsDir),
            mount("run", MARIADB.runDir),
            mount("tmp", PATHS.tmp),
        ],
        readinessProbe: probe(10, 10),
        livenessProbe: probe(60, 30),
        resources: containerResources(plan, "mariadb"),
    };
}

/** MariaDB: one replica on a PersistentVolumeClaim of its own (not a claim template: it outlives the StatefulSet). */
export function mariadbStatefulSet(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.StatefulSet {
    const n = plan.database.names;
    const labels = { ...plan.labels, ...mariadbSelector(plan), ...componentLabel("database") };
    return {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: n.statefulSet, namespace: plan.namespace, labels },
        spec: {
            replicas: 1,
            serviceName: n.service,
            selector: { matchLabels: mariadbSelector(plan) },
            template: {
                metadata: { labels, annotations: sortedRecord(annotations) },
                spec: {
                    ...podBase(plan, MARIADB.uid, MARIADB.gid),
                    containers: [mariadbContainer(plan)],
                    volumes: [
                        { name: "data", persistentVolumeClaim: { claimName: n.pvc } },
                        fromConfigMap("config", n.configMap),
                        fromSecret("tls", n.tlsSecret, { defaultMode: 0o440 }),
                        fromSecret("credentials", n.credentialsSecret, { items: [MARIADB.rootPasswordKey], defaultMode: 0o440 }),
                        fromSecret("init", n.initSecret, { items: [MARIADB.initFile], defaultMode: 0o440 }),
                        fromSecret("passwords", n.initSecret, { items: [MARIADB.passwordsFile], defaultMode: 0o440 }),
                        fromEmptyDir("run"),
                        fromEmptyDir("tmp"),
                    ],
                },
            },
        },
    };
}

export function mariadbService(plan: IronicPlan): k8s.types.input.core.v1.Service {
    return {
        apiVersion: "v1",
        kind: "Service",
        metadata: stackMeta(plan, plan.database.names.service),
        spec: { type: "ClusterIP", selector: mariadbSelector(plan), ports: [{ name: "mysql", port: MARIADB.port, targetPort: MARIADB.port, protocol: "TCP" }] },
    };
}

export function mariadbPvc(plan: IronicPlan): k8s.types.input.core.v1.PersistentVolumeClaim {
    const db = databaseOf(plan.database, "mariadb");
    return {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: stackMeta(plan, plan.database.names.pvc),
        spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: db.storageSize } },
            ...(db.storageClass ? { storageClassName: db.storageClass } : {}),
        },
    };
}

/** `app.kubernetes.io/component` of the schema Jobs' pods (the NetworkPolicy admits them). */
export const SCHEMA_JOB_COMPONENTS = { upgrade: "db-upgrade", migrate: "db-migrate" } as const;

/** How long the provider waits for a schema Job: its deadline plus a margin, so the Job's own failure is what it reports. */
export const SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS = SCHEMA_JOB_TIMINGS.activeDeadlineSeconds + SCHEMA_JOB_TIMINGS.providerMarginSeconds;

/** Where to look when a schema Job fails (printed with the Job by `pulumi up`). */
export function schemaJobHint(plan: IronicPlan, which: "upgrade" | "migrate"): string {
    const name = which === "upgrade" ? plan.database.jobs!.upgrade : plan.database.jobs!.migrate!;
    const what = which === "upgrade" ? "ironic-dbsync upgrade" : "online data migrations";
    return (
        `Job ${plan.namespace}/${name} runs ${what}; it is stopped after ${SCHEMA_JOB_TIMINGS.activeDeadlineSeconds} s ` +
        `(activeDeadlineSeconds; reason DeadlineExceeded) or after ${SCHEMA_JOB_TIMINGS.backoffLimit} retries (BackoffLimitExceeded). ` +
        `If it fails: kubectl logs job/${name} -n ${plan.namespace} and kubectl describe job/${name} -n ${plan.namespace}`
    );
}

/**
 * A schema Job with the Ironic image: `upgrade` (ironic-dbsync upgrade, before the workload rolls)
 * or `migrate` (online_data_migrations, after it is ready). Named by the image key, so it runs
 * again on every image change and never on a no-op.
 */
export function dbJob(plan: IronicPlan, which: "upgrade" | "migrate"): k8s.types.input.batch.v1.Job {
    const image = plan.images.ironic;
    const jobs = plan.database.jobs!;
    const db = databaseVolumes(plan);
    const upgrade = which === "upgrade";
    const labels = { ...plan.labels, ...componentLabel(SCHEMA_JOB_COMPONENTS[which]) };
    const container: k8s.types.input.core.v1.Container = {
        name: upgrade ? "dbsync-upgrade" : "online-data-migrations",
        image,
        command: untraced([upgrade ? COMMANDS.dbUpgrade : COMMANDS.onlineDataMigrations]),
        env: [
            // Only to satisfy the image's configuration script, which waits for an IP.
            { name: ENV.provisioningIp, valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            ...sortedEnv(plan.database.env),
        ],
        securityContext: restrictedSecurityContext(),
        volumeMounts: [mount("conf", PATHS.conf), mount("data", PATHS.data), mount("tmp", PATHS.tmp), mount("shared", PATHS.shared), ...db.mounts],
        resources: containerResources(plan, "schemaJobs"),
    };
    return {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: {
            name: upgrade ? jobs.upgrade : jobs.migrate!,
            namespace: plan.namespace,
            labels,
            annotations: {
                "metal3-ironic.metal3.io/ironic-image": image,
                // A Job that failed in an earlier run is replaced (run again) instead of awaited.
                "pulumi.com/replaceUnready": "true",
                // The provider stops waiting shortly after the Job's own deadline.
                "pulumi.com/timeoutSeconds": String(SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS),
            },
        },
        spec: {
            activeDeadlineSeconds: SCHEMA_JOB_TIMINGS.activeDeadlineSeconds,
            backoffLimit: SCHEMA_JOB_TIMINGS.backoffLimit,
            template: {
                metadata: { labels },
                spec: {
                    restartPolicy: "OnFailure",
                    ...podBase(plan, IRONIC_UID, IRONIC_GID),
                    containers: [container],
                    volumes: [...["conf", "data", "tmp", "shared"].map(fromEmptyDir), ...db.volumes],
                },
            },
        },
    };
}
