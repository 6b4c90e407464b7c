/**
 * The contract of our own multi-conductor start wrapper (assets/conductor-start.sh) and the
 * scripts it runs: paths, variables, file names. The ironic image's own names live in contract.ts.
 */
/**
 * Multi-conductor: per-node data (ConfigMap), the start wrapper, and the conductor CA (core/plan
 * certificates.ts conductorCaPlan says whose; mounted only in the `conductor-certs` container,
 * whose wrapper mints this node's certificate with certMinter into `minted`).
 */
export const CONDUCTOR_PATHS = {
    nodeData: "/etc/metal3-ironic/conductors",
    conductorCa: "/etc/metal3-ironic/conductor-ca",
    /** tls.mode "existing" without your CA: the conductor root's certificate alone, what the ironic container's JSON-RPC client trusts. */
    conductorCaCert: "/etc/metal3-ironic/conductor-ca-cert",
    /**
     * An emptyDir: the node's certificate (tls.crt, tls.key) as `conductor-certs` minted it, and
     * `mintedStamp`; writable there only, read-only in ironic and httpd, which copy the pair.
     */
    minted: "/etc/metal3-ironic/minted",
    /** In `minted`, written last: what the pair was minted for, the CA's, the pair's SHA-256. */
    mintedStamp: "minted-for",
    scripts: "/etc/metal3-ironic/scripts",
    /** An emptyDir: each container's wrapper renders its node's files under <run>/<container>. */
    run: "/run/metal3-ironic",
    /** In the scripts ConfigMap: the node's files with NODE_PLACEHOLDERS (core/plan/conductors.ts). */
    nodeEnvTemplate: "node.env.template",
    nodeDnsmasqTemplate: "node.dnsmasq.conf.template",
    /** In `<run>/<container>`: the node's environment as the wrapper rendered it (PROVISIONING_IP, …), which it sources. */
    nodeEnv: "node.env",
} as const;

/**
 * Multi: the start wrapper (conductor-start.sh) reads these, set in the pod template (identical on
 * every node) but nodeIp and nodeInterface (the node's entry: its address and interface). certSans: the
 * SANs every conductor shares, as DNS:<name> / IP:<address> words; python runs the minter and the
 * address finder. dhcpRange ("<rangeStart>-<rangeEnd>") and gateway, set only with provisioning.dhcp
 * (gateway only when configured): the finder refuses a found address inside the range or equal to
 * the gateway (an entry's address is checked by config validation). The wrapper exits 143 on a TERM
 * before the command runs and forwards it to the command after; it watches exactly `<node>.env`.
 */
export const WRAPPER_ENV = {
    node: "NODE_NAME",
    namespace: "CONDUCTOR_NAMESPACE",
    configMap: "CONDUCTOR_CONFIGMAP",
    /** Where the wrapper puts the node's certificate: minted there (`conductor-certs`), or copied there from mintedDir. */
    certDirs: "CONDUCTOR_CERT_DIRS",
    /** ironic and httpd: where `conductor-certs` mints; the wrapper waits for a pair minted for this node's address and SANs. */
    mintedDir: "CONDUCTOR_MINTED_DIR",
    /** Seconds to wait for that pair before failing (the container restarts and waits again). */
    certWait: "CONDUCTOR_CERT_WAIT",
    watchInterval: "CONDUCTOR_WATCH_INTERVAL",
    dataDir: "CONDUCTOR_DATA_DIR",
    caDir: "CONDUCTOR_CA_DIR",
    scriptsDir: "CONDUCTOR_SCRIPTS_DIR",
    python: "CONDUCTOR_PYTHON",
    nodeIp: "CONDUCTOR_NODE_IP",
    /** Dual-stack: the node's IPv6 address (its entry's conductors[].ipv6, else found in cidr6). */
    nodeIpv6: "CONDUCTOR_NODE_IPV6",
    nodeInterface: "CONDUCTOR_INTERFACE",
    certSans: "CONDUCTOR_CERT_SANS",
    /** tls.mode "existing": the bundle the peers verify with; the minter refuses a conductor CA that does not chain to it. */
    caTrust: "CONDUCTOR_CA_TRUST",
    /** The node's own extra SANs (its conductors[].external hosts), from its entry: DNS:/IP: words. */
    nodeSans: "CONDUCTOR_NODE_SANS",
    /** provisioning.interface and .cidr: where a node without an address in its entry finds it. */
    defaultInterface: "CONDUCTOR_DEFAULT_INTERFACE",
    cidr: "CONDUCTOR_CIDR",
    /** Dual-stack: provisioning.ipv6.cidr, where a node without conductors[].ipv6 finds its IPv6 address. */
    cidr6: "CONDUCTOR_CIDR6",
    /** Dual-stack: provisioning.ipv6.dhcp's "<rangeStart>-<rangeEnd>": a found IPv6 address inside it is refused. */
    dhcpRange6: "CONDUCTOR_DHCP_RANGE6",
    /** This container's dir under CONDUCTOR_PATHS.run, where the wrapper renders its node's files. */
    runDir: "CONDUCTOR_RUN_DIR",
    /** Seconds to wait for the address to appear on the interface (a NIC still coming up) before failing. */
    addressWait: "CONDUCTOR_ADDRESS_WAIT",
    /** provisioning.dhcp's "<rangeStart>-<rangeEnd>": a found address inside it is refused. */
    dhcpRange: "CONDUCTOR_DHCP_RANGE",
    /** provisioning.dhcp.gateway: a found address equal to it is refused. */
    gateway: "CONDUCTOR_GATEWAY",
} as const;

