/**
 * A refactor's proof with the real CLI (tools/preview-across.sh runs this file, in a checkout of
 * the base commit): every example stack deployed on the local cluster by the base commit's
 * program, then `pulumi preview --expect-no-changes --diff` by the program of PREVIEW_ACROSS_NEW
 * (the checkout under review) on the same state: the change replaces, updates or deletes nothing.
 * Not a *.test.ts file: `npm test` never runs it (a base commit is an input only a person names).
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { EXAMPLES } from "./examples.test";
import { HA_FILE } from "./ha-stack";
import { Cluster, PROJECT_FILES, READINESS_OFF, Workspace } from "./harness";
import { requireToolchain } from "./toolchain";
import { tmpDir } from "../helpers/sys";

const NEW = process.env.PREVIEW_ACROSS_NEW ?? "";

for (const ex of EXAMPLES) {
    describe(`preview across commits: ${ex.stack}`, function () {
        this.timeout(40 * 60 * 1000);
        it(`deployed by this checkout, previewed by ${NEW}: no changes`, function () {
            assert.ok(NEW && fs.existsSync(path.join(NEW, "index.ts")), "PREVIEW_ACROSS_NEW must name the checkout to preview with (tools/preview-across.sh sets it)");
            requireToolchain(this);
            const cluster = Cluster.up();
            const work = tmpDir(`across-${ex.stack}`);
            let stop: (() => void) | void = undefined;
            try {
                stop = ex.prepare?.(cluster, work);
                const ws = new Workspace(cluster, ex.stack);
                // The ha example is shared by several suites in examples.test.ts; here it is deployed on its own.
                ws.configure(ex.shared ? HA_FILE : ex.file, [READINESS_OFF, ...(ex.extra ?? [])], "set-all");
                ws.up();
                // The same workspace and state, the other program.
                for (const f of [...PROJECT_FILES, "Pulumi.yaml"]) {
                    const link = path.join(ws.dir, f);
                    fs.rmSync(link, { force: true });
                    if (f === "Pulumi.yaml") fs.copyFileSync(path.join(NEW, f), link);
                    else fs.symlinkSync(path.join(NEW, f), link);
                }
                const r = ws.pulumi(["preview", "--expect-no-changes", "--diff"], { allowFail: true });
                if (r.status !== 0) console.log(`      ${ex.stack}: the preview by ${NEW}:\n${r.stdout.split("\n").filter((l) => /^\s*[-+~]|=>/.test(l)).slice(0, 60).join("\n")}`);
                assert.equal(r.status, 0, `${ex.stack}: pulumi preview --expect-no-changes by ${NEW} exited ${r.status} (what would change is printed above)`);
            } finally {
                if (typeof stop === "function") stop();
                cluster.down();
                fs.rmSync(work, { recursive: true, force: true });
            }
        });
    });
}
