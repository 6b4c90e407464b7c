/**
 * The ha example stack (Pulumi.ha.yaml, readiness off), deployed once with the real Pulumi CLI on
 * a cluster of its own and used, in this order, by three groups of scenarios that examples.test.ts
 * registers one after the other:
 *   1. its example checks (the render of the stack file equals the first `pulumi up`, a quiet
 *      second preview): they need the stack exactly as the file configures it;
 *   2. the day-2 scenarios (lifecycle.ts: image bump, new release, multi → single → multi,
 *      destroy and re-create): they need the three original control-plane nodes, and end with
 *      the stack re-created, its conductors listed;
 *   3. the conductor scenarios (conductors.ts: the list removed, nodes join and leave): they
 *      change the cluster's nodes, so they come last and stop the cluster.
 * Each group asks for the stack here, so a --grep that selects only a later group still gets a
 * configured and deployed stack.
 */
import * as path from "path";

import { Cluster, READINESS_OFF, ROOT, Workspace } from "./harness";
import { sharedCluster, sharedClusterRunning, stopSharedCluster } from "./shared-cluster";

export const HA_FILE = path.join(ROOT, "Pulumi.ha.yaml");
const NAME = "ha";

let current: { cluster: Cluster; ws: Workspace } | undefined;

/** The ha stack, configured as the example file says (one `pulumi config set-all`): started on first use. */
export function haStack(): { cluster: Cluster; ws: Workspace } {
    if (!current || !sharedClusterRunning(NAME)) {
        current = undefined;
        const cluster = sharedCluster(NAME);
        const ws = new Workspace(cluster, "ha");
        ws.configure(HA_FILE, [READINESS_OFF]);
        current = { cluster, ws };
    }
    return current;
}

/** The same, deployed: `pulumi up` unless one already succeeded (the example checks' own, normally). */
export function deployedHaStack(): { cluster: Cluster; ws: Workspace } {
    const s = haStack();
    if (s.ws.updates === 0) s.ws.up();
    return s;
}

/** Stops the ha stack's cluster (by PID, cluster.sh down). */
export function releaseHaStack(): void {
    current = undefined;
    stopSharedCluster(NAME);
}
