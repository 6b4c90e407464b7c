/**
 * Kubernetes objects of the Ironic workload as plain data, built from the plan. Pure: the
 * ComponentResources only hand these to @pulumi/kubernetes. Values that exist only at deploy time
 * (certificate hashes) come in as parameters.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";

import { renderConductorWrapper, renderEnvFile } from "../plan/conductor";
import { CONDUCTOR_NODE_LABEL, conductorLabelValue, nodeKeys } from "../plan/names";
import {
    COMMANDS,
    CONDUCTOR_PATHS,
    DHCP_PROVIDER_PATHS,
    ENV,
    DNSMASQ_CAPABILITIES,
    DNSMASQ_CONFIG_DIR,
    DNSMASQ_CONFIG_FILE,
    DNSMASQ_START_SCRIPT,
    IRONIC_GID,
    IRONIC_UID,
    PATHS,
    PRUNER_ENV,
    PRUNER_SCRIPT,
    WRAPPER_ENV,
} from "../contract";
import { MARIADB } from "../plan/database";
import { renderPrunerScript } from "../render/pruner";
import { PRUNER_TIMINGS } from "../plan/timings";

/** Where the pruner reads the API credentials (username, password). */
const PRUNER_AUTH_DIR = "/auth/pruner";
import { databaseEnv, IronicPlan, sortedEnv } from "../plan";

type PodSpec = k8s.types.input.core.v1.PodSpec;
type Container = k8s.types.input.core.v1.Container;
type Volume = k8s.types.input.core.v1.Volume;
type VolumeMount = k8s.types.input.core.v1.VolumeMount;

export const ANNOTATIONS = {
    dnsmasqConfig: "metal3-ironic.metal3.io/dnsmasq-config-hash",
    tlsCert: "metal3-ironic.metal3.io/tls-cert-hash",
    scripts: "metal3-ironic.metal3.io/scripts-hash",
} as const;

/**
 * A rendered object placed in the namespace as the program registers it (an Output, so that it
 * depends on the Namespace being created). The pure renderers use the plain name.
 */
export function inNamespace<T extends { metadata?: unknown }>(o: T, namespace: pulumi.Input<string>): T {
    // The renderers always build metadata as a plain object.
    return { ...o, metadata: { ...(o.metadata as k8s.types.input.meta.v1.ObjectMeta), namespace } };
}

export function sha256(s: string): string {
    return createHash("sha256").update(s).digest("hex");
}

/** The dnsmasq ConfigMap data: the rendered config and the container's start script. */
export function dnsmasqConfigMapData(plan: IronicPlan): Record<string, string> | undefined {
    if (plan.config.topology !== "single") return undefined;
    const conf = plan.conductors[0]?.dnsmasqConf;
    if (!conf) return undefined;
    return { [DNSMASQ_CONFIG_FILE]: conf, [DNSMASQ_START_SCRIPT]: plan.dnsmasqStartScript };
}

/** Content hash of the dnsmasq ConfigMap: a pod-template annotation, so a config change rolls the pod. */
export function dnsmasqConfigHash(plan: IronicPlan): string | undefined {
    const data = dnsmasqConfigMapData(plan);
    return data ? contentHash(data) : undefined;
}

const dropAll = { drop: ["ALL"] };

function restrictedContainer(): k8s.types.input.core.v1.SecurityContext {
    return {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: dropAll,
    };
}

function emptyDir(name: string): Volume {
    return { name, emptyDir: {} };
}

/** The Ironic pod spec: one template for the single Deployment and the multi DaemonSet. */
export function ironicPodSpec(plan: IronicPlan): PodSpec {
    const c = plan.config;
    const p = c.ports;
    const multi = c.topology === "multi";
    const mount = (name: string, mountPath: string, readOnly = false): VolumeMount => (readOnly ? { name, mountPath, readOnly } : { name, mountPath });
    const wrapper = `${CONDUCTOR_PATHS.scripts}/${CONDUCTOR_PATHS.wrapper}`;
    /** Multi: run `command` through the wrapper that resolves this node's data. */
    const wrap = (command: string[]) => (multi ? [COMMANDS.shell, wrapper, ...command] : command);
    /** Multi: the downward-API node name and the wrapper's settings; `certDirs` get the node certificate. */
    const wrapperEnv = (certDirs: string[]): k8s.types.input.core.v1.EnvVar[] =>
        multi
            ? [
                  { name: WRAPPER_ENV.node, valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
                  { name: WRAPPER_ENV.namespace, value: plan.namespace },
                  { name: WRAPPER_ENV.configMap, value: plan.names.nodeDataConfigMap },
                  { name: WRAPPER_ENV.dataDir, value: CONDUCTOR_PATHS.nodeData },
                  ...(certDirs.length > 0 ? [{ name: WRAPPER_ENV.certDirs, value: certDirs.join(" ") }] : []),
              ]
            : [];

    const volumes: Volume[] = [
        emptyDir("shared"),
        emptyDir("ironic-conf"),
        emptyDir("ironic-data"),
        emptyDir("ironic-tmp"),
        emptyDir("httpd-conf"),
        emptyDir("httpd-data"),
        emptyDir("httpd-tmp"),
        { name: "htpasswd", secret: { secretName: plan.names.credentialsSecret, items: [{ key: "htpasswd", path: "htpasswd" }] } },
    ];
    let ironicCertMounts: VolumeMount[];
    let httpdCertMounts: VolumeMount[];
    if (multi) {
        // Node certificates are copied by the wrapper from the per-node Secret into these.
        volumes.push(emptyDir("ironic-certs"), emptyDir("ironic-vmedia-certs"), emptyDir("httpd-certs"), emptyDir("httpd-vmedia-certs"));
        volumes.push({ name: "ca", secret: { secretName: plan.names.caSecret, items: [{ key: "tls.crt", path: "tls.crt" }] } });
        volumes.push({ name: "rpc-auth", secret: { secretName: plan.names.rpcCredentialsSecret, items: ["htpasswd", "password", "username"].map((k) => ({ key: k, path: k })) } });
        volumes.push({ name: "node-data", configMap: { name: plan.names.nodeDataConfigMap } });
        volumes.push({ name: "node-certs", secret: { secretName: plan.names.nodeCertsSecret, defaultMode: 0o440 } });
        volumes.push({ name: "scripts", configMap: { name: plan.names.scriptsConfigMap, defaultMode: 0o555 } });
        const nodeMounts = [mount("node-data", CONDUCTOR_PATHS.nodeData, true), mount("node-certs", CONDUCTOR_PATHS.nodeCerts, true), mount("scripts", CONDUCTOR_PATHS.scripts, true)];
        // /certs/vmedia in the ironic container too: only then does the image hand BMCs the
        // virtual-media URL on the TLS port ([deploy]external_http_url), which httpd serves.
        ironicCertMounts = [mount("ironic-certs", PATHS.certsIronic), mount("ironic-vmedia-certs", PATHS.certsVmedia), mount("ca", PATHS.certsIronicCa, true), mount("htpasswd", PATHS.authIronic, true), mount("rpc-auth", PATHS.authIronicRpc, true), ...nodeMounts];
        httpdCertMounts = [mount("httpd-certs", PATHS.certsIronic), mount("httpd-vmedia-certs", PATHS.certsVmedia), mount("ca", PATHS.certsIronicCa, true), mount("htpasswd", PATHS.authIronic, true), ...nodeMounts];
    } else {
        volumes.push({ name: "tls", secret: { secretName: plan.names.tlsSecret, items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }] } });
        volumes.push({ name: "ca", secret: { secretName: plan.names.tlsSecret, items: [{ key: "ca.crt", path: "tls.crt" }] } });
        const shared = [mount("tls", PATHS.certsIronic, true), mount("ca", PATHS.certsIronicCa, true), mount("htpasswd", PATHS.authIronic, true)];
        // /certs/vmedia in both: httpd serves virtual media on the TLS port only when it has the
        // certificate, and Ironic hands BMCs that URL ([deploy]external_http_url) only when it sees it too.
        ironicCertMounts = [...shared, mount("tls", PATHS.certsVmedia, true)];
        httpdCertMounts = [...shared, mount("tls", PATHS.certsVmedia, true)];
    }

    const db = databaseVolumes(plan);
    volumes.push(...db.volumes);
    ironicCertMounts.push(...db.mounts);

    const ironic: Container = {
        name: "ironic",
        image: c.images.ironic,
        command: wrap([COMMANDS.ironic]),
        env: [...wrapperEnv([PATHS.certsIronic, PATHS.certsVmedia]), ...sortedEnv({ ...plan.commonEnv, ...plan.ironicEnv })],
        securityContext: restrictedContainer(),
        volumeMounts: [mount("shared", PATHS.shared), mount("ironic-conf", PATHS.conf), mount("ironic-data", PATHS.data), mount("ironic-tmp", PATHS.tmp), ...ironicCertMounts],
        // SQLite is reset on every restart: probes are lenient so a slow start is not killed.
        readinessProbe: { exec: { command: [COMMANDS.readiness] }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 },
        livenessProbe: { exec: { command: [COMMANDS.liveness] }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: { requests: { cpu: "250m", memory: "512Mi" } },
    };
    const httpd: Container = {
        name: "httpd",
        image: c.images.ironic,
        command: wrap([COMMANDS.httpd]),
        env: [...wrapperEnv([PATHS.certsIronic, PATHS.certsVmedia]), ...sortedEnv(plan.commonEnv)],
        securityContext: restrictedContainer(),
        ports: [
            { name: "ironic-api", containerPort: p.api, hostPort: p.api, protocol: "TCP" },
            { name: "image-svc", containerPort: p.http, hostPort: p.http, protocol: "TCP" },
            { name: "image-svc-tls", containerPort: p.vmediaTls, hostPort: p.vmediaTls, protocol: "TCP" },
        ],
        volumeMounts: [mount("shared", PATHS.shared), mount("httpd-conf", PATHS.conf), mount("httpd-data", PATHS.data), mount("httpd-tmp", PATHS.tmp), ...httpdCertMounts],
        readinessProbe: { httpGet: { path: "/images/ironic-python-agent.kernel", port: p.http, scheme: "HTTP" }, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 },
        livenessProbe: { tcpSocket: { port: p.http }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: { requests: { cpu: "50m", memory: "64Mi" } },
    };
    const ramdiskLogs: Container = {
        name: "ramdisk-logs",
        image: c.images.ironic,
        command: [COMMANDS.ramdiskLogs],
        securityContext: restrictedContainer(),
        volumeMounts: [mount("shared", PATHS.shared), emptyMount("ironic-tmp", PATHS.tmp)],
        resources: { requests: { cpu: "10m", memory: "32Mi" } },
    };
    const containers: Container[] = [ironic, httpd];
    const initContainers: Container[] = [
        {
            name: "ipa-downloader",
            image: c.images.ipaDownloader,
            env: sortedEnv(plan.ipaDownloaderEnv),
            securityContext: restrictedContainer(),
            volumeMounts: [mount("shared", PATHS.shared), emptyMount("ironic-tmp", PATHS.tmp)],
            resources: { requests: { cpu: "50m", memory: "64Mi" } },
        },
    ];

    if (plan.dhcpEnabled) {
        volumes.push(emptyDir("dnsmasq-data"), emptyDir("dnsmasq-tmp"));
        let dnsmasqMounts: VolumeMount[];
        let command: string[];
        if (multi) {
            // Both the ironic container (Ironic's dnsmasq provider) and dnsmasq use these: create them first.
            initContainers.push({
                name: "dhcp-dirs",
                image: c.images.ironic,
                command: ["/bin/mkdir", "-p", DHCP_PROVIDER_PATHS.hostsDir, DHCP_PROVIDER_PATHS.optsDir],
                securityContext: restrictedContainer(),
                volumeMounts: [mount("shared", PATHS.shared)],
                resources: { requests: { cpu: "10m", memory: "16Mi" } },
            });
            dnsmasqMounts = [mount("node-data", CONDUCTOR_PATHS.nodeData, true), mount("scripts", CONDUCTOR_PATHS.scripts, true)];
            command = wrap([COMMANDS.shell, `${CONDUCTOR_PATHS.scripts}/${DNSMASQ_START_SCRIPT}`]);
        } else {
            volumes.push({ name: "dnsmasq-config", configMap: { name: plan.names.dnsmasqConfigMap, defaultMode: 0o555 } });
            dnsmasqMounts = [mount("dnsmasq-config", DNSMASQ_CONFIG_DIR, true)];
            command = [COMMANDS.shell, `${DNSMASQ_CONFIG_DIR}/${DNSMASQ_START_SCRIPT}`];
        }
        const env = wrapperEnv([]);
        containers.push({
            name: "dnsmasq",
            image: c.images.ironic,
            command,
            ...(env.length > 0 ? { env } : {}),
            securityContext: {
                // The image's dnsmasq binary carries file capabilities; they only apply with
                // privilege escalation allowed.
                allowPrivilegeEscalation: true,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"], add: [...DNSMASQ_CAPABILITIES] },
            },
            volumeMounts: [mount("shared", PATHS.shared), mount("dnsmasq-data", PATHS.data), mount("dnsmasq-tmp", PATHS.tmp), ...dnsmasqMounts],
            livenessProbe: {
                exec: { command: [COMMANDS.shell, "-c", "ss -lun | grep -q ':67 ' && ss -lun | grep -q ':69 '"] },
                initialDelaySeconds: 30,
                periodSeconds: 30,
                timeoutSeconds: 10,
                failureThreshold: 10,
            },
            resources: { requests: { cpu: "10m", memory: "32Mi" } },
        });
    }
    if (multi && plan.dhcpEnabled) {
        // Keeps this conductor's dnsmasq files consistent with node ownership (see pruner.ts).
        volumes.push({ name: "pruner-auth", secret: { secretName: plan.names.credentialsSecret, items: [{ key: "password", path: "password" }, { key: "username", path: "username" }] } });
        containers.push({
            name: "dhcp-pruner",
            image: c.images.ironic,
            command: wrap([COMMANDS.python, `${CONDUCTOR_PATHS.scripts}/${PRUNER_SCRIPT}`]),
            env: [
                ...wrapperEnv([]),
                ...sortedEnv({
                    [PRUNER_ENV.apiUrl]: plan.urls.apiInCluster,
                    [PRUNER_ENV.caFile]: `${PATHS.certsIronicCa}/tls.crt`,
                    [PRUNER_ENV.authDir]: PRUNER_AUTH_DIR,
                    [PRUNER_ENV.hostsDir]: DHCP_PROVIDER_PATHS.hostsDir,
                    [PRUNER_ENV.optsDir]: DHCP_PROVIDER_PATHS.optsDir,
                    [PRUNER_ENV.interval]: String(PRUNER_TIMINGS.interval),
                    // Longer than the API's ring can lag a conductor's (hash_ring_reset_interval).
                    [PRUNER_ENV.grace]: String(PRUNER_TIMINGS.grace),
                    // A rebalance (a conductor joined): give the new owner time to take over first.
                    [PRUNER_ENV.rebalanceDelay]: String(PRUNER_TIMINGS.rebalanceDelay),
                }),
            ],
            securityContext: restrictedContainer(),
            volumeMounts: [
                mount("shared", PATHS.shared),
                mount("ca", PATHS.certsIronicCa, true),
                mount("pruner-auth", PRUNER_AUTH_DIR, true),
                mount("node-data", CONDUCTOR_PATHS.nodeData, true),
                mount("scripts", CONDUCTOR_PATHS.scripts, true),
            ],
            resources: { requests: { cpu: "10m", memory: "32Mi" } },
        });
    }
    containers.push(ramdiskLogs);

    if (plan.keepalivedVirtualIps) {
        containers.push({
            name: "keepalived",
            image: c.images.keepalived,
            env: [{ name: ENV.keepalivedVirtualIps, value: plan.keepalivedVirtualIps }],
            securityContext: {
                allowPrivilegeEscalation: true,
                runAsUser: 65532,
                runAsGroup: 65532,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"], add: ["NET_ADMIN", "NET_BROADCAST", "NET_RAW"] },
            },
            resources: { requests: { cpu: "10m", memory: "16Mi" } },
        });
    }

    return {
        hostNetwork: true,
        dnsPolicy: "ClusterFirstWithHostNet",
        ...podBase(plan, IRONIC_UID, IRONIC_GID, multi ? { [CONDUCTOR_NODE_LABEL]: conductorLabelValue(plan.namespace, plan.name) } : {}),
        initContainers,
        containers,
        volumes,
    };
}

/**
 * Database credentials and CA where the ironic image reads them: /auth/mariadb/{username,password}
 * and /certs/ca/mariadb/tls.crt (whose presence turns TLS to the database on).
 */
export function databaseVolumes(plan: IronicPlan): { volumes: Volume[]; mounts: VolumeMount[] } {
    const db = plan.config.database;
    const volumes: Volume[] = [];
    const mounts: VolumeMount[] = [];
    const auth = (secretName: string) => volumes.push({ name: "db-auth", secret: { secretName, items: [{ key: "password", path: "password" }, { key: "username", path: "username" }] } });
    if (db.kind === "external") {
        auth(db.credentialsSecret!);
        if (db.caSecret) volumes.push({ name: "db-ca", secret: { secretName: db.caSecret, items: [{ key: "ca.crt", path: "tls.crt" }] } });
    } else if (db.kind === "mariadb") {
        auth(plan.database.names.credentialsSecret);
        // Only the CA of the server's TLS Secret is projected, never its key.
        volumes.push({ name: "db-ca", secret: { secretName: plan.database.names.tlsSecret, items: [{ key: "ca.crt", path: "tls.crt" }] } });
    }
    if (volumes.some((v) => v.name === "db-auth")) mounts.push({ name: "db-auth", mountPath: PATHS.authMariadb, readOnly: true });
    if (volumes.some((v) => v.name === "db-ca")) mounts.push({ name: "db-ca", mountPath: PATHS.certsMariadbCa, readOnly: true });
    return { volumes, mounts };
}

/**
 * A schema Job with the Ironic image: `upgrade` (ironic-dbsync upgrade, before the workload rolls)
 * or `migrate` (online_data_migrations, after it is ready). Named by the image key, so it runs
 * again on every image change and never on a no-op.
 */
export function dbJob(plan: IronicPlan, which: "upgrade" | "migrate"): k8s.types.input.batch.v1.Job {
    const image = plan.config.images.ironic;
    const jobs = plan.database.jobs!;
    const db = databaseVolumes(plan);
    const name = which === "upgrade" ? jobs.upgrade : jobs.migrate;
    const labels = { ...plan.labels, "app.kubernetes.io/component": which === "upgrade" ? "db-upgrade" : "db-migrate" };
    return {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: {
            name,
            namespace: plan.namespace,
            labels,
            annotations: {
                "metal3-ironic.metal3.io/ironic-image": image,
                // A Job that failed in an earlier run is replaced (run again) instead of awaited.
                "pulumi.com/replaceUnready": "true",
            },
        },
        spec: {
            backoffLimit: 3,
            template: {
                metadata: { labels },
                spec: {
                    restartPolicy: "OnFailure",
                    ...podBase(plan, IRONIC_UID, IRONIC_GID),
                    containers: [
                        {
                            name: which === "upgrade" ? "dbsync-upgrade" : "online-data-migrations",
                            image,
                            command: [which === "upgrade" ? COMMANDS.dbUpgrade : COMMANDS.onlineDataMigrations],
                            env: [
                                // Only to satisfy the image's configuration script, which waits for an IP.
                                { name: ENV.provisioningIp, valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
                                ...sortedEnv(databaseEnv(plan.database)),
                            ],
                            securityContext: restrictedContainer(),
                            volumeMounts: [
                                { name: "conf", mountPath: PATHS.conf },
                                { name: "data", mountPath: PATHS.data },
                                { name: "tmp", mountPath: PATHS.tmp },
                                { name: "shared", mountPath: PATHS.shared },
                                ...db.mounts,
                            ],
                            resources: { requests: { cpu: "100m", memory: "256Mi" } },
                        },
                    ],
                    volumes: [emptyDir("conf"), emptyDir("data"), emptyDir("tmp"), emptyDir("shared"), ...db.volumes],
                },
            },
        },
    };
}

/** What every pod of the stack shares: non-root identity, no API token, the configured placement. */
function podBase(plan: IronicPlan, uid: number, gid: number, extraNodeSelector: Record<string, string> = {}): Omit<PodSpec, "containers"> {
    const nodeSelector = { ...plan.config.placement.nodeSelector, ...extraNodeSelector };
    const tolerations = plan.config.placement.tolerations;
    return {
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: { runAsUser: uid, runAsGroup: gid, fsGroup: gid, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
        nodeSelector: Object.keys(nodeSelector).length > 0 ? sortedRecord(nodeSelector) : undefined,
        tolerations: tolerations.length > 0 ? tolerations : undefined,
    };
}

function emptyMount(name: string, mountPath: string): VolumeMount {
    return { name, mountPath };
}

function sortedRecord(r: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const k of Object.keys(r).sort()) out[k] = r[k];
    return out;
}

/** Deployment of the single topology: one replica, Recreate (host ports cannot roll). */
export function ironicDeployment(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.Deployment {
    const podAnnotations: Record<string, pulumi.Input<string>> = {};
    const dnsHash = dnsmasqConfigHash(plan);
    if (dnsHash) podAnnotations[ANNOTATIONS.dnsmasqConfig] = dnsHash;
    for (const k of Object.keys(annotations).sort()) podAnnotations[k] = annotations[k];
    return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: plan.names.deployment, namespace: plan.namespace, labels: plan.labels },
        spec: {
            replicas: 1,
            strategy: { type: "Recreate" },
            selector: { matchLabels: plan.selector },
            template: {
                metadata: { labels: plan.labels, annotations: podAnnotations },
                spec: ironicPodSpec(plan),
            },
        },
    };
}

/** Multi: per-node entries (environment, dnsmasq config), looked up by node name at start. */
export function nodeDataConfigMapData(plan: IronicPlan): Record<string, string> {
    const data: Record<string, string> = {};
    for (const c of [...plan.conductors].sort((a, b) => a.node.localeCompare(b.node))) {
        const keys = nodeKeys(c.node);
        data[keys.env] = renderEnvFile(c.env ?? {});
        if (c.dnsmasqConf) data[keys.dnsmasqConf] = c.dnsmasqConf;
    }
    return data;
}

/** Multi: scripts shared by every node (the pod template's only per-content annotation). */
export function scriptsConfigMapData(plan: IronicPlan): Record<string, string> {
    const data: Record<string, string> = { [CONDUCTOR_PATHS.wrapper]: renderConductorWrapper() };
    if (plan.dhcpEnabled) {
        data[DNSMASQ_START_SCRIPT] = plan.dnsmasqStartScript;
        data[PRUNER_SCRIPT] = renderPrunerScript();
    }
    return data;
}

export function contentHash(data: Record<string, string>): string {
    return sha256(Object.keys(data).sort().map((k) => `${k}\n${data[k]}`).join("\n"));
}

/**
 * Multi: one conductor per labelled control-plane node. The template depends on nothing
 * node-specific, so adding, removing or replacing a node leaves it byte-identical.
 */
export function conductorDaemonSet(plan: IronicPlan): k8s.types.input.apps.v1.DaemonSet {
    return {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: { name: plan.names.deployment, namespace: plan.namespace, labels: plan.labels },
        spec: {
            selector: { matchLabels: plan.selector },
            // Host ports: the old pod must go before the new one starts on the same node.
            updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
            template: {
                metadata: { labels: plan.labels, annotations: { [ANNOTATIONS.scripts]: contentHash(scriptsConfigMapData(plan)) } },
                spec: ironicPodSpec(plan),
            },
        },
    };
}

/** ClusterIP Service in front of the API (httpd's TLS proxy on the host network). */
export function ironicService(plan: IronicPlan): k8s.types.input.core.v1.Service {
    return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: plan.names.service, namespace: plan.namespace, labels: plan.labels },
        spec: {
            type: "ClusterIP",
            selector: plan.selector,
            ports: [{ name: "ironic-api", port: plan.config.ports.api, targetPort: plan.config.ports.api, protocol: "TCP" }],
        },
    };
}

/**
 * What baremetal-operator reads through `envFrom` (its `ironic` ConfigMap contract):
 * the endpoint, and the mount paths of the CA and credentials it is given.
 */
export function bmoConfigMapData(plan: IronicPlan): Record<string, string> {
    return {
        IRONIC_ENDPOINT: `${plan.urls.apiInCluster}/v1/`,
        IRONIC_CACERT_FILE: "/opt/metal3/certs/ca/tls.crt",
        METAL3_AUTH_ROOT_DIR: "/opt/metal3/auth",
    };
}

/** Labels of the MariaDB pod (a selector distinct from Ironic's). */
export function mariadbSelector(plan: IronicPlan): Record<string, string> {
    return { "app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": plan.name };
}

/** MariaDB: one replica on a PersistentVolumeClaim of its own (not a claim template: it outlives the StatefulSet). */
export function mariadbStatefulSet(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.StatefulSet {
    const n = plan.database.names;
    const labels = { ...plan.labels, ...mariadbSelector(plan), "app.kubernetes.io/component": "database" };
    const probe = (initialDelaySeconds: number, periodSeconds: number) => ({
        exec: { command: [MARIADB.healthcheck, "--connect", "--innodb_initialized"] },
        initialDelaySeconds,
        periodSeconds,
        timeoutSeconds: 5,
        failureThreshold: 6,
    });
    const podAnnotations: Record<string, pulumi.Input<string>> = {};
    for (const k of Object.keys(annotations).sort()) podAnnotations[k] = annotations[k];
    return {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: n.statefulSet, namespace: plan.namespace, labels },
        spec: {
            replicas: 1,
            serviceName: n.service,
            selector: { matchLabels: mariadbSelector(plan) },
            template: {
                metadata: { labels, annotations: podAnnotations },
                spec: {
                    ...podBase(plan, MARIADB.uid, MARIADB.gid),
                    containers: [
                        {
                            name: "mariadb",
                            image: plan.config.images.mariadb,
                            env: [
                                { name: "MARIADB_ROOT_PASSWORD_FILE", value: `${MARIADB.credentialsDir}/${MARIADB.rootPasswordKey}` },
                                // Runs mariadb-upgrade when the server version changes.
                                { name: "MARIADB_AUTO_UPGRADE", value: "1" },
                            ],
                            ports: [{ name: "mysql", containerPort: MARIADB.port, protocol: "TCP" }],
                            securityContext: restrictedContainer(),
                            volumeMounts: [
                                { name: "data", mountPath: MARIADB.dataDir },
                                { name: "config", mountPath: MARIADB.confDir, readOnly: true },
                                { name: "tls", mountPath: MARIADB.tlsDir, readOnly: true },
                                { name: "credentials", mountPath: MARIADB.credentialsDir, readOnly: true },
                                { name: "init", mountPath: MARIADB.initDir, readOnly: true },
                                { name: "run", mountPath: MARIADB.runDir },
                                { name: "tmp", mountPath: PATHS.tmp },
                            ],
                            readinessProbe: probe(10, 10),
                            livenessProbe: probe(60, 30),
                            resources: { requests: { cpu: "100m", memory: "512Mi" } },
                        },
                    ],
                    volumes: [
                        { name: "data", persistentVolumeClaim: { claimName: plan.database.names.pvc } },
                        { name: "config", configMap: { name: n.configMap } },
                        { name: "tls", secret: { secretName: n.tlsSecret, defaultMode: 0o440 } },
                        { name: "credentials", secret: { secretName: n.credentialsSecret, items: [{ key: MARIADB.rootPasswordKey, path: MARIADB.rootPasswordKey }], defaultMode: 0o440 } },
                        { name: "init", secret: { secretName: n.initSecret, defaultMode: 0o440 } },
                        emptyDir("run"),
                        emptyDir("tmp"),
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
        metadata: { name: plan.database.names.service, namespace: plan.namespace, labels: plan.labels },
        spec: { type: "ClusterIP", selector: mariadbSelector(plan), ports: [{ name: "mysql", port: MARIADB.port, targetPort: MARIADB.port, protocol: "TCP" }] },
    };
}

export function mariadbPvc(plan: IronicPlan): k8s.types.input.core.v1.PersistentVolumeClaim {
    const db = plan.config.database;
    return {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: plan.database.names.pvc, namespace: plan.namespace, labels: plan.labels },
        spec: {
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: db.storageSize } },
            ...(db.storageClass ? { storageClassName: db.storageClass } : {}),
        },
    };
}
