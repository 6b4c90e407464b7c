/**
 * Layout rules (docs/development.md, Layout):
 *   (a) core/ is pure: no runtime import of @pulumi/*, directly or through the project modules it
 *       imports (`import type` is fine);
 *   (b) no import cycle among the project's modules (index.ts, components/, core/, tools/);
 *   (c) only components/ construct Pulumi resources;
 *   (d) core/manifests/ imports only types from core/plan/, and the readers that narrow the plan's
 *       unions (core/plan/read.ts, itself importing types only): the plan decides, manifests build;
 *   (e) labels are built in core/labels.ts only: no other module writes an app.kubernetes.io/ key.
 * The checkers (test/helpers/architecture.ts) read the TypeScript syntax tree. The second half of
 * this file runs them on small in-memory trees that break each rule, so a checker that goes blind
 * fails here instead of passing silently.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

import {
    buildGraph,
    FileSet,
    findCycles,
    formatCycle,
    formatPulumiImport,
    Graph,
    literalsContaining,
    loadProject,
    parseImports,
    resourceConstructions,
    runtimePulumiImports,
} from "../helpers/architecture";

const ROOT = path.join(__dirname, "..", "..");
const inCore = (f: string) => f.startsWith("core/");
const inComponents = (f: string) => f.startsWith("components/");

/**
 * Value imports (not type-only) from core/plan/ into core/manifests/, sorted, but those of the
 * plan's readers (core/plan/read.ts: they narrow the plan's unions and compute nothing).
 */
const PLAN_READERS = "core/plan/read.ts";
const LABELS = "core/labels.ts";
const planValueImports = (graph: Graph) =>
    graph.edges
        .filter((e) => !e.typeOnly && e.from.startsWith("core/manifests/") && e.to.startsWith("core/plan/") && e.to !== PLAN_READERS)
        .sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));

describe("architecture: the project's layout rules", function () {
    let files: FileSet;
    let graph: Graph;

    before(function () {
        files = loadProject(ROOT);
        graph = buildGraph(files, (p) => fs.existsSync(path.join(ROOT, p)));
    });

    it("sees the project's modules, and every relative import resolves", function () {
        assert.ok(files.has("index.ts"), "index.ts");
        assert.ok([...files.keys()].filter(inCore).length >= 3, `core/ files: ${[...files.keys()].filter(inCore)}`);
        assert.ok([...files.keys()].filter(inComponents).length >= 1, "components/ files");
        assert.ok(graph.edges.length >= files.size - 1, `only ${graph.edges.length} import edges among ${files.size} files`);
        assert.deepEqual(
            graph.unresolved.map((u) => `${u.from}:${u.ref.line} "${u.ref.specifier}"`),
            [],
            "relative imports that resolve to no file (the graph below would miss them)",
        );
    });

    it("(a) no file under core/ loads @pulumi/* at runtime, directly or through what it imports", function () {
        const bad = runtimePulumiImports(graph, inCore);
        assert.deepEqual(bad.map(formatPulumiImport), [], "core/ must stay pure; runtime @pulumi imports belong in components/");
        // The checker is not blind on this tree: components/ do load Pulumi at runtime.
        assert.ok(runtimePulumiImports(graph, inComponents).length > 0, "no runtime @pulumi import found even in components/");
    });

    it("(b) no import cycle among index.ts, components/, core/ and tools/", function () {
        const cycles = findCycles(graph);
        assert.deepEqual(cycles.map(formatCycle), [], "import cycles (break one edge of each)");
    });

    it("(d) core/manifests/ imports only types from core/plan/, and the readers of core/plan/read.ts, which import only types", function () {
        const bad = planValueImports(graph).map((e) => `${e.from}:${e.line} -> ${e.to}`);
        assert.deepEqual(bad, [], "the plan decides, manifests build: make it a plan field (buildPlan), or move a constant out of core/plan/");
        const readers = graph.edges.filter((e) => e.from === PLAN_READERS && !e.typeOnly).map((e) => `${e.from}:${e.line} -> ${e.to}`);
        assert.deepEqual(readers, [], `${PLAN_READERS} computes nothing: type imports only`);
        // The checker is not blind on this tree: manifests import types and readers from the plan.
        assert.ok(graph.edges.some((e) => e.from.startsWith("core/manifests/") && e.to.startsWith("core/plan/") && e.typeOnly), "no type import from core/plan/ seen in core/manifests/");
        assert.ok(graph.edges.some((e) => e.from.startsWith("core/manifests/") && e.to === PLAN_READERS && !e.typeOnly), `no import of ${PLAN_READERS} seen in core/manifests/`);
    });

    it("(e) labels are built in core/labels.ts only: no other module of index.ts, components/, core/, tools/ or policy/ writes an app.kubernetes.io/ key", function () {
        const all = new Map([...files, ...loadProject(ROOT, ["policy"], [])]);
        const written = [...all].flatMap(([f, text]) => literalsContaining(f, text, "app.kubernetes.io/"));
        assert.deepEqual(written.filter((w) => w.file !== LABELS).map((w) => `${w.file}:${w.line} ${w.text}`), [], `build labels with ${LABELS}`);
        assert.ok(written.some((w) => w.file === LABELS), `the checker finds no label key even in ${LABELS}`);
    });

    it("(c) only components/ construct Pulumi resources", function () {
        const outside = [...files].filter(([f]) => !inComponents(f)).flatMap(([f, text]) => resourceConstructions(f, text));
        assert.deepEqual(outside.map((c) => `${c.file}:${c.line} ${c.text}`), [], "Pulumi resources constructed outside components/");
        const inside = [...files].filter(([f]) => inComponents(f)).flatMap(([f, text]) => resourceConstructions(f, text));
        assert.ok(inside.length > 0, "the detector finds no resource even in components/");
    });
});

/** A tiny tree from `path: source` pairs. */
const tree = (entries: Record<string, string>): FileSet => new Map(Object.entries(entries));

describe("architecture: the checkers fail on broken trees", function () {
    describe("import parsing", function () {
        it("reads every kind of module reference from the syntax tree, with type-only ones marked", function () {
            const src = [
                `import type * as k8s from "@pulumi/kubernetes";`,
                `import * as pulumi from "@pulumi/pulumi";`,
                `import { type Input } from "@pulumi/random";`,
                `import "./side-effect";`,
                `export * from "./re-export";`,
                `export type { T } from "./types";`,
                `import lib = require("./legacy");`,
                `const tls = require("@pulumi/tls");`,
                `async function f() { return import("./lazy"); }`,
                `let x: import("./typeref").X;`,
                `// import * as fake from "@pulumi/commented";`,
                `const s = 'import * as fake from "@pulumi/in-a-string"';`,
            ].join("\n");
            assert.deepEqual(
                parseImports("core/a.ts", src).map((r) => [r.specifier, r.typeOnly, r.line]),
                [
                    ["@pulumi/kubernetes", true, 1],
                    ["@pulumi/pulumi", false, 2],
                    ["@pulumi/random", false, 3],
                    ["./side-effect", false, 4],
                    ["./re-export", false, 5],
                    ["./types", true, 6],
                    ["./legacy", false, 7],
                    ["@pulumi/tls", false, 8],
                    ["./lazy", false, 9],
                    ["./typeref", true, 10],
                ],
            );
        });

        it("resolves ./x to x.ts or x/index.ts, and lists specifiers that resolve to nothing", function () {
            const g = buildGraph(
                tree({
                    "core/a.ts": `import { b } from "./b"; import { c } from "./c"; import { d } from "./c/index"; import { e } from "../core/e.js"; import { z } from "./missing";`,
                    "core/b.ts": "export const b = 1;",
                    "core/c/index.ts": "export const c = 1, d = 2;",
                    "core/e.ts": "export const e = 1;",
                }),
            );
            assert.deepEqual(g.edges.map((e) => `${e.from} -> ${e.to}`).sort(), ["core/a.ts -> core/b.ts", "core/a.ts -> core/c/index.ts", "core/a.ts -> core/e.ts"]);
            assert.deepEqual(g.unresolved.map((u) => u.ref.specifier), ["./missing"]);
        });
    });

    describe("(a) runtime @pulumi imports in core/", function () {
        const check = (entries: Record<string, string>) => runtimePulumiImports(buildGraph(tree(entries)), inCore).map(formatPulumiImport);

        it("flags runtime imports in every form, and passes `import type`", function () {
            assert.deepEqual(
                check({
                    "core/ok.ts": `import type * as k8s from "@pulumi/kubernetes"; import type { Output } from "@pulumi/pulumi"; export type { Input } from "@pulumi/pulumi"; let x: import("@pulumi/tls").PrivateKey;`,
                    "core/namespace.ts": `import * as pulumi from "@pulumi/pulumi";`,
                    "core/inline-type.ts": `import { type Output } from "@pulumi/pulumi";`,
                    "core/reexport.ts": `export * from "@pulumi/random";`,
                    "core/required.ts": `const k8s = require("@pulumi/kubernetes");`,
                    "components/fine.ts": `import * as pulumi from "@pulumi/pulumi";`,
                    "core/not-pulumi.ts": `import * as ipaddr from "ipaddr.js"; import { createHash } from "crypto";`,
                }),
                [
                    "core/inline-type.ts -> @pulumi/pulumi (core/inline-type.ts:1; use `import type` for types)",
                    "core/namespace.ts -> @pulumi/pulumi (core/namespace.ts:1; use `import type` for types)",
                    "core/reexport.ts -> @pulumi/random (core/reexport.ts:1; use `import type` for types)",
                    "core/required.ts -> @pulumi/kubernetes (core/required.ts:1; use `import type` for types)",
                ],
            );
        });

        it("follows runtime imports through project modules, not type-only ones", function () {
            assert.deepEqual(
                check({
                    "core/plan.ts": `import { names } from "./names";\nimport type { Thing } from "../components/thing";`,
                    "core/names.ts": `import { label } from "../components/labels";`,
                    "components/labels.ts": `import * as k8s from "@pulumi/kubernetes";\nexport const label = "x";`,
                    "components/thing.ts": `import * as pulumi from "@pulumi/pulumi";`,
                }),
                [
                    "core/names.ts -> components/labels.ts -> @pulumi/kubernetes (components/labels.ts:1; use `import type` for types)",
                    "core/plan.ts -> core/names.ts -> components/labels.ts -> @pulumi/kubernetes (components/labels.ts:1; use `import type` for types)",
                ],
            );
        });
    });

    describe("(b) import cycles", function () {
        it("reports each cycle once, with its path and the lines of its imports", function () {
            const g = buildGraph(
                tree({
                    "index.ts": `import { run } from "./components/program";`,
                    "components/program.ts": `import { plan } from "../core/plan";`,
                    "core/plan/index.ts": `import { conductor } from "./conductor";`,
                    "core/plan/conductor.ts": `import { names } from "./names";`,
                    "core/plan/names.ts": `\nimport { plan } from "./index";`,
                    "core/config.ts": `import type { Plan } from "./plan/types";`,
                    "core/plan/types.ts": `import type { Config } from "../config";`,
                    "core/self.ts": `import { me } from "./self";`,
                }),
            );
            assert.deepEqual(findCycles(g).map(formatCycle), [
                "core/config.ts -(type)-> core/plan/types.ts -(type)-> core/config.ts  (core/config.ts:1, core/plan/types.ts:1)",
                "core/plan/conductor.ts -> core/plan/names.ts -> core/plan/index.ts -> core/plan/conductor.ts  (core/plan/conductor.ts:1, core/plan/names.ts:2, core/plan/index.ts:1)",
                "core/self.ts -> core/self.ts  (core/self.ts:1)",
            ]);
        });

        it("finds none in a tree without one (diamonds are fine)", function () {
            const g = buildGraph(
                tree({
                    "index.ts": `import "./a"; import "./b";`,
                    "a.ts": `import "./c";`,
                    "b.ts": `import "./c";`,
                    "c.ts": `export {};`,
                }),
            );
            assert.deepEqual(findCycles(g), []);
        });
    });

    describe("(d) value imports from core/plan/ into core/manifests/", function () {
        it("lists a runtime import, not a type-only one, nor one of the readers, nor one from elsewhere", function () {
            const files = tree({
                "core/plan/conductors.ts": "export const listed = () => [];\nexport interface ListedConductor { node: string }",
                "core/plan/types.ts": "export interface IronicPlan { name: string }",
                "core/manifests/a.ts": `import { listed } from "../plan/conductors";\nimport type { IronicPlan } from "../plan/types";`,
                "core/manifests/b.ts": `import type { ListedConductor } from "../plan/conductors";\nimport { multiOf } from "../plan/read";`,
                "core/plan/read.ts": "export const multiOf = () => undefined;",
                "components/c.ts": `import { listed } from "../core/plan/conductors";`,
            });
            const g = buildGraph(files);
            assert.deepEqual(planValueImports(g).map((e) => `${e.from}:${e.line} -> ${e.to}`), ["core/manifests/a.ts:1 -> core/plan/conductors.ts"]);
        });
    });

    describe("(e) label keys written outside core/labels.ts", function () {
        it("finds them in strings and templates, not in comments", function () {
            const text = [
                `// app.kubernetes.io/name in a comment`,
                `const a = { "app.kubernetes.io/name": "x" };`,
                "const b = `app.kubernetes.io/instance=${n},other`;",
                "const c = `${n}app.kubernetes.io/component`;",
                `const d = "app.example/name";`,
            ].join("\n");
            assert.deepEqual(literalsContaining("core/x.ts", text, "app.kubernetes.io/").map((w) => `${w.line} ${w.text}`), [
                `2 "app.kubernetes.io/name"`,
                "3 `app.kubernetes.io/instance=${",
                "4 }app.kubernetes.io/component`",
            ]);
        });
    });

    describe("(c) resource construction", function () {
        const found = (text: string) => resourceConstructions("core/x.ts", text).map((c) => `${c.line} ${c.text}`);

        it("flags resources of every @pulumi package, however the package is bound", function () {
            const src = [
                `import * as k8s from "@pulumi/kubernetes";`,
                `import * as pulumi from "@pulumi/pulumi";`,
                `import { PrivateKey as Key } from "@pulumi/tls";`,
                `import random = require("@pulumi/random");`,
                `const cmd = require("@pulumi/command");`,
                `new k8s.core.v1.ConfigMap("c", {});`,
                `new pulumi.ComponentResource("t", "n");`,
                `new Key("k", { algorithm: "RSA" });`,
                `new random.RandomPassword("p", { length: 9 });`,
                `new cmd.local.Command("c", {});`,
                `new (require("@pulumi/kubernetes").apps.v1.Deployment)("d", {});`,
                `class Mine extends pulumi.ComponentResource {}`,
                `new pulumi.StackReference("s");`,
            ].join("\n");
            assert.deepEqual(found(src), [
                "6 new k8s.core.v1.ConfigMap",
                "7 new pulumi.ComponentResource",
                "8 new Key",
                "9 new random.RandomPassword",
                "10 new cmd.local.Command",
                `11 new (require("@pulumi/kubernetes").apps.v1.Deployment)`,
                "12 extends pulumi.ComponentResource",
                "13 new pulumi.StackReference",
            ]);
        });

        it("flags the conventional names even without an import (e.g. a global or a re-export)", function () {
            assert.deepEqual(found(`declare const k8s: any, tls: any;\nnew k8s.core.v1.Secret("s");\nnew tls.SelfSignedCert("c");`), ["2 new k8s.core.v1.Secret", "3 new tls.SelfSignedCert"]);
        });

        it("passes what is not a resource: non-Pulumi classes, pulumi.Config, text in comments and strings", function () {
            const src = [
                `import * as pulumi from "@pulumi/pulumi";`,
                `import * as ipaddr from "ipaddr.js";`,
                `new Map(); new ipaddr.IPv4([10, 0, 0, 1]); new pulumi.Config("x");`,
                `// new k8s.core.v1.ConfigMap("c")`,
                `const s = "new tls.PrivateKey";`,
            ].join("\n");
            assert.deepEqual(found(src), []);
        });
    });
});

/**
 * Size rules (docs/development.md, Layout): core/, tools/ and policy/ files at most 250 lines,
 * components/ files at most 180 (they only wire), functions at most 80 lines anywhere in them.
 */
const FILE_LIMIT = (f: string) => (f.startsWith("components/") ? 180 : 250);
const FUNCTION_LIMIT = 80;

function sizeViolations(files: Map<string, string>): string[] {
    const out: string[] = [];
    for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
        const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
        if (lines > FILE_LIMIT(file)) out.push(`${file}: ${lines} lines (limit ${FILE_LIMIT(file)})`);
        const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
        const visit = (n: ts.Node) => {
            if (ts.isFunctionLike(n) && (n as ts.FunctionLikeDeclarationBase).body) {
                const first = sf.getLineAndCharacterOfPosition(n.getStart()).line;
                const span = sf.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
                const name = (n as ts.FunctionLikeDeclarationBase).name?.getText(sf) ?? ts.SyntaxKind[n.kind];
                if (span > FUNCTION_LIMIT) out.push(`${file}:${first + 1}: ${name} is ${span} lines (limit ${FUNCTION_LIMIT})`);
            }
            ts.forEachChild(n, visit);
        };
        visit(sf);
    }
    return out;
}

describe("architecture: size rules", function () {
    it("no file or function of core/, components/, tools/ or policy/ is over its limit", function () {
        const files = new Map<string, string>();
        const walk = (rel: string) => {
            for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
                const child = path.posix.join(rel, e.name);
                if (e.isDirectory() && e.name !== "node_modules") walk(child);
                else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) files.set(child, fs.readFileSync(path.join(ROOT, child), "utf8"));
            }
        };
        for (const dir of ["core", "components", "tools", "policy"]) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
        assert.ok(files.size > 40, `${files.size} files read`);
        assert.deepEqual(sizeViolations(files), []);
    });

    it("the check can fail: a long file and a long function are reported with their place", function () {
        const body = Array.from({ length: 85 }, (_, i) => `    const v${i} = ${i};`).join("\n");
        const fn = `export function big(): void {\n${body}\n}\n`;
        const pad = "// filler\n".repeat(100);
        assert.deepEqual(sizeViolations(new Map([["components/x.ts", fn + pad]])), ["components/x.ts: 187 lines (limit 180)", "components/x.ts:1: big is 87 lines (limit 80)"]);
        assert.deepEqual(sizeViolations(new Map([["core/y.ts", fn + pad]])), ["core/y.ts:1: big is 87 lines (limit 80)"]);
    });
});
