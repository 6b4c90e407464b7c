/**
 * Fetching a baremetal-operator release (core/bmo-release.ts) from a Go module proxy, with a
 * local cache. The zip is verified against its pinned `h1:` before anything is used or cached, so
 * the cache only ever holds releases that were once proven right, and is checked again on every
 * read (a cache is a file anyone can edit, and disks do rot).
 */
import { randomBytes } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { fileURLToPath } from "url";

import { BMO_MODULE, type ZipFile, escapeModulePath, goProxyZipUrl, hash1, releaseConfig, unzipFiles } from "../core/bmo-release";

export interface BmoReleaseOptions {
    /** The BMO release (a Go module version, `v0.13.2`); config key bmo.version. */
    version: string;
    /** Its go.sum hash, `h1:…`; config key bmo.checksum. */
    h1: string;
    /** A Go module proxy: `https://proxy.golang.org`, or `file:///…` for a directory laid out like one; config key bmo.goproxy. */
    goproxy: string;
    /** Where verified zips are kept; default bmoCacheDir(). */
    cacheDir?: string;
}

export interface BmoRelease {
    /** The release's `config/` tree by path below `config/` (releaseConfig). */
    config: Map<string, string>;
    /** Where the zip came from: the cache file or the proxy URL (with a note if it could not be cached). */
    source: string;
}

/** How long a download may take, all of it (connection, redirects, body). */
const DOWNLOAD_TIMEOUT_MS = 60_000;
/**
 * The most a module zip may weigh before it is refused unread (v0.13.2's is 1.3 MB): the hash is
 * known only once it is all read, so a proxy that sends without end must not fill the memory first.
 */
export const MAX_ZIP_BYTES = 64 * 1024 * 1024;

/** The cache root: $METAL3_IRONIC_CACHE, else $XDG_CACHE_HOME/metal3-ironic, else ~/.cache/metal3-ironic. */
export function bmoCacheDir(env: NodeJS.ProcessEnv = process.env): string {
    if (env.METAL3_IRONIC_CACHE) return env.METAL3_IRONIC_CACHE;
    return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "metal3-ironic");
}

/** Messages are one line: a multi-line cause would be cut off in Pulumi's diagnostics. */
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

/** The release from the cache, or a download; see the module comment for what is verified when. */
export async function loadBmoRelease(o: BmoReleaseOptions): Promise<BmoRelease> {
    const cacheFile = path.join(o.cacheDir ?? bmoCacheDir(), "bmo", `${escapeModulePath(BMO_MODULE)}@${escapeModulePath(o.version)}.zip`);
    const cached = readCached(cacheFile, o.h1);
    if (cached) return { config: releaseConfig(cached, BMO_MODULE, o.version), source: cacheFile };

    const url = goProxyZipUrl(o.goproxy, BMO_MODULE, o.version);
    const zip = await download(url);
    let files: ZipFile[];
    try {
        files = unzipFiles(zip);
    } catch (e) {
        throw new Error(oneLine(`${url} is not a usable module zip (${(e as Error).message}); point bmo.goproxy at a Go module proxy that serves ${BMO_MODULE}`));
    }
    const got = hash1(files);
    if (got !== o.h1) {
        throw new Error(`checksum mismatch for ${BMO_MODULE}@${o.version} from ${url}: expected ${o.h1} (bmo.checksum), got ${got}; nothing was cached. If bmo.version was changed, set bmo.checksum to its go.sum h1: line`);
    }
    const config = releaseConfig(files, BMO_MODULE, o.version);
    const notCached = writeAtomically(cacheFile, zip);
    return { config, source: notCached ? `${url} (not cached: ${notCached})` : url };
}

/** The cached zip's files if it exists and still has the expected hash; anything else is a miss. */
function readCached(file: string, h1: string): ZipFile[] | undefined {
    try {
        const files = unzipFiles(fs.readFileSync(file));
        return hash1(files) === h1 ? files : undefined;
    } catch {
        return undefined;
    }
}

/**
 * Write through a temporary name in the same directory and rename, so a crash or a concurrent
 * run never sees half a zip under the real name. A cache that cannot be written (read-only home,
 * full disk) costs a download next time, not this deployment: the reason is returned, not thrown.
 */
function writeAtomically(file: string, data: Uint8Array): string | undefined {
    const tmp = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
    try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(tmp, data);
        fs.renameSync(tmp, file);
        return undefined;
    } catch (e) {
        fs.rmSync(tmp, { force: true });
        return oneLine((e as Error).message);
    }
}

/** The bytes at `url` (http, https or file); a failure says where, why, and which key to change. */
async function download(url: string): Promise<Uint8Array> {
    const fail = (reason: string) =>
        new Error(
            oneLine(
                `cannot download ${BMO_MODULE} from ${url}: ${reason}; set bmo.goproxy to a reachable Go module proxy (https://…), or to file:///… for a directory laid out like one (e.g. a Go module cache's cache/download)`,
            ),
        );
    let scheme: string;
    try {
        scheme = new URL(url).protocol;
    } catch {
        throw fail("not a URL");
    }
    if (scheme === "file:") {
        let size: number;
        try {
            size = fs.statSync(fileURLToPath(url)).size;
        } catch (e) {
            throw fail((e as Error).message);
        }
        if (size > MAX_ZIP_BYTES) throw fail(`${size} bytes, more than a module zip of ${MAX_ZIP_BYTES} bytes at most`);
        try {
            return fs.readFileSync(fileURLToPath(url));
        } catch (e) {
            throw fail((e as Error).message);
        }
    }
    if (scheme !== "http:" && scheme !== "https:") throw fail(`unsupported scheme ${scheme} (only https://, http:// and file:// are)`);
    let res: Response;
    try {
        res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    } catch (e) {
        throw fail(fetchReason(e));
    }
    if (!res.ok) {
        const hint = res.status === 404 || res.status === 410 ? " (the proxy does not have this version: check bmo.version)" : "";
        throw fail(`HTTP ${res.status} ${res.statusText}${hint}`);
    }
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > MAX_ZIP_BYTES) throw fail(`it announces ${declared} bytes, more than a module zip of ${MAX_ZIP_BYTES} bytes at most`);
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
        for await (const chunk of res.body ?? []) {
            total += chunk.length;
            if (total > MAX_ZIP_BYTES) throw Object.assign(new Error(`more than ${MAX_ZIP_BYTES} bytes, more than a module zip weighs`), { tooBig: true });
            chunks.push(chunk);
        }
    } catch (e) {
        throw fail((e as { tooBig?: boolean }).tooBig ? (e as Error).message : fetchReason(e));
    }
    return Buffer.concat(chunks);
}

/** What went wrong in a fetch: undici hides the useful part (ECONNREFUSED, ENOTFOUND, TLS) in `cause`. */
function fetchReason(e: unknown): string {
    if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return `no complete answer within ${DOWNLOAD_TIMEOUT_MS / 1000} s`;
    const cause = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
    if (cause instanceof Error) return cause.message || String(cause);
    return e instanceof Error ? e.message : String(e);
}
