/**
 * The IPA image cache's objects (imageCache.mode "deploy"): a Deployment whose init containers
 * (one per architecture, the ironic-ipa-downloader image running assets/ipa-cache-sync.sh) bring
 * each configured version onto a PersistentVolumeClaim at most once, and whose server
 * (assets/ipa-cache-server.py in the ironic image) serves only complete versions over HTTPS behind
 * a Service. And, for the Ironic pods of every mode that has a cache or a CA, the client init
 * container (assets/ipa-cache-client.sh) with its volumes and the ironic container's mount.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";

import { unpinnedReason } from "../config/pinning";
import { COMMANDS, IRONIC_GID, IRONIC_UID, PATHS } from "../contract";
import type { ImageCachePlan } from "../plan/image-cache";
import type { IronicPlan } from "../plan/types";
import { readAsset } from "../render/assets";
import { downloadTrustVolumes, withDownloadTrust } from "./downloads";
import { containerResources, contentHash, podBase, restrictedSecurityContext, sortedEnv, sortedRecord } from "./meta";
import type { Container } from "./meta";
import { fromConfigMap, fromEmptyDir, fromSecret, mount, readOnlyMount, sharedPart } from "./volumes";
import type { Volume, VolumeMount } from "./volumes";
import { IPA_CACHE_ENV, IPA_CACHE_PATHS, SCRIPT_FILES } from "../scripts";

export const IMAGE_CACHE_ANNOTATIONS = {
    scripts: "metal3-ironic.metal3.io/ipa-cache-scripts-hash",
    tlsCert: "metal3-ironic.metal3.io/ipa-cache-tls-cert-hash",
    client: "metal3-ironic.metal3.io/ipa-cache-client-hash",
} as const;

/** The cache pod's scripts ConfigMap data. */
export function imageCacheScriptsData(): Record<string, string> {
    return { [SCRIPT_FILES.ipaCacheSync]: readAsset(SCRIPT_FILES.ipaCacheSync), [SCRIPT_FILES.ipaCacheServer]: readAsset(SCRIPT_FILES.ipaCacheServer) };
}

type DeployedCache = Extract<ImageCachePlan, { mode: "deploy" }>;

/** The deploy variant of `plan.imageCache`: what only a deployed cache has (called only then; another mode is a bug of the program). */
export function deployedCache(plan: IronicPlan): DeployedCache {
    const ic = plan.imageCache;
    if (ic.mode !== "deploy") throw new Error(`the IPA cache is not deployed (imageCache.mode ${ic.mode}): a bug of metal3-ironic`);
    return ic;
}

/** The cache's base URL the conductors fetch from: this stack's or another's; none with mode "none". */
export function cacheUrl(ic: ImageCachePlan): string | undefined {
    return ic.mode === "none" ? undefined : ic.url;
}

/** The Ironic pods' client script ConfigMap data. */
export function imageCacheClientData(): Record<string, string> {
    return { [SCRIPT_FILES.ipaCacheClient]: readAsset(SCRIPT_FILES.ipaCacheClient) };
}

/** The volume claim of the cache: downloaded versions outlive the pod. */
export function imageCachePvc(plan: IronicPlan): k8s.types.input.core.v1.PersistentVolumeClaim {
    const { names, labels, storage } = deployedCache(plan);
    return {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: names.pvc, namespace: plan.namespace, labels },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: storage.size } }, ...(storage.class ? { storageClassName: storage.class } : {}) },
    };
}

export function imageCacheService(plan: IronicPlan): k8s.types.input.core.v1.Service {
    const ic = deployedCache(plan);
    const port = ic.port;
    return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: ic.names.service, namespace: plan.namespace, labels: ic.labels },
        spec: { type: "ClusterIP", selector: ic.selector, ports: [{ name: "https", port, targetPort: port, protocol: "TCP" }] },
    };
}

/** Container names are DNS labels: x86_64 → x86-64. */
export const archLabel = (arch: string) => arch.replace(/_/g, "-");

/**
 * A downloader image that is not pinned (a moving tag such as `latest`) is pulled at every start
 * of the cache pod: a node keeps the image it pulled first otherwise (IfNotPresent, the default
 * for any tag but `latest`), and the sync script can only refresh the cache for a downloader the
 * node actually runs. Pinned (a digest, or a release tag of another repository): the default.
 */
export function downloaderPullPolicy(image: string): { imagePullPolicy?: "Always" } {
    return unpinnedReason(image) ? { imagePullPolicy: "Always" } : {};
}

function downloaderContainers(plan: IronicPlan): Container[] {
    return deployedCache(plan).versions.map((v) => withDownloadTrust({
        name: `ipa-downloader-${archLabel(v.architecture)}`,
        image: plan.images.ipaDownloader,
        ...downloaderPullPolicy(plan.images.ipaDownloader),
        command: [COMMANDS.shell, `${IPA_CACHE_PATHS.scripts}/${SCRIPT_FILES.ipaCacheSync}`],
        env: sortedEnv(v.env),
        securityContext: restrictedSecurityContext(),
        volumeMounts: [mount("data", IPA_CACHE_PATHS.data), readOnlyMount("scripts", IPA_CACHE_PATHS.scripts), mount("tmp", PATHS.tmp)],
        resources: containerResources(plan, "ipaDownloader"),
    }, plan.trust));
}

function serverContainer(plan: IronicPlan): Container {
    const port = deployedCache(plan).port;
    const probe = (path: string) => ({ httpGet: { path, port, scheme: "HTTPS" } });
    return {
        name: "server",
        image: plan.images.ironic,
        command: [COMMANDS.python, `${IPA_CACHE_PATHS.scripts}/${SCRIPT_FILES.ipaCacheServer}`],
        env: sortedEnv({
            [IPA_CACHE_ENV.dir]: IPA_CACHE_PATHS.data,
            [IPA_CACHE_ENV.arches]: plan.imageCache.architectures.join(" "),
            [IPA_CACHE_ENV.port]: String(port),
            [IPA_CACHE_ENV.certDir]: IPA_CACHE_PATHS.serverCerts,
        }),
        ports: [{ name: "https", containerPort: port, protocol: "TCP" }],
        securityContext: restrictedSecurityContext(),
        volumeMounts: [readOnlyMount("data", IPA_CACHE_PATHS.data), readOnlyMount("scripts", IPA_CACHE_PATHS.scripts), readOnlyMount("tls", IPA_CACHE_PATHS.serverCerts)],
        readinessProbe: { ...probe("/healthz"), periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 3 },
        livenessProbe: { tcpSocket: { port }, initialDelaySeconds: 10, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 5 },
        resources: containerResources(plan, "ipaCacheServer"),
    };
}

/** The cache workload: 1 replica, Recreate (the claim is ReadWriteOnce). `annotations`: deploy-time hashes (the server certificate). */
export function imageCacheDeployment(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.Deployment {
    const ic = plan.imageCache;
    const volumes: Volume[] = [
        { name: "data", persistentVolumeClaim: { claimName: ic.names.pvc } },
        fromConfigMap("scripts", ic.names.scriptsConfigMap, { defaultMode: 0o555 }),
        fromSecret("tls", ic.names.tlsSecret, { items: ["tls.crt", "tls.key"] }),
        fromEmptyDir("tmp"),
    ];
    return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: ic.names.workload, namespace: plan.namespace, labels: ic.labels },
        spec: {
            replicas: 1,
            strategy: { type: "Recreate" },
            selector: { matchLabels: ic.selector },
            template: {
                metadata: { labels: ic.labels, annotations: sortedRecord({ [IMAGE_CACHE_ANNOTATIONS.scripts]: contentHash(imageCacheScriptsData()), ...annotations }) },
                spec: { ...podBase(plan, IRONIC_UID, IRONIC_GID), initContainers: downloaderContainers(plan), containers: [serverContainer(plan)], volumes: [...volumes, ...downloadTrustVolumes(plan.trust)] },
            },
        },
    };
}

/** What the Ironic pods get for the cache: the client init container, its volumes, the ironic container's mount, a template annotation. */
export interface ImageCacheClient {
    initContainer: Container;
    volumes: Volume[];
    ironicMounts: VolumeMount[];
    annotations: Record<string, string>;
}

/** Absent with mode "none" and no CA: then the Ironic pods get nothing (the user's URLs go to Ironic and BMO as they are). */
export function imageCacheClient(plan: IronicPlan): ImageCacheClient | undefined {
    const ic = plan.imageCache;
    const url = cacheUrl(ic);
    if (!url && !ic.ca) return undefined;
    const volumes: Volume[] = [fromConfigMap("ipa-cache-client", ic.names.clientConfigMap, { defaultMode: 0o555 }), fromEmptyDir("ipa-cache-trust")];
    const mounts: VolumeMount[] = [readOnlyMount("ipa-cache-client", IPA_CACHE_PATHS.scripts), mount("ipa-cache-trust", IPA_CACHE_PATHS.trustDir)];
    const env: Record<string, string> = {};
    if (ic.ca) {
        volumes.push(fromSecret("ipa-cache-ca", ic.ca.secretName, { items: [IPA_CACHE_PATHS.caKey] }));
        mounts.push(readOnlyMount("ipa-cache-ca", IPA_CACHE_PATHS.caDir));
        env[IPA_CACHE_ENV.caFile] = `${IPA_CACHE_PATHS.caDir}/${IPA_CACHE_PATHS.caKey}`;
        env[IPA_CACHE_ENV.trustFile] = IPA_CACHE_PATHS.trustFile;
    }
    if (url) {
        mounts.push(sharedPart(PATHS.sharedImages));
        Object.assign(env, {
            [IPA_CACHE_ENV.url]: url,
            [IPA_CACHE_ENV.arches]: ic.architectures.join(" "),
            [IPA_CACHE_ENV.defaultArch]: ic.defaultArchitecture!,
            [IPA_CACHE_ENV.imagesDir]: PATHS.sharedImages,
        });
    }
    return {
        initContainer: {
            name: "ipa-cache-client",
            image: plan.images.ironic,
            command: [COMMANDS.shell, `${IPA_CACHE_PATHS.scripts}/${SCRIPT_FILES.ipaCacheClient}`],
            env: sortedEnv(env),
            securityContext: restrictedSecurityContext(),
            volumeMounts: mounts,
            resources: containerResources(plan, "ipaCacheClient"),
        },
        volumes,
        ironicMounts: ic.ca ? [readOnlyMount("ipa-cache-trust", IPA_CACHE_PATHS.trustDir)] : [],
        annotations: { [IMAGE_CACHE_ANNOTATIONS.client]: contentHash(imageCacheClientData()) },
    };
}
