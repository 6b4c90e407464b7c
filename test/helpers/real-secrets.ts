/**
 * Real values for what the tls and random providers compute at deploy time, so that the Secrets a
 * rendered stack mounts hold working keys, certificates (openssl) and passwords (bcrypt), not
 * placeholders. Plugs into the offline renderer as its state hook; also turns a render into the
 * ConfigMap/Secret data the pod runner mounts.
 */
import * as bcrypt from "bcryptjs";
import { execFileSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

import { unwrapSecrets } from "../../tools/offline";
import type { RawConfig } from "../../core/config";
import { Rendered, renderOffline } from "../../tools/render";
import type { ClusterData } from "./pod-runner";

function openssl(args: string[], input?: string): string {
    return execFileSync("openssl", args, { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"] });
}

/** An openssl -subj string (its separator "/" escaped inside values). */
function subj(subject: { organization?: string; commonName?: string } | undefined, fallback: string): string {
    const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/\//g, "\\/");
    return `/O=${esc(subject?.organization ?? "test")}/CN=${esc(subject?.commonName ?? fallback)}`;
}

function withTmp<T>(fn: (dir: string) => T): T {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "m3i-pki-"));
    try {
        return fn(dir);
    } finally {
        fs.rmSync(dir, { recursive: true, force: true });
    }
}

/**
 * Deterministic per resource name (same run, same values), different across names; a seed stands
 * for another stack's provider (a re-created stack generates other passwords).
 */
function passwordFor(name: string, length: number, seed = ""): string {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const bytes = createHash("sha256").update(`m3i-test-password:${seed}${name}`).digest();
    let out = "";
    for (let i = 0; out.length < length; i++) out += alphabet[bytes[i % bytes.length] % alphabet.length];
    return out;
}

/** A StateHook for renderOffline: what @pulumi/tls and @pulumi/random would compute, for real. */
export function realProviderState(type: string, name: string, rawInputs: Record<string, any>, seed = ""): Record<string, any> | undefined {
    const inputs = unwrapSecrets(rawInputs);
    switch (type) {
        case "random:index/randomPassword:RandomPassword": {
            const result = passwordFor(name, inputs.length ?? 32, seed);
            // The random provider (Go) writes $2a$ hashes.
            return { result, bcryptHash: bcrypt.hashSync(result, 4).replace(/^\$2b\$/, "$2a$") };
        }
        case "tls:index/privateKey:PrivateKey": {
            const bits = String(inputs.rsaBits ?? 2048);
            const pem = openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", `rsa_keygen_bits:${bits}`]);
            return { privateKeyPem: pem, privateKeyPemPkcs8: pem, publicKeyPem: openssl(["pkey", "-pubout"], pem) };
        }
        case "tls:index/selfSignedCert:SelfSignedCert":
            return withTmp((d) => {
                fs.writeFileSync(path.join(d, "key.pem"), inputs.privateKeyPem);
                const days = String(Math.max(1, Math.floor((inputs.validityPeriodHours ?? 24) / 24)));
                // A CA (the stack's), or a server certificate that is its own trust anchor (BMO's webhook): with its SANs.
                const sans = [...(inputs.dnsNames ?? []).map((n: string) => `DNS:${n}`), ...(inputs.ipAddresses ?? []).map((ip: string) => `IP:${ip}`)];
                const ext = inputs.isCaCertificate
                    ? ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature"]
                    : ["-addext", "basicConstraints=CA:FALSE", "-addext", "keyUsage=digitalSignature,keyEncipherment", "-addext", "extendedKeyUsage=serverAuth"];
                if (sans.length > 0) ext.push("-addext", `subjectAltName=${sans.join(",")}`);
                const cert = openssl(["req", "-x509", "-new", "-key", path.join(d, "key.pem"), "-subj", subj(inputs.subject, name), "-days", days, ...ext]);
                return { certPem: cert, readyForRenewal: false };
            });
        case "tls:index/certRequest:CertRequest":
            return withTmp((d) => {
                fs.writeFileSync(path.join(d, "key.pem"), inputs.privateKeyPem);
                const sans = [...(inputs.dnsNames ?? []).map((n: string) => `DNS:${n}`), ...(inputs.ipAddresses ?? []).map((ip: string) => `IP:${ip}`)];
                const args = ["req", "-new", "-key", path.join(d, "key.pem"), "-subj", subj(inputs.subject, name)];
                if (sans.length > 0) args.push("-addext", `subjectAltName=${sans.join(",")}`);
                return { certRequestPem: openssl(args) };
            });
        case "tls:index/locallySignedCert:LocallySignedCert":
            return withTmp((d) => {
                fs.writeFileSync(path.join(d, "csr.pem"), inputs.certRequestPem);
                fs.writeFileSync(path.join(d, "ca.pem"), inputs.caCertPem);
                fs.writeFileSync(path.join(d, "ca.key"), inputs.caPrivateKeyPem);
                // As the tls provider signs them: a CA (isCaCertificate, maxPathLength) or a server/client certificate.
                // The provider sets Go's x509 MaxPathLen without MaxPathLenZero, and Go encodes a
                // MaxPathLen of 0 as no limit: only maxPathLength > 0 gives a pathlen (0 and -1: none).
                const ext = inputs.isCaCertificate
                    ? `basicConstraints=critical,CA:TRUE${inputs.maxPathLength !== undefined && inputs.maxPathLength > 0 ? `,pathlen:${inputs.maxPathLength}` : ""}\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n`
                    : "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n";
                fs.writeFileSync(path.join(d, "ext.cnf"), ext);
                const days = String(Math.max(1, Math.floor((inputs.validityPeriodHours ?? 24) / 24)));
                const cert = openssl(["x509", "-req", "-in", path.join(d, "csr.pem"), "-CA", path.join(d, "ca.pem"), "-CAkey", path.join(d, "ca.key"), "-CAcreateserial", "-days", days, "-copy_extensions", "copy", "-extfile", path.join(d, "ext.cnf")]);
                return { certPem: cert, readyForRenewal: false };
            });
        default:
            return undefined;
    }
}

/** The ConfigMap and Secret data of a render, secrets in clear, as the API server would hold it. */
export function clusterData(r: Rendered): ClusterData {
    const out: ClusterData = { configMaps: {}, secrets: {} };
    for (const res of r.resources) {
        if (res.type === "kubernetes:core/v1:ConfigMap") {
            const i = unwrapSecrets(res.rawInputs);
            out.configMaps[i.metadata.name] = { ...(i.data ?? {}) };
        } else if (res.type === "kubernetes:core/v1:Secret") {
            const i = unwrapSecrets(res.rawInputs);
            const data: Record<string, string> = {};
            for (const [k, v] of Object.entries(i.data ?? {})) data[k] = Buffer.from(String(v), "base64").toString("utf8");
            for (const [k, v] of Object.entries(i.stringData ?? {})) data[k] = String(v);
            out.secrets[i.metadata.name] = data;
        }
    }
    return out;
}

/**
 * Render a stack offline with real provider values, and the data the pod runner mounts from it.
 * `passwordSeed` renders the same stack as if re-created: other generated passwords.
 */
export async function renderWithRealSecrets(
    raw: RawConfig,
    stack: string,
    passwordSeed = "",
    secret: { secretKeys?: string[]; stated?: RawConfig } = {},
    next: { previousOutputs?: Record<string, unknown>; kept?: Map<string, Record<string, any> | undefined> } = {},
): Promise<{ rendered: Rendered; cluster: ClusterData }> {
    // `kept`: the provider state of earlier renders of the stack, as the engine keeps it: a
    // resource whose inputs did not change keeps its outputs (keys, certificates) in a later run.
    const hook = (type: string, name: string, inputs: Record<string, any>) => {
        const key = `${type} ${name} ${JSON.stringify(inputs)}`;
        if (next.kept?.has(key)) return next.kept.get(key);
        const state = realProviderState(type, name, inputs, passwordSeed);
        next.kept?.set(key, state);
        return state;
    };
    const rendered = await renderOffline(raw, stack, { hook, previousOutputs: next.previousOutputs, ...secret });
    return { rendered, cluster: clusterData(rendered) };
}
