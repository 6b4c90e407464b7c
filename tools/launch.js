#!/usr/bin/env node
/**
 * Runs a tool from its build: `node tools/launch.js plan ARGS...` runs dist/tools/plan.js.
 * Compiled JavaScript starts in a fraction of the time ts-node takes (`npm run plan` is the first
 * thing a newcomer runs, and GitOps pipelines run it per stack). The build is made, or made
 * again, first when it is missing or older than any source (index.ts, components/, core/,
 * tools/, the tsconfig files, package-lock.json), so an edited source is never run stale; two
 * launches at once build once (a lock file), and the other waits. Modules the tool does not use
 * are loaded on first use only (LAZY below), and V8 gets the code it compiled for each module on
 * an earlier run (tools/code-cache.js, checked against each module's source).
 */
"use strict";
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");

const ROOT = path.resolve(__dirname, "..");
const DIST = path.join(ROOT, "dist");
const STAMP = path.join(DIST, ".build-stamp");
const LOCK = path.join(ROOT, ".dist-build.lock");
const SOURCES = ["index.ts", "components", "core", "tools", "tsconfig.json", "tsconfig.build.json", "package-lock.json"];

/** Newest modification time (ms) among `p` and, for a folder, its .ts files. */
function newest(p) {
    let st;
    try {
        st = fs.statSync(p);
    } catch {
        return 0;
    }
    if (!st.isDirectory()) return st.mtimeMs;
    let m = 0;
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
        const q = path.join(p, e.name);
        if (e.isDirectory()) m = Math.max(m, newest(q));
        else if (e.name.endsWith(".ts")) m = Math.max(m, fs.statSync(q).mtimeMs);
    }
    return m;
}

function stale() {
    let built;
    try {
        built = fs.statSync(STAMP).mtimeMs;
    } catch {
        return true;
    }
    return SOURCES.some((s) => newest(path.join(ROOT, s)) > built);
}

function sleep(ms) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function build() {
    const started = Date.now();
    // Wait for another launch's build (a lock older than 10 minutes is a crashed one's).
    for (;;) {
        try {
            fs.closeSync(fs.openSync(LOCK, "wx"));
            break;
        } catch (e) {
            if (e.code !== "EEXIST") throw e;
            try {
                if (Date.now() - fs.statSync(LOCK).mtimeMs > 600000) fs.rmSync(LOCK, { force: true });
            } catch {
                /* gone meanwhile */
            }
            sleep(200);
        }
    }
    try {
        if (!stale()) return;
        process.stderr.write("building dist/ (tsc -p tsconfig.build.json: the sources changed since the last build) ...\n");
        const before = Date.now();
        const r = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", path.join(ROOT, "tsconfig.build.json")], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
        if (r.status !== 0) {
            process.stderr.write(`the build failed (tsc exited ${r.status}): fix the errors above, or run the tool from its source: npx ts-node --transpile-only tools/<tool>.ts\n`);
            process.exit(r.status || 1);
        }
        // The stamp holds the time the build started: a source saved during it counts as newer.
        fs.writeFileSync(STAMP, "");
        fs.utimesSync(STAMP, new Date(before), new Date(before));
        process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    } finally {
        fs.rmSync(LOCK, { force: true });
    }
}

/**
 * The Pulumi SDK loads, at start, what only serializing a JavaScript closure into a resource
 * needs (the TypeScript compiler, 8 MB of source; npm's Arborist), what only its automation API,
 * dynamic providers and provider servers need (execa, js-yaml, the language protocol, ...), and
 * gRPC with the engine protocol's clients and OpenTelemetry (for talking to a real engine).
 * @pulumi/kubernetes loads every API group of Kubernetes (100 modules) and its YAML and kustomize
 * support (with glob); zod, its messages in 50 languages. The tools do none of this (they run the
 * program under mocks, and it uses seven API groups and English), so those modules, when these
 * packages ask for them, are loaded on their first use instead of at start: the same modules, the
 * same behaviour (an API group registers its resource types, for reading references back, on its
 * first use, before any of its resources exists), 40% of the modules of `npm run plan` never
 * loaded (tools/bench-plan.ts measures its time).
 */
const NM = `${path.sep}node_modules${path.sep}`;
const LAZY = [
    {
        from: `${NM}@pulumi${path.sep}pulumi${path.sep}`,
        requests: new Set(["typescript", "@npmcli/arborist", "normalize-package-data", "fdir", "execa", "tmp", "upath", "@logdna/tail-file", "js-yaml", "@grpc/grpc-js", "@opentelemetry/api"]),
        // gRPC clients and servers of the engine protocol (the mocks answer in-process)
        pattern: /^\.\.?\/(proto\/)?\w+_grpc_pb(\.js)?$/,
    },
    { from: path.join(NM, "@pulumi", "pulumi", "index.js"), requests: new Set(["./automation", "./dynamic", "./provider"]) },
    // Its API groups (./core, ./apps, ...), ./yaml, ./helm, ./kustomize, ./types
    { from: path.join(NM, "@pulumi", "kubernetes", "index.js"), pattern: /^\.\/[a-z0-9]+$/ },
    // zod's error messages in 50 languages (its English ones are loaded apart)
    { from: path.join(NM, "zod", "v4", "core", "index.cjs"), requests: new Set(["../locales/index.cjs"]) },
    { from: path.join(NM, "zod", "v4", "classic", "external.cjs"), requests: new Set(["../locales/index.cjs"]) },
];

function loadLazily(rules) {
    const Module = require("module");
    // `from`: the requiring module's path, or a folder of it (ending in a separator)
    const from = (r, f) => (r.from.endsWith(path.sep) ? f.includes(r.from) : f.endsWith(r.from));
    const lazy = (request, parent) => rules.some((r) => (r.requests?.has(request) || r.pattern?.test(request)) && from(r, parent.filename));
    const load = Module._load;
    Module._load = function (request, parent, isMain) {
        if (!parent || !parent.filename || !lazy(request, parent)) return load.apply(this, arguments);
        let real;
        const target = () => (real ??= load.call(Module, request, parent, isMain));
        // `__esModule` is answered without loading, so TypeScript's import helpers keep the proxy
        // as it is; `default` is then the module itself, or its own default if it has one.
        const defaultOf = (m) => (m && m.__esModule ? m.default : m);
        return new Proxy(
            {},
            {
                get: (_t, key) => (key === "__esModule" ? true : key === "default" ? defaultOf(target()) : Reflect.get(target(), key)),
                has: (_t, key) => Reflect.has(target(), key),
                ownKeys: () => Reflect.ownKeys(target()),
                getOwnPropertyDescriptor: (_t, key) => {
                    const d = Reflect.getOwnPropertyDescriptor(target(), key);
                    if (d) d.configurable = true;
                    return d;
                },
            },
        );
    };
}

/** What the modules' resolution depends on: this build of dist/, and the install of node_modules (npm's own record of it). */
function resolutionStamp() {
    const mtime = (p) => fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? "none";
    const modules = path.join(ROOT, "node_modules");
    let real = "none";
    try {
        real = fs.realpathSync(modules);
    } catch {
        /* no node_modules here: each require is resolved */
    }
    return `${mtime(STAMP)} ${real} ${mtime(path.join(modules, ".package-lock.json"))}`;
}

const [tool, ...args] = process.argv.slice(2);
if (!tool || !/^[a-z-]+$/.test(tool) || !fs.existsSync(path.join(ROOT, "tools", `${tool}.ts`))) {
    process.stderr.write(`usage: node tools/launch.js TOOL [ARGS...] (TOOL: a tools/TOOL.ts, e.g. plan)\n`);
    process.exit(2);
}
if (stale()) build();
loadLazily(LAZY);
require("./code-cache").install(path.join(DIST, ".code-cache", `${tool}.bin`), resolutionStamp());
process.argv = [process.argv[0], path.join(DIST, "tools", `${tool}.js`), ...args];
require(process.argv[1]);
