/**
 * The policy pack's rules as pure functions of what @pulumi/policy passes a resource validation:
 * (args, reportViolation). They read the Kubernetes objects the program registers (Deployment,
 * DaemonSet, StatefulSet, Job, ConfigMap, ...), so they hold for whatever the program renders.
 * Facts of the ironic image (env names, paths, capabilities) come from core/contract.ts.
 */
import type { ReportViolation, ResourceValidationArgs } from "@pulumi/policy";

import { DNSMASQ_CAPABILITIES, ENV, EXPORTER, HTTPD_TLS_ENV, KEEPALIVED_CAPABILITIES, NODE_STATE_DIR, PATHS, osloEnvName } from "../core/contract";
import { DHCP_FILES_VOLUME, SHARED_VOLUME } from "../core/manifests/volumes";
import { MARIADB } from "../core/mariadb";
import { unpinnedReason } from "../core/config/pinning";

/** What a rule reads of the arguments (ResourceValidationArgs has more; tests build this much). */
export type RuleArgs = Pick<ResourceValidationArgs, "type" | "props" | "urn" | "name" | "getConfig">;
export type Rule = (args: RuleArgs, report: ReportViolation) => void;

// ---------------------------------------------------------------------------------------------
// Reading Kubernetes objects

/** The pod spec of a workload, by resource type; undefined for anything without pods. */
export function podSpecOf(type: string, props: Record<string, any>): Record<string, any> | undefined {
    const kind = type.split(":")[2];
    if (kind === "Pod") return props.spec;
    if (["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job"].includes(kind)) return props.spec?.template?.spec;
    if (kind === "CronJob") return props.spec?.jobTemplate?.spec?.template?.spec;
    return undefined;
}

/** Every container of a pod spec: init and ephemeral ones too. */
export function containersOf(pod: Record<string, any>): Record<string, any>[] {
    return [...(pod.initContainers ?? []), ...(pod.containers ?? []), ...(pod.ephemeralContainers ?? [])];
}

/** Each container of the workload, with a label for messages ("DaemonSet ironic, container dnsmasq"). */
function eachContainer(args: RuleArgs, fn: (c: Record<string, any>, where: string) => void): void {
    const pod = podSpecOf(args.type, args.props);
    if (!pod) return;
    const kind = args.type.split(":")[2];
    for (const c of containersOf(pod)) fn(c, `${kind} ${args.props.metadata?.name ?? args.name}, container ${c.name}`);
}

/** A container's plain env values (valueFrom entries are not values). */
export function envOf(c: Record<string, any>): Record<string, string> {
    return Object.fromEntries((c.env ?? []).filter((e: any) => e.value !== undefined).map((e: any) => [e.name, String(e.value)]));
}

const mounts = (c: Record<string, any>, path: string) => (c.volumeMounts ?? []).some((m: any) => m.mountPath === path);
const isTrue = (v: string | undefined) => v !== undefined && /^(true|1|yes|on)$/i.test(v);
const isFalse = (v: string | undefined) => v !== undefined && /^(false|0|no|off)$/i.test(v);

/** The stack of a resource, from its URN (urn:pulumi:<stack>::<project>::<type>::<name>). */
export function stackOf(urn: string): string {
    return urn.split("::")[0].split(":").slice(2).join(":");
}

// ---------------------------------------------------------------------------------------------
// images-pinned

export { DIGEST_ONLY_REPOSITORIES, isReleaseTag, parseImage } from "../core/config/pinning";
export type { ImageRef } from "../core/config/pinning";

export interface ImagesConfig {
    /** Stacks where images may float (default ["dev"]). */
    devStacks?: string[];
}

export const imagesPinned: Rule = (args, report) => {
    const stack = stackOf(args.urn);
    const devStacks = args.getConfig<ImagesConfig>().devStacks ?? ["dev"];
    if (devStacks.includes(stack)) return;
    eachContainer(args, (c, where) => {
        const reason = unpinnedReason(String(c.image ?? ""));
        if (!reason) return;
        report(reason.startsWith("not pinned") ? `${where}: image ${c.image} in stack "${stack}" is ${reason}` : `${where}: image ${c.image} in stack "${stack}": ${reason}`);
    });
};

// ---------------------------------------------------------------------------------------------
// tls-enabled: API, JSON-RPC and the MariaDB server

/**
 * The ironic image turns API TLS on when a certificate is at /certs/ironic (httpd terminates it
 * with IRONIC_REVERSE_PROXY_SETUP); JSON-RPC uses the same certificate unless oslo overrides turn
 * TLS off; the MariaDB server config must require TLS.
 */
export const tlsEnabled: Rule = (args, report) => {
    eachContainer(args, (c, where) => {
        const env = envOf(c);
        const servesApi = env[ENV.listenPort] !== undefined;
        if (servesApi && !mounts(c, PATHS.certsIronic)) report(`${where}: serves the Ironic API (${ENV.listenPort}) with no certificate at ${PATHS.certsIronic}: the API would be plain HTTP`);
        if (servesApi && isFalse(env[ENV.reverseProxySetup])) report(`${where}: ${ENV.reverseProxySetup} is false: httpd would not terminate TLS for the API`);
        if (!isTrue(env[ENV.exposeJsonRpc])) return;
        if (!mounts(c, PATHS.certsIronic)) report(`${where}: exposes JSON-RPC with no certificate at ${PATHS.certsIronic}: RPC between conductors would be plain HTTP`);
        const useSsl = osloEnvName("json_rpc", "use_ssl");
        const insecure = osloEnvName("json_rpc", "insecure");
        if (isFalse(env[useSsl])) report(`${where}: ${useSsl}=${env[useSsl]} turns TLS off for JSON-RPC (remove json_rpc.use_ssl from ironic.config)`);
        if (isTrue(env[insecure])) report(`${where}: ${insecure}=${env[insecure]} skips certificate checks on JSON-RPC (remove json_rpc.insecure from ironic.config)`);
    });
    if (args.type === "kubernetes:core/v1:ConfigMap") {
        const cnf = args.props.data?.[MARIADB.confFile];
        if (typeof cnf !== "string") return;
        const name = args.props.metadata?.name ?? args.name;
        if (!/^\s*require_secure_transport\s*=\s*(ON|1|TRUE)\s*$/im.test(cnf)) report(`ConfigMap ${name}: the MariaDB server config (${MARIADB.confFile}) does not set require_secure_transport = ON: clients could connect without TLS`);
        if (!/^\s*ssl_cert\s*=/m.test(cnf) || !/^\s*ssl_key\s*=/m.test(cnf)) report(`ConfigMap ${name}: the MariaDB server config (${MARIADB.confFile}) has no ssl_cert/ssl_key: the server offers no TLS`);
    }
};

// ---------------------------------------------------------------------------------------------
// database-client-tls

/**
 * Ironic talks TLS to MariaDB when the database CA is at /certs/ca/mariadb (the image then adds
 * TLS parameters to the connection URL). The program always mounts it for its own MariaDB; for
 * database.kind external only when database.caSecret names the CA.
 */
export const databaseClientTls: Rule = (args, report) => {
    eachContainer(args, (c, where) => {
        const env = envOf(c);
        if (!isTrue(env[ENV.useMariadb]) || mounts(c, PATHS.certsMariadbCa)) return;
        report(`${where}: connects to the database ${env[ENV.mariadbHost] ?? ""} with no CA at ${PATHS.certsMariadbCa}: the connection is not TLS. For database.kind external, set database.caSecret to a Secret with the server's CA (key ca.crt)`);
    });
};

// ---------------------------------------------------------------------------------------------
// resource-limits

export interface LimitsConfig {
    /** Also demand a CPU limit (default false: CPU limits throttle, memory limits contain). */
    requireCpuLimit?: boolean;
}

export const resourceLimits: Rule = (args, report) => {
    const wanted = args.getConfig<LimitsConfig>().requireCpuLimit ? ["memory", "cpu"] : ["memory"];
    eachContainer(args, (c, where) => {
        const missing = wanted.filter((r) => c.resources?.limits?.[r] === undefined);
        if (missing.length > 0) report(`${where}: no ${missing.join(" or ")} limit (resources.limits.${missing[0]})`);
    });
};

// ---------------------------------------------------------------------------------------------
// no-host-path

/** The one hostPath the program mounts: multi's DHCP files, in a directory of its own under NODE_STATE_DIR (core/contract.ts). */
const ownDhcpFiles = (v: { name: string; hostPath: { path: string } }) => v.name === DHCP_FILES_VOLUME && v.hostPath.path.startsWith(`${NODE_STATE_DIR}/`) && !v.hostPath.path.split("/").includes("..");

export const noHostPath: Rule = (args, report) => {
    const pod = podSpecOf(args.type, args.props);
    const name = args.props.metadata?.name ?? args.name;
    const kind = args.type.split(":")[2];
    for (const v of pod?.volumes ?? []) if (v.hostPath && !ownDhcpFiles(v)) report(`${kind} ${name}: volume ${v.name} mounts the node's ${v.hostPath.path} (hostPath)`);
    if (kind === "PersistentVolume" && args.props.spec?.hostPath) report(`PersistentVolume ${name}: backed by the node's ${args.props.spec.hostPath.path} (hostPath)`);
};

// ---------------------------------------------------------------------------------------------
// capabilities-restricted

/** The containers that may add capabilities, and which: dnsmasq (DHCP/TFTP), keepalived (the VIP), multi's dhcp-dirs step (the node's DHCP file directory to the ironic user). */
export const ALLOWED_CAPABILITIES: Record<string, readonly string[]> = {
    dnsmasq: DNSMASQ_CAPABILITIES,
    keepalived: KEEPALIVED_CAPABILITIES,
    "dhcp-dirs": ["CHOWN"],
};

export const capabilitiesRestricted: Rule = (args, report) => {
    eachContainer(args, (c, where) => {
        const sc = c.securityContext ?? {};
        if (sc.privileged === true) report(`${where}: privileged (every capability and the host's devices)`);
        const added: string[] = sc.capabilities?.add ?? [];
        const allowed = ALLOWED_CAPABILITIES[c.name] ?? [];
        const extra = added.filter((cap) => !allowed.includes(cap.replace(/^CAP_/, "")));
        if (extra.length > 0) {
            const who = Object.keys(ALLOWED_CAPABILITIES).join(" and ");
            report(`${where}: adds ${extra.join(", ")}: only ${who} may add capabilities (${Object.entries(ALLOWED_CAPABILITIES).map(([n, caps]) => `${n}: ${caps.join(", ")}`).join("; ")})`);
        }
    });
};

// ---------------------------------------------------------------------------------------------
// api-socket-private

/** The Ironic pod's containers that may mount all of its shared volume, where Ironic's unauthenticated API socket is. */
export const WHOLE_SHARED = ["ironic", "httpd", "shared-dirs"];

export const apiSocketPrivate: Rule = (args, report) => {
    const pod = podSpecOf(args.type, args.props);
    if (!pod || !containersOf(pod).some((c) => c.name === "ironic")) return;
    eachContainer(args, (c, where) => {
        const whole = (c.volumeMounts ?? []).find((m: any) => m.name === SHARED_VOLUME && !m.subPath);
        if (whole && !WHOLE_SHARED.includes(c.name)) report(`${where}: mounts all of the ${SHARED_VOLUME} volume at ${whole.mountPath}, which holds Ironic's unauthenticated API socket (${PATHS.shared}/ironic.sock); only ${WHOLE_SHARED.join(", ")} may: mount the parts it uses (subPath)`);
    });
};

// ---------------------------------------------------------------------------------------------
// exporter-bound

/** The exporter container's name (metrics.enabled). */
export const EXPORTER_CONTAINER = "ironic-prometheus-exporter";

/**
 * On the host network the image's default bind (0.0.0.0) serves sensor data on every interface of
 * the node, the provisioning network included: the exporter must bind an address (the pod IP).
 */
export const exporterBound: Rule = (args, report) => {
    const pod = podSpecOf(args.type, args.props);
    if (!pod?.hostNetwork) return;
    eachContainer(args, (c, where) => {
        if (c.name !== EXPORTER_CONTAINER) return;
        const host = (c.env ?? []).find((e: any) => e.name === EXPORTER.env.host);
        const literal = host?.value;
        if (!host || (host.valueFrom === undefined && (literal === undefined || ["0.0.0.0", "::", "[::]", ""].includes(String(literal))))) {
            report(`${where}: ${EXPORTER.env.host} ${host ? `is ${JSON.stringify(literal)}` : "is unset (the image binds 0.0.0.0)"}: on the host network the exporter would listen on every interface of the node; bind it to the pod IP (valueFrom fieldRef status.podIP) or one address`);
        }
    });
};

// tls-protocols

/** What an Apache SSLProtocol value enables below TLS 1.2 (mod_ssl: `ALL` is SSLv3..TLSv1.3; `+`/no sign adds, `-` removes). */
export function weakProtocols(value: string): string[] {
    const on = new Set<string>();
    const ALL = ["SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"];
    for (const word of value.trim().split(/\s+/)) {
        const sign = word.startsWith("-") ? "-" : "+";
        const name = word.replace(/^[+-]/, "");
        const names = name.toLowerCase() === "all" ? ALL : [name];
        for (const n of names) sign === "+" ? on.add(n) : on.delete(n);
    }
    return ["SSLv3", "TLSv1", "TLSv1.1"].filter((p) => on.has(p));
}

/**
 * httpd's API and virtual-media vhosts accept nothing older than TLS 1.2 when the workload sets
 * their protocol (tls.minVersion): a hand-written `ALL` or `+TLSv1.1` in a program's override fires.
 * The program always sets both (TLS 1.2+ unless tls.minVersion says 1.3; docs/networks-and-trust.md, TLS policy).
 */
export const tlsProtocols: Rule = (args, report) => {
    eachContainer(args, (c, where) => {
        const env = envOf(c);
        for (const name of [HTTPD_TLS_ENV.api.protocol, HTTPD_TLS_ENV.vmedia.protocol]) {
            if (env[name] === undefined) continue;
            const weak = weakProtocols(env[name]);
            if (weak.length > 0) report(`${where}: ${name}="${env[name]}" enables ${weak.join(", ")} (deprecated, RFC 8996): set tls.minVersion "1.2" or "1.3" and no override of ${name}`);
        }
    });
};
