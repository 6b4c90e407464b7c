/**
 * tls.mode "cert-manager": the stack's certificates as cert-manager `Certificate` objects
 * (cert-manager.io/v1), each signed by `tls.issuer` into the Secret the pods mount: the API and
 * virtual media (httpd), the conductor CA (multi: each conductor mints its JSON-RPC certificate from
 * it), MariaDB's server certificate and the IPA cache's. cert-manager writes tls.crt, tls.key and,
 * for issuers that know it (CA, Vault), ca.crt: the CA the pods verify with. It renews each
 * `tls.renewBeforeDays` before its end; see docs/operations.md for what restarts.
 */
import { listedConductors } from "../plan/read";
import type { IronicPlan } from "../plan/types";
import { ipToNumber } from "../ip";
import { stackMeta } from "./meta";

export const CERT_MANAGER_API_VERSION = "cert-manager.io/v1";

/** One Certificate: its object (and Secret) name, what it names, and whether it is a CA. */
export interface CertificateRequest {
    /** The Certificate's name and its Secret's (the pods mount the Secret by this name). */
    secretName: string;
    commonName: string;
    dnsNames: string[];
    ipAddresses: string[];
    isCA?: boolean;
}

export interface CertificateManifest {
    apiVersion: typeof CERT_MANAGER_API_VERSION;
    kind: "Certificate";
    metadata: { name: string; namespace: string; labels: Record<string, string> };
    spec: Record<string, unknown>;
}

const hours = (days: number) => `${days * 24}h0m0s`;

/** A Certificate of `plan`'s issuer, with the stack's validity and renewal, RSA 3072 as every key of the stack. */
export function certificateManifest(plan: IronicPlan, r: CertificateRequest): CertificateManifest {
    const tls = plan.tls;
    if (tls.source !== "issuer") throw new Error(`certificateManifest: the stack's certificates come from ${tls.source}, not an issuer`);
    const issuer = tls.issuer;
    const usages = r.isCA ? ["cert sign", "crl sign", "digital signature"] : ["server auth", "client auth", "digital signature", "key encipherment"];
    return {
        apiVersion: CERT_MANAGER_API_VERSION,
        kind: "Certificate",
        metadata: stackMeta(plan, r.secretName),
        spec: {
            secretName: r.secretName,
            // The Secret carries the stack's labels too (kubectl -l finds every object of the stack).
            secretTemplate: { labels: plan.labels },
            issuerRef: { name: issuer.name, kind: issuer.kind, group: issuer.group },
            commonName: r.commonName,
            ...(r.dnsNames.length > 0 ? { dnsNames: r.dnsNames } : {}),
            ...(r.ipAddresses.length > 0 ? { ipAddresses: r.ipAddresses } : {}),
            ...(r.isCA ? { isCA: true } : {}),
            duration: hours(tls.validity.validityDays),
            renewBefore: hours(tls.validity.renewBeforeDays),
            subject: { organizations: ["metal3-ironic"] },
            // A new key on every renewal: a renewed certificate never extends an exposed key.
            privateKey: { algorithm: "RSA", size: 3072, encoding: "PKCS1", rotationPolicy: "Always" },
            usages,
        },
    };
}

/**
 * Every Certificate of the stack, in a fixed order. The API's names every listed conductor's
 * address in multi (IPA and BMCs dial it); a conductor found on its node needs its address in
 * tls.extraIps.
 */
export function stackCertificates(plan: IronicPlan): CertificateRequest[] {
    const n = plan.names;
    const multi = plan.topology.kind === "multi";
    const conductorIps = multi ? listedConductors(plan).flatMap((c) => (c.ip ? [c.ip] : [])) : [];
    const ips = [...new Set([...plan.certificate.ipAddresses, ...conductorIps])].sort((a, b) => ipToNumber(a) - ipToNumber(b));
    const api = { commonName: `${plan.name}.${plan.namespace}.svc`, dnsNames: plan.certificate.dnsNames, ipAddresses: ips };
    const out: CertificateRequest[] = [
        { secretName: n.tlsSecret, ...api },
        { secretName: n.vmediaTlsSecret, ...api },
    ];
    if (multi) out.push({ secretName: n.conductorCaSecret, commonName: `${plan.namespace}/${plan.name} conductor CA`, dnsNames: [], ipAddresses: [], isCA: true });
    if (plan.database.kind === "mariadb") {
        const db = plan.database;
        out.push({ secretName: db.names.tlsSecret, commonName: db.serviceDnsNames[2], dnsNames: db.serviceDnsNames, ipAddresses: [] });
    }
    if (plan.imageCache.mode === "deploy") {
        const ic = plan.imageCache;
        out.push({ secretName: ic.names.tlsSecret, commonName: ic.serviceDnsNames[2], dnsNames: ic.serviceDnsNames, ipAddresses: [] });
    }
    return out;
}

/** The Certificate objects of a stack with tls.mode "cert-manager" (none otherwise). */
export function certificateManifests(plan: IronicPlan): CertificateManifest[] {
    return plan.tls.source === "issuer" ? stackCertificates(plan).map((r) => certificateManifest(plan, r)) : [];
}
