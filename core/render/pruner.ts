/**
 * The DHCP pruner sidecar of the multi-conductor pod: assets/dhcp-pruner.py, shipped as is in the
 * scripts ConfigMap and run by the ironic image's Python (stdlib only). It reads the PRUNER_ENV
 * variables; the pod sets its timings from core/timings.ts (the script's own defaults, quoted
 * below, apply only when one is unset). The script's header says "see components/pruner.ts for the
 * why": that is this comment (the module's path before core/ existed). The line is left as it is
 * because the scripts ConfigMap and its hash annotation carry the file's exact bytes.
 *
 * Why it exists and what it does:
 *
 * Ironic's dnsmasq provider never removes the previous owner's host file after the hash ring
 * moves a node, so two dnsmasq servers would answer one MAC. The pruner keeps its conductor's
 * hostsdir/optsdir consistent with ownership read from the Ironic API: an active host entry of a
 * node that another conductor owns is turned into `<mac>,ignore` (what Ironic's own cleanup
 * writes; dnsmasq picks it up through inotify), and that node's option file is removed. So is an
 * active entry of a node that no longer has a `driver_internal_info.dnsmasq_tag` (Ironic's
 * cleanup drops the tag but rewrites only the current owner's file: an undeploy that ran on
 * another conductor leaves this one's entry active). So is an active entry of a MAC no port has
 * (Ironic's node deletion leaves the entry active: its old owner would answer the machine forever,
 * and beside the new owner if it is enrolled again), and the option file of a node that no longer
 * exists; no rebalance delay applies to those. Entries of a port whose node is not listed or has
 * no owner are never touched; on any API error it changes nothing and tries again.
 *
 * The API's view of the hash ring can lag a conductor's by up to hash_ring_reset_interval, so a
 * fresh entry of a node this conductor has just taken over may briefly still be shown as owned
 * by the dead conductor. Pruning it would silence the new owner for good (Ironic does not write
 * it again). So an entry is pruned only when the same verdict was reached by two consecutive
 * polls and the file is older than a grace period (PRUNER_GRACE, default 15 s).
 *
 * When this conductor is itself alive, a move is a rebalance (a conductor joined), and the new
 * owner rewrites the files only at its next local-state sync: the entry is kept a while longer
 * (PRUNER_REBALANCE_DELAY, default 20 s) so the host is not left without any answer meanwhile.
 * When this conductor is dead (failover), it is pruned as soon as the verdict is confirmed.
 *
 * Owners cost: the API computes each node's owner only in a detailed listing, ~1 s per 1,000
 * nodes (Ironic 38, test/scale/); a listing of `fields=conductor` fails and the `conductor` filter
 * breaks pagination. A node's owner changes only with the ring (a conductor joins, leaves or
 * dies) or an edit of its driver or group, so a full pass (owners and tags) runs at start, on
 * every poll from a change of the conductor list until the grace period after it, while an
 * ownership verdict waits to be confirmed, and every PRUNER_FULL_INTERVAL (60 s); the polls
 * between list node UUIDs and ports only, which is enough for deletions. A tag dropped by a
 * cleanup elsewhere is seen at the next full pass.
 */

import { readAsset } from "./assets";
import { SCRIPT_FILES } from "../scripts";

/** The pruner program, byte for byte as in assets/dhcp-pruner.py. */
export function renderPrunerScript(): string {
    return readAsset(SCRIPT_FILES.pruner);
}
