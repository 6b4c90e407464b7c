/**
 * docs/limitations.md stays true: every statement (a bullet) names what makes it true, as
 * `Checked by: `test/…/x.test.ts` "fragment"; …` — a test file of this repository and a verbatim
 * fragment of it (a test's title or an assertion's message). A renamed or deleted test, or a new
 * bullet without its check, fails here, so a statement cannot outlive what checked it. Pure: reads files.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");
const DOC = "docs/limitations.md";

/** The bullets of a Markdown list (a `* ` line and its indented continuation), with their first line numbers. */
export function bullets(text: string): { line: number; text: string }[] {
    const out: { line: number; text: string }[] = [];
    let fenced = false;
    text.split("\n").forEach((l, i) => {
        if (/^\s*(```|~~~)/.test(l)) fenced = !fenced;
        if (fenced) return;
        if (/^\* /.test(l)) out.push({ line: i + 1, text: l.slice(2) });
        else if (/^\s+\S/.test(l) && out.length > 0 && !/^#/.test(l)) out[out.length - 1].text += ` ${l.trim()}`;
        else if (!/^\s*$/.test(l) || /^#/.test(l)) out.push({ line: -1, text: "" });
    });
    return out.filter((b) => b.line > 0);
}

/** Every problem of the `Checked by:` references of `text` (file `doc`): `doc:line: what is wrong`. */
export function checkProblems(doc: string, text: string, read: (rel: string) => string | undefined): string[] {
    const problems: string[] = [];
    for (const b of bullets(text)) {
        const where = `${doc}:${b.line}`;
        const m = /Checked by: (.+?)\.?$/.exec(b.text);
        if (!m) {
            problems.push(`${where}: names no check ("Checked by: \`test/…\` \"fragment\"")`);
            continue;
        }
        const refs = [...m[1].matchAll(/`([^`]+)` "([^"]+)"/g)];
        if (refs.length === 0) problems.push(`${where}: "Checked by:" names no \`file\` "fragment"`);
        // Nothing else there but the separators: a malformed reference (a quote missing) is not skipped.
        const rest = m[1].replace(/`([^`]+)` "([^"]+)"/g, "").replace(/[;\s]/g, "");
        if (refs.length > 0 && rest !== "") problems.push(`${where}: "Checked by:" has text that is no \`file\` "fragment": ${rest}`);
        for (const [, file, fragment] of refs) {
            const body = /^test\/.+\.test\.ts$/.test(file) ? read(file) : undefined;
            if (body === undefined) problems.push(`${where}: ${file}: no such test file`);
            else if (!body.includes(fragment)) problems.push(`${where}: ${file} does not contain "${fragment}"`);
        }
    }
    return problems;
}

const readRepo = (rel: string) => {
    const p = path.join(ROOT, rel);
    return fs.existsSync(p) && fs.statSync(p).isFile() ? fs.readFileSync(p, "utf8") : undefined;
};

describe("docs/limitations.md: every statement names what checks it", function () {
    it("every bullet names existing tests and verbatim fragments of them", function () {
        const text = fs.readFileSync(path.join(ROOT, DOC), "utf8");
        assert.ok(bullets(text).length >= 15, `bullets found: ${bullets(text).length}`);
        assert.deepEqual(checkProblems(DOC, text, readRepo), []);
    });

    it("fails a bullet without a check, a test file that is gone, a fragment that is not in its file and a malformed reference", function () {
        const files: Record<string, string> = { "test/unit/a.test.ts": 'it("refuses a reversed range", () => {});' };
        const doc = [
            "# L",
            "",
            "* Checked. Checked by: `test/unit/a.test.ts` \"refuses a reversed range\".",
            "* Unchecked, over",
            "  two lines.",
            "* Gone. Checked by: `test/unit/b.test.ts` \"anything\".",
            "* Renamed. Checked by: `test/unit/a.test.ts` \"refuses a swapped range\".",
            "* Malformed. Checked by: `test/unit/a.test.ts` \"refuses a reversed range\"; `test/unit/a.test.ts` \"refuses a.",
            "",
            "```",
            "* not a bullet: in a code block",
            "```",
        ].join("\n");
        assert.deepEqual(checkProblems("x.md", doc, (rel) => files[rel]), [
            'x.md:4: names no check ("Checked by: `test/…` "fragment"")',
            "x.md:6: test/unit/b.test.ts: no such test file",
            'x.md:7: test/unit/a.test.ts does not contain "refuses a swapped range"',
            'x.md:8: "Checked by:" has text that is no `file` "fragment": `test/unit/a.test.ts`"refusesa',
        ]);
    });
});
