/**
 * Layout rules as pure functions over a set of source files (path -> text), so the checks run on
 * the real tree and, in their own tests, on small in-memory trees built to break them.
 *
 * Imports are read from the TypeScript syntax tree (import/export declarations, `import x =
 * require()`, `require()` and `import()` calls, `import("x").T` types), never by grepping text:
 * a specifier in a comment or a string is not an import.
 */
import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/** Project-relative POSIX path -> source text. */
export type FileSet = Map<string, string>;

export interface ImportRef {
    specifier: string;
    /** Erased at compile time: `import type`, `export type … from`, `import type x = require()`, `import("x").T` in a type. */
    typeOnly: boolean;
    line: number;
}

export interface Edge {
    from: string;
    to: string;
    /** Every import of `to` in `from` is type-only. */
    typeOnly: boolean;
    line: number;
}

export interface Graph {
    files: string[];
    /** Edges between files of the set, from relative specifiers. */
    edges: Edge[];
    /** Non-relative imports (packages), per file. */
    external: { from: string; ref: ImportRef }[];
    /** Relative specifiers that resolve to no file. */
    unresolved: { from: string; ref: ImportRef }[];
}

const lineOf = (sf: ts.SourceFile, node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

function parse(file: string, text: string): ts.SourceFile {
    return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

/**
 * Every module reference of a file. `import { type A } from "x"` (inline type modifiers only) counts
 * as a runtime import: under `verbatimModuleSyntax`/isolated emit it stays a `require("x")`; write
 * `import type { A }` to make the erasure explicit.
 */
export function parseImports(file: string, text: string): ImportRef[] {
    const sf = parse(file, text);
    const refs: ImportRef[] = [];
    const add = (spec: ts.Expression | undefined, typeOnly: boolean, node: ts.Node) => {
        if (spec && ts.isStringLiteralLike(spec)) refs.push({ specifier: spec.text, typeOnly, line: lineOf(sf, node) });
    };
    const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node)) {
            add(node.moduleSpecifier, node.importClause?.isTypeOnly ?? false, node);
        } else if (ts.isExportDeclaration(node)) {
            add(node.moduleSpecifier, node.isTypeOnly, node);
        } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
            add(node.moduleReference.expression, node.isTypeOnly, node);
        } else if (ts.isCallExpression(node) && node.arguments.length >= 1) {
            const callee = node.expression;
            if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === "require")) add(node.arguments[0], false, node);
        } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
            add(node.argument.literal as ts.Expression, true, node);
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
    return refs;
}

/** `./x` from `dir/a.ts` -> `dir/x.ts`, `dir/x/index.ts` (or `.tsx`, `.d.ts`; `./x.js` -> `./x.ts`); undefined when none exists. */
export function resolveRelative(from: string, specifier: string, has: (p: string) => boolean): string | undefined {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
    const stem = base.replace(/\.js$/, "");
    const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, `${base}/index.ts`, `${base}/index.tsx`];
    return candidates.find((c) => /\.[a-z]+$/.test(c) && has(c));
}

/**
 * The import graph of `files`. `existsOutside` tells whether a path outside the set exists
 * (e.g. `../package.json`), so that only really broken specifiers land in `unresolved`.
 */
export function buildGraph(files: FileSet, existsOutside: (p: string) => boolean = () => false): Graph {
    const edges = new Map<string, Edge>();
    const external: Graph["external"] = [];
    const unresolved: Graph["unresolved"] = [];
    for (const [file, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
        for (const ref of parseImports(file, text)) {
            if (!ref.specifier.startsWith(".")) {
                external.push({ from: file, ref });
                continue;
            }
            const to = resolveRelative(file, ref.specifier, (p) => files.has(p) || existsOutside(p));
            if (to === undefined) unresolved.push({ from: file, ref });
            if (to === undefined || !files.has(to)) continue;
            const key = `${file}\0${to}`;
            const seen = edges.get(key);
            if (!seen) edges.set(key, { from: file, to, typeOnly: ref.typeOnly, line: ref.line });
            else if (seen.typeOnly && !ref.typeOnly) edges.set(key, { from: file, to, typeOnly: false, line: ref.line });
        }
    }
    return { files: [...files.keys()].sort(), edges: [...edges.values()], external, unresolved };
}

/** A cycle as its edges, first edge leaving the cycle's smallest file. */
export type Cycle = Edge[];

export function formatCycle(cycle: Cycle): string {
    return cycle.map((e, i) => `${i === 0 ? e.from : ""} ${e.typeOnly ? "-(type)->" : "->"} ${e.to}`).join("") + `  (${cycle.map((e) => `${e.from}:${e.line}`).join(", ")})`;
}

/**
 * One shortest cycle per strongly connected component (Tarjan), so every tangle is reported once
 * with a concrete path. Type-only edges count: a type-only circle is still a layering circle.
 */
export function findCycles(graph: Graph): Cycle[] {
    const out = new Map<string, Edge[]>();
    for (const f of graph.files) out.set(f, []);
    for (const e of graph.edges) out.get(e.from)!.push(e);
    for (const list of out.values()) list.sort((a, b) => a.to.localeCompare(b.to));

    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const components: string[][] = [];
    const strong = (v: string) => {
        index.set(v, counter);
        low.set(v, counter++);
        stack.push(v);
        onStack.add(v);
        for (const { to } of out.get(v)!) {
            if (!index.has(to)) {
                strong(to);
                low.set(v, Math.min(low.get(v)!, low.get(to)!));
            } else if (onStack.has(to)) {
                low.set(v, Math.min(low.get(v)!, index.get(to)!));
            }
        }
        if (low.get(v) === index.get(v)) {
            const comp: string[] = [];
            let w: string;
            do {
                w = stack.pop()!;
                onStack.delete(w);
                comp.push(w);
            } while (w !== v);
            components.push(comp);
        }
    };
    for (const f of graph.files) if (!index.has(f)) strong(f);

    const cycles: Cycle[] = [];
    for (const comp of components) {
        const inComp = new Set(comp);
        const start = [...comp].sort()[0];
        const selfLoop = out.get(start)!.find((e) => e.to === start);
        if (comp.length === 1 && !selfLoop) continue;
        if (selfLoop) {
            cycles.push([selfLoop]);
            continue;
        }
        // Breadth-first from `start` inside the component, back to `start`.
        const via = new Map<string, Edge>();
        const queue = [start];
        let closing: Edge | undefined;
        while (queue.length > 0 && !closing) {
            const v = queue.shift()!;
            for (const e of out.get(v)!) {
                if (!inComp.has(e.to)) continue;
                if (e.to === start) {
                    closing = e;
                    break;
                }
                if (!via.has(e.to)) {
                    via.set(e.to, e);
                    queue.push(e.to);
                }
            }
        }
        const cycle: Edge[] = [closing!];
        for (let v = closing!.from; v !== start; v = via.get(v)!.from) cycle.unshift(via.get(v)!);
        cycles.push(cycle);
    }
    return cycles.sort((a, b) => a[0].from.localeCompare(b[0].from));
}

export interface PulumiImport {
    file: string;
    /** Project files from `file` to the one that imports the package (just `file` when direct). */
    chain: string[];
    specifier: string;
    line: number;
}

const isPulumi = (specifier: string) => /^@pulumi\//.test(specifier);

/**
 * Files under `scope` that load an `@pulumi/*` package at runtime, directly or through project
 * modules they import at runtime (shortest chain). Type-only imports do not count.
 */
export function runtimePulumiImports(graph: Graph, scope: (file: string) => boolean): PulumiImport[] {
    const runtimeOut = new Map<string, string[]>();
    for (const e of graph.edges) if (!e.typeOnly) runtimeOut.set(e.from, [...(runtimeOut.get(e.from) ?? []), e.to].sort());
    const direct = new Map<string, ImportRef>();
    for (const { from, ref } of graph.external) if (!ref.typeOnly && isPulumi(ref.specifier) && !direct.has(from)) direct.set(from, ref);

    const found: PulumiImport[] = [];
    for (const file of graph.files.filter(scope)) {
        const prev = new Map<string, string | null>([[file, null]]);
        const queue = [file];
        while (queue.length > 0) {
            const v = queue.shift()!;
            const ref = direct.get(v);
            if (ref) {
                const chain: string[] = [];
                for (let w: string | null = v; w !== null; w = prev.get(w)!) chain.unshift(w);
                found.push({ file, chain, specifier: ref.specifier, line: ref.line });
                break;
            }
            for (const to of runtimeOut.get(v) ?? []) {
                if (!prev.has(to)) {
                    prev.set(to, v);
                    queue.push(to);
                }
            }
        }
    }
    return found;
}

export function formatPulumiImport(p: PulumiImport): string {
    return `${p.chain.join(" -> ")} -> ${p.specifier} (${p.chain[p.chain.length - 1]}:${p.line}; use \`import type\` for types)`;
}

export interface Construction {
    file: string;
    line: number;
    /** The construct as written, e.g. `new k8s.core.v1.ConfigMap` or `extends pulumi.ComponentResource`. */
    text: string;
}

/** Names the brief forbids constructing from outside components/, whatever they are bound to. */
const CONVENTIONAL = new Set(["k8s", "tls", "random", "command"]);
/** Classes of @pulumi/pulumi that are resources (Config, Output, … are not). */
const PULUMI_RESOURCE = /(^|\.)(\w*Resource|StackReference)$/;

/**
 * `new X(…)` and `class … extends X` where X is a class of an `@pulumi/*` package: every class of
 * the provider packages (@pulumi/kubernetes, tls, random, command) is a resource; of @pulumi/pulumi
 * the `*Resource` classes and StackReference. X is recognised through the file's own imports
 * (namespace, named, default, `x = require()`), through `require("@pulumi/…")` inline, and by the
 * conventional names k8s / tls / random / command.
 */
export function resourceConstructions(file: string, text: string): Construction[] {
    const sf = parse(file, text);
    // Local name -> the @pulumi module (and, for named imports, the imported name).
    const bound = new Map<string, { module: string; imported?: string }>();
    const bindFrom = (module: string, clause: ts.ImportClause | undefined) => {
        if (!clause) return;
        if (clause.name) bound.set(clause.name.text, { module });
        const nb = clause.namedBindings;
        if (nb && ts.isNamespaceImport(nb)) bound.set(nb.name.text, { module });
        if (nb && ts.isNamedImports(nb)) for (const el of nb.elements) bound.set(el.name.text, { module, imported: (el.propertyName ?? el.name).text });
    };
    const requireOf = (e: ts.Expression): string | undefined =>
        ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "require" && e.arguments[0] && ts.isStringLiteralLike(e.arguments[0]) ? e.arguments[0].text : undefined;
    const collect = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node) && ts.isStringLiteralLike(node.moduleSpecifier) && isPulumi(node.moduleSpecifier.text)) bindFrom(node.moduleSpecifier.text, node.importClause);
        if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
            const m = node.moduleReference.expression;
            if (ts.isStringLiteralLike(m) && isPulumi(m.text)) bound.set(node.name.text, { module: m.text });
        }
        if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
            const m = requireOf(node.initializer);
            if (m && isPulumi(m)) bound.set(node.name.text, { module: m });
        }
        ts.forEachChild(node, collect);
    };
    collect(sf);

    /** The @pulumi module (or conventional name) an expression like `a.b.C` is rooted in, and the dotted path below it. */
    const rootOf = (expr: ts.Expression): { module: string; path: string } | undefined => {
        const parts: string[] = [];
        let e: ts.Expression = expr;
        for (;;) {
            if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isExpressionWithTypeArguments(e)) e = e.expression;
            else if (ts.isPropertyAccessExpression(e)) {
                parts.unshift(e.name.text);
                e = e.expression;
            } else if (ts.isElementAccessExpression(e) && ts.isStringLiteralLike(e.argumentExpression)) {
                parts.unshift(e.argumentExpression.text);
                e = e.expression;
            } else break;
        }
        const req = requireOf(e);
        if (req && isPulumi(req)) return { module: req, path: parts.join(".") };
        if (!ts.isIdentifier(e)) return undefined;
        const b = bound.get(e.text);
        if (b) return { module: b.module, path: [b.imported, ...parts].filter(Boolean).join(".") };
        if (CONVENTIONAL.has(e.text) && parts.length > 0) return { module: e.text, path: parts.join(".") };
        if (e.text === "pulumi" && parts.length > 0) return { module: "@pulumi/pulumi", path: parts.join(".") };
        return undefined;
    };
    const isResource = (r: { module: string; path: string }) => (r.module === "@pulumi/pulumi" ? PULUMI_RESOURCE.test(r.path) : true);

    const found: Construction[] = [];
    const visit = (node: ts.Node): void => {
        if (ts.isNewExpression(node)) {
            const r = rootOf(node.expression);
            if (r && isResource(r)) found.push({ file, line: lineOf(sf, node), text: `new ${node.expression.getText(sf)}` });
        }
        if (ts.isHeritageClause(node) && node.token === ts.SyntaxKind.ExtendsKeyword) {
            for (const t of node.types) {
                const r = rootOf(t.expression);
                if (r && isResource(r)) found.push({ file, line: lineOf(sf, node), text: `extends ${t.expression.getText(sf)}` });
            }
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
    return found;
}

/** String and template literals (not comments) of a file that contain `needle`: where a label key, a path, … is written. */
export function literalsContaining(file: string, text: string, needle: string): Construction[] {
    const sf = parse(file, text);
    const found: Construction[] = [];
    const visit = (node: ts.Node) => {
        if ((ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) && node.text.includes(needle)) {
            found.push({ file, line: lineOf(sf, node), text: node.getText(sf) });
        }
        ts.forEachChild(node, visit);
    };
    visit(sf);
    return found;
}

/** The project's own modules: index.ts and every .ts file under components/, core/ and tools/. */
export function loadProject(root: string, dirs = ["components", "core", "tools"], tops = ["index.ts"]): FileSet {
    const files: FileSet = new Map();
    const walk = (rel: string) => {
        const abs = path.join(root, rel);
        if (!fs.existsSync(abs)) return;
        for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
            const child = path.posix.join(rel, entry.name);
            if (entry.isDirectory() && entry.name !== "node_modules") walk(child);
            else if (entry.isFile() && /\.tsx?$/.test(entry.name)) files.set(child, fs.readFileSync(path.join(root, child), "utf8"));
        }
    };
    for (const t of tops) if (fs.existsSync(path.join(root, t))) files.set(t, fs.readFileSync(path.join(root, t), "utf8"));
    for (const d of dirs) walk(d);
    return files;
}
