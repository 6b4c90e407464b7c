/**
 * Kubernetes objects of the Ironic workload as plain data, built from the plan. Pure: the
 * ComponentResources only hand these to @pulumi/kubernetes. Values that exist only at deploy time
 * (certificate hashes) come in as parameters.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "crypto";

import {
    COMMANDS,
    DNSMASQ_CAPABILITIES,
    DNSMASQ_CONFIG_DIR,
    DNSMASQ_CONFIG_FILE,
    DNSMASQ_START_SCRIPT,
    IRONIC_GID,
    IRONIC_UID,
    PATHS,
} from "./contract";
import { IronicPlan, sortedEnv } from "./plan";

type PodSpec = k8s.types.input.core.v1.PodSpec;
type Container = k8s.types.input.core.v1.Container;
type Volume = k8s.types.input.core.v1.Volume;
type VolumeMount = k8s.types.input.core.v1.VolumeMount;

export const ANNOTATIONS = {
    dnsmasqConfig: "metal3-ironic.metal3.io/dnsmasq-config-hash",
    tlsCert: "metal3-ironic.metal3.io/tls-cert-hash",
    credentials: "metal3-ironic.metal3.io/credentials-hash",
} as const;

export function sha256(s: string): string {
    return createHash("sha256").update(s).digest("hex");
}

/** The dnsmasq ConfigMap data: the rendered config and the container's start script. */
export function dnsmasqConfigMapData(plan: IronicPlan): Record<string, string> | undefined {
    const conf = plan.conductors[0]?.dnsmasqConf;
    if (!conf) return undefined;
    return { [DNSMASQ_CONFIG_FILE]: conf, [DNSMASQ_START_SCRIPT]: plan.dnsmasqStartScript };
}

/** Content hash of the dnsmasq ConfigMap: a pod-template annotation, so a config change rolls the pod. */
export function dnsmasqConfigHash(plan: IronicPlan): string | undefined {
    const data = dnsmasqConfigMapData(plan);
    if (!data) return undefined;
    return sha256(Object.keys(data).sort().map((k) => `${k}\n${data[k]}`).join("\n"));
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

/** The Ironic pod spec of the single topology. */
export function ironicPodSpec(plan: IronicPlan): PodSpec {
    const c = plan.config;
    const p = c.ports;
    const volumes: Volume[] = [
        emptyDir("shared"),
        emptyDir("ironic-conf"),
        emptyDir("ironic-data"),
        emptyDir("ironic-tmp"),
        emptyDir("httpd-conf"),
        emptyDir("httpd-data"),
        emptyDir("httpd-tmp"),
        { name: "tls", secret: { secretName: plan.names.tlsSecret, items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }] } },
        { name: "ca", secret: { secretName: plan.names.tlsSecret, items: [{ key: "ca.crt", path: "tls.crt" }] } },
        { name: "htpasswd", secret: { secretName: plan.names.credentialsSecret, items: [{ key: "htpasswd", path: "htpasswd" }] } },
    ];
    const mount = (name: string, mountPath: string, readOnly = false): VolumeMount => (readOnly ? { name, mountPath, readOnly } : { name, mountPath });
    const certMounts = [mount("tls", PATHS.certsIronic, true), mount("ca", PATHS.certsIronicCa, true), mount("htpasswd", PATHS.authIronic, true)];

    const ironicEnv = sortedEnv({ ...plan.commonEnv, ...plan.ironicEnv });
    const httpdEnv = sortedEnv(plan.commonEnv);

    const ironic: Container = {
        name: "ironic",
        image: c.images.ironic,
        command: [COMMANDS.ironic],
        env: ironicEnv,
        securityContext: restrictedContainer(),
        volumeMounts: [
            mount("shared", PATHS.shared),
            mount("ironic-conf", PATHS.conf),
            mount("ironic-data", PATHS.data),
            mount("ironic-tmp", PATHS.tmp),
            ...certMounts,
        ],
        // SQLite is reset on every restart: probes are lenient so a slow start is not killed.
        readinessProbe: { exec: { command: [COMMANDS.readiness] }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 },
        livenessProbe: { exec: { command: [COMMANDS.liveness] }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: { requests: { cpu: "250m", memory: "512Mi" } },
    };
    const httpd: Container = {
        name: "httpd",
        image: c.images.ironic,
        command: [COMMANDS.httpd],
        env: httpdEnv,
        securityContext: restrictedContainer(),
        ports: [
            { name: "ironic-api", containerPort: p.api, hostPort: p.api, protocol: "TCP" },
            { name: "image-svc", containerPort: p.http, hostPort: p.http, protocol: "TCP" },
            { name: "image-svc-tls", containerPort: p.vmediaTls, hostPort: p.vmediaTls, protocol: "TCP" },
        ],
        volumeMounts: [
            mount("shared", PATHS.shared),
            mount("httpd-conf", PATHS.conf),
            mount("httpd-data", PATHS.data),
            mount("httpd-tmp", PATHS.tmp),
            ...certMounts,
            mount("tls", PATHS.certsVmedia, true),
        ],
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

    if (plan.dhcpEnabled) {
        volumes.push(emptyDir("dnsmasq-data"), emptyDir("dnsmasq-tmp"));
        volumes.push({ name: "dnsmasq-config", configMap: { name: plan.names.dnsmasqConfigMap, defaultMode: 0o555 } });
        containers.push({
            name: "dnsmasq",
            image: c.images.ironic,
            command: [COMMANDS.shell, `${DNSMASQ_CONFIG_DIR}/${DNSMASQ_START_SCRIPT}`],
            securityContext: {
                // The image's dnsmasq binary carries file capabilities; they only apply with
                // privilege escalation allowed.
                allowPrivilegeEscalation: true,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"], add: [...DNSMASQ_CAPABILITIES] },
            },
            volumeMounts: [
                mount("shared", PATHS.shared),
                mount("dnsmasq-data", PATHS.data),
                mount("dnsmasq-tmp", PATHS.tmp),
                mount("dnsmasq-config", DNSMASQ_CONFIG_DIR, true),
            ],
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
    containers.push(ramdiskLogs);

    if (plan.keepalivedVirtualIps) {
        containers.push({
            name: "keepalived",
            image: c.images.keepalived,
            env: [{ name: "KEEPALIVED_VIRTUAL_IPS", value: plan.keepalivedVirtualIps }],
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
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        securityContext: {
            runAsUser: IRONIC_UID,
            runAsGroup: IRONIC_GID,
            fsGroup: IRONIC_GID,
            runAsNonRoot: true,
            seccompProfile: { type: "RuntimeDefault" },
        },
        nodeSelector: Object.keys(c.placement.nodeSelector).length > 0 ? sortedRecord(c.placement.nodeSelector) : undefined,
        tolerations: c.placement.tolerations.length > 0 ? c.placement.tolerations : undefined,
        initContainers: [
            {
                name: "ipa-downloader",
                image: c.images.ipaDownloader,
                env: sortedEnv(plan.ipaDownloaderEnv),
                securityContext: restrictedContainer(),
                volumeMounts: [mount("shared", PATHS.shared), emptyMount("ironic-tmp", PATHS.tmp)],
                resources: { requests: { cpu: "50m", memory: "64Mi" } },
            },
        ],
        containers,
        volumes,
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
