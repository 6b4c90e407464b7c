/**
 * Network settings across sections: every image rewritten to images.registry must still be a
 * valid reference, and proxy settings that would do nothing (no proxy set) are refused.
 */
import { imageRef } from "../images";
import type { Rule } from "./rule";

const IMAGE_KEYS = ["ironic", "ipaDownloader", "keepalived", "mariadb"] as const;

export const downloadsRule: Rule = ({ config: c, parsed }, add) => {
    const registry = parsed.images?.registry;
    if (registry !== undefined) {
        for (const k of IMAGE_KEYS) {
            const r = imageRef.safeParse(c.images[k]);
            if (!r.success) add("images.registry", `rewrites images.${k} to ${c.images[k]}, which ${r.error.issues[0].message}: shorten the registry's path prefix`);
        }
    }
    const proxy = parsed.proxy;
    if (proxy && proxy.httpProxy === undefined && proxy.httpsProxy === undefined) {
        const fix = "set proxy.httpProxy and/or proxy.httpsProxy (e.g. pulumi config set --path metal3-ironic:proxy.httpsProxy http://proxy.corp.example:3128)";
        if (proxy.noProxy !== undefined) add("proxy.noProxy", `does nothing without a proxy: ${fix}, or remove it`);
        if (proxy.applyToIronic === true) add("proxy.applyToIronic", `does nothing without a proxy: ${fix}, or remove it`);
    }
};
