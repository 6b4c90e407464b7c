/**
 * The scripts that run in the pods, kept as real files under assets/ (so shellcheck and
 * py_compile can lint them, see test/unit/lint.test.ts) and shipped byte for byte in the scripts
 * ConfigMap under their file names (the dnsmasq start script with four words filled in, see
 * core/render/dnsmasq.ts); and the live readiness check, which runs where `pulumi up` runs
 * (core/plan/readiness.ts).
 *
 * Read at run time from the package's assets/ folder, the first one up from this module: from
 * the sources (core/render, run by ts-node) and from the build (dist/core/render, the published
 * package and `npm run plan`) alike; nothing is copied.
 */
import * as fs from "fs";
import * as path from "path";

import { CONDUCTOR_PATHS, DNSMASQ_START_SCRIPT, PRUNER_SCRIPT } from "../contract";
import { SLOT_AGENT_SCRIPT } from "../slot-agent";

/** The nearest `entry` in `from` or a folder above it. */
export function findUp(from: string, entry: string): string {
    for (let dir = from; ; dir = path.dirname(dir)) {
        if (fs.existsSync(path.join(dir, entry))) return path.join(dir, entry);
        if (path.dirname(dir) === dir) throw new Error(`no ${entry} in ${from} or any folder above it (a broken install of metal3-ironic)`);
    }
}

export const ASSETS_DIR = findUp(__dirname, "assets");

/**
 * The live readiness check (core/plan/readiness.ts): runs where `pulumi up` runs, not in a pod,
 * so it is no key of the scripts ConfigMap.
 */
export const READINESS_SCRIPT = "ironic-readiness.py";

/** The pod scripts; their names are also their keys in the scripts ConfigMap. */
export type PodAssetName = typeof CONDUCTOR_PATHS.wrapper | typeof CONDUCTOR_PATHS.certMinter | typeof CONDUCTOR_PATHS.addressFinder | typeof PRUNER_SCRIPT | typeof DNSMASQ_START_SCRIPT | typeof SLOT_AGENT_SCRIPT;

/** Single without keepalived: the init container's check that the node holds provisioning.ip (given inline to bash). */
export const PROVISIONING_IP_CHECK = "provisioning-ip-check.sh";

/** The IPA image cache's scripts (core/plan/image-cache.ts IPA_CACHE_SCRIPTS), in their own ConfigMaps. */
export type IpaCacheAssetName = "ipa-cache-sync.sh" | "ipa-cache-server.py" | "ipa-cache-client.sh";

/** keepalived with a VRRP router id or password: writes the image's template first (given inline to bash, core/keepalived.ts). */
export const KEEPALIVED_START_SCRIPT = "keepalived-start.sh";

export type AssetName = PodAssetName | typeof READINESS_SCRIPT | typeof PROVISIONING_IP_CHECK | typeof KEEPALIVED_START_SCRIPT | IpaCacheAssetName;

export const ASSET_NAMES: readonly PodAssetName[] = [CONDUCTOR_PATHS.wrapper, CONDUCTOR_PATHS.certMinter, CONDUCTOR_PATHS.addressFinder, PRUNER_SCRIPT, DNSMASQ_START_SCRIPT, SLOT_AGENT_SCRIPT];

/** The exact content of `assets/<name>`. */
export function readAsset(name: AssetName): string {
    return fs.readFileSync(path.join(ASSETS_DIR, name), "utf8");
}
