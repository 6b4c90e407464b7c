/**
 * Local clusters shared by several e2e suites, started on first use and stopped once.
 *
 *  - "api": the suites that deploy no stack (cert-manager's and the MariaDB operator's CRDs, Pod
 *    Security admission, the slot agents' Leases) create their objects in namespaces of their own,
 *    so one cluster serves them all.
 *  - "ha": the ha example stack, deployed once for its example checks, then the day-2 and the
 *    conductor scenarios (ha-stack.ts).
 *
 * Started lazily, so a run whose --grep selects none of a cluster's suites starts no cluster. The
 * files of the "api" suites sort after examples.test.ts (hence tls-cert-manager.test.ts), so in one
 * mocha process it starts once the example stacks' clusters are stopped and never idles through
 * them (an idle cluster took 3.7 % of a core, measured); `npm test` runs examples.test.ts in two
 * processes of its own, the ha stack in one and the other stacks in the other ($E2E_EXAMPLES,
 * tools/test-results.ts planUnits), beside the other e2e suites. A
 * cluster is stopped by `stopSharedCluster` (a suite that knows it is the last user), else by a
 * root `after` hook at the end of the run (failed or not), else at process exit (a run that ends
 * before that hook); a killed test process stops it through sys.ts's onInterrupt (Cluster.up
 * registers every cluster). Always by `cluster.sh down`, which stops the PIDs it recorded. Each
 * mocha process starts its own (cluster.sh picks free ports, tmpDir a fresh directory), so two runs
 * on one machine never share one.
 */
import { Cluster } from "./harness";

const clusters = new Map<string, Cluster>();
/** A start that failed is not retried by every suite after it: each is told the first error. */
const failures = new Map<string, Error>();

export function sharedCluster(name = "api"): Cluster {
    const failed = failures.get(name);
    if (failed) throw new Error(`the shared cluster "${name}" failed to start earlier in this run: ${failed.message}`);
    let c = clusters.get(name);
    if (!c) {
        try {
            c = Cluster.up();
        } catch (e) {
            failures.set(name, e as Error);
            throw e;
        }
        clusters.set(name, c);
    }
    return c;
}

/** Whether the cluster `name` is running (started and not stopped). */
export function sharedClusterRunning(name: string): boolean {
    return clusters.has(name);
}

/** Stops the cluster `name` now, if it runs; the next `sharedCluster(name)` starts a new one. */
export function stopSharedCluster(name = "api"): void {
    const c = clusters.get(name);
    clusters.delete(name);
    failures.delete(name);
    c?.down();
}

function stopAll(): void {
    for (const name of [...clusters.keys()]) stopSharedCluster(name);
}

// A root hook (this module is first loaded by a spec file, outside any describe): once, after every suite.
if (typeof after === "function") {
    after("stop the shared local clusters", function () {
        this.timeout(5 * 60 * 1000);
        stopAll();
    });
}
// cluster.sh down is synchronous, so it can run in an exit handler.
process.once("exit", stopAll);
