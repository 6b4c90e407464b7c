/**
 * `imageCache`: where the conductors get the IPA kernel and ramdisk from (docs/ipa-cache.md).
 *
 *  - `deploy` (default): this stack runs a cache (components/image-cache.ts) that downloads each
 *    configured IPA once per version key and serves it over HTTPS with a certificate of the stack CA;
 *  - `external`: a cache another stack deployed (`url` + its CA, `caSecret` or `caPem`);
 *  - `none`: the user's own kernel/ramdisk URLs per architecture; no downloader runs anywhere.
 *
 * Like resources.ts, the section is built from blocks schema.ts hands in (no import circle).
 */
import { z } from "zod";

import { IPA_ARCHITECTURES, type IpaArchitecture } from "../contract";
import { checked, httpUrl, httpUrlProblem, pathWord, quoted } from "./strings";
import type { SectionDocs } from "./section";

export const IMAGE_CACHE_MODES = ["deploy", "external", "none"] as const;
export type ImageCacheMode = (typeof IMAGE_CACHE_MODES)[number];

/** Service port of a deployed cache (the pod is not on the host network: no clash with Ironic's ports). */
export const DEFAULT_IMAGE_CACHE_PORT = 6186;
export const DEFAULT_IMAGE_CACHE_STORAGE = "5Gi";

/** One IPA to download (mode deploy): unset fields fall back to `ironic.ipa`, then to the downloader's defaults. */
export interface IpaSource {
    architecture: IpaArchitecture;
    baseUri?: string;
    branch?: string;
    flavor?: string;
    /** IPA_FILENAME: the tarball's name when it is not `ipa-<flavor>-<branch>.tar.gz`. */
    filename?: string;
    /** The tarball's expected SHA-256 (hex): the cache refuses to serve any other content. */
    sha256?: string;
}

export type PerArch = Partial<Record<IpaArchitecture, string>>;

export interface ImageCacheConfig {
    mode: ImageCacheMode;
    /** deploy: what to download; external: which architectures the other stack's cache holds. */
    ipa: IpaSource[];
    minimumModificationTime?: string;
    storageSize: string;
    storageClass?: string;
    retainOnDelete: boolean;
    protect: boolean;
    /** Download from plain http:// sources without an expected sha256 (a mirror you trust the path to). */
    allowHttp: boolean;
    port: number;
    url?: string;
    caSecret?: string;
    caPem?: string;
    kernelUrl: PerArch;
    ramdiskUrl: PerArch;
}

const archProblem = (s: string) =>
    (IPA_ARCHITECTURES as readonly string[]).includes(s) ? undefined : `must be an architecture Ironic names deploy images by: ${IPA_ARCHITECTURES.join(" or ")} (arm64 is aarch64)`;
/** An architecture as a value or a map key. */
export const architecture = checked(archProblem);

/** An http(s) URL that also fits `arch:url,arch:url` (Ironic's DictOpt, BMO's BY_ARCH): no ','. */
export const imageUrl = checked((s) => httpUrlProblem(s) ?? (s.includes(",") ? "must not contain ',' (the URL goes into Ironic's arch:url,arch:url list)" : undefined));

/** A SHA-256 as sha256sum prints it: 64 lowercase hex digits. */
export const sha256Hex = checked((s) => (/^[0-9a-f]{64}$/.test(s) ? undefined : "must be a SHA-256 as sha256sum prints it: 64 lowercase hex digits"));

/** RFC 3339 UTC time, e.g. 2026-08-01T00:00:00Z: compared with the tarball's Last-Modified. */
export const utcTime = checked((s) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(s) && !Number.isNaN(Date.parse(s)) ? undefined : "must be a UTC time such as 2026-08-01T00:00:00Z",
);

const PEM_CERT = /^(-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----\s*)+$/;
/** One or more PEM certificates (newlines allowed, nothing else). */
export const pemCertificates = checked((s) =>
    s.length > 65536 ? `must be at most 65536 characters (got ${s.length})` : PEM_CERT.test(s) ? undefined : "must be PEM certificates (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----), e.g. the other stack's imageCacheCaCertificate output",
);

/** What schema.ts hands in (structurally typed: no import of schema.ts here). */
export interface ImageCacheBlocks {
    strict: <T extends z.ZodRawShape>(shape: T) => z.ZodObject<T, z.core.$strict>;
    quantity: z.ZodType<string>;
    port: z.ZodType<number>;
    dnsLabel: z.ZodType<string>;
    storageClassName: z.ZodType<string>;
}

export function imageCacheSection({ strict, quantity, port, dnsLabel, storageClassName }: ImageCacheBlocks) {
    return strict({
        mode: z.enum(IMAGE_CACHE_MODES, { error: 'must be "deploy" (a cache in this stack), "external" (another stack\'s cache: url and its CA) or "none" (your own kernelUrl/ramdiskUrl)' }).optional(),
        ipa: z
            .array(
                strict({
                    architecture,
                    baseUri: httpUrl.optional(),
                    branch: pathWord("an IPA branch such as master or stable/2024.1", 100, true).optional(),
                    flavor: pathWord("an IPA flavor such as centos9", 64, false).optional(),
                    filename: pathWord("a tarball name such as ipa-centos9-master.tar.gz", 200, false).optional(),
                    sha256: sha256Hex.optional(),
                }),
            )
            .min(1, "must name at least one architecture, e.g. [{architecture: x86_64}]")
            .optional(),
        minimumModificationTime: utcTime.optional(),
        storageSize: quantity.optional(),
        storageClass: storageClassName.optional(),
        retainOnDelete: z.boolean().optional(),
        protect: z.boolean().optional(),
        allowHttp: z.boolean().optional(),
        port: port.optional(),
        url: imageUrl.optional(),
        caSecret: dnsLabel.optional(),
        caPem: pemCertificates.optional(),
        kernelUrl: z.record(architecture, imageUrl).optional(),
        ramdiskUrl: z.record(architecture, imageUrl).optional(),
    });
}

export type ImageCacheSection = z.infer<ReturnType<typeof imageCacheSection>>;

/** Defaults: mode deploy with one x86_64 IPA; each entry's unset settings taken from `ironic.ipa`. */
export function resolveImageCache(p: ImageCacheSection | undefined, ipaDefaults: Omit<IpaSource, "architecture">): ImageCacheConfig {
    const mode = p?.mode ?? "deploy";
    const inherit = mode === "deploy" ? ipaDefaults : {};
    const ipa = (p?.ipa ?? (mode === "none" ? [] : [{ architecture: "x86_64" }])).map((e) => ({ ...inherit, ...e }) as IpaSource);
    return {
        mode,
        ipa,
        minimumModificationTime: p?.minimumModificationTime,
        storageSize: p?.storageSize ?? DEFAULT_IMAGE_CACHE_STORAGE,
        storageClass: p?.storageClass,
        retainOnDelete: p?.retainOnDelete ?? true,
        protect: p?.protect ?? true,
        allowHttp: p?.allowHttp ?? false,
        port: p?.port ?? DEFAULT_IMAGE_CACHE_PORT,
        url: p?.url,
        caSecret: p?.caSecret,
        caPem: p?.caPem,
        kernelUrl: (p?.kernelUrl ?? {}) as PerArch,
        ramdiskUrl: (p?.ramdiskUrl ?? {}) as PerArch,
    };
}

/** Keys that mean something only in some modes: set in another mode, they are refused (a silent no-op misleads). */
export const IMAGE_CACHE_KEYS_BY_MODE: Record<string, readonly ImageCacheMode[]> = {
    minimumModificationTime: ["deploy"],
    storageSize: ["deploy"],
    storageClass: ["deploy"],
    retainOnDelete: ["deploy"],
    protect: ["deploy"],
    allowHttp: ["deploy"],
    port: ["deploy"],
    ipa: ["deploy", "external"],
    url: ["external"],
    caSecret: ["external", "none"],
    caPem: ["external", "none"],
    kernelUrl: ["none"],
    ramdiskUrl: ["none"],
};

export const modeList = (modes: readonly ImageCacheMode[]) => modes.map((m) => quoted(m)).join(" or ");

export const IMAGE_CACHE_DOCS: SectionDocs = {
    description: "Where conductors get IPA: deploy (a cache here), external (another stack's cache) or none (your URLs).",
    reference: [
        { keys: ["imageCache.mode"], default: "`deploy`", notes: "where the conductors get IPA, see [IPA image cache](ipa-cache.md)" },
        { keys: ["imageCache.ipa"], type: "list of `{architecture, baseUri?, branch?, flavor?, filename?, sha256?}`", default: "`[{architecture: x86_64}]`", notes: "`deploy`: one IPA per architecture (`x86_64`, `aarch64`), each field defaulting to `ironic.ipa.*`; `filename` is the tarball name (`IPA_FILENAME`); `sha256` the tarball's expected SHA-256 (`sha256sum`): a download with other content is never served, and an `http://` `baseUri` needs it (or `allowHttp`); `external`: only `architecture`, what the other cache holds" },
        { keys: ["imageCache.minimumModificationTime"], type: "UTC time", default: "—", notes: "`deploy`: part of the version key, and a tarball with an older `Last-Modified` is refused, e.g. `2026-08-01T00:00:00Z`" },
        { keys: ["imageCache.allowHttp"], type: "bool", default: "`false`", notes: "`deploy`: download from an `http://` `baseUri` without an `imageCache.ipa[].sha256` (a mirror you trust the path to); otherwise refused" },
        { keys: ["imageCache.storageSize"], type: "quantity", default: "`5Gi`", notes: "`deploy`: the cache's claim" },
        { keys: ["imageCache.storageClass"], type: "StorageClass name", default: "cluster default", notes: "`deploy`" },
        { keys: ["imageCache.retainOnDelete"], type: "bool", default: "`true`", notes: "`deploy`: keep the claim on `pulumi destroy`" },
        { keys: ["imageCache.protect"], type: "bool", default: "`true`", notes: "`deploy`: `protect` the claim" },
        { keys: ["imageCache.port"], type: "1–65535", default: "`6186`", notes: "`deploy`: the cache Service's HTTPS port" },
        { keys: ["imageCache.url"], type: "`https://` URL", default: "**required** with `external`", notes: "the other stack's `imageCacheUrl` output" },
        { keys: ["imageCache.caSecret"], type: "Secret name", default: "—", notes: "`external` (this or `caPem` required), `none`: a Secret in the namespace with `ca.crt`, the cache's (or your server's) CA; read, never written" },
        { keys: ["imageCache.caPem"], type: "PEM certificates", default: "—", notes: "instead of `caSecret`: the CA itself, e.g. the other stack's `imageCacheCaCertificate` output" },
        { keys: ["imageCache.kernelUrl"], type: "map architecture → URL", default: "— (**required** with `none`)", notes: "`none`: `imageCache.kernelUrl.x86_64`, `.aarch64`: your IPA kernels (http/https, no `,`)" },
        { keys: ["imageCache.ramdiskUrl"], type: "map architecture → URL", default: "— (**required** with `none`)", notes: "`none`: the initramfs of each architecture that has a kernel" },
    ],
};
