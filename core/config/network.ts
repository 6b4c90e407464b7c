/**
 * Network reality: the proxy the IPA downloads go through (`proxy`), an extra CA bundle those
 * downloads trust (`trust`), an image registry mirror (`images.registry`) and the pull Secrets of
 * every pod (`imagePullSecrets`). Each free string is checked for what reads it: curl's proxy and
 * no-proxy variables, a Kubernetes object name, an image reference.
 *
 * Their schemas, defaults, resolved types and documentation in one place (core/config/section.ts).
 * The sections are built from schema.ts's `strict`, handed in by schema.ts (as resources.ts does:
 * importing schema.ts here would make an import circle).
 */
import * as ipaddr from "ipaddr.js";
import { z } from "zod";

import type { SchemaBlocks } from "./resources";
import type { ParsedOf, SectionsDocs } from "./section";
import { ipFamily } from "../ip";
import { checked, controlProblem, dnsNameProblem, subdomainProblem } from "./strings";

const isIpv4 = (s: string) => ipaddr.IPv4.isValidFourPartDecimal(s);
const hostProblem = (h: string) => (isIpv4(h) ? undefined : dnsNameProblem(h, { upper: true }));

/** `http(s)://host[:port]`: a proxy URL, without credentials (they would be readable in the pod spec). */
export function proxyUrlProblem(s: string): string | undefined {
    if (s.length > 2048) return `must be at most 2048 characters (got ${s.length})`;
    const control = controlProblem(s);
    if (control) return control;
    const fix = "must be http://host[:port] or https://host[:port] (e.g. http://proxy.corp.example:3128), nothing after the port";
    const m = /^(https?):\/\/(?:([^@/]*)@)?([^/:?#@]+)(?::([0-9]{1,5}))?\/?$/.exec(s);
    if (!m) return fix;
    if (m[2] !== undefined) {
        return (
            "must not carry credentials (user:password@): the proxy URL is an env var of the pod, readable by anyone who can read the Deployment; " +
            "let the proxy admit the cluster's nodes by address instead (credentials from a Secret are not supported)"
        );
    }
    if (hostProblem(m[3])) return `${fix}; the host must be a DNS name or an IPv4 address`;
    if (m[4] !== undefined && (Number(m[4]) < 1 || Number(m[4]) > 65535)) return `${fix}; the port must be 1-65535`;
    return undefined;
}

/** A `NO_PROXY` entry: a host name, a domain (`.corp.example`), an IP address or CIDR of either family. */
export function noProxyProblem(s: string): string | undefined {
    if (s.length > 253) return `must be at most 253 characters (got ${s.length})`;
    const control = controlProblem(s);
    if (control) return control;
    const fix = "must be a host name (registry.corp.example), a domain with a leading dot (.corp.example), an IP address or a CIDR (10.0.0.0/8, fd00:1::/64)";
    if (s === "*") return `${fix}; "*" would turn the proxy off for every host: unset proxy.httpProxy and proxy.httpsProxy instead`;
    if (s.startsWith("*.")) return `${fix}; write ${s.slice(1)} (a leading dot already matches every name under it)`;
    if (s.includes("://")) return `${fix}, not a URL`;
    const cidr = /^([0-9.]+)\/([0-9]{1,2})$/.exec(s);
    if (cidr) return isIpv4(cidr[1]) && Number(cidr[2]) <= 32 ? undefined : `${fix}; ${s} is not a valid IPv4 CIDR`;
    // IPv6 (an IPv6 provisioning network's addresses; curl 7.86+ and Python's requests match them).
    const cidr6 = /^([0-9a-fA-F:.]+)\/([0-9]{1,3})$/.exec(s);
    if (cidr6) return ipFamily(cidr6[1]) === 6 && Number(cidr6[2]) <= 128 ? undefined : `${fix}; ${s} is not a valid IPv6 CIDR`;
    if (ipFamily(s) === 6) return undefined;
    if (/^[^:]+:[0-9]+$/.test(s)) return `${fix}; without a port (curl matches host names only)`;
    return hostProblem(s.startsWith(".") ? s.slice(1) : s) ? fix : undefined;
}

/** Path components of an image repository (the distribution reference grammar). */
const REPO_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;

/** `host[:port][/path]`: where every image is pulled from instead of its own registry. */
export function registryProblem(s: string): string | undefined {
    if (s.length > 200) return `must be at most 200 characters (got ${s.length})`;
    const fix = "must be a registry host[:port][/path-prefix], e.g. mirror.corp.example:5000/metal3 (no scheme, no trailing '/')";
    if (/^[a-z]+:\/\//i.test(s)) return `${fix}; drop the ${s.split("://")[0]}:// (container runtimes pick the scheme themselves)`;
    if (s.endsWith("/")) return `${fix}; drop the trailing '/'`;
    const [hostPort, ...path] = s.split("/");
    const m = /^([^:]+)(?::([0-9]{1,5}))?$/.exec(hostPort);
    if (!m || controlProblem(s) || hostProblem(m[1])) return fix;
    if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65535)) return `${fix}; the port must be 1-65535`;
    // Without a '.' or a port (or localhost), runtimes read "<x>/repo" as Docker Hub's namespace <x>.
    if (m[2] === undefined && !m[1].includes(".") && m[1] !== "localhost") {
        return `${fix}; "${m[1]}" has no '.' and no port, so container runtimes would read it as a Docker Hub namespace (docker.io/${m[1]}/…): write e.g. ${m[1]}.local or ${m[1]}:5000`;
    }
    if (path.some((p) => !REPO_COMPONENT.test(p))) return `${fix}; each path part of lower-case letters and digits, separated by '.', '_' or '-'`;
    return undefined;
}

/** Docker Hub's host names: an official image there lives under `library/`. */
const DOCKER_HUB = ["docker.io", "index.docker.io", "registry-1.docker.io"];

/**
 * `ref` pulled from `registry`: the reference's own registry host is replaced by `registry`, the
 * repository path, tag and digest are kept. A reference without a host is Docker Hub's, and an
 * official Docker Hub image gets its implicit `library/`:
 *   quay.io/metal3-io/ironic:v38.0.0   → <registry>/metal3-io/ironic:v38.0.0
 *   docker.io/library/mariadb:11.4.5        → <registry>/library/mariadb:11.4.5
 *   mariadb:11 (or docker.io/mariadb:11)     → <registry>/library/mariadb:11
 * A reference already under `<registry>/` is left as it is.
 */
export function mirrorImage(ref: string, registry: string | undefined): string {
    if (!registry || ref.startsWith(`${registry}/`)) return ref;
    const [first, ...rest] = ref.split("/");
    const hasHost = rest.length > 0 && (first.includes(".") || first.includes(":") || first === "localhost");
    let path = hasHost ? rest.join("/") : ref;
    if ((!hasHost || DOCKER_HUB.includes(first)) && !path.includes("/")) path = `library/${path}`;
    return `${registry}/${path}`;
}

/** Key of a ConfigMap or Secret (apimachinery's IsConfigMapKey). */
const dataKey = checked((s) =>
    s.length === 0 || s.length > 253 || !/^[-._a-zA-Z0-9]+$/.test(s) || s === "." || s === ".." ? "must be a ConfigMap/Secret key: 1-253 letters, digits, '-', '_' or '.' (e.g. ca.crt)" : undefined,
);

export const objectName = (what: string) => checked((s) => subdomainProblem(s, what));

/** A user's PEM bundle: exactly one of a ConfigMap or a Secret in the namespace, and its key. */
function caSource(strict: SchemaBlocks["strict"]) {
    return strict({
        configMap: objectName("a ConfigMap name (DNS subdomain)").optional(),
        secret: objectName("a Secret name (DNS subdomain)").optional(),
        key: dataKey.optional(),
    }).refine((b) => (b.configMap === undefined) !== (b.secret === undefined), {
        message: "name exactly one of configMap or secret: the ConfigMap or Secret in the namespace that holds the PEM bundle",
    });
}

/** The sections of this file, registered by schema.ts. */
export function networkSections({ strict }: Pick<SchemaBlocks, "strict">) {
    return {
        proxy: strict({
            httpProxy: checked(proxyUrlProblem).optional(),
            httpsProxy: checked(proxyUrlProblem).optional(),
            noProxy: z.array(checked(noProxyProblem)).optional(),
            applyToIronic: z.boolean().optional(),
        }),
        trust: strict({
            extraCaBundle: caSource(strict).optional(),
            bmcCa: caSource(strict).optional(),
            trustedCa: caSource(strict).optional(),
        }),
        imagePullSecrets: z.array(objectName("a Secret name (DNS subdomain)")),
    };
}

type Parsed = ParsedOf<ReturnType<typeof networkSections>>;

/** A user's PEM bundle in the namespace (a ConfigMap or Secret key): read or mounted, never written. */
export interface CaSource {
    kind: "configMap" | "secret";
    name: string;
    key: string;
}

/** A user's CA bundle: its kind, name and key (default `ca.crt`). */
function resolveCaSource(b: z.infer<ReturnType<typeof caSource>> | undefined): CaSource | undefined {
    if (!b) return undefined;
    const [kind, name] = b.secret !== undefined ? (["secret", b.secret] as const) : (["configMap", b.configMap!] as const);
    return { kind, name, key: b.key ?? "ca.crt" };
}

/** Defaults: no proxy, no extra CA, no pull Secrets. */
export function resolveNetwork(p: Parsed) {
    const trust: { extraCaBundle?: CaSource; bmcCa?: CaSource; trustedCa?: CaSource } = {};
    for (const k of ["extraCaBundle", "bmcCa", "trustedCa"] as const) {
        const b = resolveCaSource(p.trust?.[k]);
        if (b) trust[k] = b;
    }
    return {
        /** The proxy of the IPA downloads (and of Ironic with applyToIronic); noProxy is the user's list only. */
        proxy: { httpProxy: p.proxy?.httpProxy, httpsProxy: p.proxy?.httpsProxy, noProxy: p.proxy?.noProxy ?? [], applyToIronic: p.proxy?.applyToIronic ?? false },
        /** The CA bundles of trust.*, each only when configured. */
        trust,
        /** Secrets the kubelet pulls every pod's images with (the user's). */
        imagePullSecrets: p.imagePullSecrets ?? [],
    };
}

/** What StackConfig holds for `proxy`, `trust`, `imagePullSecrets`. */
export type NetworkConfig = ReturnType<typeof resolveNetwork>;

export const NETWORK_DOCS: SectionsDocs<keyof Parsed> = {
    descriptions: {
        proxy: "The HTTP(S) proxy of the IPA downloads (and of Ironic with applyToIronic), and what bypasses it.",
        trust: "An extra CA bundle (your ConfigMap or Secret) the IPA downloads trust besides the system bundle.",
        imagePullSecrets: "Secrets (yours, in the namespace) every pod pulls its images with.",
    },
    reference: [
        { keys: ["proxy.httpProxy","proxy.httpsProxy"], type: "`http(s)://host[:port]`", default: "— (no proxy)", notes: "the IPA downloader's `HTTP(S)_PROXY` and `http(s)_proxy`; no credentials in the URL (refused: they would be readable in the pod spec)" },
        { keys: ["proxy.noProxy"], type: "list of hosts, `.domains`, IP addresses, CIDRs (IPv4 or IPv6)", default: "`[]`", notes: "added after the defaults (loopback, `.svc`, `.<clusterDomain>`, the provisioning CIDR and Ironic's addresses); add your Service CIDR and internal mirrors" },
        { keys: ["proxy.applyToIronic"], type: "bool", default: "`false`", notes: "also set the proxy variables on the `ironic` container; then list your BMC networks in `proxy.noProxy`" },
        { keys: ["trust.extraCaBundle.configMap","trust.extraCaBundle.secret"], type: "object name", default: "—", notes: "exactly one: your ConfigMap or Secret with extra PEM CAs the IPA download trusts besides the system bundle (read, never written)" },
        { keys: ["trust.extraCaBundle.key"], type: "key", default: "`ca.crt`", notes: "the key holding the bundle" },
        { keys: ["trust.bmcCa.configMap","trust.bmcCa.secret"], type: "object name", default: "— (system bundle only)", notes: "exactly one: your ConfigMap or Secret with PEM CAs Ironic's BMC drivers (Redfish, iDRAC-Redfish) trust **besides** the system bundle: `[redfish]verify_ca`; updates apply without a restart; see [BMC CA](networks-and-trust.md#bmc-ca-and-trusted-ca)" },
        { keys: ["trust.bmcCa.key"], type: "key", default: "`ca.crt`", notes: "the key holding the BMC CAs" },
        { keys: ["trust.trustedCa.configMap","trust.trustedCa.secret"], type: "object name", default: "— (system bundle only)", notes: "exactly one: your ConfigMap or Secret with PEM CAs Ironic trusts besides the system bundle for its own HTTPS downloads (deploy images, image sources, checksums): `[DEFAULT]webserver_verify_ca`; updates apply without a restart" },
        { keys: ["trust.trustedCa.key"], type: "key", default: "`ca.crt`", notes: "the key holding the trusted CAs" },
        { keys: ["imagePullSecrets"], type: "list of Secret names", default: "`[]`", notes: "yours, in the namespace; on every pod the program renders" },
    ],
};
