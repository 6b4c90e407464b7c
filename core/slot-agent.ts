/**
 * The contract of our own DHCP slot agent (assets/dhcp-slot-agent.py): the variables it reads,
 * its file name, the annotation it writes. The ironic image's own names live in contract.ts.
 */
/**
 * Multi: the DHCP slot agent (dhcp-slot-agent.py) in front of dnsmasq. It claims slot k as the
 * coordination.k8s.io/v1 Lease `<leasePrefix>k`, runs dnsmasq with DHCP_SLOT=k only while it holds
 * it, and releases it on a clean stop (the timing argument is in the script's header).
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
    /** Set for the command: the slot held. */
    slot: "DHCP_SLOT",
} as const;

export const SLOT_AGENT_SCRIPT = "dhcp-slot-agent.py";

/** The annotation the agent puts on its Lease: the node its holder runs on (the slot table shows it). */
export const SLOT_NODE_ANNOTATION = "metal3-ironic.metal3.io/node";
