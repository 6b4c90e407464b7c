/**
 * `resources`: CPU and memory requests and limits per container role, and their defaults. Every
 * container of every rendered pod takes its `resources` from here (core/manifests/meta.ts).
 *
 * The section is built from schema.ts's `quantity` and `strict` handed in by schema.ts itself
 * (`resourcesSection({ quantity, strict })`): importing them here would make an import circle
 * with schema.ts, which registers this section.
 */
import { z } from "zod";

/** The container roles, one per container kind the program renders (a closed set: typos get a hint). */
export const RESOURCE_ROLES = [
    "ironic",
    "httpd",
    "dnsmasq",
    "dhcpPruner",
    "certMinter",
    "slotAgent",
    "ramdiskLogs",
    "ipaDownloader",
    "ipaCacheServer",
    "ipaCacheClient",
    "caBundles",
    "exporter",
    "dhcpDirs",
    "sharedDirs",
    "addressCheck",
    "keepalived",
    "mariadb",
    "schemaJobs",
] as const;
export type ResourceRole = (typeof RESOURCE_ROLES)[number];

export interface Amounts {
    cpu?: string;
    memory?: string;
}
export interface ContainerResources {
    requests?: Amounts;
    limits?: Amounts;
}
/** After defaults: every role has requests and a memory limit. */
export type ResolvedResources = Record<ResourceRole, { requests: Amounts; limits: Amounts & { memory: string } }>;

/**
 * Defaults (docs/configuration.md, Resources). Requests are steady-state footprints; memory limits
 * leave headroom for peaks (Ironic's conductor and API are one Python process, ~1 GiB is the usual
 * limit in metal3 deployments; the IPA downloader unpacks a ramdisk of several hundred MiB). No CPU
 * limit by default: CFS throttling delays Ironic's 2 s heartbeat and DHCP/TFTP answers, and a
 * throttled conductor is dropped from the hash ring (core/timings.ts).
 */
export const DEFAULT_RESOURCES: ResolvedResources = {
    ironic: { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "1Gi" } },
    httpd: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "256Mi" } },
    dnsmasq: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "64Mi" } },
    dhcpPruner: { requests: { cpu: "10m", memory: "48Mi" }, limits: { memory: "128Mi" } },
    certMinter: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    slotAgent: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    ramdiskLogs: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    ipaDownloader: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "512Mi" } },
    ipaCacheServer: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    ipaCacheClient: { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "128Mi" } },
    caBundles: { requests: { cpu: "5m", memory: "16Mi" }, limits: { memory: "64Mi" } },
    exporter: { requests: { cpu: "10m", memory: "128Mi" }, limits: { memory: "512Mi" } },
    dhcpDirs: { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "32Mi" } },
    sharedDirs: { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "32Mi" } },
    addressCheck: { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "32Mi" } },
    keepalived: { requests: { cpu: "10m", memory: "16Mi" }, limits: { memory: "64Mi" } },
    mariadb: { requests: { cpu: "100m", memory: "512Mi" }, limits: { memory: "1Gi" } },
    schemaJobs: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } },
};

/** What schema.ts hands in (structurally typed: no import of schema.ts here). */
export interface SchemaBlocks {
    quantity: z.ZodType<string>;
    strict: <T extends z.ZodRawShape>(shape: T) => z.ZodObject<T, z.core.$strict>;
}

/** The `resources` section: `resources.<role>.{requests,limits}.{cpu,memory}`, each a quantity. */
export function resourcesSection({ quantity, strict }: SchemaBlocks): z.ZodType<Partial<Record<ResourceRole, ContainerResources>>> {
    const amounts = strict({ cpu: quantity.optional(), memory: quantity.optional() });
    const container = strict({ requests: amounts.optional(), limits: amounts.optional() });
    const shape = Object.fromEntries(RESOURCE_ROLES.map((r) => [r, container.optional()]));
    return strict(shape) as unknown as z.ZodType<Partial<Record<ResourceRole, ContainerResources>>>;
}

/** Each role's defaults with what the user set laid over them, field by field. */
export function resolveResources(parsed: Partial<Record<ResourceRole, ContainerResources>> | undefined): ResolvedResources {
    const out = {} as ResolvedResources;
    for (const role of RESOURCE_ROLES) {
        const d = DEFAULT_RESOURCES[role];
        const u = parsed?.[role];
        out[role] = { requests: { ...d.requests, ...u?.requests }, limits: { ...d.limits, ...u?.limits } };
    }
    return out;
}
