/**
 * The scripts that run in the pods, kept as real files under assets/ (so shellcheck and
 * py_compile can lint them, see test/unit/lint.test.ts) and shipped byte for byte in the scripts
 * ConfigMap under their file names (the dnsmasq start script with four words filled in, see
 * core/render/dnsmasq.ts), in the IPA cache's ConfigMaps, inline in a container's command, or to
 * the live readiness check where `pulumi up` runs (core/plan/readiness.ts): core/scripts.ts says
 * which, and what each reads.
 *
 * Read at run time from the package's assets/ folder, the first one up from this module: from
 * the sources (core/render, run by ts-node) and from the build (dist/core/render, the published
 * package and `npm run plan`) alike; nothing is copied.
 */
import * as fs from "fs";
import * as path from "path";

import { type AssetName, SCRIPT_FILES, SCRIPTS, type ScriptRole } from "../scripts";

export type { AssetName };

/** The nearest `entry` in `from` or a folder above it. */
export function findUp(from: string, entry: string): string {
    for (let dir = from; ; dir = path.dirname(dir)) {
        if (fs.existsSync(path.join(dir, entry))) return path.join(dir, entry);
        if (path.dirname(dir) === dir) throw new Error(`no ${entry} in ${from} or any folder above it (a broken install of metal3-ironic)`);
    }
}

export const ASSETS_DIR = findUp(__dirname, "assets");

/** The scripts of the scripts ConfigMap; their names are also their keys there. */
export const ASSET_NAMES: readonly AssetName[] = (Object.keys(SCRIPTS) as ScriptRole[]).filter((r) => SCRIPTS[r].shipped === "scripts").map((r) => SCRIPT_FILES[r]);

/** The exact content of `assets/<name>`. */
export function readAsset(name: AssetName): string {
    return fs.readFileSync(path.join(ASSETS_DIR, name), "utf8");
}
