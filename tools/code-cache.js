/**
 * A V8 code cache for the CommonJS modules a tool loads (tools/launch.js installs it): most of
 * `npm run plan`'s start was V8 compiling the same 360 modules (the Pulumi SDK, zod, yaml, our
 * build) on every run, and Node searching for them (cacheResolution below). The first run records, for each module, the code V8 compiled for it
 * (`vm.Script#createCachedData` at exit, so the functions the run called are in it, not only the
 * top level); later runs hand it back to V8, which then skips parsing and compiling.
 *
 * It can never run stale code: an entry is used only for a module whose source has the SHA-256
 * recorded with it (any edit, rebuild or `npm ci` that changes a file misses), and V8 itself
 * rejects data of another V8 version or other flags. A miss or a rejection compiles the module
 * as usual and rewrites the cache at exit (atomically: a temporary file renamed, so concurrent
 * runs never read a torn one). NO_CODE_CACHE=1 runs without it; CODE_CACHE_STATS=1 prints its hits
 * and misses at exit.
 *
 * File format: "m3i-code-cache 2 <node version> <arch>\n", a JSON index line ({modules:
 * {filename: [sha256, offset, length]}, resolved: {stamp, paths}}), then the cached data.
 */
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const Module = require("module");

const MAIN = require.main;
const HEADER = `m3i-code-cache 2 ${process.version} ${process.arch}\n`;

/**
 * A cache file: `entries`, filename → {hash, data}, and `resolved`, what each require() resolved
 * to, with the `stamp` it holds for; empty when the file is missing, torn or of another node.
 */
function read(file) {
    const empty = { entries: new Map(), resolved: { stamp: "", paths: {} } };
    let blob;
    try {
        blob = fs.readFileSync(file);
        if (blob.toString("latin1", 0, HEADER.length) !== HEADER) return empty;
        const nl = blob.indexOf(10, HEADER.length);
        const { modules, resolved } = JSON.parse(blob.toString("utf8", HEADER.length, nl));
        const entries = new Map();
        const base = nl + 1;
        for (const [name, [hash, offset, length]] of Object.entries(modules)) {
            if (base + offset + length > blob.length) return empty;
            entries.set(name, { hash, data: blob.subarray(base + offset, base + offset + length) });
        }
        return { entries, resolved };
    } catch {
        return empty;
    }
}

function write(file, { entries, resolved }) {
    const modules = {};
    let offset = 0;
    const parts = [];
    for (const [name, { hash, data }] of entries) {
        modules[name] = [hash, offset, data.length];
        offset += data.length;
        parts.push(data);
    }
    const tmp = `${file}.${process.pid}.tmp`;
    try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(HEADER + JSON.stringify({ modules, resolved }) + "\n"), ...parts]));
        fs.renameSync(tmp, file);
    } catch {
        // A cache that cannot be written (read-only checkout) only costs the next run its speed.
        fs.rmSync(tmp, { force: true });
    }
}

// One call per module: crypto.hash (Node >= 20.12) spares a Hash object each.
const sha256 = crypto.hash ? (text) => crypto.hash("sha256", text, "base64") : (text) => crypto.createHash("sha256").update(text).digest("base64");

/** The `require` a module's body is handed, as Node makes it (module.require, resolve, cache, main). */
function requireOf(mod) {
    const require = (id) => mod.require(id);
    require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
    require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
    require.main = MAIN;
    require.extensions = Module._extensions;
    require.cache = Module._cache;
    return require;
}

/**
 * What each require() of a module resolves to (a file), as the last run found it: Node's search
 * (stat calls, package.json "main" and "exports", realpath) is skipped when `stamp` is the one it
 * was recorded with. The launcher's stamp names the build of dist/ and npm's record of the
 * installed node_modules (node_modules/.package-lock.json), so a rebuild or an install drops it.
 */
function cacheResolution(cache, stamp, changed) {
    if (cache.resolved.stamp !== stamp) cache.resolved = { stamp, paths: {} };
    const paths = cache.resolved.paths;
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, parent, isMain, options) {
        if (isMain || options !== undefined || !parent || !parent.filename) return resolve.apply(this, arguments);
        const key = `${parent.path}\0${request}`;
        const known = paths[key];
        if (known !== undefined) return known;
        const found = resolve.apply(this, arguments);
        if (path.isAbsolute(found)) {
            paths[key] = found;
            changed();
        }
        return found;
    };
}

/**
 * Compile the modules loaded from now on with the cache in `file`, and resolve their requires
 * with it while `stamp` is the same; `stats` counts hits and misses. The cache is written at exit
 * when a module missed or a require was resolved anew.
 */
function install(file, stamp, stats = { hits: 0, misses: 0 }) {
    if (process.env.NO_CODE_CACHE) return stats;
    const cache = read(file);
    const { entries } = cache;
    const fresh = [];
    let dirty = false;
    cacheResolution(cache, stamp, () => (dirty = true));
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (content, filename, format) {
        if (format !== undefined && format !== "commonjs") return compile.apply(this, arguments);
        const hash = sha256(content);
        const cached = entries.get(filename);
        const script = new vm.Script(Module.wrap(content), {
            filename,
            cachedData: cached && cached.hash === hash ? cached.data : undefined,
        });
        if (cached && cached.hash === hash && !script.cachedDataRejected) stats.hits++;
        else {
            stats.misses++;
            fresh.push({ filename, hash, script });
        }
        const fn = script.runInThisContext({ displayErrors: true });
        return Reflect.apply(fn, this.exports, [this.exports, requireOf(this), this, filename, path.dirname(filename)]);
    };
    process.once("exit", () => {
        if (process.env.CODE_CACHE_STATS) process.stderr.write(`code cache: ${stats.hits} hits, ${stats.misses} misses, ${Object.keys(cache.resolved.paths).length} resolutions${dirty ? " (new ones recorded)" : ""} (${file})\n`);
        if (fresh.length === 0 && !dirty) return;
        for (const { filename, hash, script } of fresh) entries.set(filename, { hash, data: script.createCachedData() });
        write(file, cache);
    });
    return stats;
}

module.exports = { install, read };
