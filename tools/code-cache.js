/**
 * A V8 code cache for the CommonJS modules a tool loads (tools/launch.js installs it): most of
 * `npm run plan`'s start is V8 compiling the same 600 modules (the Pulumi SDK, zod, yaml, our
 * build) on every run. The first run records, for each module, the code V8 compiled for it
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
 * File format: "m3i-code-cache 1 <node version> <arch>\n", a JSON index line
 * ({filename: [sha256, offset, length]}), then the cached data, concatenated.
 */
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const Module = require("module");

const MAIN = require.main;
const HEADER = `m3i-code-cache 1 ${process.version} ${process.arch}\n`;

/** The entries of a cache file: filename → {hash, data}; none when it is missing, torn or of another node. */
function read(file) {
    const entries = new Map();
    let blob;
    try {
        blob = fs.readFileSync(file);
    } catch {
        return entries;
    }
    try {
        if (blob.toString("latin1", 0, HEADER.length) !== HEADER) return entries;
        const nl = blob.indexOf(10, HEADER.length);
        const index = JSON.parse(blob.toString("utf8", HEADER.length, nl));
        const base = nl + 1;
        for (const [name, [hash, offset, length]] of Object.entries(index)) {
            if (base + offset + length > blob.length) return new Map();
            entries.set(name, { hash, data: blob.subarray(base + offset, base + offset + length) });
        }
    } catch {
        return new Map();
    }
    return entries;
}

function write(file, entries) {
    const index = {};
    let offset = 0;
    const parts = [];
    for (const [name, { hash, data }] of entries) {
        index[name] = [hash, offset, data.length];
        offset += data.length;
        parts.push(data);
    }
    const tmp = `${file}.${process.pid}.tmp`;
    try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(HEADER + JSON.stringify(index) + "\n"), ...parts]));
        fs.renameSync(tmp, file);
    } catch {
        // A cache that cannot be written (read-only checkout) only costs the next run its speed.
        fs.rmSync(tmp, { force: true });
    }
}

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
 * Compile the modules loaded from now on with the cache in `file`; `stats` (optional) counts
 * hits and misses. Returns nothing; the cache is written at exit when a module missed.
 */
function install(file, stats = { hits: 0, misses: 0 }) {
    if (process.env.NO_CODE_CACHE) return stats;
    const entries = read(file);
    const fresh = [];
    const compile = Module.prototype._compile;
    Module.prototype._compile = function (content, filename, format) {
        if (format !== undefined && format !== "commonjs") return compile.apply(this, arguments);
        const hash = crypto.createHash("sha256").update(content).digest("base64");
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
        if (process.env.CODE_CACHE_STATS) process.stderr.write(`code cache: ${stats.hits} hits, ${stats.misses} misses (${file})\n`);
        if (fresh.length === 0) return;
        for (const { filename, hash, script } of fresh) entries.set(filename, { hash, data: script.createCachedData() });
        write(file, entries);
    });
    return stats;
}

module.exports = { install, read };
