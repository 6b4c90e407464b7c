/**
 * npm run golden — re-render every example stack into test/golden/<stack>/ with `npm run plan`.
 *
 * The golden renders are what a reviewer diffs: test/golden.test.ts fails when the program renders
 * anything else, so a change of the rendered Kubernetes objects shows up in a pull request as a
 * change of these files. Regenerate only when the change is intended, in the commit that makes it.
 */
import { spawnSync } from "child_process";
import * as path from "path";

import { readRenderTree } from "./diff";

export const ROOT = path.resolve(__dirname, "..");

/** Every example stack, with the name of its golden directory. */
export const EXAMPLE_STACKS: { stack: string; file: string }[] = [
    { stack: "dev", file: "Pulumi.dev.yaml" },
    { stack: "ha", file: "Pulumi.ha.yaml" },
    { stack: "vmedia", file: "test/fixtures/Pulumi.vmedia.yaml" },
    { stack: "tls-existing", file: "test/fixtures/Pulumi.tls-existing.yaml" },
    { stack: "ha-galera", file: "test/fixtures/Pulumi.ha-galera.yaml" },
    { stack: "tls-existing-ha", file: "test/fixtures/Pulumi.tls-existing-ha.yaml" },
    { stack: "cert-manager", file: "test/fixtures/Pulumi.cert-manager.yaml" },
    { stack: "v6", file: "test/fixtures/Pulumi.v6.yaml" },
    { stack: "v6-vip", file: "test/fixtures/Pulumi.v6-vip.yaml" },
    { stack: "dualstack", file: "test/fixtures/Pulumi.dualstack.yaml" },
];

export const GOLDEN_DIR = path.join(ROOT, "test", "golden");

/** The arguments of `npm run plan` that render one example stack into `out` (test/components/golden.test.ts renders with them too). */
export function planArgs(example: { stack: string; file: string }, out: string): string[] {
    return ["--stack", example.stack, "--file", path.join(ROOT, example.file), "--out", out];
}

/** Run `npm run plan` (the CLI itself) for one example stack into `out`. */
export function renderWithPlan(example: { stack: string; file: string }, out: string): { status: number; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "plan.ts"), ...planArgs(example, out)], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 180000,
    });
    return { status: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function main(): number {
    for (const ex of EXAMPLE_STACKS) {
        const out = path.join(GOLDEN_DIR, ex.stack);
        const r = renderWithPlan(ex, out);
        if (r.status !== 0) {
            console.error(`golden: ${ex.file}: plan failed\n${r.stderr}`);
            return 1;
        }
        console.log(`golden: ${ex.file} → ${path.relative(ROOT, out)}/ (${Object.keys(readRenderTree(out)).length} objects)`);
    }
    return 0;
}

if (require.main === module) process.exit(main());
