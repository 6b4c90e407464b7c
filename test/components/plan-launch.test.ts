/**
 * tools/launch.js, what `npm run plan` runs: the build of the sources, made again whenever a
 * source is newer, and its V8 code cache (tools/code-cache.js), which must never hand V8 the code
 * of a module as it was before an edit. In a copy of the sources, so the build and the cache
 * are this test's own.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { readRenderTree } from "../../tools/diff";
import { run, tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const SOURCES = ["index.ts", "components", "core", "tools", "assets", "tsconfig.json", "tsconfig.build.json", "package.json", "package-lock.json", "Pulumi.yaml", "Pulumi.dev.yaml"];

describe("tools/launch.js: rebuild and code cache", function () {
    this.timeout(900000);
    let work: string;
    let copy: string;
    after(() => fs.rmSync(work, { recursive: true, force: true }));

    before(function () {
        work = tmpDir("launch");
        copy = path.join(work, "repo");
        for (const p of SOURCES) fs.cpSync(path.join(ROOT, p), path.join(copy, p), { recursive: true });
        // node_modules of its own, each package a link to the project's, so one can be "upgraded" below
        const modules = path.join(copy, "node_modules");
        fs.mkdirSync(modules);
        for (const e of fs.readdirSync(path.join(ROOT, "node_modules"))) {
            if (e === ".package-lock.json") fs.copyFileSync(path.join(ROOT, "node_modules", e), path.join(modules, e));
            else fs.symlinkSync(path.join(ROOT, "node_modules", e), path.join(modules, e));
        }
    });

    function plan(out: string, env: NodeJS.ProcessEnv = {}) {
        const r = run(process.execPath, [path.join(copy, "tools", "launch.js"), "plan", "--out", path.join(work, out)], {
            cwd: copy,
            allowFail: true,
            timeout: 600000,
            env: { ...process.env, CODE_CACHE_STATS: "1", ...env },
        });
        assert.equal(r.status, 0, r.stderr);
        const stats = /^code cache: (\d+) hits, (\d+) misses/m.exec(r.stderr);
        const resolved = /^code cache: .* resolutions( \(new ones recorded\))?/m.exec(r.stderr);
        return { ...r, built: /^building dist\//m.test(r.stderr), hits: Number(stats?.[1] ?? -1), misses: Number(stats?.[2] ?? -1), newResolutions: resolved?.[1] !== undefined };
    }

    it("builds, records the code cache, then runs from it: the same render as without it", function () {
        const first = plan("first");
        assert.ok(first.built, `the first run builds dist/: ${first.stderr}`);
        assert.equal(first.hits, 0, first.stderr);
        assert.ok(first.misses > 300, `every module is compiled and recorded: ${first.stderr}`);
        assert.ok(fs.statSync(path.join(copy, "dist", ".code-cache", "plan.bin")).size > 1e6);
        const second = plan("second");
        assert.ok(!second.built, second.stderr);
        assert.deepEqual([second.hits, second.misses], [first.misses, 0], "every module's code comes from the cache");
        assert.ok(first.newResolutions && !second.newResolutions, "every require() is resolved from the cache");
        const without = plan("without", { NO_CODE_CACHE: "1" });
        assert.ok(!/^code cache:/m.test(without.stderr), "NO_CODE_CACHE=1 turns it off");
        assert.deepEqual(readRenderTree(path.join(work, "second")), readRenderTree(path.join(work, "without")));
        assert.equal(second.stdout.replace(/^wrote .*$/m, ""), without.stdout.replace(/^wrote .*$/m, ""));
    });

    it("an edited source is rebuilt before it runs, and the cache misses the module that changed, only it", function () {
        const file = path.join(copy, "tools", "plan.ts");
        fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('lines.push("objects per kind:");', 'lines.push("objects per kind (edited):");'));
        const edited = plan("edited");
        assert.ok(edited.built, `the edit is built: ${edited.stderr}`);
        assert.match(edited.stdout, /^objects per kind \(edited\):$/m, "the edited code runs, not the cached one");
        assert.equal(edited.misses, 1, `dist/tools/plan.js only: ${edited.stderr}`);
        assert.ok(edited.hits > 300, edited.stderr);
        assert.ok(edited.newResolutions, "a new build resolves every require() again");
        const again = plan("again");
        assert.ok(!again.built);
        assert.equal(again.misses, 0, again.stderr);
        assert.match(again.stdout, /^objects per kind \(edited\):$/m);
    });

    it("an install that changes a package (npm rewrites node_modules/.package-lock.json) is resolved again: the new package runs", function () {
        plan("before-upgrade"); // the build, and what each require() resolves to, recorded
        const modules = path.join(copy, "node_modules");
        const pkg = path.join(modules, "fastest-levenshtein");
        const real = fs.realpathSync(pkg);
        fs.rmSync(pkg);
        fs.cpSync(real, pkg, { recursive: true });
        fs.appendFileSync(path.join(pkg, "mod.js"), '\nprocess.stderr.write("upgraded fastest-levenshtein\\n");\n');
        const lock = path.join(modules, ".package-lock.json");
        fs.utimesSync(lock, new Date(), new Date(Date.now() + 1000));
        const upgraded = plan("upgraded");
        assert.match(upgraded.stderr, /^upgraded fastest-levenshtein$/m, "the package now installed is loaded, not the one resolved before");
        assert.ok(upgraded.newResolutions);
        assert.equal(upgraded.misses, 1, `its module is compiled anew: ${upgraded.stderr}`);
        assert.match(plan("upgraded-again").stderr, /^upgraded fastest-levenshtein$/m);
    });

    it("a torn or foreign cache file is not used: every module compiles as usual and the cache is written again", function () {
        const cache = path.join(copy, "dist", ".code-cache", "plan.bin");
        fs.writeFileSync(cache, fs.readFileSync(cache).subarray(0, 100000));
        const torn = plan("torn");
        assert.equal(torn.hits, 0, torn.stderr);
        assert.deepEqual(readRenderTree(path.join(work, "torn")), readRenderTree(path.join(work, "without")));
        assert.equal(plan("rewritten").misses, 0);
    });
});
