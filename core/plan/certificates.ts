/**
 * Subject alternative names of the certificates the program issues: the API certificate (single)
 * or the part every node certificate shares (multi), and each node's own certificate.
 */
import type { StackConfig } from "../config";
import { CONDUCTOR_PATHS, PATHS } from "../contract";
import { compareIps } from "../ip";
import { planExternal } from "./external";
import type { CertValidity, ConductorCaPlan, IronicPlan, StackCaPlan, TlsPlan } from "./types";

/**
 * Single: one certificate for the API Service and the provisioning IP. Multi: the shared part of
 * every node certificate (the Service names); each node adds its own IP and name.
 */
export function apiCertificate(config: StackConfig, serviceDnsNames: string[]): { dnsNames: string[]; ipAddresses: string[] } {
    // Single: the hosts BMCs and IPA reach it at from another network (external.*) too.
    const ext = config.topology === "single" ? planExternal(config, config.external)?.sans : undefined;
    // Dual-stack single: its IPv6 address too (multi: each node adds its own).
    const own = config.topology === "multi" ? [] : [config.provisioning.ip, ...(config.provisioning.ipv6?.ip ? [config.provisioning.ipv6.ip] : [])];
    const ips = [...own, ...config.tls.extraIps];
    return {
        dnsNames: uniq([...serviceDnsNames, ...config.tls.extraDnsNames, ...(ext?.dnsNames ?? [])]),
        ipAddresses: uniq([...ips, ...(ext?.ipAddresses ?? [])]).sort(compareIps),
    };
}

/**
 * SANs of the certificate a conductor mints at start (assets/conductor-cert.py): its node's IP (and
 * IPv6 address, dual-stack) and name, then the API Service names. No other node.
 */
export function nodeCertificateSans(plan: IronicPlan, node: string, ip: string, ipv6?: string): { dnsNames: string[]; ipAddresses: string[] } {
    // The node's conductors[].external hosts (the wrapper adds them from its entry).
    const ext = plan.topology.kind === "multi" ? plan.topology.conductors.find((c) => c.node === node)?.external?.sans : undefined;
    return {
        dnsNames: uniq([node, ...plan.certificate.dnsNames, ...(ext?.dnsNames ?? [])]),
        ipAddresses: uniq([ip, ...(ipv6 ? [ipv6] : []), ...plan.certificate.ipAddresses, ...(ext?.ipAddresses ?? [])]),
    };
}

/** Where the certificates come from (TlsPlan); a stack CA where the stack issues any. */
export function tlsPlan(config: StackConfig): TlsPlan {
    const t = config.tls;
    const validity: CertValidity = { caValidityDays: t.caValidityDays, validityDays: t.validityDays, renewBeforeDays: t.renewBeforeDays };
    if (t.mode === "cert-manager") return { validity, source: "issuer", issuer: t.issuer! };
    const stackCa: StackCaPlan = { commonName: `metal3-ironic ${config.namespace}/${config.name} CA`, ...validity };
    if (t.mode === "generate") return { validity, source: "stack", stackCa };
    // Your Secret covers the API and virtual media; MariaDB and the IPA cache deployed here need certificates of their own.
    const deploysMore = config.database.kind === "mariadb" || config.database.kind === "mariadb-operator" || config.imageCache.mode === "deploy";
    return deploysMore ? { validity, source: "user", stackCa } : { validity, source: "user" };
}

/**
 * Multi: the CA each conductor mints its certificate from at start, and what its JSON-RPC peers
 * verify that certificate with. Single: none (no peer dials it).
 */
export function conductorCaPlan(config: StackConfig): ConductorCaPlan | undefined {
    if (config.topology !== "multi") return undefined;
    const { mode, conductorCaSecret } = config.tls;
    // The minted certificate also serves the API on the node's address: the stack CA signs the
    // conductor CA, and the peers trust the stack CA (the image's IRONIC_CACERT_FILE).
    if (mode === "generate") return { source: "stack-intermediate" };
    // Your (your issuer's) CA: it must chain to the ca.crt the peers verify with, which the minter checks.
    if (mode === "cert-manager") return { source: "issuer", chainCheck: `${PATHS.certsIronicCa}/tls.crt` };
    if (conductorCaSecret) return { source: "user", chainCheck: `${PATHS.certsIronicCa}/tls.crt` };
    // tls.mode "existing" without a CA of yours: httpd serves your certificate, and JSON-RPC (no
    // one else's channel) gets a root of its own, which its peers alone trust ([json_rpc]cafile).
    return { source: "stack-root", jsonRpcCaFile: `${CONDUCTOR_PATHS.conductorCaCert}/tls.crt` };
}

function uniq<T>(xs: T[]): T[] {
    return [...new Set(xs)];
}
