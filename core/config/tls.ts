/**
 * `tls`: where the stack's certificates come from (generated from a stack CA, the user's Secrets,
 * cert-manager Certificates), their lifetimes and extra SANs, and httpd's TLS policy. Its schema,
 * defaults, resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import { ipAddress } from "./addresses";
import { pick, type SectionBlocks, type SectionDocs } from "./section";
import { checked, dnsName, dnsNameOrWildcard } from "./strings";

/** OpenSSL cipher list (TLS 1.2) and TLS 1.3 suites / groups lists: no blanks or quotes (they go into httpd's config). */
const cipherList = checked((s) => (/^[A-Za-z0-9!+:@_=.-]{1,1024}$/.test(s) ? undefined : "must be an OpenSSL cipher list such as ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384 (letters, digits and !+:@_=.-, no spaces)"));
export const TLS13_SUITES = ["TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256", "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_8_SHA256"] as const;
const tls13List = checked((s) => {
    const bad = s.split(":").filter((x) => !(TLS13_SUITES as readonly string[]).includes(x));
    return bad.length === 0 ? undefined : `must be TLS 1.3 suites separated by ':' (${TLS13_SUITES.join(", ")}); unknown: ${bad.join(", ")}`;
});
const curveList = checked((s) => (/^[A-Za-z0-9_-]{1,64}(:[A-Za-z0-9_-]{1,64}){0,31}$/.test(s) ? undefined : "must be OpenSSL group names separated by ':' such as X25519MLKEM768:X25519:P-256"));

/** The `tls` section; `dnsLabel` is the schema's RFC 1123 label (schema.ts). */
export function tlsSection({ strict, dnsLabel }: SectionBlocks & { dnsLabel: z.ZodString }) {
    return strict({
        mode: z.enum(["generate", "existing", "cert-manager"], { error: 'must be "generate" (stack CA made by this program), "existing" (your Secrets) or "cert-manager" (Certificates from your issuer)' }).optional(),
        existingSecret: dnsLabel.optional(),
        conductorCaSecret: dnsLabel.optional(),
        issuer: strict({ name: dnsName, kind: z.enum(["Issuer", "ClusterIssuer"], { error: 'must be "Issuer" (in the namespace) or "ClusterIssuer"' }).optional(), group: dnsName.optional() }).optional(),
        validityDays: z.number().int().min(1).max(3650).optional(),
        renewBeforeDays: z.number().int().min(1).optional(),
        caValidityDays: z.number().int().min(1).max(36500).optional(),
        extraDnsNames: z.array(dnsNameOrWildcard).optional(),
        extraIps: z.array(ipAddress).optional(),
        minVersion: z.enum(["1.2", "1.3"], { error: 'must be "1.2" or "1.3" (the oldest TLS version httpd accepts on the API and virtual-media ports)' }).optional(),
        ciphers: cipherList.optional(),
        ciphersTls13: tls13List.optional(),
        curves: curveList.optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof tlsSection>> | undefined;

/** Defaults: a generated stack CA (10 years), server certificates of a year renewed 30 days before. */
export function resolveTls(t: Parsed) {
    return {
        mode: t?.mode ?? "generate",
        existingSecret: t?.existingSecret,
        /** Multi with "existing": the user's CA Secret (tls.crt, tls.key) the conductors mint their JSON-RPC certificates from. */
        conductorCaSecret: t?.conductorCaSecret,
        /** tls.mode "cert-manager": the issuer of every Certificate (kind default Issuer, group cert-manager.io). */
        issuer: t?.issuer ? { name: t.issuer.name, kind: t.issuer.kind ?? "Issuer", group: t.issuer.group ?? "cert-manager.io" } : undefined,
        validityDays: t?.validityDays ?? 365,
        renewBeforeDays: t?.renewBeforeDays ?? 30,
        caValidityDays: t?.caValidityDays ?? 3650,
        extraDnsNames: t?.extraDnsNames ?? [],
        extraIps: t?.extraIps ?? [],
        /** The TLS policy of httpd (API and virtual media); unset minVersion: TLS 1.2+, unset ciphers and curves: OpenSSL's. Ironic's JSON-RPC keeps its own TLS 1.3. */
        ...pick(t, ["minVersion", "ciphers", "ciphersTls13", "curves"]),
    };
}

/** What StackConfig holds for `tls`. */
export type TlsConfig = ReturnType<typeof resolveTls>;

export const TLS_DOCS: SectionDocs = {
    description: "Certificates: generated from a stack CA, your Secrets (multi: also your conductor CA), or cert-manager Certificates.",
    reference: [
        { keys: ["tls.mode"], default: "`generate`", notes: "`generate`: a stack CA and certificate made with @pulumi/tls; `existing`: your Secret, see [Your own certificate](networks-and-trust.md#your-own-certificate-tlsmode-existing) (multi: [Corporate PKI in multi](networks-and-trust.md#corporate-pki-in-multi)); `cert-manager`: Certificates from `tls.issuer`, see [cert-manager](networks-and-trust.md#certificates-from-cert-manager-tlsmode-cert-manager)" },
        { keys: ["tls.existingSecret"], type: "Secret name", default: "—", notes: "with `existing`: Secret in the namespace with `tls.crt`, `tls.key`, `ca.crt`; read at deploy time, never written or deleted" },
        { keys: ["tls.conductorCaSecret"], type: "Secret name", default: "— (multi with `existing`: a root the stack makes for JSON-RPC alone)", notes: "multi with `existing`, optional: Secret with `tls.crt`, `tls.key` of a CA of yours that chains to the `ca.crt` of `existingSecret`; each conductor signs its JSON-RPC certificate (its address) with it at start; only mounted, never read. Without it, the stack makes a root that only the JSON-RPC peers trust (see [Corporate PKI in multi](networks-and-trust.md#corporate-pki-in-multi))" },
        { keys: ["tls.issuer.name"], type: "issuer name", default: "— (**required** with `cert-manager`)", notes: "the cert-manager Issuer or ClusterIssuer that signs every Certificate of the stack; it must write `ca.crt` (CA, Vault issuers; not ACME)" },
        { keys: ["tls.issuer.kind"], default: "`Issuer`", notes: "`Issuer` (in the namespace) or `ClusterIssuer`" },
        { keys: ["tls.issuer.group"], type: "API group", default: "`cert-manager.io`", notes: "an external issuer's group (e.g. `awspca.cert-manager.io`)" },
        { keys: ["tls.validityDays"], type: "int", default: "`365`", notes: "server certificate (with `cert-manager`: every Certificate's `duration`)" },
        { keys: ["tls.renewBeforeDays"], type: "int", default: "`30`", notes: "must be below the validity (else every run re-issues)" },
        { keys: ["tls.caValidityDays"], type: "int", default: "`3650`" },
        { keys: ["tls.extraDnsNames","tls.extraIps"], type: "lists", default: "`[]`", notes: "additional SANs (DNS names ≤ 253, parts ≤ 63, `*.` allowed)" },
        { keys: ["tls.minVersion"], default: "`1.2`", notes: "the oldest TLS version httpd accepts on the API and virtual-media ports (`IRONIC_SSL_PROTOCOL`, `IRONIC_VMEDIA_SSL_PROTOCOL`; the image's own virtual-media default is `ALL`); JSON-RPC keeps Ironic's TLS 1.3; see [TLS policy](networks-and-trust.md#tls-policy)" },
        { keys: ["tls.ciphers"], type: "OpenSSL cipher list", default: "— (OpenSSL's)", notes: "TLS 1.2 ciphers of httpd (`IRONIC_TLS_12_CIPHERS`, `IRONIC_VMEDIA_TLS_12_CIPHERS`)" },
        { keys: ["tls.ciphersTls13"], type: "TLS 1.3 suites, `:`-separated", default: "— (OpenSSL's)", notes: "httpd only (`IRONIC_TLS_13_CIPHERS`, `IRONIC_VMEDIA_TLS_13_CIPHERS`)" },
        { keys: ["tls.curves"], type: "groups, `:`-separated", default: "— (OpenSSL's)", notes: "key-exchange groups of httpd (`IRONIC_TLS_CURVES`, `IRONIC_VMEDIA_CURVES`), e.g. `X25519MLKEM768:X25519:P-256` where OpenSSL has ML-KEM" },
    ],
};
