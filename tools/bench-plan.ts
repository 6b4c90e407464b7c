/**
 * npm run -s bench:plan [-- RUNS]: the whole-process wall time of `npm run plan`, as a newcomer
 * and a pipeline run it (a benchmark that prints, not a timed test): the dev stack, and a
 * multi stack with 63 listed conductors (64 DHCP slots, the most there can be). Median and range
 * of RUNS runs each (default 9), after one warm-up run that also makes the build when it is stale.
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

function bench(label: string, args: string[]): number {
    time(args);
    const all = Array.from({ length: runs }, () => time(args)).sort((a, b) => a - b);
    const median = all[Math.floor(all.length / 2)];
    console.log(`${label}: median ${median.toFixed(2)} s (min ${all[0].toFixed(2)}, max ${all[all.length - 1].toFixed(2)}, ${runs} runs)`);
    return median;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-plan-"));
try {
    const many = path.join(work, "Pulumi.many.yaml");
    fs.writeFileSync(many, manyConductors(63));
    console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(2)}`);
    const dev = bench("npm run plan (dev)", ["--out", path.join(work, "dev")]);
    const big = bench("npm run plan (multi, 63 conductors)", ["--file", many, "--out", path.join(work, "many")]);
    console.log(`63 conductors / dev: ${(big / dev).toFixed(2)}x`);
} finally {
    fs.rmSync(work, { recursive: true, force: true });
}
