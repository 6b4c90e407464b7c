/**
 * `resources`: CPU and memory requests and limits per container role, and their defaults. Every
 * container of every rendered pod takes its `resources` from here (core/manifests/meta.ts).
 *
 * The section is built from schema.ts's `quantity` and `strict` handed in by schema.ts itself
 * (`resourcesSection({ quantity, strict })`): importing them here would make an import circle
 * with schema.ts, which registers this section.
 */
import { z } from "zod";
import type { SectionDocs } from "./section";

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

export const RESOURCES_DOCS: SectionDocs = {
    description: "CPU/memory requests and limits per container role (defaults for every container).",
    reference: [
        { keys: ["resources.<role>.requests.cpu","resources.<role>.requests.memory","resources.<role>.limits.cpu","resources.<role>.limits.memory"], type: "quantity", default: "below", notes: "per container role; what you set is laid over the defaults key by key; a request above its limit is refused" },
    ],
};

/** The resources table: what each container role is and why its defaults (resources.ts) are what they are. */
export const RESOURCE_ROLE_NOTES: Record<ResourceRole, { containers: string; why: string }> = {
    ironic: { containers: "`ironic` (API and conductor, one Python process)", why: "the usual limit in metal3 deployments; large fleets may need more" },
    httpd: { containers: "`httpd` (API TLS proxy, images, virtual media)", why: "Apache workers; files are sent from the page cache" },
    dnsmasq: { containers: "`dnsmasq`", why: "a few MiB resident" },
    dhcpPruner: { containers: "`dhcp-pruner` (multi)", why: "Python with ssl and json, one poll at a time" },
    certMinter: { containers: "`conductor-certs` (multi)", why: "Python minting one RSA key at start, then the start wrapper's address check every 15 s" },
    slotAgent: { containers: "`dhcp-slot-agent` (multi with DHCP)", why: "Python with ssl and json, one Lease request every 2 s" },
    ramdiskLogs: { containers: "`ramdisk-logs`", why: "a watcher that unpacks log tarballs as they arrive" },
    ipaDownloader: { containers: "the IPA cache's init `ipa-downloader-<arch>`", why: "downloads and unpacks a ramdisk of several hundred MiB" },
    ipaCacheServer: { containers: "the IPA cache's `server`", why: "Python's threaded HTTP server, files sent in 1 MiB chunks" },
    ipaCacheClient: { containers: "init `ipa-cache-client` of the Ironic pods", why: "curl copying from the cache; a CA bundle" },
    exporter: { containers: "`ironic-prometheus-exporter` (with `metrics.enabled`)", why: "gunicorn with 4 Flask workers concatenating a few small files per scrape" },
    caBundles: { containers: "init `ca-bundles` and `ca-bundles-watch` (with `trust.bmcCa` or `trust.trustedCa`)", why: "`cat` and `sha256sum` of a few PEM files every 10 s" },
    dhcpDirs: { containers: "init `dhcp-dirs`", why: "one `mkdir`" },
    sharedDirs: { containers: "init `shared-dirs`", why: "one `mkdir`" },
    addressCheck: { containers: "init `provisioning-ip` (single without keepalived)", why: "`ip addr` once a second, for at most 60 s" },
    keepalived: { containers: "`keepalived`", why: "VRRP only" },
    mariadb: { containers: "`mariadb`", why: "256 MiB InnoDB buffer pool plus connections" },
    schemaJobs: { containers: "the schema Jobs' container", why: "`ironic-dbsync` loads all of Ironic; migrations batch rows" },
};
