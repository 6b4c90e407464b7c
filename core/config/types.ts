/** The validated, defaulted stack configuration: what `validateConfig` returns and the planner reads. */
import type { ImageCacheConfig } from "./image-cache";
import type { BmoConfig } from "./bmo";
import type { MetricsConfig } from "./metrics";
import type { KubernetesConfig } from "./kubernetes";
import type { PlacementConfig } from "./placement";
import type { PortsConfig } from "./ports";
import type { ReadinessConfig } from "./readiness";
import type { IdentityConfig } from "./identity";
import type { TlsConfig } from "./tls";
import type { ExternalConfig, KeepalivedConfig } from "./reach";
import type { NetworkConfig } from "./network";

export type { ExternalConfig, KeepalivedConfig } from "./reach";
export type { CaSource } from "./network";
import type { IronicConfig } from "./ironic";
import type { ImagesConfig } from "./images";
import type { ResolvedResources } from "./resources";
import type { DatabaseConfig } from "./database";

export interface DhcpConfig {
    rangeStart: string;
    rangeEnd: string;
    gateway?: string;
    dns?: string;
    leaseTime: string;
    /** Smallest acceptable range (single) or slice (multi). */
    minSize: number;
    /**
     * Number of equal slices the range is cut into (multi), when set. Unset, the planner resolves
     * it: the previous run's count, else one per conductor plus one (core/plan/slots.ts).
     */
    slots?: number;
    /** Multi: allow this run to cut the range anew when the range or slot count changed. */
    reslice: boolean;
    /** Relayed subnets (hosts behind a DHCP relay), each with its own range; in multi sliced like the main range. */
    extraRanges: ExtraDhcpRangeConfig[];
}

/** A relayed subnet's DHCP range: dnsmasq answers requests a relay forwards with a giaddr in `subnet`. */
export interface ExtraDhcpRangeConfig {
    subnet: string;
    rangeStart: string;
    rangeEnd: string;
    /** The subnet's router (usually the relay itself): how its hosts reach the conductors. */
    gateway: string;
    dns?: string;
    /** Default: the main range's lease time. */
    leaseTime: string;
}

/** Dual-stack: IPv6 next to an IPv4 provisioning.cidr; Ironic's API, http_url and JSON-RPC stay on IPv4. */
export interface Ipv6Config {
    cidr: string;
    /** Single: Ironic's IPv6 address (multi: conductors[].ipv6 or found on the node). */
    ip?: string;
    /** DHCPv6 next to provisioning.dhcp (multi: sliced with the same slots). */
    dhcp?: { rangeStart: string; rangeEnd: string; dns?: string; leaseTime: string };
}

/** A per-node override of topology multi: the node's address (else found at start), interface, slot pin. */
export interface ConductorConfig {
    name: string;
    ip?: string;
    /** Dual-stack: the node's IPv6 provisioning address (else found at start in provisioning.ipv6.cidr). */
    ipv6?: string;
    interface?: string;
    slot?: number;
    /** What BMCs on another network reach this conductor at (multi). */
    external?: ExternalConfig;
}

export interface StackConfig extends IdentityConfig, NetworkConfig {
    images: ImagesConfig;
    ports: PortsConfig;
    provisioning: {
        interface?: string;
        /** Ironic's address (single); unused with multi, where each conductor has its own. */
        ip: string;
        cidr: string;
        keepalived: boolean;
        dhcp?: DhcpConfig;
        /** Dual-stack: the IPv6 side of an IPv4 provisioning network (DHCPv6, my_ipv6, certificates). */
        ipv6?: Ipv6Config;
    };
    tls: TlsConfig;
    placement: PlacementConfig;
    ironic: IronicConfig;
    database: DatabaseConfig;
    conductors: ConductorConfig[];
    kubernetes: KubernetesConfig;
    /** Requests and limits per container role, defaults laid under what was set. */
    resources: ResolvedResources;
    /** Where the conductors get IPA from: a cache of this stack, another stack's, or the user's URLs. */
    imageCache: ImageCacheConfig;
    /** The ironic-prometheus-exporter beside every Ironic, sensor collection, an optional ServiceMonitor. */
    metrics: MetricsConfig;
    /** baremetal-operator deployed by the stack (off by default): its release and where its module comes from. */
    bmo: BmoConfig;
    /** The live check after the workload: on/off, how it reaches the API, how long it waits. */
    external?: ExternalConfig;
    keepalived: KeepalivedConfig;
    readiness: ReadinessConfig;
}
