/**
 * The IPA image cache as plain data: names, the URLs the conductors and BMO get per architecture,
 * the version key of each IPA, the downloader's environment, and Ironic's settings for it.
 *
 * Version key: sha256 of the downloader image reference and everything that selects the tarball
 * (per architecture) plus imageCache.minimumModificationTime. A reference names no content (a
 * mutable tag like `latest`) and the plan has no registry to ask, so assets/ipa-cache-sync.sh
 * completes the version at run time with the downloader it runs (the sha256 of its program and
 * selecting variables): it downloads a version it does not hold, once, and keeps serving the
 * previous one until the new one is complete. Nothing here varies between runs: previews stay quiet.
 */
import { createHash } from "crypto";

import type { StackConfig } from "../config";
import type { PerArch } from "../config/image-cache";
import { BMO_DEPLOY_ENV, DEPLOY_IMAGE_OPTIONS, ENV, IPA_ARCHITECTURES, type IpaArchitecture } from "../contract";
import { urlOf } from "../ip";
import { IPA_CACHE_ENV, IPA_CACHE_PATHS } from "../scripts";
import { appLabels, appSelector } from "../labels";

/** As types.ts has them (not imported: types.ts imports this file's plan type). */
type EnvMap = Record<string, string>;
type OsloSetting = [string, string, string];

/** One IPA the cache holds: its architecture, version key and the downloader's environment. */
export interface IpaVersion {
    architecture: IpaArchitecture;
    key: string;
    env: EnvMap;
}

/** What every mode has: names, the URLs Ironic and BMO get, Ironic's settings for them. */
interface ImageCacheCommon {
    names: { workload: string; service: string; pvc: string; scriptsConfigMap: string; tlsSecret: string; caSecret: string; clientConfigMap: string };
    labels: Record<string, string>;
    selector: Record<string, string>;
    serviceDnsNames: string[];
    architectures: IpaArchitecture[];
    /** The architecture of the plain DEPLOY_KERNEL_URL / deploy_kernel: x86_64 when cached, else the first. */
    defaultArchitecture?: IpaArchitecture;
    kernelUrls: PerArch;
    ramdiskUrls: PerArch;
    /** Where the Ironic pods read the cache's CA (key ca.crt); absent: Ironic's default trust. `pem`: imageCache.caPem, the Secret's content the stack writes. */
    ca?: { secretName: string; userOwned: boolean; pem?: string };
    oslo: OsloSetting[];
    bmoEnv: Record<string, string>;
    /**
     * Mode deploy with a conductor CA that is an intermediate of the stack CA (multi, tls.mode
     * generate): its key is in the cluster (conductors mint from it) and could forge a cache
     * certificate of the stack CA, so the cache's certificate comes from a root of its own, which
     * only the conductors' cache client trusts. False otherwise (the stack CA, whose key never
     * leaves Pulumi's state, signs it; or no cache here).
     */
    ownRoot: boolean;
}

/** The cache's volume claim (imageCache.storageSize, storageClass) and what is kept when the stack goes (retainOnDelete, protect). */
export interface ImageCacheStorage {
    size: string;
    class?: string;
    retainOnDelete: boolean;
    protect: boolean;
}

/**
 * Where the conductors get IPA, by imageCache.mode: "deploy", this stack's cache (its URL, port,
 * storage and one version per architecture); "external", another stack's cache at `url`; "none",
 * the user's kernel and ramdisk URLs.
 */
export type ImageCachePlan = ImageCacheCommon &
    (
        | { mode: "deploy"; url: string; port: number; storage: ImageCacheStorage; versions: IpaVersion[] }
        | { mode: "external"; url: string }
        | { mode: "none" }
    );


const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

export function cacheImageUrl(base: string, arch: IpaArchitecture, kind: "kernel" | "initramfs" | "sha256"): string {
    return `${base.replace(/\/+$/, "")}/images/ironic-python-agent_${arch}.${kind}`;
}

/** `base`: the downloader's environment as env.ts builds it (ipaDownloaderEnv: the IPA settings, proxies). */
function versions(config: StackConfig, base: EnvMap): IpaVersion[] {
    const c = config.imageCache;
    return c.ipa.map((e) => {
        const selects = { image: config.images.ipaDownloader, architecture: e.architecture, baseUri: e.baseUri, branch: e.branch, flavor: e.flavor, filename: e.filename, minimumModificationTime: c.minimumModificationTime, sha256: e.sha256 };
        const key = sha256(JSON.stringify(selects));
        const env: EnvMap = { ...base, [ENV.ipaArch]: e.architecture, [IPA_CACHE_ENV.key]: key, [IPA_CACHE_ENV.dir]: IPA_CACHE_PATHS.data };
        // Per architecture, not the shared ironic.ipa values the base carries (entries inherit them).
        for (const [name, v] of [[ENV.ipaBaseUri, e.baseUri], [ENV.ipaBranch, e.branch], [ENV.ipaFlavor, e.flavor], [ENV.ipaFilename, e.filename]] as const) {
            if (v) env[name] = v;
            else delete env[name];
        }
        // Each run gets its own SHARED_DIR from the sync script (a temporary directory on the volume).
        delete env[ENV.sharedDir];
        if (c.minimumModificationTime) env[IPA_CACHE_ENV.minMtime] = c.minimumModificationTime;
        if (e.sha256) env[IPA_CACHE_ENV.sha256] = e.sha256;
        return { architecture: e.architecture, key, env };
    });
}

/** Cache URL, architectures and per-architecture image URLs: what Ironic and BMO are given (config alone). */
export function imageCacheUrls(config: StackConfig) {
    const c = config.imageCache;
    const cacheName = `${config.name}-ipa-cache`;
    const serviceDnsNames = [cacheName, `${cacheName}.${config.namespace}`, `${cacheName}.${config.namespace}.svc`, `${cacheName}.${config.namespace}.svc.${config.clusterDomain}`];
    const url = c.mode === "deploy" ? urlOf("https", serviceDnsNames[2], c.port) : c.mode === "external" ? c.url!.replace(/\/+$/, "") : undefined;
    const architectures = (url ? c.ipa.map((e) => e.architecture) : IPA_ARCHITECTURES.filter((a) => c.kernelUrl[a] !== undefined)).slice();
    const kernelUrls: PerArch = {};
    const ramdiskUrls: PerArch = {};
    for (const a of architectures) {
        kernelUrls[a] = url ? cacheImageUrl(url, a, "kernel") : c.kernelUrl[a];
        ramdiskUrls[a] = url ? cacheImageUrl(url, a, "initramfs") : c.ramdiskUrl[a];
    }
    const defaultArchitecture: IpaArchitecture | undefined = architectures.includes("x86_64") ? "x86_64" : architectures[0];
    const hasCa = c.mode === "deploy" || c.caSecret !== undefined || c.caPem !== undefined;
    return { cacheName, serviceDnsNames, url, architectures, defaultArchitecture, kernelUrls, ramdiskUrls, hasCa };
}

/** Ironic's settings for the deploy images (env.ts adds them to the OS_* overrides, before the user's). */
export function imageCacheOsloSettings(config: StackConfig): OsloSetting[] {
    const u = imageCacheUrls(config);
    return osloFor(u.architectures, u.defaultArchitecture, u.kernelUrls, u.ramdiskUrls, u.hasCa);
}

export function planImageCache(config: StackConfig, downloaderEnv: EnvMap, conductorCaIsIntermediate: boolean): ImageCachePlan {
    const c = config.imageCache;
    const u = imageCacheUrls(config);
    const cacheName = u.cacheName;
    const names = {
        workload: cacheName,
        service: cacheName,
        pvc: `${cacheName}-data`,
        scriptsConfigMap: `${cacheName}-scripts`,
        tlsSecret: `${cacheName}-tls`,
        caSecret: c.caSecret ?? `${cacheName}-ca`,
        clientConfigMap: `${cacheName}-client`,
    };
    const common: ImageCacheCommon = {
        names,
        labels: appLabels("ipa-cache", config.name),
        selector: appSelector("ipa-cache", config.name),
        serviceDnsNames: u.serviceDnsNames,
        architectures: u.architectures,
        ...(u.defaultArchitecture ? { defaultArchitecture: u.defaultArchitecture } : {}),
        kernelUrls: u.kernelUrls,
        ramdiskUrls: u.ramdiskUrls,
        // With tls.mode "cert-manager" the cache's own Secret carries the issuer's CA (ca.crt).
        ...(u.hasCa ? { ca: { secretName: c.mode === "deploy" && config.tls.mode === "cert-manager" ? names.tlsSecret : names.caSecret, userOwned: c.caSecret !== undefined, ...(c.caPem !== undefined ? { pem: c.caPem } : {}) } } : {}),
        oslo: imageCacheOsloSettings(config),
        bmoEnv: bmoDeployEnv(u.architectures, u.defaultArchitecture, u.kernelUrls, u.ramdiskUrls),
        ownRoot: c.mode === "deploy" && conductorCaIsIntermediate,
    };
    switch (c.mode) {
        case "deploy": {
            const storage: ImageCacheStorage = { size: c.storageSize, ...(c.storageClass ? { class: c.storageClass } : {}), retainOnDelete: c.retainOnDelete, protect: c.protect };
            return { ...common, mode: "deploy", url: u.url!, port: c.port, storage, versions: versions(config, downloaderEnv) };
        }
        case "external":
            return { ...common, mode: "external", url: u.url! };
        case "none":
            return { ...common, mode: "none" };
    }
}

/** Ironic: the default and per-architecture deploy images, and the CA bundle that verifies their URLs. */
function osloFor(arches: IpaArchitecture[], def: IpaArchitecture | undefined, kernel: PerArch, ramdisk: PerArch, hasCa: boolean): OsloSetting[] {
    if (!def) return [];
    const byArch = (m: PerArch) => arches.map((a) => `${a}:${m[a]}`).join(",");
    const o = DEPLOY_IMAGE_OPTIONS;
    const out: OsloSetting[] = [
        [...o.kernel, kernel[def]!],
        [...o.ramdisk, ramdisk[def]!],
        [...o.kernelByArch, byArch(kernel)],
        [...o.ramdiskByArch, byArch(ramdisk)],
    ];
    if (hasCa) out.push([...o.verifyCa, IPA_CACHE_PATHS.trustFile]);
    return out;
}

/**
 * BMO: the plain variables name the default architecture; `DEPLOY_*_URL_<ARCH>` each one. BMO v0.13
 * gives every host the plain ones; it reads the per-architecture ones first only when it builds
 * PreprovisioningImages (`--build-preprov-image`, pkg/imageprovider/default.go).
 */
function bmoDeployEnv(arches: IpaArchitecture[], def: IpaArchitecture | undefined, kernel: PerArch, ramdisk: PerArch): Record<string, string> {
    if (!def) return {};
    const env: Record<string, string> = { [BMO_DEPLOY_ENV.kernel]: kernel[def]!, [BMO_DEPLOY_ENV.ramdisk]: ramdisk[def]! };
    for (const a of arches) {
        env[`${BMO_DEPLOY_ENV.kernel}_${a.toUpperCase()}`] = kernel[a]!;
        env[`${BMO_DEPLOY_ENV.ramdisk}_${a.toUpperCase()}`] = ramdisk[a]!;
    }
    return env;
}
