/**
 * Stack configuration: the schema, its defaults, and validation that reports every problem
 * at once with the config key it concerns and how to fix it.
 *
 * Pure: no Pulumi import. `index.ts` hands in the raw config read from the engine;
 * `tools/plan.ts` hands in the raw config read from Pulumi.<stack>.yaml.
 */
import { closest, distance } from "fastest-levenshtein";
import * as ipaddr from "ipaddr.js";
import { z } from "zod";

import { DEFAULT_IMAGES, PORTS } from "../contract";
import { ipToNumber, numberToIp } from "../ip";
import { planSlices } from "../plan/slices";

export { ipToNumber, numberToIp };

export const PROJECT = "metal3-ironic";

/** One configuration problem: the key path (as typed in `pulumi config set --path`) and the message. */
export interface ConfigIssue {
    key: string;
    message: string;
}

export function formatIssues(issues: ConfigIssue[]): string {
    const lines = issues.map((i) => `  - ${i.key}: ${i.message}`);
    return `invalid stack configuration (${issues.length} problem${issues.length === 1 ? "" : "s"}):\n${lines.join("\n")}`;
}

// ---------------------------------------------------------------------------------------------
// Building blocks

/** A strict object whose unknown keys are reported with a "did you mean" hint. */
function strict<T extends z.ZodRawShape>(shape: T) {
    const known = Object.keys(shape);
    return z.strictObject(shape, {
        error: (iss) => {
            if (iss.code !== "unrecognized_keys") return undefined;
            const hints = iss.keys.map((k: string) => unknownKeyHint(k, known));
            return hints.join("; ");
        },
    });
}

function unknownKeyHint(key: string, known: string[]): string {
    const lower = key.toLowerCase();
    const candidate = known.length > 0 ? closest(key, known) : undefined;
    const close =
        candidate !== undefined &&
        (candidate.toLowerCase() === lower || distance(lower, candidate.toLowerCase()) <= Math.max(2, Math.floor(key.length / 3)));
    const suffix = close ? `did you mean "${candidate}"?` : `known keys here: ${known.join(", ")}`;
    return `unknown key "${key}": ${suffix}`;
}

const ipv4 = z.string().refine((s) => ipaddr.IPv4.isValidFourPartDecimal(s), {
    message: "not a valid IPv4 address (expected dotted quad such as 172.22.0.2)",
});

const cidr = z.string().refine(
    (s) => {
        try {
            const [addr] = ipaddr.parseCIDR(s);
            return addr.kind() === "ipv4" && ipaddr.IPv4.isValidFourPartDecimal(s.split("/")[0]);
        } catch {
            return false;
        }
    },
    { message: "not a valid IPv4 CIDR (expected network/prefix such as 172.22.0.0/24)" },
);

const port = z
    .number({ error: "must be a port number (integer 1-65535)" })
    .int("must be a whole number")
    .min(1, "must be between 1 and 65535")
    .max(65535, "must be between 1 and 65535");

/** RFC 1123 label: Kubernetes namespace and object-name component. */
const dnsLabel = z
    .string()
    .max(63, "must be at most 63 characters")
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit");

/** Linux interface name. */
const ifname = z
    .string()
    .regex(/^[A-Za-z0-9_.:@-]{1,15}$/, "must be a Linux interface name (1-15 characters, no spaces or '/')");

/**
 * Container image reference: [registry[:port]/]path[:tag][@digest], following the grammar of
 * the distribution reference (lower-case path components, tag up to 128 characters, sha256 digest).
 */
const IMAGE_REF =
    /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const imageRef = z
    .string()
    .max(255, "image reference is too long")
    .regex(IMAGE_REF, "not a valid image reference (expected e.g. quay.io/metal3-io/ironic:release-38.0 or ...@sha256:<64 hex>)");

/** dnsmasq lease time: seconds, or a number with m/h/d/w, or "infinite". */
const leaseTime = z
    .string()
    .regex(/^(infinite|[0-9]+[smhdw]?)$/, "must be a dnsmasq lease time such as 3600, 45m, 1h, 1d or infinite");

/** oslo.config group/option names: what the OS_<GROUP>__<OPTION> variables address. */
const osloKey = z
    .string()
    .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/, "must be <group>.<option> in lower case, e.g. conductor.deploy_callback_timeout");

const toleration = strict({
    key: z.string().optional(),
    operator: z.enum(["Exists", "Equal"]).optional(),
    value: z.string().optional(),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
    tolerationSeconds: z.number().int().optional(),
});

// ---------------------------------------------------------------------------------------------
// Sections. Each top-level key is a separate Pulumi config key (`metal3-ironic:<key>`), parsed
// separately so that a problem in one section does not hide problems in another.

const sections = {
    topology: z.enum(["single", "multi"], { error: 'must be "single" (one Ironic) or "multi" (one Ironic per control-plane node)' }),
    namespace: dnsLabel,
    name: dnsLabel.refine((s) => s.length <= 40, "must be at most 40 characters (object names append suffixes)"),
    createNamespace: z.boolean(),
    clusterDomain: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS domain such as cluster.local"),
    images: strict({
        ironic: imageRef.optional(),
        ipaDownloader: imageRef.optional(),
        keepalived: imageRef.optional(),
        mariadb: imageRef.optional(),
    }),
    ports: strict({
        api: port.optional(),
        http: port.optional(),
        vmediaTls: port.optional(),
        jsonRpc: port.optional(),
    }),
    provisioning: strict({
        interface: ifname.optional(),
        ip: ipv4.optional(),
        cidr: cidr,
        keepalived: z.boolean().optional(),
        dhcp: strict({
            rangeStart: ipv4,
            rangeEnd: ipv4,
            gateway: ipv4.optional(),
            dns: ipv4.optional(),
            leaseTime: leaseTime.optional(),
            minSize: z.number().int().min(1).optional(),
            slots: z.number().int().min(1).max(64).optional(),
        }).optional(),
    }),
    tls: strict({
        mode: z.enum(["generate", "existing"], { error: 'must be "generate" (stack CA made by this program) or "existing"' }).optional(),
        existingSecret: dnsLabel.optional(),
        validityDays: z.number().int().min(1).max(3650).optional(),
        renewBeforeDays: z.number().int().min(1).optional(),
        caValidityDays: z.number().int().min(1).max(36500).optional(),
        extraDnsNames: z.array(z.string().regex(/^(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a DNS name")).optional(),
        extraIps: z.array(ipv4).optional(),
    }),
    placement: strict({
        nodeSelector: z.record(z.string(), z.string()).optional(),
        tolerations: z.array(toleration).optional(),
    }),
    ironic: strict({
        apiUsername: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1-64 characters of letters, digits, '_', '.', '-'").optional(),
        config: z.record(osloKey, z.union([z.string(), z.number(), z.boolean()])).optional(),
        kernelParams: z.string().optional(),
        ramdiskSshKey: z
            .string()
            .regex(/^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-nistp(256|384|521)) [A-Za-z0-9+/=]+( .*)?$/, "must be an OpenSSH public key line (ssh-ed25519 AAAA... comment)")
            .optional(),
        automatedClean: z.boolean().optional(),
        ipa: strict({
            baseUri: z.string().url("must be a URL").optional(),
            branch: z.string().optional(),
            flavor: z.string().optional(),
        }).optional(),
    }),
    database: strict({
        kind: z.enum(["sqlite", "mariadb", "external"], {
            error: 'must be "mariadb" (deployed by this program), "external" (your own MariaDB/MySQL) or "sqlite" (single only, reset on every restart)',
        }),
        host: z.string().regex(/^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?$/, "must be a host name or IP address (put the port in database.port)").optional(),
        port: port.optional(),
        name: z.string().regex(/^[A-Za-z0-9_]{1,64}$/, "must be a database name: letters, digits and '_' (at most 64)").optional(),
        credentialsSecret: dnsLabel.optional(),
        caSecret: dnsLabel.optional(),
        storageSize: z.string().regex(/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/, "must be a Kubernetes quantity such as 10Gi").optional(),
        storageClass: z.string().optional(),
        retainOnDelete: z.boolean().optional(),
        allowDowngrade: z.boolean().optional(),
    }),
    conductors: z.array(
        strict({
            name: z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "must be a Kubernetes node name"),
            ip: ipv4,
            interface: ifname.optional(),
            slot: z.number().int().min(0).optional(),
        }),
    ),
    kubernetes: strict({
        context: z.string().optional(),
    }),
} as const;

type Sections = { [K in keyof typeof sections]: z.infer<(typeof sections)[K]> };

/** Known top-level keys, for the "did you mean" hint on unknown ones. */
export const TOP_LEVEL_KEYS = Object.keys(sections) as (keyof typeof sections)[];

/** The raw config: top-level key (without the `metal3-ironic:` prefix) → parsed JSON value. */
export type RawConfig = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// The validated, defaulted configuration.

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
        tolerations: z.infer<typeof toleration>[];
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
}

/** The DHCP range (single) or each slice (multi) must offer at least this many addresses unless `provisioning.dhcp.minSize` says otherwise. */
export const DEFAULT_MIN_DHCP_RANGE = 8;
/** Default number of slices of the multi-conductor range: three control-plane nodes, room to grow and to replace. */
export const DEFAULT_DHCP_SLOTS = 8;

/**
 * ironic.conf options the multi-conductor topology sets itself: overriding them through
 * `ironic.config` would break DHCP ownership or JSON-RPC.
 */
export const RESERVED_MULTI_OPTIONS = [/^dhcp\./, /^dnsmasq\./, /^json_rpc\./, /^default\.(host|rpc_transport|my_ip)$/];

const CONTROL_PLANE_TOLERATIONS = [
    { key: "node-role.kubernetes.io/control-plane", operator: "Exists" as const, effect: "NoSchedule" as const },
    { key: "node-role.kubernetes.io/master", operator: "Exists" as const, effect: "NoSchedule" as const },
];

function pathKey(section: string, path: PropertyKey[]): string {
    let key = section;
    for (const p of path) key += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
    return key;
}

/**
 * Validate and default the raw stack configuration. Returns every problem found; structural
 * problems of one section do not prevent checks of the others.
 */
export function validateConfig(raw: RawConfig): { ok: true; config: StackConfig } | { ok: false; issues: ConfigIssue[] } {
    const issues: ConfigIssue[] = [];
    const parsed: Partial<Sections> = {};

    for (const key of Object.keys(raw).sort()) {
        if (!(key in sections)) {
            issues.push({ key, message: unknownKeyHint(key, TOP_LEVEL_KEYS as string[]) + ` (set with: pulumi config set ${PROJECT}:<key>)` });
        }
    }
    for (const key of TOP_LEVEL_KEYS) {
        if (raw[key] === undefined) continue;
        const result = (sections[key] as z.ZodTypeAny).safeParse(raw[key]);
        if (result.success) {
            (parsed as Record<string, unknown>)[key] = result.data;
        } else {
            for (const iss of result.error.issues) issues.push({ key: pathKey(key, iss.path), message: iss.message });
        }
    }
    if (raw.provisioning === undefined) {
        issues.push({
            key: "provisioning",
            message: `required: the provisioning network, e.g. pulumi config set --path ${PROJECT}:provisioning.ip 172.22.0.2 and ...provisioning.cidr 172.22.0.0/24`,
        });
    }

    const config = applyDefaults(parsed);
    issues.push(...semanticIssues(config, parsed));
    if (issues.length > 0) return { ok: false, issues };
    return { ok: true, config: config as StackConfig };
}

function applyDefaults(p: Partial<Sections>): StackConfig {
    const prov = p.provisioning;
    const dhcp = prov?.dhcp;
    return {
        topology: p.topology ?? "single",
        namespace: p.namespace ?? "metal3",
        name: p.name ?? "ironic",
        createNamespace: p.createNamespace ?? true,
        clusterDomain: p.clusterDomain ?? "cluster.local",
        images: {
            ironic: p.images?.ironic ?? DEFAULT_IMAGES.ironic,
            ipaDownloader: p.images?.ipaDownloader ?? DEFAULT_IMAGES.ipaDownloader,
            keepalived: p.images?.keepalived ?? DEFAULT_IMAGES.keepalived,
            mariadb: p.images?.mariadb ?? DEFAULT_IMAGES.mariadb,
        },
        ports: {
            api: p.ports?.api ?? PORTS.api,
            http: p.ports?.http ?? PORTS.http,
            vmediaTls: p.ports?.vmediaTls ?? PORTS.vmediaTls,
            jsonRpc: p.ports?.jsonRpc ?? PORTS.jsonRpc,
        },
        provisioning: {
            interface: prov?.interface,
            ip: prov?.ip ?? "",
            cidr: prov?.cidr ?? "",
            keepalived: prov?.keepalived ?? false,
            dhcp: dhcp
                ? {
                      rangeStart: dhcp.rangeStart,
                      rangeEnd: dhcp.rangeEnd,
                      gateway: dhcp.gateway,
                      dns: dhcp.dns,
                      leaseTime: dhcp.leaseTime ?? "1h",
                      minSize: dhcp.minSize ?? DEFAULT_MIN_DHCP_RANGE,
                      slots: dhcp.slots ?? DEFAULT_DHCP_SLOTS,
                  }
                : undefined,
        },
        tls: {
            mode: p.tls?.mode ?? "generate",
            existingSecret: p.tls?.existingSecret,
            validityDays: p.tls?.validityDays ?? 365,
            renewBeforeDays: p.tls?.renewBeforeDays ?? 30,
            caValidityDays: p.tls?.caValidityDays ?? 3650,
            extraDnsNames: p.tls?.extraDnsNames ?? [],
            extraIps: p.tls?.extraIps ?? [],
        },
        placement: {
            nodeSelector: p.placement?.nodeSelector ?? {},
            tolerations: p.placement?.tolerations ?? CONTROL_PLANE_TOLERATIONS,
        },
        ironic: {
            apiUsername: p.ironic?.apiUsername ?? "metal3",
            config: p.ironic?.config ?? {},
            kernelParams: p.ironic?.kernelParams,
            ramdiskSshKey: p.ironic?.ramdiskSshKey,
            automatedClean: p.ironic?.automatedClean ?? true,
            ipa: p.ironic?.ipa ?? {},
        },
        database: {
            kind: p.database?.kind ?? "sqlite",
            host: p.database?.host,
            port: p.database?.port,
            name: p.database?.name ?? "ironic",
            credentialsSecret: p.database?.credentialsSecret,
            caSecret: p.database?.caSecret,
            storageSize: p.database?.storageSize ?? "10Gi",
            storageClass: p.database?.storageClass,
            retainOnDelete: p.database?.retainOnDelete ?? true,
            allowDowngrade: p.database?.allowDowngrade ?? false,
        },
        conductors: p.conductors ?? [],
        kubernetes: p.kubernetes ?? {},
    };
}

/** Cross-field checks on sections that parsed. */
function semanticIssues(c: StackConfig, parsed: Partial<Sections>): ConfigIssue[] {
    const issues: ConfigIssue[] = [];
    const add = (key: string, message: string) => issues.push({ key, message });

    // Ports must be distinct: they all bind on the host network of the same node.
    const seenPorts = new Map<number, string>();
    for (const [k, v] of Object.entries(c.ports)) {
        const other = seenPorts.get(v);
        if (other) add(`ports.${k}`, `port ${v} is already used by ports.${other}; every Ironic port must be different (they share the node's host network)`);
        else seenPorts.set(v, k);
        if (v === PORTS.dhcp || v === PORTS.tftp) add(`ports.${k}`, `port ${v} is taken by dnsmasq (DHCP/TFTP); choose another port`);
    }

    // Provisioning network.
    const prov = parsed.provisioning;
    if (prov) {
        const [net, prefix] = ipaddr.parseCIDR(prov.cidr) as [ipaddr.IPv4, number];
        const first = ipToNumber(net) - (ipToNumber(net) % 2 ** (32 - prefix));
        const networkAddr = numberToIp(first);
        const broadcast = first + 2 ** (32 - prefix) - 1;
        if (numberToIp(ipToNumber(net)) !== networkAddr) {
            add("provisioning.cidr", `${prov.cidr} has host bits set; did you mean ${networkAddr}/${prefix}?`);
        }
        if (prefix > 30) add("provisioning.cidr", `a /${prefix} network has no room for hosts; use the real prefix of the provisioning network (e.g. /24)`);
        const inNet = (ip: string) => {
            const n = ipToNumber(ip);
            return n >= first && n <= broadcast;
        };
        const usable = (ip: string) => {
            const n = ipToNumber(ip);
            return n > first && n < broadcast;
        };
        const multi = c.topology === "multi";
        const checkHostIp = (key: string, ip: string) => {
            if (!inNet(ip)) add(key, `${ip} is not inside provisioning.cidr ${prov.cidr}`);
            else if (!usable(ip)) add(key, `${ip} is the network or broadcast address of ${prov.cidr}`);
        };
        if (prov.ip === undefined) {
            if (!multi) add("provisioning.ip", "required with topology single: Ironic's address on the provisioning network, e.g. 172.22.0.2");
        } else if (multi) {
            add("provisioning.ip", 'not used with topology "multi": each conductor serves on its own conductors[].ip; remove it');
        } else {
            checkHostIp("provisioning.ip", prov.ip);
        }
        (parsed.conductors ?? []).forEach((cd, i) => checkHostIp(`conductors[${i}].ip`, cd.ip));
        // Addresses Ironic itself serves on: DHCP must never hand them out.
        const serverIps: [string, string][] = multi
            ? (parsed.conductors ?? []).map((cd, i) => [`conductors[${i}].ip`, cd.ip] as [string, string])
            : prov.ip
              ? [["provisioning.ip", prov.ip]]
              : [];

        if (prov.keepalived && !prov.interface) {
            add("provisioning.interface", "required with provisioning.keepalived: true (keepalived puts the VIP provisioning.ip on this interface)");
        }

        const d = prov.dhcp;
        if (d) {
            const sn = ipToNumber(d.rangeStart);
            const en = ipToNumber(d.rangeEnd);
            let rangeOk = true;
            if (!usable(d.rangeStart)) {
                add("provisioning.dhcp.rangeStart", `${d.rangeStart} is not a usable host address of provisioning.cidr ${prov.cidr}`);
                rangeOk = false;
            }
            if (!usable(d.rangeEnd)) {
                add("provisioning.dhcp.rangeEnd", `${d.rangeEnd} is not a usable host address of provisioning.cidr ${prov.cidr}`);
                rangeOk = false;
            }
            if (sn > en) {
                add("provisioning.dhcp", `range is reversed: rangeStart ${d.rangeStart} comes after rangeEnd ${d.rangeEnd}; swap them`);
                rangeOk = false;
            }
            const inRange = (ip: string) => ipToNumber(ip) >= sn && ipToNumber(ip) <= en;
            if (rangeOk) {
                for (const [key, ip] of serverIps) {
                    if (inRange(ip)) {
                        add(key === "provisioning.ip" ? "provisioning.dhcp" : key, `range ${d.rangeStart}-${d.rangeEnd} contains the ${key === "provisioning.ip" ? "provisioning IP" : "conductor IP"} ${ip}; move the range or the IP so that DHCP never hands out Ironic's own address`);
                    }
                }
                if (d.gateway && inRange(d.gateway)) {
                    add("provisioning.dhcp.gateway", `gateway ${d.gateway} lies inside the DHCP range ${d.rangeStart}-${d.rangeEnd}; a client could be given the router's address`);
                }
                const size = en - sn + 1;
                const min = d.minSize ?? DEFAULT_MIN_DHCP_RANGE;
                if (!multi && size < min) {
                    add("provisioning.dhcp", `range ${d.rangeStart}-${d.rangeEnd} offers only ${size} address${size === 1 ? "" : "es"}; at least ${min} are needed (each host being provisioned or inspected holds a lease). Widen the range or lower provisioning.dhcp.minSize`);
                }
                if (multi && parsed.conductors) {
                    const sp = planSlices({ rangeStart: d.rangeStart, rangeEnd: d.rangeEnd, slots: d.slots ?? DEFAULT_DHCP_SLOTS, minSize: min, conductors: parsed.conductors });
                    for (const iss of sp.issues) add(iss.key, iss.message);
                }
            }
            if (!multi && d.slots !== undefined) add("provisioning.dhcp.slots", 'only used with topology "multi" (the single topology serves the whole range)');
            if (d.gateway && !usable(d.gateway)) add("provisioning.dhcp.gateway", `${d.gateway} is not inside provisioning.cidr ${prov.cidr}`);
            for (const [key, ip] of serverIps) {
                if (d.gateway && d.gateway === ip) add("provisioning.dhcp.gateway", `the gateway cannot be Ironic's own address ${ip} (${key})`);
            }
        }
    }

    // TLS
    if (parsed.tls) {
        if (c.tls.mode === "existing" && !c.tls.existingSecret) {
            add("tls.existingSecret", 'required with tls.mode "existing": the name of a Secret in the namespace with keys tls.crt, tls.key and ca.crt');
        }
        if (c.tls.mode === "generate" && c.tls.existingSecret) {
            add("tls.existingSecret", 'only used with tls.mode "existing"; remove it or set tls.mode to "existing"');
        }
        if (c.tls.renewBeforeDays >= c.tls.validityDays) {
            add("tls.renewBeforeDays", `must be less than tls.validityDays (${c.tls.validityDays}); otherwise the certificate is due for renewal as soon as it is issued and is regenerated on every run`);
        }
        if (c.tls.renewBeforeDays >= c.tls.caValidityDays) {
            add("tls.renewBeforeDays", `must be less than tls.caValidityDays (${c.tls.caValidityDays})`);
        }
    }

    // Conductors: unique names, IPs and slots.
    const conductors = parsed.conductors ?? [];
    const dup = <T>(what: string, get: (x: (typeof conductors)[number]) => T | undefined) => {
        const seen = new Map<T, number>();
        conductors.forEach((cd, i) => {
            const v = get(cd);
            if (v === undefined) return;
            const j = seen.get(v);
            if (j !== undefined) add(`conductors[${i}].${what}`, `duplicate ${what} ${String(v)} (also conductors[${j}]); each control-plane node must appear once`);
            else seen.set(v, i);
        });
    };
    dup("name", (x) => x.name);
    dup("ip", (x) => x.ip);
    dup("slot", (x) => x.slot);

    // Topology-dependent rules.
    if (c.topology === "single") {
        if (parsed.conductors && parsed.conductors.length > 0) {
            add("conductors", 'only used with topology "multi"; remove it or set topology to "multi"');
        }
    } else {
        if (conductors.length === 0) add("conductors", 'topology "multi" needs the control-plane nodes: a list of {name, ip} entries');
        if (c.database.kind === "sqlite") {
            add("database.kind", 'topology "multi" needs a shared database: SQLite is per pod and reset on every start; set database.kind to "mariadb" (deployed by this program) or "external"');
        }
        if (c.provisioning.keepalived) add("provisioning.keepalived", 'not used with topology "multi": every conductor serves on its own node IP');
        if (c.tls.mode !== "generate") add("tls.mode", 'topology "multi" needs tls.mode "generate": every conductor gets its own certificate from the stack CA (its IP and name), which an existing Secret cannot provide');
        for (const key of Object.keys(c.ironic.config)) {
            if (RESERVED_MULTI_OPTIONS.some((re) => re.test(key))) {
                add(`ironic.config.${key}`, 'set by this program in topology "multi" (DHCP ownership and JSON-RPC depend on it); remove it');
            }
        }
        (parsed.conductors ?? []).forEach((cd, i) => {
            if (cd.slot !== undefined && !c.provisioning.dhcp) add(`conductors[${i}].slot`, "only used with provisioning.dhcp (slots are slices of the DHCP range)");
        });
    }
    if (parsed.database?.kind === "external") {
        if (!c.database.host) add("database.host", 'required with database.kind "external" (host name or IP of the MariaDB server)');
        if (!c.database.credentialsSecret) add("database.credentialsSecret", 'required with database.kind "external": a Secret with keys username and password');
    }
    if (parsed.database) {
        const only: Record<string, string[]> = {
            host: ["external"],
            port: ["external"],
            credentialsSecret: ["external"],
            caSecret: ["external"],
            name: ["external", "mariadb"],
            storageSize: ["mariadb"],
            storageClass: ["mariadb"],
            retainOnDelete: ["mariadb"],
            allowDowngrade: ["external", "mariadb"],
        };
        for (const [k, kinds] of Object.entries(only)) {
            if ((parsed.database as Record<string, unknown>)[k] !== undefined && !kinds.includes(parsed.database.kind)) {
                add(`database.${k}`, `only used with database.kind ${kinds.map((x) => `"${x}"`).join(" or ")}`);
            }
        }
    }
    return issues;
}

/** Raw config from the engine's flat `project:key` map, with JSON values decoded. */
export function rawConfigFromEntries(entries: Record<string, string>, project = PROJECT): RawConfig {
    const raw: RawConfig = {};
    const prefix = `${project}:`;
    for (const [k, v] of Object.entries(entries)) {
        if (!k.startsWith(prefix)) continue;
        raw[k.slice(prefix.length)] = decodeConfigValue(v);
    }
    return raw;
}

function decodeConfigValue(v: string): unknown {
    const t = v.trim();
    if (t === "true" || t === "false" || t.startsWith("{") || t.startsWith("[")) {
        try {
            return JSON.parse(t);
        } catch {
            return v;
        }
    }
    return v;
}
