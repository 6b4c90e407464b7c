/**
 * npm run -s bench:plan [-- RUNS]: the whole-process wall time of `npm run plan`, as a newcomer
 * and a pipeline run it (a benchmark that prints, not a timed test): the dev stack, and a
 * multi stack with 63 listed conductors (64 DHCP slots, the most there can be). Median and range
 * of RUNS runs each (default 9), the two in turn, after one warm-up run each (the first also makes
 * the build when it is stale, and the code cache).
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";

import { findUp } from "../core/render/assets";

const ROOT = path.dirname(findUp(__dirname, "Pulumi.yaml"));
const runs = Number(process.argv[2] ?? 9);

/** Pulumi.<stack>.yaml of a multi stack with `n` listed conductors on 172.22.0.0/16. */
function manyConductors(n: number): string {
    const conductors = Array.from({ length: n }, (_, i) => ({ name: `cp-${i}`, ip: `172.22.0.${i + 2}` }));
    const config = {
        "metal3-ironic:topology": "multi",
        "metal3-ironic:provisioning": { interface: "eth1", cidr: "172.22.0.0/16", dhcp: { rangeStart: "172.22.1.0", rangeEnd: "172.22.64.255", gateway: "172.22.0.1" } },
        "metal3-ironic:conductors": conductors,
        "metal3-ironic:database": { kind: "mariadb" },
    };
    return YAML.stringify({ config });
}

function time(args: string[]): number {
    const t = process.hrtime.bigint();
    const r = spawnSync("npm", ["run", "-s", "plan", "--", ...args], { cwd: ROOT, encoding: "utf8" });
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    if (r.status !== 0) throw new Error(`npm run plan ${args.join(" ")} exited ${r.status}:\n${r.stdout}${r.stderr}`);
    return s;
}

/** Median and range of each stack's runs, the stacks taken in turn run by run (a busy machine slows all alike). */
function bench(stacks: { label: string; args: string[] }[]): number[] {
    for (const { args } of stacks) time(args);
    const all = stacks.map(() => [] as number[]);
    for (let i = 0; i < runs; i++) stacks.forEach(({ args }, k) => all[k].push(time(args)));
    return stacks.map(({ label }, k) => {
        const sorted = all[k].sort((a, b) => a - b);
        const median = sorted[Math.floor(sorted.length / 2)];
        console.log(`${label}: median ${median.toFixed(2)} s (min ${sorted[0].toFixed(2)}, max ${sorted[sorted.length - 1].toFixed(2)}, ${runs} runs)`);
        return median;
    });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-plan-"));
try {
    const many = path.join(work, "Pulumi.many.yaml");
    fs.writeFileSync(many, manyConductors(63));
    console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}`);
    const [dev, big] = bench([
        { label: "npm run plan (dev)", args: ["--out", path.join(work, "dev")] },
        { label: "npm run plan (multi, 63 conductors)", args: ["--file", many, "--out", path.join(work, "many")] },
    ]);
    console.log(`63 conductors / dev: ${(big / dev).toFixed(2)}x`);
} finally {
    fs.rmSync(work, { recursive: true, force: true });
}
