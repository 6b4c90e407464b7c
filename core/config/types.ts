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
import type { ProvisioningConfig } from "./provisioning";
import type { ConductorConfig } from "./conductors";

export type { ExternalConfig, KeepalivedConfig } from "./reach";
export type { CaSource } from "./network";
export type { ConductorConfig } from "./conductors";
export type { DhcpConfig, ExtraDhcpRangeConfig, Ipv6Config } from "./provisioning";
import type { IronicConfig } from "./ironic";
import type { ImagesConfig } from "./images";
import type { ResolvedResources } from "./resources";
import type { DatabaseConfig } from "./database";

export interface StackConfig extends IdentityConfig, NetworkConfig {
    images: ImagesConfig;
    ports: PortsConfig;
    provisioning: ProvisioningConfig;
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
