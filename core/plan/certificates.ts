/**
 * Subject alternative names of the certificates the program issues: the API certificate (single)
 * or the part every node certificate shares (multi), and each node's own certificate.
 */
import type { StackConfig } from "../config";
import { compareIps } from "../ip";
import type { IronicPlan } from "./types";

/**
 * Single: one certificate for the API Service and the provisioning IP. Multi: the shared part of
 * every node certificate (the Service names); each node adds its own IP and name.
 */
export function apiCertificate(config: StackConfig, serviceDnsNames: string[]): { dnsNames: string[]; ipAddresses: string[] } {
    const ips = [...(config.topology === "multi" ? [] : [config.provisioning.ip]), ...config.tls.extraIps];
    return {
        dnsNames: uniq([...serviceDnsNames, ...config.tls.extraDnsNames]),
        ipAddresses: uniq(ips).sort(compareIps),
    };
}

/**
 * SANs of the certificate a conductor mints at start (assets/conductor-cert.py): its node's IP and
 * name, then the API Service names. No other node.
 */
export function nodeCertificateSans(plan: IronicPlan, node: string, ip: string): { dnsNames: string[]; ipAddresses: string[] } {
    return {
        dnsNames: uniq([node, ...plan.certificate.dnsNames]),
        ipAddresses: uniq([ip, ...plan.certificate.ipAddresses]),
    };
}

/** The SANs every conductor's certificate shares, as the minter's DNS:<name> / IP:<address> words. */
export function conductorCertSanWords(plan: IronicPlan): string[] {
    return [...plan.certificate.dnsNames.map((n) => `DNS:${n}`), ...plan.certificate.ipAddresses.map((ip) => `IP:${ip}`)];
}

function uniq<T>(xs: T[]): T[] {
    return [...new Set(xs)];
}
