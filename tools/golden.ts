/**
 * npm run golden — re-render every example stack into test/golden/<stack>/ with `npm run plan`.
 *
 * The golden renders are what a reviewer diffs: test/golden.test.ts fails when the program renders
 * anything else, so a change of the rendered Kubernetes objects shows up in a pull request as a
 * change of these files. Regenerate only when the change is intended, in the commit that makes it.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { readRenderTree } from "./diff";
import { readStackConfig, renderOffline } from "./render";

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

/**
 * Every resource each example stack registers, a line each: stack, the URN's type path (its
 * parents' types, then its own) and name, and the names of what it waits for (dependsOn). A change
 * here is a replace, a new resource or a new order in a deployed stack's preview, which the object
 * bodies of the golden renders do not show. test/components/resource-graph.test.ts holds the program
 * to RESOURCE_GRAPH_FILE; `npm run golden` rewrites it.
 */
export async function resourceGraph(): Promise<string> {
    const typePath = (r: any): string[] => (r ? [...typePath(r.__parentResource), r.__pulumiType] : []);
    const lines: string[] = [];
    for (const ex of EXAMPLE_STACKS) {
        const registered: any[] = [];
        await renderOffline(readStackConfig(path.join(ROOT, ex.file)), ex.stack, { onRegister: (a) => registered.push(a) });
        for (const a of registered) {
            const d = a.opts.dependsOn;
            const waits = (Array.isArray(d) ? d : d ? [d] : []).map((x: any) => x.__name).sort();
            lines.push(`${ex.stack} ${[...typePath(a.opts.parent), a.type].join("$")}::${a.name}${waits.length ? ` <- ${waits.join(",")}` : ""}`);
        }
    }
    return lines.sort().join("\n") + "\n";
}

export const RESOURCE_GRAPH_FILE = path.join(ROOT, "test", "resource-graph.golden.txt");

async function main(): Promise<number> {
    for (const ex of EXAMPLE_STACKS) {
        const out = path.join(GOLDEN_DIR, ex.stack);
        const r = renderWithPlan(ex, out);
        if (r.status !== 0) {
            console.error(`golden: ${ex.file}: plan failed\n${r.stderr}`);
            return 1;
        }
        console.log(`golden: ${ex.file} → ${path.relative(ROOT, out)}/ (${Object.keys(readRenderTree(out)).length} objects)`);
    }
    const graph = await resourceGraph();
    fs.writeFileSync(RESOURCE_GRAPH_FILE, graph);
    console.log(`golden: the resources of every example stack → ${path.relative(ROOT, RESOURCE_GRAPH_FILE)} (${graph.split("\n").length - 1} resources)`);
    return 0;
}

if (require.main === module) void main().then((code) => process.exit(code));
