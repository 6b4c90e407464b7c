/**
 * npm run -s bench: wall times of the real deployment path, printed (a benchmark, not a test):
 * the toolchain build with a warm cache, and for the dev and ha example stacks on a fresh local
 * cluster the first `pulumi up` and a no-op `pulumi preview`. Cold build times are printed by
 * tools/toolchain/build.sh itself when it builds ("<target>: built in N s").
 */
import { spawnSync } from "child_process";
import * as path from "path";

import { Cluster, READINESS_OFF, ROOT, Workspace } from "./harness";

function seconds<T>(f: () => T): [T, number] {
    const t = process.hrtime.bigint();
    const r = f();
    return [r, Number(process.hrtime.bigint() - t) / 1e9];
}

const [, warm] = seconds(() => spawnSync("bash", [path.join(ROOT, "tools", "toolchain", "build.sh")], { stdio: ["ignore", "ignore", "ignore"] }));
const lines = [`toolchain build, warm cache: ${warm.toFixed(2)} s`];
for (const stack of ["dev", "ha"]) {
    const [cluster, up] = seconds(() => Cluster.up());
    try {
        const ws = new Workspace(cluster, stack);
        ws.configure(path.join(ROOT, `Pulumi.${stack}.yaml`), [READINESS_OFF]);
        const [, first] = seconds(() => ws.up());
        const [, noop] = seconds(() => ws.pulumi(["preview", "--expect-no-changes"]));
        lines.push(`${stack}: cluster up ${up.toFixed(1)} s, first pulumi up ${first.toFixed(1)} s, no-op pulumi preview ${noop.toFixed(1)} s`);
    } finally {
        cluster.down();
    }
}
console.log(lines.join("\n"));
