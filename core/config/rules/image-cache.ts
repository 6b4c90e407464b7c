/**
 * `imageCache`: what each mode needs, keys that do nothing in the chosen mode, one entry per
 * architecture, and the same architectures for kernel and ramdisk.
 */
import { IPA_ARCHITECTURES } from "../../contract";
import { IMAGE_CACHE_KEYS_BY_MODE, modeList } from "../image-cache";
import type { Rule } from "./rule";

const SET = "pulumi config set --path metal3-ironic:imageCache";

export const imageCacheRule: Rule = ({ config, parsed }, add) => {
    const p = parsed.imageCache;
    if (p === undefined) return;
    const c = config.imageCache;
    const mode = c.mode;
    for (const [key, modes] of Object.entries(IMAGE_CACHE_KEYS_BY_MODE)) {
        if ((p as Record<string, unknown>)[key] !== undefined && !modes.includes(mode)) {
            add(`imageCache.${key}`, `only used with imageCache.mode ${modeList(modes)} (the mode is "${mode}"): remove it, or change the mode`);
        }
    }
    const seen = new Map<string, number>();
    (p.ipa ?? []).forEach((e, i) => {
        if (seen.has(e.architecture)) add(`imageCache.ipa[${i}].architecture`, `"${e.architecture}" is already imageCache.ipa[${seen.get(e.architecture)}]: one entry per architecture`);
        else seen.set(e.architecture, i);
        if (mode === "external") {
            for (const k of ["baseUri", "branch", "flavor", "filename", "sha256"] as const) {
                if (e[k] !== undefined) add(`imageCache.ipa[${i}].${k}`, "with imageCache.mode \"external\" the other stack's cache decides what it downloads: set it there, or remove it here");
            }
        }
    });
    if (mode === "external") {
        if (!c.url) add("imageCache.url", `required with imageCache.mode "external": the other stack's imageCacheUrl output, e.g. ${SET}.url https://ironic-ipa-cache.metal3.svc:6186`);
        else if (!c.url.startsWith("https://")) add("imageCache.url", "must be an https:// URL: a deployed cache serves only HTTPS, verified with its CA");
        if (!c.caSecret && !c.caPem) add("imageCache.caSecret", "required with imageCache.mode \"external\" (or imageCache.caPem): a Secret in the namespace whose ca.crt is the other stack's imageCacheCaCertificate output");
    }
    if (c.caSecret && c.caPem) add("imageCache.caPem", "give the cache's CA once: imageCache.caSecret or imageCache.caPem, not both");
    if (mode === "none") noneRule(c.kernelUrl, c.ramdiskUrl, add);
};

function isPlainHttp(url: string): boolean {
    try {
        return new URL(url).protocol === "http:";
    } catch {
        return false; // not a URL: the schema has said so
    }
}

/**
 * Deploy: the cache downloads the ramdisk every host boots, from the internet by default. Over plain
 * http anyone on the path can replace it, so an http:// source needs the tarball's expected sha256
 * (then nothing else is served) or an explicit imageCache.allowHttp. Runs with imageCache unset too:
 * the default entry inherits ironic.ipa.baseUri.
 */
export const ipaDownloadRule: Rule = ({ config, parsed }, add) => {
    const c = config.imageCache;
    if (c.mode !== "deploy" || c.allowHttp) return;
    const reported = new Set<string>();
    c.ipa.forEach((e, i) => {
        // The scheme as curl reads it (HTTP:// too), not as typed.
        if (!e.baseUri || e.sha256 || !isPlainHttp(e.baseUri)) return;
        const key = parsed.imageCache?.ipa?.[i]?.baseUri !== undefined ? `imageCache.ipa[${i}].baseUri` : "ironic.ipa.baseUri";
        if (reported.has(key)) return;
        reported.add(key);
        // Without an imageCache.ipa list, --path ...ipa[0].sha256 alone would make an entry without its architecture.
        const pin = parsed.imageCache?.ipa ? `imageCache.ipa[${i}].sha256` : `an imageCache.ipa entry {architecture: ${e.architecture}, sha256: <its sha256sum>}`;
        add(
            key,
            `${e.baseUri} is plain http: anyone on the path could replace the ramdisk every host boots (the ${e.architecture} IPA). ` +
                `Use https, or pin the tarball with ${pin} (the cache then serves nothing else), ` +
                "or accept it with imageCache.allowHttp: true (a mirror you trust the path to)",
        );
    });
};

function noneRule(kernel: Record<string, string>, ramdisk: Record<string, string>, add: (key: string, message: string) => void): void {
    const k = Object.keys(kernel);
    const r = Object.keys(ramdisk);
    if (k.length === 0 && r.length === 0) {
        add(
            "imageCache.kernelUrl",
            `required with imageCache.mode "none" (no downloader runs): your IPA kernel and ramdisk URLs per architecture, e.g. ${SET}.kernelUrl.x86_64 https://images.example/ipa.kernel and ${SET}.ramdiskUrl.x86_64 https://images.example/ipa.initramfs`,
        );
        return;
    }
    for (const a of IPA_ARCHITECTURES) {
        if (a in kernel && !(a in ramdisk)) add(`imageCache.ramdiskUrl.${a}`, `required: imageCache.kernelUrl.${a} is set, and Ironic and BMO refuse a kernel without its ramdisk`);
        if (a in ramdisk && !(a in kernel)) add(`imageCache.kernelUrl.${a}`, `required: imageCache.ramdiskUrl.${a} is set, and Ironic and BMO refuse a ramdisk without its kernel`);
    }
}
