/**
 * Golden renders: `npm run plan` of every example stack is byte-identical to test/golden/<stack>/.
 * A pull request that changes what the program renders changes these files too, which is the
 * diff `pulumi preview` will show. Regenerate with `npm run golden` when the change is intended.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { readRenderTree } from "../../tools/diff";
import { EXAMPLE_STACKS, GOLDEN_DIR, planArgs } from "../../tools/golden";
import { buildPlanCliFirst, planCli } from "../helpers/plan-cli";
import { tmpDir } from "../helpers/sys";

const readTree = readRenderTree;

/** `npm run plan` of one example stack into `out`, as `npm run golden` renders it. */
const renderWithPlan = (example: { stack: string; file: string }, out: string) => planCli(planArgs(example, out), { timeout: 180000 });

/** The first differing line of two texts, for a readable failure. */
function firstDifference(a: string, b: string): string {
    const la = a.split("\n");
    const lb = b.split("\n");
    for (let i = 0; i < Math.max(la.length, lb.length); i++) {
        if (la[i] !== lb[i]) return `line ${i + 1}:\n  golden:   ${JSON.stringify(la[i])}\n  rendered: ${JSON.stringify(lb[i])}`;
    }
    return "(no line differs)";
}

describe("golden renders of the example stacks (npm run plan)", function () {
    this.timeout(300000);
    let work: string;
    before(() => (work = tmpDir("golden")));
    after(() => fs.rmSync(work, { recursive: true, force: true }));
    buildPlanCliFirst();

    for (const ex of EXAMPLE_STACKS) {
        it(`${ex.file} renders exactly test/golden/${ex.stack}/`, function () {
            const out = path.join(work, ex.stack);
            const r = renderWithPlan(ex, out);
            assert.equal(r.status, 0, r.stderr);
            const golden = readTree(path.join(GOLDEN_DIR, ex.stack));
            const rendered = readTree(out);
            const hint = "if the change is intended, run `npm run golden` and commit test/golden/ with it";
            assert.deepEqual(Object.keys(rendered), Object.keys(golden), `objects differ from test/golden/${ex.stack}/; ${hint}`);
            for (const f of Object.keys(golden)) {
                if (rendered[f] !== golden[f]) assert.fail(`${ex.stack}/${f} differs from the golden render, ${firstDifference(golden[f], rendered[f])}\n${hint}`);
            }
        });
    }

    it("the comparison can fail: a changed rendered object is reported", function () {
        const out = path.join(work, "dev");
        if (!fs.existsSync(out)) assert.equal(renderWithPlan(EXAMPLE_STACKS[0], out).status, 0);
        const golden = readTree(path.join(GOLDEN_DIR, "dev"));
        const rendered = readTree(out);
        const f = Object.keys(rendered).find((k) => k.includes("deployment"))!;
        const changed = rendered[f].replace("replicas: 1", "replicas: 2");
        assert.notEqual(changed, golden[f]);
        assert.match(firstDifference(golden[f], changed), /replicas: 2/);
    });
});
