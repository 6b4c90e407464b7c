/** Types shared by the planner's modules: the plan and its parts, as plain data. */
import type { StackConfig } from "../config";
import type { DhcpRange, DnsmasqOptions } from "../render/dnsmasq";
import type { DatabasePlan } from "./database";
import type { ImageCachePlan } from "./image-cache";
import type { TrustPlan } from "./trust";
import type { UpgradeSubject } from "./upgrade";
import type { SlotSource } from "./slices";
import type { DhcpSlotPlan } from "./slots";

/** A Secret (or ConfigMap) the user owns: this program reads or mounts it, and never writes, replaces or deletes it. */
export interface UserSecret {
    /** The config key that names it. */
    key: string;
    name: string;
}

/** The Secrets and ConfigMaps the config names that the user owns. */
export interface UserOwned {
    secrets: UserSecret[];
    configMaps: UserSecret[];
}

/** BMCs on another network (external, conductors[].external): the URLs they and IPA get, and their hosts. */
export interface ExternalPlan {
    ip?: string;
    httpUrl?: string;
    callbackUrl?: string;
    /** The hosts of the URLs (and the ip): SANs of the certificate BMCs and IPA verify. */
    sans: { dnsNames: string[]; ipAddresses: string[] };
}

/** Environment variables by name. */
export type EnvMap = Record<string, string>;

/** One oslo.config override: [group, option, value], passed to the image as an OS_* variable. */
export type OsloSetting = [string, string, string];

/** A DHCP range with its number of addresses. */
export type SizedRange = DhcpRange & { size: number };

/** What one dnsmasq serves: its range, the renderer's inputs and the rendered file. */
export interface ServedDhcp {
    range: SizedRange;
    dnsmasqOptions: DnsmasqOptions;
    dnsmasqConf: string;
}

/** Single: the one Ironic, on provisioning.ip, not pinned to a node. */
export interface SingleConductor {
    ip: string;
    interface?: string;
    /** Absent without DHCP (virtual media only): the whole range. */
    dhcp?: ServedDhcp;
    /** BMCs on another network (external): its URLs and their hosts. */
    external?: ExternalPlan;
}

/**
 * Multi: a node conductors[] lists. Every selected node runs a conductor, listed or not; a listing
 * only overrides what the pod finds itself, or pins its slot.
 */
export interface ListedConductor {
    /** Kubernetes node name. */
    node: string;
    /** The entry's address; absent when the pod finds it at start. */
    ip?: string;
    /** Dual-stack: the entry's IPv6 address; absent when the pod finds it at start. */
    ipv6?: string;
    /** The entry's interface, else provisioning.interface. */
    interface: string;
    /** The node's entry in the per-node ConfigMap: what overrides what the pod finds (address, interface); may be empty. */
    entry: EnvMap;
    /** With an address in the entry: what the pod renders from it (the image's environment; with DHCP, dnsmasq's file). */
    resolved?: { env: EnvMap; dnsmasq?: ServedDhcp };
    /** With DHCP: the node's preferred slot, where the preference came from, its slice. */
    slot?: { index: number; source: SlotSource; range: SizedRange; /** Dual-stack with DHCPv6: the same slot of the IPv6 range. */ range6?: SizedRange };
    /** BMCs on another network (conductors[].external): its URLs, and the hosts its certificate names besides its own. */
    external?: ExternalPlan;
}

/** The topology, as a discriminated union: what only one of them has lives only there. */
export type TopologyPlan =
    | {
          kind: "single";
          conductor: SingleConductor;
          /** provisioning.keepalived: the VIP, interface and prefix keepalived manages. */
          keepalivedVirtualIps?: string;
      }
    | {
          kind: "multi";
          /** The nodes conductors[] lists (config order); the others are known only in the cluster. */
          conductors: ListedConductor[];
          /** With DHCP: the slot layout, the preferred slots and the problems that refuse them. */
          dhcpSlots?: DhcpSlotPlan;
          /** The per-node files every pod renders at start from its node's address (conductors.ts nodeTemplates). */
          nodeTemplates: { env: string; dnsmasqConf?: string };
          /** With DHCP: each slot's dnsmasq file (its slice of the range), keyed by slotConfKey; every pod gets all ({} without DHCP). */
          slotDnsmasqConfs: Record<string, string>;
      };

/**
 * Multi: where the conductor CA comes from. "stack-intermediate" (tls.mode generate): an
 * intermediate of the stack CA; "stack-root" (existing without tls.conductorCaSecret): a root the
 * stack makes for JSON-RPC alone, the only CA the peers trust there (`jsonRpcCaFile`); "user"
 * (tls.conductorCaSecret) and "issuer" (cert-manager): it must chain to `chainCheck`, the bundle
 * the peers verify with.
 */
export type ConductorCaPlan =
    | { source: "stack-intermediate" }
    | { source: "stack-root"; jsonRpcCaFile: string }
    | { source: "user" | "issuer"; chainCheck: string };

/** tls.caValidityDays, validityDays and renewBeforeDays: every CA and certificate of the stack (its own, BMO's webhook's, an issuer's). */
export interface CertValidity {
    caValidityDays: number;
    validityDays: number;
    renewBeforeDays: number;
}

/** The stack CA (components/pki.ts StackPki): its name and the validity of what it issues. */
export interface StackCaPlan extends CertValidity {
    commonName: string;
}

/**
 * Where the stack's certificates come from, decided once from tls.* (manifests and components read
 * this, not tls.mode). "stack" (generate): the stack CA issues every certificate. "user"
 * (existing): the API certificate is the user's Secret, read and never written; a stack CA only for
 * what that Secret does not cover (MariaDB, the IPA cache), when the stack deploys either. "issuer"
 * (cert-manager): every certificate is a Certificate of the issuer; no stack CA.
 */
export type TlsPlan = { validity: CertValidity } & (
    | { source: "stack"; stackCa: StackCaPlan }
    | { source: "user"; stackCa?: StackCaPlan }
    | { source: "issuer"; issuer: { name: string; kind: "Issuer" | "ClusterIssuer"; group: string } }
);

export interface IronicPlan {
    name: string;
    namespace: string;
    labels: Record<string, string>;
    selector: Record<string, string>;
    names: {
        deployment: string;
        service: string;
        dnsmasqConfigMap: string;
        tlsSecret: string;
        caSecret: string;
        credentialsSecret: string;
        /** Config values set with --secret that reach a container's environment (core/manifests/secret-env.ts). */
        configSecrets: string;
        bmoConfigMap: string;
        /** Multi only. */
        rpcCredentialsSecret: string;
        /** The per-node entries' ConfigMap: `<nodeDataConfigMapBase>-<hash of the scripts that read it>`. */
        nodeDataConfigMapBase: string;
        nodeDataConfigMap: string;
        /** Multi: the conductor CA (certificate and key) the conductors mint their certificates from. */
        conductorCaSecret: string;
        vmediaTlsSecret: string;
        /** The scripts ConfigMap is `<base>-<hash of its data>` (core/manifests/configmaps.ts scriptsConfigMapName). */
        scriptsConfigMapBase: string;
        /** Multi with DHCP: the slot agents' ServiceAccount, Role and RoleBinding. */
        slotAccount: string;
        /** Multi with DHCP: slot k is the Lease `<slotLeasePrefix>k`. */
        slotLeasePrefix: string;
        /** metrics.enabled: the headless Service over every Ironic pod's exporter (and its ServiceMonitor). */
        metricsService: string;
    };
    /** In-cluster DNS names of the API Service, shortest first. */
    serviceDnsNames: string[];
    urls: {
        /** What BMO and in-cluster clients use. */
        apiInCluster: string;
        /** What hosts, IPA and BMCs use on the provisioning network. */
        apiProvisioning: string;
        http: string;
        vmediaTls: string;
    };
    certificate: { dnsNames: string[]; ipAddresses: string[] };
    tls: TlsPlan;
    /** The image of each container (images.*). */
    images: StackConfig["images"];
    /** Where every pod runs and what it pulls with: placement.* and imagePullSecrets. */
    placement: StackConfig["placement"] & { imagePullSecrets: string[] };
    /** Requests and limits per container role (resources.*). */
    resources: StackConfig["resources"];
    /** Every port the stack listens on (ports.*). */
    ports: StackConfig["ports"];
    /** The exporter, its Service and ServiceMonitor (metrics.*). */
    metrics: StackConfig["metrics"];
    /** The provisioning network: interface, address, CIDR, DHCP ranges, the IPv6 side (provisioning.*). */
    provisioning: StackConfig["provisioning"];
    /** The VIPs' keepalived beyond provisioning.ip (keepalived.*). */
    keepalived: StackConfig["keepalived"];
    clusterDomain: string;
    createNamespace: boolean;
    /**
     * The namespace this stack creates is kept on `pulumi destroy`: deleting it would delete the
     * database volume kept in it (a deployed database with retainOnDelete), or, with bmo.enabled,
     * the BareMetalHosts that may live in it (kept like BMO's CRDs).
     */
    keepNamespaceOnDelete: boolean;
    /** The kubeconfig context of the stack's own Kubernetes provider (kubernetes.*). */
    kubernetes: StackConfig["kubernetes"];
    /** baremetal-operator, deployed and wired with bmo.enabled (bmo.*). */
    bmo: StackConfig["bmo"];
    /** The live check after the workload (readiness.*): on or off, how it reaches the API, how long it waits. */
    readiness: StackConfig["readiness"];
    /** The API user (ironic.apiUsername): the credentials Secret and BMO's. */
    apiUsername: string;
    /** Multi only: the conductor CA and the trust of JSON-RPC. */
    conductorCa?: ConductorCaPlan;
    database: DatabasePlan;
    topology: TopologyPlan;
    dhcpEnabled: boolean;
    /**
     * provisioning.bindInterface: httpd's API and boot files listen on each Ironic's provisioning
     * address alone, and these are the API Service's endpoints (its EndpointSlice): single,
     * provisioning.ip; multi, the address of each conductors[] entry that names one. Absent: every
     * address of the node, and the Service selects the pods.
     */
    apiBind?: string[];
    /** Environment common to the ironic and httpd containers. */
    commonEnv: EnvMap;
    /** Extra environment of the ironic container: the image variables and OS_* overrides. */
    ironicEnv: EnvMap;
    /** The OS_* overrides alone (a subset of ironicEnv), as [group, option, value]. */
    osloSettings: OsloSetting[];
    ipaDownloaderEnv: EnvMap;
    /** Where the conductors get IPA: the cache of this stack, another stack's, or the user's URLs. */
    imageCache: ImageCachePlan;
    /** The user's CAs (trust.*) and the bundles built from them. */
    trust: TrustPlan;
    /** What the rolling upgrade looks at (core/plan/upgrade.ts): topology, Ironic image, pin, conductors listed. */
    upgrade: UpgradeSubject;
    /** What the config names that the user owns: read or mounted, never written (core/plan/secrets.ts). */
    userOwned: UserOwned;
    dnsmasqStartScript: string;
}
