/** Types shared by the planner's modules: the plan and its parts, as plain data. */
import type { StackConfig } from "../config";
import type { DhcpRange, DnsmasqOptions } from "../render/dnsmasq";
import type { DatabasePlan } from "./database";
import type { ImageCachePlan } from "./image-cache";
import type { SlotSource } from "./slices";
import type { DhcpSlotPlan } from "./slots";

/** Environment variables by name. */
export type EnvMap = Record<string, string>;

/** One oslo.config override: [group, option, value], passed to the image as an OS_* variable. */
export type OsloSetting = [string, string, string];

export interface ConductorPlan {
    /** Kubernetes node name ("" for the single topology, which is not pinned to a node). */
    node: string;
    /** Single: the provisioning IP. Multi: the entry's address; absent when the pod finds it at start. */
    ip?: string;
    interface?: string;
    /** Multi: the DHCP slot and where it came from (a pin, the previous run, first-fit now). */
    slot?: number;
    slotSource?: SlotSource;
    /** Multi: the node's entry in the per-node ConfigMap, what overrides what the pod finds itself (address, interface). */
    env?: EnvMap;
    /** Multi, address known: the image's environment the pod renders from it (provisioning IP, conductor host, interface). */
    resolvedEnv?: EnvMap;
    /** DHCP slice this conductor's dnsmasq hands out. */
    range?: DhcpRange & { size: number };
    /** Inputs of the dnsmasq renderer and its output (absent without DHCP). */
    dnsmasqOptions?: DnsmasqOptions;
    dnsmasqConf?: string;
}

export interface IronicPlan {
    config: StackConfig;
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
        bmoConfigMap: string;
        /** Multi only. */
        rpcCredentialsSecret: string;
        nodeDataConfigMap: string;
        /** Multi: the conductor CA (certificate and key) the conductors mint their certificates from. */
        conductorCaSecret: string;
        /** The scripts ConfigMap is `<base>-<hash of its data>` (core/manifests/configmaps.ts scriptsConfigMapName). */
        scriptsConfigMapBase: string;
        /** Multi with DHCP: the slot agents' ServiceAccount, Role and RoleBinding. */
        slotAccount: string;
        /** Multi with DHCP: slot k is the Lease `<slotLeasePrefix>k`. */
        slotLeasePrefix: string;
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
    database: DatabasePlan;
    conductors: ConductorPlan[];
    /** Multi with DHCP: the slot layout, allocation and the problems that refuse it. */
    dhcpSlots?: DhcpSlotPlan;
    dhcpEnabled: boolean;
    /** Environment common to the ironic and httpd containers. */
    commonEnv: EnvMap;
    /** Extra environment of the ironic container: the image variables and OS_* overrides. */
    ironicEnv: EnvMap;
    /** The OS_* overrides alone (a subset of ironicEnv), as [group, option, value]. */
    osloSettings: OsloSetting[];
    ipaDownloaderEnv: EnvMap;
    /** Where the conductors get IPA: the cache of this stack, another stack's, or the user's URLs. */
    imageCache: ImageCachePlan;
    dnsmasqStartScript: string;
    keepalivedVirtualIps?: string;
}
