/**
 * The documentation's links: every relative link of README.md, docs/ and examples/ resolves to a
 * file of this repository (and to a heading of it when it names one), and none leaves the
 * repository (a `../` past the root points at a checkout's neighbours, which readers do not have).
 * External http(s) links are not followed. Pure: reads files, no network.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");

/** The Markdown files whose links are checked, relative to the root. */
function markdownFiles(root: string): string[] {
    const out: string[] = [];
    const walk = (rel: string, only?: (name: string) => boolean) => {
        const dir = path.join(root, rel);
        if (!fs.existsSync(dir)) return;
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
            const child = path.posix.join(rel, e.name);
            if (e.isDirectory() && e.name !== "node_modules") walk(child, only);
            else if (e.name.endsWith(".md") && (!only || only(e.name))) out.push(child);
        }
    };
    if (fs.existsSync(path.join(root, "README.md"))) out.push("README.md");
    walk("docs");
    walk("examples", (name) => name === "README.md");
    return out.sort();
}

/** Text outside fenced code blocks and inline code spans, line by line (line numbers kept). */
function proseLines(text: string): string[] {
    let fenced = false;
    return text.split("\n").map((line) => {
        if (/^\s*(```|~~~)/.test(line)) {
            fenced = !fenced;
            return "";
        }
        return fenced ? "" : line.replace(/(`+)[^`]*?\1/g, "");
    });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function headingAnchors(text: string): Set<string> {
    const seen = new Map<string, number>();
    const anchors = new Set<string>();
    let fenced = false;
    for (const line of text.split("\n")) {
        if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
        const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (!m) continue;
        const plain = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
        const base = plain.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
        const n = seen.get(base) ?? 0;
        seen.set(base, n + 1);
        anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    return anchors;
}

/** Every problem of the relative links of one file: `file:line: target: what is wrong`. */
export function linkProblems(root: string, file: string, read: (rel: string) => string | undefined): string[] {
    const text = read(file) ?? "";
    const problems: string[] = [];
    proseLines(text).forEach((line, i) => {
        for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
            const target = m[1];
            if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
            const where = `${file}:${i + 1}: ${target}`;
            const [rawPath, anchor] = target.split("#", 2);
            const rel = rawPath === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(rawPath)));
            if (rel.startsWith("../") || rel === ".." || path.posix.isAbsolute(rel)) {
                problems.push(`${where}: leaves the repository`);
                continue;
            }
            const body = read(rel.replace(/\/$/, ""));
            if (body === undefined && !fs.existsSync(path.join(root, rel))) {
                problems.push(`${where}: no such file`);
                continue;
            }
            if (anchor && rel.endsWith(".md") && !headingAnchors(body ?? "").has(anchor)) problems.push(`${where}: no heading with anchor #${anchor}`);
        }
    });
    return problems;
}

const readFrom = (root: string) => (rel: string) => {
    const p = path.join(root, rel);
    return fs.existsSync(p) && fs.statSync(p).isFile() ? fs.readFileSync(p, "utf8") : undefined;
};

describe("documentation links", function () {
    it("the README stays short (at most 150 lines: what, why, the two commands, quick start, links); details go to docs/", function () {
        const lines = fs.readFileSync(path.join(ROOT, "README.md"), "utf8").split("\n").length - 1;
        assert.ok(lines <= 150, `README.md has ${lines} lines: move details to docs/ and link them`);
    });

    it("reads the README, docs/ and the examples' READMEs", function () {
        const files = markdownFiles(ROOT);
        assert.ok(files.includes("README.md") && files.some((f) => f.startsWith("docs/")), files.join(", "));
    });

    it("every relative link resolves to a file of the repository (and to a heading, when it names one); none leaves it", function () {
        const problems = markdownFiles(ROOT).flatMap((f) => linkProblems(ROOT, f, readFrom(ROOT)));
        assert.deepEqual(problems, []);
    });

    it("the check can fail: a missing file, a missing heading, a link out of the repository; code and external links are skipped", function () {
        const files: Record<string, string> = {
            "README.md": [
                "# Title",
                "[ok](docs/a.md#two-words-here) [anchor](#title) [gone](docs/b.md) [bad](docs/a.md#nope)",
                "[out](../shared/x.md) [web](https://metal3.io) `[code](nowhere.md)`",
                "```",
                "[fenced](nowhere.md)",
                "```",
            ].join("\n"),
            "docs/a.md": "## Two `words`: here\n[up](../README.md#title) [twice](#two-words-here-1)\n## Two words here\n",
        };
        const read = (rel: string) => files[rel];
        assert.deepEqual(linkProblems("/nonexistent", "README.md", read), [
            "README.md:2: docs/b.md: no such file",
            "README.md:2: docs/a.md#nope: no heading with anchor #nope",
            "README.md:3: ../shared/x.md: leaves the repository",
        ]);
        assert.deepEqual(linkProblems("/nonexistent", "docs/a.md", read), []);
    });
});
