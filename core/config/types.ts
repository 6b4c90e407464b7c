/** The validated, defaulted stack configuration: what `validateConfig` returns and the planner reads. */
import type { Toleration } from "./schema";

export interface DhcpConfig {
    rangeStart: string;
    rangeEnd: string;
    gateway?: string;
    dns?: string;
    leaseTime: string;
    /** Smallest acceptable range (single) or slice (multi). */
    minSize: number;
    /** Number of equal slices the range is cut into (multi). */
    slots: number;
}

export interface ConductorConfig {
    name: string;
    ip: string;
    interface?: string;
    slot?: number;
}

export interface StackConfig {
    topology: "single" | "multi";
    namespace: string;
    name: string;
    createNamespace: boolean;
    clusterDomain: string;
    images: { ironic: string; ipaDownloader: string; keepalived: string; mariadb: string };
    ports: { api: number; http: number; vmediaTls: number; jsonRpc: number };
    provisioning: {
        interface?: string;
        /** Ironic's address (single); unused with multi, where each conductor has its own. */
        ip: string;
        cidr: string;
        keepalived: boolean;
        dhcp?: DhcpConfig;
    };
    tls: {
        mode: "generate" | "existing";
        existingSecret?: string;
        validityDays: number;
        renewBeforeDays: number;
        caValidityDays: number;
        extraDnsNames: string[];
        extraIps: string[];
    };
    placement: {
        nodeSelector: Record<string, string>;
        tolerations: Toleration[];
    };
    ironic: {
        apiUsername: string;
        config: Record<string, string | number | boolean>;
        kernelParams?: string;
        ramdiskSshKey?: string;
        automatedClean: boolean;
        ipa: { baseUri?: string; branch?: string; flavor?: string };
    };
    database: {
        kind: "sqlite" | "mariadb" | "external";
        host?: string;
        port?: number;
        /** Database name (default ironic). */
        name: string;
        credentialsSecret?: string;
        caSecret?: string;
        /** mariadb: volume size and class; keep the volume when the stack is destroyed. */
        storageSize: string;
        storageClass?: string;
        retainOnDelete: boolean;
        /** Allow an Ironic image older than the deployed one (Ironic does not support schema downgrades). */
        allowDowngrade: boolean;
    };
    conductors: ConductorConfig[];
    kubernetes: { context?: string };
    /** The live check after the workload: on/off, how it reaches the API, how long it waits. */
    readiness: { enabled: boolean; mode: "auto" | "in-cluster" | "port-forward"; timeoutSeconds: number };
}
