/**
 * Free strings of the stack configuration, validated for what their consumer accepts. Every such
 * string ends up in an env var, ironic.conf (an ini file the image renders), a shell script, the
 * iPXE script every inspected host runs, dnsmasq config or a Kubernetes field; a newline there
 * starts a new section, command or field, and a quote ends a quoted value early.
 *
 * Each check is a function `(s) => problem | undefined` that looks at the length before anything
 * else (so a 64 KiB value costs nothing), wrapped into a zod string with `checked`.
 */
import { z } from "zod";

/** C0 controls (\0, \t, \n, \r, ESC ...), DEL, C1 controls, and the Unicode line/paragraph separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A zod string whose problem, if any, is the one `problem` names. */
export function checked(problem: (s: string) => string | undefined) {
    return z.string().superRefine((s, ctx) => {
        const p = problem(s);
        if (p !== undefined) ctx.addIssue({ code: "custom", message: p, input: s });
    });
}

/** `s` as a JSON string literal with every control character escaped (JSON itself leaves DEL, C1 and U+2028/9 raw). */
export function quoted(s: string): string {
    return JSON.stringify(s).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function controlProblem(s: string): string | undefined {
    const m = CONTROL.exec(s);
    if (!m) return undefined;
    return `must not contain control characters (found ${quoted(m[0])} at position ${m.index}): a newline, tab, NUL or DEL would start a new line or field where the value is used`;
}

export const tooLong = (s: string, max: number) => (s.length > max ? `must be at most ${max} characters (got ${s.length})` : undefined);

/** Free text that reaches an env var or ini file: printable, bounded. */
export const text = (max: number) => checked((s) => tooLong(s, max) ?? controlProblem(s));

// ---------------------------------------------------------------------------------------------
// Kubernetes and DNS names (the rules of apimachinery's validation package)

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** Kubernetes object name (DNS-1123 subdomain): lower case, digits, '-' and '.', at most 253. */
export function subdomainProblem(s: string, what = "a DNS subdomain"): string | undefined {
    if (s.length === 0 || s.length > 253) return `must be ${what} of 1-253 characters (got ${s.length})`;
    if (!DNS1123_SUBDOMAIN.test(s)) return `must be ${what}: lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit`;
    return undefined;
}

/** A DNS name: a subdomain whose labels are at most 63 characters (RFC 1035). `wildcard`: may start with `*.`. */
export function dnsNameProblem(s: string, opts: { max?: number; wildcard?: boolean; upper?: boolean } = {}): string | undefined {
    const max = opts.max ?? 253;
    if (s.length === 0 || s.length > max) return `must be a DNS name of 1-${max} characters (got ${s.length})`;
    const body = opts.wildcard && s.startsWith("*.") ? s.slice(2) : s;
    const p = subdomainProblem(opts.upper ? body.toLowerCase() : body, "a DNS name");
    if (p) return p;
    const long = body.split(".").find((l) => l.length > 63);
    return long ? `must be a DNS name: each dot-separated part at most 63 characters (one has ${long.length})` : undefined;
}

/** Label key: optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function labelKeyProblem(s: string): string | undefined {
    const fix = "a Kubernetes label key: [prefix/]name, the prefix a DNS subdomain (at most 253), the name at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit (e.g. node-role.kubernetes.io/control-plane)";
    if (s.length > 253 + 1 + 63) return `must be ${fix}`;
    const slash = s.lastIndexOf("/");
    const prefix = slash >= 0 ? s.slice(0, slash) : undefined;
    const name = slash >= 0 ? s.slice(slash + 1) : s;
    if (prefix !== undefined && subdomainProblem(prefix) !== undefined) return `must be ${fix}; the prefix "${prefix.slice(0, 80)}" is not a DNS subdomain`;
    if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME.test(name)) return `must be ${fix}`;
    return undefined;
}

/** Label value: empty, or at most 63 letters, digits, '-', '_', '.', starting and ending with a letter or digit. */
export function labelValueProblem(s: string): string | undefined {
    if (s === "") return undefined;
    if (s.length > 63 || !QUALIFIED_NAME.test(s)) {
        return "must be a Kubernetes label value: empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
    }
    return undefined;
}

export const labelKey = checked(labelKeyProblem);
export const labelValue = checked(labelValueProblem);
/** StorageClass name: a Kubernetes object name. */
export const storageClassName = checked((s) => subdomainProblem(s, "a StorageClass name (DNS subdomain)"));
export const dnsName = checked((s) => dnsNameProblem(s));
export const dnsNameOrWildcard = checked((s) => dnsNameProblem(s, { wildcard: true }));

/** A host name (any case) or IPv4 address: what the ironic image puts in its connection URL. */
export const hostName = checked((s) => (dnsNameProblem(s, { upper: true }) ? "must be a host name (at most 253 characters, parts of at most 63 letters, digits and '-') or an IPv4 address; put the port in database.port" : undefined));

/**
 * Kubernetes node name of a conductor. Everything derived from it stays valid at 64: the node's
 * certificate has it as commonName (X.509 bounds commonName at 64, RFC 5280 ub-common-name) and as
 * a DNS SAN (parts ≤ 63); the per-node ConfigMap/Secret keys `<node>.dnsmasq.conf` (≤ 253) and the
 * files the pods and `npm run plan` write (`<node>.env`, `node/<node>.yaml`, ≤ 255) are longer
 * by at most 13. Kubelet's default node name is the host name, which Linux also bounds at 64.
 */
export const NODE_NAME_MAX = 64;
export const nodeName = checked((s) => {
    if (s.length > NODE_NAME_MAX) {
        return `must be at most ${NODE_NAME_MAX} characters (got ${s.length}): the node name is the commonName of its certificate (at most 64 in X.509) and names per-node files and keys`;
    }
    return dnsNameProblem(s) && "must be a Kubernetes node name: lower-case letters, digits, '-' and '.', each dot-separated part of at most 63 starting and ending with a letter or digit";
});

// ---------------------------------------------------------------------------------------------
// What the ironic image puts on the ramdisk's kernel command line

/**
 * Bytes this program adds to the ramdisk's kernel command line: `ironic.kernelParams` and the
 * image's ` sshkey="<ironic.ramdiskSshKey>"`. The kernel keeps 2048 bytes of command line on
 * x86_64 and arm64 (COMMAND_LINE_SIZE) and silently truncates the rest; Ironic and the image add
 * their own parameters (API and callback URLs, BOOTIF, initrd, ipa-insecure, fips, console
 * forwarding: several hundred bytes), so ours get 1536 and theirs keep at least 512.
 */
export const KERNEL_PARAMS_BUDGET = 1536;

export function kernelBytes(kernelParams: string | undefined, sshKey: string | undefined): number {
    return (kernelParams ?? "").length + (sshKey ? ` sshkey="${sshKey}"`.length : 0);
}

const KERNEL_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Values: letters, digits and `_ . , : / = + @ - [ ]` (console=ttyS0,115200n8, root=UUID=..., ipa-api-url=http://[fd00::1]:6385). */
const KERNEL_VALUE = /^[A-Za-z0-9_.,:/=+@[\]-]*$/;

export function kernelParamsProblem(s: string): string | undefined {
    const long = tooLong(s, KERNEL_PARAMS_BUDGET);
    if (long) return `${long}: the kernel keeps 2048 bytes of command line and Ironic needs the rest`;
    const ctl = controlProblem(s);
    if (ctl) return ctl;
    const tokens = s.split(" ").filter((t) => t !== "");
    if (tokens.length === 0) return "must hold at least one kernel parameter (key or key=value); remove the key to add none";
    for (const t of tokens) {
        const eq = t.indexOf("=");
        const key = eq >= 0 ? t.slice(0, eq) : t;
        const value = eq >= 0 ? t.slice(eq + 1) : "";
        if (!KERNEL_KEY.test(key) || !KERNEL_VALUE.test(value)) {
            return (
                `must be space-separated kernel parameters key or key=value (e.g. console=ttyS0,115200n8 ipa-insecure=1); "${t.slice(0, 40)}" is not one: ` +
                "keys are letters, digits, '_', '.', '-'; values letters, digits and _ . , : / = + @ - [ ]; no quotes, '\\', '$', '`', '|', '&' or ';' (the value is copied into ironic.conf and the iPXE script)"
            );
        }
    }
    return undefined;
}
export const kernelParams = checked(kernelParamsProblem);

/** Key types of OpenSSH public keys. */
const SSH_KEY_TYPES = [
    "ssh-ed25519",
    "ssh-rsa",
    "ssh-dss",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
];
/** The comment is copied inside the image's sshkey="..." and into the iPXE script: no quote, '\', '$', '`', '|', '&', ';'. */
const SSH_COMMENT = /^[A-Za-z0-9@._+:,=/ -]*$/;

/** The key type embedded at the start of the decoded blob (uint32 length, then the name), or undefined. */
function embeddedKeyType(blob: string): string | undefined {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob) || blob.length % 4 !== 0) return undefined;
    const bytes = Buffer.from(blob, "base64");
    if (bytes.toString("base64") !== blob || bytes.length < 4) return undefined;
    const n = bytes.readUInt32BE(0);
    return n > 0 && n <= 64 && bytes.length >= 4 + n ? bytes.subarray(4, 4 + n).toString("latin1") : undefined;
}

export function sshPublicKeyProblem(s: string): string | undefined {
    const budget = KERNEL_PARAMS_BUDGET - kernelBytes(undefined, "");
    const long = tooLong(s, budget);
    if (long) return `${long}: the key goes on the ramdisk's kernel command line`;
    const ctl = controlProblem(s);
    if (ctl) return ctl;
    const [type, blob, ...rest] = s.split(" ");
    const comment = rest.join(" ");
    if (!SSH_KEY_TYPES.includes(type) || blob === undefined) {
        return `must be an OpenSSH public key line: <type> <base64 key> [comment], type one of ${SSH_KEY_TYPES.join(", ")} (the line of your id_ed25519.pub)`;
    }
    const embedded = embeddedKeyType(blob);
    if (embedded === undefined) return "must be an OpenSSH public key line: the key after the type is not valid base64 of an SSH key";
    if (embedded !== type) return `must be an OpenSSH public key line: the key is a ${quoted(embedded.slice(0, 40))} key but the line says ${type}`;
    if (!SSH_COMMENT.test(comment)) {
        return "the comment after the key may hold only letters, digits, spaces and @ . _ + : , = / - (e.g. ops@bastion-1): it is copied inside sshkey=\"...\" on the kernel command line, where a quote, '\\', '$' or '`' would end or change it";
    }
    return undefined;
}
export const sshPublicKey = checked(sshPublicKeyProblem);

// ---------------------------------------------------------------------------------------------
// IPA download, kubeconfig context, oslo.config values

/** `IPA_BASEURI`: an http(s) URL without whitespace, quotes or shell metacharacters. */
export function httpUrlProblem(s: string): string | undefined {
    const long = tooLong(s, 2048);
    if (long) return long;
    const fix = "must be an http:// or https:// URL without spaces, quotes, '\\', '$' or '`' (e.g. https://tarballs.opendev.org/openstack/ironic-python-agent/dib)";
    if (controlProblem(s) || /[\s"'`$\\]/.test(s)) return fix;
    try {
        const u = new URL(s);
        if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "") return fix;
    } catch {
        return fix;
    }
    return undefined;
}
export const httpUrl = checked(httpUrlProblem);

/** A word of `[A-Za-z0-9._-]` (and '/', when `slash`), e.g. an IPA branch (stable/2024.1) or flavor (centos9). */
export const pathWord = (what: string, max: number, slash: boolean) =>
    checked((s) => {
        if (s.length > max) return tooLong(s, max);
        const re = slash ? /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/ : /^[A-Za-z0-9._-]+$/;
        if (!re.test(s) || s.split("/").some((p) => p === "." || p === "..")) {
            return `must be ${what}: letters, digits, '.', '_', '-'${slash ? " and '/' between parts" : ""}, no '..'`;
        }
        return undefined;
    });

/** kubeconfig context name: printable, no spaces or quotes (kind-kind, admin@cluster, arn:aws:eks:...:cluster/x). */
export const kubeContext = checked(
    (s) => tooLong(s, 253) ?? (/^[A-Za-z0-9._@:/+=-]+$/.test(s) ? undefined : "must be a kubeconfig context name: letters, digits and . _ @ : / + = - (see kubectl config get-contexts)"),
);

/** `ironic.config` value: reaches OS_<GROUP>__<OPTION> as a string. */
export const OSLO_VALUE_MAX = 4096;
export const osloValue = z.union([text(OSLO_VALUE_MAX), z.number().refine((n) => Number.isFinite(n), "must be a finite number"), z.boolean()], {
    error: (iss) => (iss.code === "invalid_union" ? "must be a string, number or boolean (the value of OS_<GROUP>__<OPTION>)" : undefined),
});

// ---------------------------------------------------------------------------------------------
// Tolerations: what the API server's validation refuses, reported with the key before anything exists

export type TolerationFields = Partial<Record<"key" | "operator" | "value" | "effect", string>> & { tolerationSeconds?: number };

/** Cross-field rules of one toleration, as `[field, message]`. */
export function tolerationProblems(t: TolerationFields): [keyof TolerationFields, string][] {
    const out: [keyof TolerationFields, string][] = [];
    const exists = t.operator === "Exists";
    if (!t.key && !exists) out.push(["key", 'required with operator "Equal" (the default); or set operator: Exists to tolerate every taint']);
    if (exists && t.value) out.push(["value", 'must be empty with operator "Exists" (remove it, or use operator: Equal)']);
    if (t.tolerationSeconds !== undefined && t.effect !== "NoExecute") out.push(["tolerationSeconds", 'only used with effect "NoExecute" (remove it, or set effect: NoExecute)']);
    return out;
}
