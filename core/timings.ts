/**
 * Every timing the multi-conductor failover depends on, in one place: Ironic's heartbeat, ring
 * reset and local-state sync (set on every conductor, which also serves the API), and the DHCP
 * pruner's poll interval, grace period and rebalance delay, which are chosen against them.
 */

/**
 * Multi-conductor failover timing, on the API and the conductors alike (one process in the image).
 * Measured with Ironic 21.4: a conductor is dropped after heartbeat_timeout; the API and the
 * survivors see the new ring within hash_ring_reset_interval; survivors rewrite the DHCP files of
 * the dead conductor's active nodes at their next sync_local_state run. With 2/10/3/3 that is
 * at most about 10 + 2 + 3 + 3 = 18 s (defaults: up to 265 s), while a healthy conductor can miss
 * four heartbeats in a row (e.g. a slow database) before it is dropped. The two 3 s periods are
 * cheap queries (the conductor list; the nodes whose affinity differs) for fleets of hundreds.
 * A sync_local_state run takes over at most periodic_max_workers nodes (Ironic's default 8): with
 * it, a lost conductor's 348 active nodes (1,000 over three) took 96 s to be served by the two
 * survivors (Ironic 38, test/scale/, docs/operations.md Sizing), about 8 per survivor and run; 64
 * lets each run take over eight times as many (the conductor's worker pool has 300 threads).
 */
export const FAILOVER_SETTINGS: [string, string, string][] = [
    ["conductor", "heartbeat_interval", "2"],
    ["conductor", "heartbeat_timeout", "10"],
    ["conductor", "periodic_max_workers", "64"],
    ["conductor", "sync_local_state_interval", "3"],
    ["default", "hash_ring_reset_interval", "3"],
];

/**
 * The DHCP pruner (core/render/pruner.ts), in seconds. `grace` must exceed how long the API's view
 * of the ring can lag a conductor's (hash_ring_reset_interval above); `rebalanceDelay` gives a
 * new owner time to rewrite its files (sync_local_state_interval plus a heartbeat) before the old
 * owner's entry goes on a rebalance.
 */
export const PRUNER_TIMINGS = {
    interval: 2,
    /**
     * Owners are read (a detailed listing of every node: 10 s of API time at 10,000 nodes) at
     * start, on every poll from a change of the conductors until `grace` after it, while a verdict
     * waits, and at least this often; other polls list node UUIDs and ports only (deletions).
     */
    fullInterval: 60,
    /** A pass that takes longer than `interval / 3` is followed by a pause three times as long (at most 30 s): listing keeps the API busy at most a quarter of the time. */
    pausePerPass: 3,
    grace: 15,
    rebalanceDelay: 20,
    /**
     * Liveness: the heartbeat file is older than this only when the loop is stuck. One poll makes
     * three API requests (more with pagination) of at most 10 s each, so a healthy loop facing an
     * unresponsive API still goes round within about 40 s.
     */
    heartbeatMaxAge: 120,
} as const;

/**
 * The schema Jobs (ironic-dbsync upgrade, online data migrations). An upgrade takes seconds to a
 * few minutes, online migrations of a fleet of thousands of nodes some minutes more; a Job still
 * running after `activeDeadlineSeconds` is hung (e.g. waiting on a lock) and is stopped, so
 * `pulumi up` fails with the Job named instead of waiting for the provider's own timeout.
 * `backoffLimit` retries a crash (e.g. the database restarting) a few times. The provider waits
 * `providerMarginSeconds` longer than the deadline, so it sees the Job's own failure.
 */
export const SCHEMA_JOB_TIMINGS = {
    activeDeadlineSeconds: 1200,
    backoffLimit: 3,
    providerMarginSeconds: 120,
} as const;

/**
 * The DHCP slot agent (assets/dhcp-slot-agent.py; the fencing argument is in its header), in
 * seconds: a holder renews every `retryPeriod`; its fence stops dnsmasq `renewDeadline` after its
 * last confirmed renewal was sent (killed `stopGrace` later), whatever the agent does; a claimer
 * takes a slot over only after it saw the same holder and renewTime for `leaseDuration` +
 * `claimMargin`, and serves a Lease it had to create only `renewDeadline` + `stopGrace` +
 * `claimMargin` after the create (a Lease deleted while held). Safe while renewDeadline + stopGrace
 * < leaseDuration + claimMargin, and with the margin for clock rates (12 < 17 and 12 < 14: any
 * drift below 7 %). Slot takeover does not bound failover: a dead conductor's hosts are answered by
 * their new owners from the new owners' own slices (FAILOVER_SETTINGS); only a new conductor waits
 * for a free slot.
 */
export const SLOT_TIMINGS = {
    leaseDuration: 15,
    renewDeadline: 10,
    retryPeriod: 2,
    claimMargin: 2,
    stopGrace: 2,
} as const;

export type SlotTimings = { [K in keyof typeof SLOT_TIMINGS]: number };

/** How long after its create's answer the agent starts dnsmasq for a Lease it created (14 s with SLOT_TIMINGS). */
export function slotCreateDelay(t: SlotTimings = SLOT_TIMINGS): number {
    return t.renewDeadline + t.stopGrace + t.claimMargin;
}

/**
 * The longest a slot waits for a waiting agent once its holder is gone, the API's answer times
 * aside (docs/topologies.md states it): a waiter sees the holder's last renewal within a retry
 * period of its landing, and takes the slot the Lease's duration plus the margin after that (it
 * looks again exactly then); a Lease deleted while held is seen within a retry period and served
 * a create delay later. 19 s with SLOT_TIMINGS.
 */
export function slotTakeoverBound(t: SlotTimings = SLOT_TIMINGS): number {
    return t.retryPeriod + Math.max(t.leaseDuration + t.claimMargin, slotCreateDelay(t));
}
