/**
 * The extra CA bundle of the IPA downloads (trust.extraCaBundle) in a pod: the user's ConfigMap
 * or Secret key projected read-only, and a start command that writes the system bundle plus the
 * extra one into the container's /tmp before it runs the downloader, where the CA-bundle
 * variables of core/plan/downloads.ts point. Any downloader container (the Ironic pod's init
 * container, an image cache) takes all three from here: `downloadTrustVolumes` for the pod and
 * `withDownloadTrust` for the container, whose /tmp must be writable (an emptyDir).
 */
import type { TrustPlan } from "../plan/trust";
import { IPA_DOWNLOADER } from "../contract";
import { EXTRA_CA } from "../scripts";
import type { Container } from "./meta";
import { fromSecret, readOnlyMount } from "./volumes";
import type { Volume, VolumeMount } from "./volumes";

const VOLUME = "extra-ca";

/** The pod volume of the extra bundle (none without trust.extraCaBundle). */
export function downloadTrustVolumes(trust: TrustPlan): Volume[] {
    const b = trust.extraCaBundle;
    if (!b) return [];
    const items = [{ key: b.key, path: EXTRA_CA.file }];
    return [b.kind === "secret" ? fromSecret(VOLUME, b.name, { items: [[b.key, EXTRA_CA.file]] }) : { name: VOLUME, configMap: { name: b.name, items } }];
}

export function downloadTrustMounts(trust: TrustPlan): VolumeMount[] {
    return trust.extraCaBundle ? [readOnlyMount(VOLUME, EXTRA_CA.mountDir)] : [];
}

/**
 * `sh -c` script: the first system bundle the image has, a newline (a bundle without a final one
 * would glue two PEM lines), then the extra bundle, written atomically; then exec "$@". An image
 * without a system bundle trusts the extra one only, and says so.
 */
export const COMBINE_CA_SCRIPT = [
    "set -eu",
    'system=""',
    `for f in ${IPA_DOWNLOADER.systemCaBundles.join(" ")}; do if [ -r "$f" ]; then system="$f"; break; fi; done`,
    'if [ -z "$system" ]; then echo "metal3-ironic: no system CA bundle in this image: trusting trust.extraCaBundle only" >&2; fi',
    `{ if [ -n "$system" ]; then cat "$system"; echo; fi; cat ${EXTRA_CA.mountDir}/${EXTRA_CA.file}; } > ${EXTRA_CA.combined}.tmp`,
    `mv ${EXTRA_CA.combined}.tmp ${EXTRA_CA.combined}`,
    'exec "$@"',
].join("\n");

/**
 * The container with the extra bundle: mounted, combined at start, then `argv` (default: its own
 * command + args, else the downloader image's entrypoint). Unchanged without trust.extraCaBundle.
 */
export function withDownloadTrust(container: Container, trust: TrustPlan): Container {
    if (!trust.extraCaBundle) return container;
    const argv = container.command ? [...(container.command as string[]), ...((container.args as string[] | undefined) ?? [])] : [IPA_DOWNLOADER.entrypoint];
    const { args: _args, ...rest } = container;
    return {
        ...rest,
        command: ["/bin/sh", "-c", COMBINE_CA_SCRIPT, "combine-ca-bundle", ...argv],
        volumeMounts: [...((container.volumeMounts as VolumeMount[] | undefined) ?? []), ...downloadTrustMounts(trust)],
    };
}
