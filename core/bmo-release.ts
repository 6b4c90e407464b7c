/**
 * baremetal-operator's release manifests (its `config/` tree), taken from the Go module zip of a
 * release. The Go module proxy is the one place that serves every BMO release immutably and with
 * a checksum we can pin (the go.sum `h1:` line), so the manifests we render are byte for byte the
 * ones upstream tagged, and a proxy, mirror or cache that hands us anything else is caught.
 *
 * Pure: bytes in, bytes or text out. Fetching and caching are components/bmo-release.ts.
 */
import { createHash } from "crypto";
import { unzipSync } from "fflate";

/** baremetal-operator's Go module path; also the prefix of every name in its module zips (`<module>@<version>/`). */
export const BMO_MODULE = "github.com/metal3-io/baremetal-operator";

/** The release bmo.enabled deploys by default, with its go.sum hash (Hash1 of the module zip); images.baremetalOperator's default tag. */
export const BMO_PINNED = { version: "v0.13.2", h1: "h1:XSkyBv4l1OvCL66b7T0FEUaGeS0zOjQKhot9V8zeZQc=" } as const;

/** One file of a module zip, named as in the zip. */
export interface ZipFile {
    name: string;
    data: Uint8Array;
}

/**
 * Ceiling on the declared uncompressed size of a zip, checked before anything is inflated: the
 * hash is only known after unzipping, so without it a hostile proxy could exhaust memory first.
 * The value is Go's own limit on an extracted module (500 MiB); a BMO release is about 2 MiB.
 */
const MAX_UNZIPPED_BYTES = 500 << 20;

/**
 * A module path or version as the GOPROXY protocol spells it in URLs and cache paths: uppercase
 * letters become `!` + lowercase, so that case-insensitive file systems and servers cannot
 * confuse two modules. `!` itself cannot occur in a valid path, so it is refused, not escaped.
 */
export function escapeModulePath(s: string): string {
    if (s.includes("!")) throw new Error(`invalid module path or version "${s}": "!" is not allowed`);
    return s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** Where a GOPROXY serves the zip of `module@version` (a trailing `/` on `proxy` is tolerated). */
export function goProxyZipUrl(proxy: string, module: string, version: string): string {
    return `${proxy.replace(/\/+$/, "")}/${escapeModulePath(module)}/@v/${escapeModulePath(version)}.zip`;
}

/** Go sorts names as byte strings; JavaScript's default sort compares UTF-16 units, which differs outside the BMP. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/**
 * Go's dirhash Hash1, the `h1:` of go.sum: a SHA-256 over one line `<hex sha256>  <name>\n` per
 * file, in name order. Hashing names with contents means a renamed or moved file changes the
 * hash as surely as an edited one. A name with a newline would let one line pose as two, so it
 * is an error (as in Go).
 */
export function hash1(files: readonly ZipFile[]): string {
    const summary = createHash("sha256");
    for (const f of [...files].sort((a, b) => byUtf8(a.name, b.name))) {
        if (f.name.includes("\n")) throw new Error(`hash1: file name contains a newline: ${JSON.stringify(f.name)}`);
        summary.update(`${createHash("sha256").update(f.data).digest("hex")}  ${f.name}\n`);
    }
    return `h1:${summary.digest("base64")}`;
}

/**
 * Every entry of a zip, in the zip's order, directory entries included (Go's HashZip hashes
 * whatever the zip holds, so leaving any out would change the hash). fflate keeps entries in an
 * object keyed by name, where a second entry of the same name would silently replace the first
 * and so escape the hash; such zips are refused, as the Go toolchain refuses them.
 */
export function unzipFiles(zip: Uint8Array): ZipFile[] {
    const seen = new Set<string>();
    let declared = 0;
    const entries = unzipSync(zip, {
        filter: (f) => {
            if (seen.has(f.name)) throw new Error(`zip has two entries named ${JSON.stringify(f.name)}`);
            seen.add(f.name);
            declared += f.originalSize;
            if (declared > MAX_UNZIPPED_BYTES) throw new Error(`zip unpacks to more than ${MAX_UNZIPPED_BYTES} bytes`);
            return true;
        },
    });
    return Object.entries(entries).map(([name, data]) => ({ name, data }));
}

/**
 * The release's `config/` tree, keyed by the path below `config/` (`base/manager.yaml`), in name
 * order, as text. `config/base/manager.yaml` is the one file every renderer of BMO needs; a zip
 * without it is not a BMO release (or upstream moved its manifests), and saying so here beats a
 * renderer failing later on a missing key.
 */
export function releaseConfig(files: readonly ZipFile[], module: string, version: string): Map<string, string> {
    const prefix = `${module}@${version}/config/`;
    const text = new TextDecoder("utf-8");
    const config = new Map<string, string>();
    const inConfig = files.filter((f) => f.name.startsWith(prefix) && !f.name.endsWith("/")).sort((a, b) => byUtf8(a.name, b.name));
    for (const f of inConfig) config.set(f.name.slice(prefix.length), text.decode(f.data));
    if (!config.has("base/manager.yaml")) {
        throw new Error(`the module zip of ${module}@${version} has no config/base/manager.yaml: not a baremetal-operator release with the expected layout (check bmo.version)`);
    }
    return config;
}
