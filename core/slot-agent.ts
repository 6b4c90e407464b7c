/**
 * The contract of our own DHCP slot agent (assets/dhcp-slot-agent.py): the variables it reads,
 * its file name, the annotation it writes. The ironic image's own names live in contract.ts.
 */
/**
 * Multi: the DHCP slot agent (dhcp-slot-agent.py, a container of its own with the pod's only API
 * token) claims slot k as the coordination.k8s.io/v1 Lease `<leasePrefix>k` and grants it to the
 * fence in dnsmasq's container (the same script with --fence), which runs dnsmasq with DHCP_SLOT=k
 * only until the renew deadline the agent keeps moving; the agent releases the Lease on a clean
 * stop once the fence has stopped dnsmasq (the timing argument is in the script's header).
 */
export const SLOT_AGENT_ENV = {
    apiUrl: "SLOT_API_URL",
    tokenFile: "SLOT_TOKEN_FILE",
    caFile: "SLOT_CA_FILE",
    namespace: "SLOT_NAMESPACE",
    leasePrefix: "SLOT_LEASE_PREFIX",
    count: "SLOT_COUNT",
    /** Holder identity: the pod's name (a restarted container of the same pod takes its own Lease back at once). */
    identity: "SLOT_IDENTITY",
    node: "SLOT_NODE",
    /** JSON {"pinned": {node: slot}, "remembered": {node: slot}}. */
    preferencesFile: "SLOT_PREFERENCES_FILE",
    leaseLabels: "SLOT_LEASE_LABELS",
    leaseDuration: "SLOT_LEASE_DURATION",
    renewDeadline: "SLOT_RENEW_DEADLINE",
    retryPeriod: "SLOT_RETRY_PERIOD",
    claimMargin: "SLOT_CLAIM_MARGIN",
    stopGrace: "SLOT_STOP_GRACE",
    statusFile: "SLOT_STATUS_FILE",
    /** Where the agent writes its grant ("<epoch> <slot> <deadline>"), read by the fence. */
    grantDir: "SLOT_GRANT_DIR",
    /** Where the fence writes its state ("<busy|serving|idle|exited> <epoch>"), read by the agent. */
    fenceDir: "SLOT_FENCE_DIR",
    /** Set for the command: the slot held. */
    slot: "DHCP_SLOT",
} as const;

/** The agent's container; dnsmasq's runs the fence. */
export const SLOT_AGENT_CONTAINER = "dhcp-slot-agent";

/** The two directories the agent and the fence share (each an emptyDir written by one side only). */
const GRANT_DIR = "/run/dhcp-slot/grant";
const FENCE_DIR = "/run/dhcp-slot/fence";
export const SLOT_PATHS = {
    grantDir: GRANT_DIR,
    fenceDir: FENCE_DIR,
    /** The agent's state: waiting / slot k / lost slot k / stopped. */
    status: `${GRANT_DIR}/status`,
    /** The fence's state file (the script names it `state` in SLOT_FENCE_DIR). */
    fenceState: `${FENCE_DIR}/state`,
} as const;

/** The annotation the agent puts on its Lease: the node its holder runs on (the slot table shows it). */
export const SLOT_NODE_ANNOTATION = "metal3-ironic.metal3.io/node";
