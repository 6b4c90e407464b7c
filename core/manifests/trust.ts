/**
 * Ironic's own trust in the Ironic pods (trust.bmcCa, trust.trustedCa; core/plan/trust.ts): the
 * user's ConfigMap or Secret key mounted read-only where the image expects it, an init container
 * that writes each bundle (the image's default bundle + the user's CAs) into an emptyDir before
 * Ironic starts, and a small sidecar running the same script in watch mode, which rewrites a
 * bundle when the kubelet updates a mounted CA. Ironic reads the bundle file at each new TLS
 * connection, so a rotated CA applies without restarting any container.
 */
import type { CaSource } from "../config/types";
import { COMMANDS, IRONIC_TRUST } from "../contract";
import type { TrustBundle } from "../plan/trust";
import type { IronicPlan } from "../plan/types";
import type { Container } from "./meta";
import { containerResources, restrictedSecurityContext, sortedEnv } from "./meta";
import { fromEmptyDir, fromSecret, mount, readOnlyMount } from "./volumes";
import type { Volume, VolumeMount } from "./volumes";
import { IPA_CACHE_PATHS, TRUST_ENV, TRUST_PATHS } from "../scripts";

/** Seconds between two checks of the mounted CAs in watch mode. */
export const TRUST_WATCH_INTERVAL = 10;

/**
 * `bash -c` script. CA_BUNDLES: a line `<output> <input>...` per bundle. Each output is written
 * atomically (rename): requests' default bundle in this image (exactly what verify=True trusts),
 * then each input. An input without a PEM certificate fails the start (init) or keeps the previous
 * bundle (watch), naming the file. `--watch`: check the inputs every CA_BUNDLES_INTERVAL seconds
 * and rebuild when their content changed.
 */
export const CA_BUNDLES_SCRIPT = [
    "set -euo pipefail",
    "log() { printf 'ca-bundles: %s\\n' \"$*\" >&2; }",
    `system=$(${COMMANDS.python} -c 'import requests.certs; print(requests.certs.where())')`,
    "build() {",
    '    local out=$1 f; shift',
    '    for f in "$@"; do',
    "        if ! grep -q -e '-----BEGIN CERTIFICATE-----' \"$f\" 2>/dev/null; then log \"$f holds no PEM certificate: $out not written\"; return 1; fi",
    "    done",
    '    { cat "$system"; echo; for f in "$@"; do cat "$f"; echo; done; } > "$out.tmp"',
    '    mv -f "$out.tmp" "$out"',
    '    log "$out: $system + $*"',
    "}",
    "all() {",
    "    local rc=0 line w",
    '    while IFS= read -r line; do read -r -a w <<< "$line"; [ "${#w[@]}" -lt 2 ] || build "${w[@]}" || rc=1; done <<< "$CA_BUNDLES"',
    "    return $rc",
    "}",
    "inputs() {",
    "    local line w",
    '    while IFS= read -r line; do read -r -a w <<< "$line"; [ "${#w[@]}" -lt 2 ] || cat "${w[@]:1}" 2>/dev/null || true; done <<< "$CA_BUNDLES"',
    "}",
    'if [ "${1:-}" != --watch ]; then all; exit; fi',
    "trap 'exit 0' TERM INT",
    "last=$(inputs | sha256sum)",
    "while :; do",
    '    sleep "${CA_BUNDLES_INTERVAL:-10}" & wait $!',
    "    now=$(inputs | sha256sum)",
    '    [ "$now" != "$last" ] || continue',
    '    last=$now',
    '    all || log "kept the previous bundle of each input above"',
    "done",
].join("\n");

const BUNDLES_VOLUME = "ca-bundles";

function caVolume(name: string, source: CaSource): Volume {
    return source.kind === "secret" ? fromSecret(name, source.name, { items: [source.key] }) : { name, configMap: { name: source.name, items: [{ key: source.key, path: source.key }] } };
}

/** `CA_BUNDLES`: a line per bundle. */
function trustBundlesSpec(bundles: TrustBundle[]): string {
    return bundles.map((b) => [b.output, ...b.inputs].join(" ")).join("\n");
}

/** What the Ironic pods get for trust.bmcCa/trustedCa (absent without both). */
export interface IronicTrust {
    initContainer: Container;
    sidecar: Container;
    volumes: Volume[];
    ironicMounts: VolumeMount[];
}

export function ironicTrust(plan: IronicPlan): IronicTrust | undefined {
    const { bundles, bmcCa, trustedCa } = plan.trust;
    if (bundles.length === 0) return undefined;
    const volumes: Volume[] = [fromEmptyDir(BUNDLES_VOLUME)];
    const caMounts: VolumeMount[] = [];
    if (bmcCa) {
        volumes.push(caVolume("bmc-ca", bmcCa));
        caMounts.push(readOnlyMount("bmc-ca", IRONIC_TRUST.bmcCaDir));
    }
    if (trustedCa) {
        volumes.push(caVolume("trusted-ca", trustedCa));
        caMounts.push(readOnlyMount("trusted-ca", IRONIC_TRUST.trustedCaDir));
    }
    // The IPA cache's CA volume belongs to the cache client (core/manifests/image-cache.ts).
    const cacheCa = bundles.some((b) => b.inputs.some((i) => i.startsWith(`${IPA_CACHE_PATHS.caDir}/`))) ? [readOnlyMount("ipa-cache-ca", IPA_CACHE_PATHS.caDir)] : [];
    const container = (name: string, args: string[]): Container => ({
        name,
        image: plan.images.ironic,
        command: [COMMANDS.shell, "-c", CA_BUNDLES_SCRIPT, "ca-bundles", ...args],
        env: sortedEnv({ [TRUST_ENV.bundles]: trustBundlesSpec(bundles), ...(args.length > 0 ? { [TRUST_ENV.interval]: String(TRUST_WATCH_INTERVAL) } : {}) }),
        securityContext: restrictedSecurityContext(),
        volumeMounts: [mount(BUNDLES_VOLUME, TRUST_PATHS.bundlesDir), ...caMounts, ...cacheCa],
        resources: containerResources(plan, "caBundles"),
    });
    return {
        initContainer: container("ca-bundles", []),
        sidecar: container("ca-bundles-watch", ["--watch"]),
        volumes,
        ironicMounts: [readOnlyMount(BUNDLES_VOLUME, TRUST_PATHS.bundlesDir), ...caMounts],
    };
}
