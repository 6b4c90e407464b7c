/**
 * Stack PKI: a CA made with @pulumi/tls and server certificates it signs.
 *
 * Renewal: tls certificates are re-issued when they enter their early-renewal window, which
 * the engine notices only on a refresh (`pulumi up --refresh`). `earlyRenewalHours` is validated
 * to be below the validity, so a normal run never regenerates anything.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as tls from "@pulumi/tls";

import { tlsSecretBody } from "../core/manifests";

export interface StackPkiArgs {
    /** Common name of the CA, e.g. "metal3-ironic dev CA". */
    commonName: pulumi.Input<string>;
    /** CA validity in days (tls.caValidityDays). */
    caValidityDays: number;
    /** Validity of every certificate the CA issues, in days (tls.validityDays). */
    validityDays: number;
    /** Re-issue the CA and its certificates this many days before they expire, on a refresh (tls.renewBeforeDays). */
    renewBeforeDays: number;
    /** Protect the CA key (default: yes); a CA only one client trusts, which it re-reads on every run, need not be. */
    protectKey?: boolean;
}

export interface CertificateArgs {
    commonName: pulumi.Input<string>;
    dnsNames: pulumi.Input<pulumi.Input<string>[]>;
    ipAddresses: pulumi.Input<pulumi.Input<string>[]>;
}

const hours = (days: number) => days * 24;

const KEY = { algorithm: "RSA", rsaBits: 3072 } as const;

export class StackPki extends pulumi.ComponentResource {
    public readonly caKey: tls.PrivateKey;
    public readonly caCert: tls.SelfSignedCert;
    /** The CA certificate (PEM); public. */
    public readonly caCertPem: pulumi.Output<string>;
    private readonly lifetime: { validityPeriodHours: number; earlyRenewalHours: number };

    constructor(name: string, args: StackPkiArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:tls:StackPki", name, {}, opts);
        // Protected: losing the CA key means re-issuing every certificate and re-distributing the CA.
        this.caKey = new tls.PrivateKey(`${name}-ca-key`, KEY, { parent: this, protect: args.protectKey ?? true });
        this.caCert = new tls.SelfSignedCert(
            `${name}-ca`,
            {
                privateKeyPem: this.caKey.privateKeyPem,
                subject: { commonName: args.commonName, organization: "metal3-ironic" },
                isCaCertificate: true,
                validityPeriodHours: hours(args.caValidityDays),
                earlyRenewalHours: hours(args.renewBeforeDays),
                allowedUses: ["cert_signing", "crl_signing", "digital_signature"],
            },
            { parent: this },
        );
        this.caCertPem = this.caCert.certPem;
        this.lifetime = { validityPeriodHours: hours(args.validityDays), earlyRenewalHours: hours(args.renewBeforeDays) };
        this.registerOutputs({ caCertPem: this.caCertPem });
    }

    /** Issue a server (and client) certificate signed by this CA, as children of `parent`. */
    issue(name: string, args: CertificateArgs, parent: pulumi.Resource): IssuedCertificate {
        return this.sign(name, { commonName: args.commonName, dnsNames: args.dnsNames, ipAddresses: args.ipAddresses }, { allowedUses: ["digital_signature", "key_encipherment", "server_auth", "client_auth"] }, parent);
    }

    /**
     * Issue an intermediate CA signed by this CA, with the validity and early renewal of the
     * certificates this CA issues. It asks for path length 0, which the tls provider does not
     * encode (see docs/topologies.md, Conductor certificates).
     */
    issueIntermediate(name: string, args: { commonName: pulumi.Input<string> }, parent: pulumi.Resource): IssuedCertificate {
        return this.sign(
            name,
            { commonName: args.commonName },
            { isCaCertificate: true, maxPathLength: 0, setSubjectKeyId: true, allowedUses: ["cert_signing", "crl_signing", "digital_signature"] },
            parent,
        );
    }

    /** A key, its request (`subject` plus any SANs) and this CA's signature with the given uses, as children of `parent`. */
    private sign(
        name: string,
        request: { commonName: pulumi.Input<string>; dnsNames?: CertificateArgs["dnsNames"]; ipAddresses?: CertificateArgs["ipAddresses"] },
        uses: Pick<tls.LocallySignedCertArgs, "allowedUses" | "isCaCertificate" | "maxPathLength" | "setSubjectKeyId">,
        parent: pulumi.Resource,
    ): IssuedCertificate {
        const { commonName, ...sans } = request;
        const key = new tls.PrivateKey(`${name}-key`, KEY, { parent });
        const csr = new tls.CertRequest(`${name}-csr`, { privateKeyPem: key.privateKeyPem, subject: { commonName, organization: "metal3-ironic" }, ...sans }, { parent });
        const cert = new tls.LocallySignedCert(
            `${name}-cert`,
            { certRequestPem: csr.certRequestPem, caCertPem: this.caCert.certPem, caPrivateKeyPem: this.caKey.privateKeyPem, ...this.lifetime, ...uses },
            { parent },
        );
        return { certPem: cert.certPem, keyPem: pulumi.secret(key.privateKeyPem), request: csr };
    }
}

/**
 * A server certificate of `pki` in a kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt), or
 * nothing without a stack CA (tls.mode "cert-manager": the issuer's Certificate writes that Secret).
 * The certificate's resource is `certName` (`<name>-server` unless the caller's URNs name it otherwise),
 * the Secret's `<name>-tls`.
 */
export function serverTlsSecret(
    pki: StackPki | undefined,
    name: string,
    request: CertificateArgs,
    secret: { name: string; namespace: pulumi.Input<string>; labels: Record<string, string> },
    parents: { issue: pulumi.Resource; secret: pulumi.Resource },
    certName = `${name}-server`,
): { secret: k8s.core.v1.Secret; certPem: pulumi.Output<string> } | undefined {
    if (!pki) return undefined;
    const cert = pki.issue(certName, request, parents.issue);
    const tls = new k8s.core.v1.Secret(`${name}-tls`, tlsSecretBody(secret, { cert: cert.certPem, key: cert.keyPem, ca: pki.caCertPem }), { parent: parents.secret });
    return { secret: tls, certPem: cert.certPem };
}

export interface IssuedCertificate {
    certPem: pulumi.Output<string>;
    keyPem: pulumi.Output<string>;
    request: tls.CertRequest;
}
