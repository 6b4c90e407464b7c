/**
 * The DHCP pruner sidecar (assets/dhcp-pruner.py, rendered by core/render/pruner.ts): the
 * variables it reads (its file name: core/scripts.ts). Ours, not the image's; core/contract.ts re-exports them.
 */
/** The DHCP pruner sidecar (dhcp-pruner.py): the variables it reads. */
export const PRUNER_ENV = {
    apiUrl: "PRUNER_API_URL",
    caFile: "PRUNER_CA_FILE",
    authDir: "PRUNER_AUTH_DIR",
    hostsDir: "PRUNER_HOSTSDIR",
    optsDir: "PRUNER_OPTSDIR",
    interval: "PRUNER_INTERVAL",
    /** After a pass longer than the interval, the pause is this many times as long (the API's share). */
    pausePerPass: "PRUNER_PAUSE_PER_PASS",
    /** Owners (a detailed node listing) are read at least this often; see the script's wants_full. */
    fullInterval: "PRUNER_FULL_INTERVAL",
    /** This conductor's [DEFAULT]host (exported by the start wrapper from the node entry). */
    conductorHost: "IRONIC_CONDUCTOR_HOST",
    once: "PRUNER_ONCE",
    grace: "PRUNER_GRACE",
    rebalanceDelay: "PRUNER_REBALANCE_DELAY",
    /** Touched on every poll; the container's liveness probe checks its age. */
    heartbeatFile: "PRUNER_HEARTBEAT_FILE",
} as const;
