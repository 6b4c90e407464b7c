/**
 * Ironic's own trust (trust.bmcCa, trust.trustedCa) as plain data: where the user's CAs are
 * mounted (the image's directories), the bundles the pod builds from them, and the OS_* overrides
 * that point Ironic at those bundles.
 *
 * Each bundle is the bundle requests trusts by default in the ironic image (what Ironic uses with
 * verify=True) followed by the user's CAs: the CAs are added, never in place of the system trust.
 * Pointing `[redfish]verify_ca` at the user's CA alone (what the image does with /certs/ca/bmc)
 * would make every BMC with a publicly signed certificate fail.
 */
import type { StackConfig } from "../config";
import type { CaSource } from "../config/types";
import { IRONIC_TRUST } from "../contract";
import { imageCacheUrls } from "./image-cache";
import { IPA_CACHE_PATHS, TRUST_PATHS } from "../scripts";

type OsloSetting = [string, string, string];

/** One bundle: the file written and the user's CA files appended to the system bundle. */
export interface TrustBundle {
    /** The config key it comes from (for messages and docs). */
    key: "trust.bmcCa" | "trust.trustedCa";
    output: string;
    inputs: string[];
}

/** The user's CA file as the pod mounts it: `<image dir>/<key>`. */
export function mountedCaFile(dir: string, source: CaSource): string {
    return `${dir}/${source.key}`;
}

/**
 * The bundles of this stack (none without trust.bmcCa and trust.trustedCa). With an IPA cache CA,
 * the trusted bundle also holds it: `[DEFAULT]webserver_verify_ca` is one file, and the conductors
 * fetch the deploy images from the cache with it.
 */
export function trustBundles(config: StackConfig): TrustBundle[] {
    const out: TrustBundle[] = [];
    const { bmcCa, trustedCa } = config.trust;
    if (bmcCa) out.push({ key: "trust.bmcCa", output: TRUST_PATHS.bmcBundle, inputs: [mountedCaFile(IRONIC_TRUST.bmcCaDir, bmcCa)] });
    if (trustedCa) {
        const inputs = [mountedCaFile(IRONIC_TRUST.trustedCaDir, trustedCa)];
        if (imageCacheUrls(config).hasCa) inputs.push(`${IPA_CACHE_PATHS.caDir}/${IPA_CACHE_PATHS.caKey}`);
        out.push({ key: "trust.trustedCa", output: TRUST_PATHS.trustedBundle, inputs });
    }
    return out;
}

/** Ironic's trust and the IPA downloads' (trust.*): the user's CAs and the bundles the pods build. */
export interface TrustPlan {
    bundles: TrustBundle[];
    bmcCa?: CaSource;
    trustedCa?: CaSource;
    /** The IPA downloads' extra bundle (core/manifests/downloads.ts). */
    extraCaBundle?: CaSource;
}

export function planTrust(config: StackConfig): TrustPlan {
    return { bundles: trustBundles(config), ...config.trust };
}

/** Ironic's settings for the bundles (env.ts adds them after the cache's, so they win). */
export function trustOsloSettings(config: StackConfig): OsloSetting[] {
    const out: OsloSetting[] = [];
    if (config.trust.bmcCa) out.push([...IRONIC_TRUST.bmcVerifyCa, TRUST_PATHS.bmcBundle]);
    if (config.trust.trustedCa) out.push([...IRONIC_TRUST.webserverVerifyCa, TRUST_PATHS.trustedBundle]);
    return out;
}
