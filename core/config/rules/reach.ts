/**
 * BMCs on another network (`external`, `conductors[].external`): where each belongs (topology), one
 * address family per BMC network, and the ironic.conf options they own (naming them in
 * ironic.config as well is refused: one place for each). keepalived beyond its one VIP: keepalived.ts.
 */
import * as ipaddr from "ipaddr.js";

import type { ExternalConfig } from "../types";
import type { AddIssue, Rule } from "./rule";

const OWNED_OPTIONS = [
    ["deploy.external_http_url", "httpUrl"],
    ["deploy.external_callback_url", "callbackUrl"],
] as const;

/** The family of an IP literal in a URL host (bracketed IPv6), or undefined for a DNS name. */
function urlFamily(url: string | undefined): string | undefined {
    if (!url) return undefined;
    const host = url.replace(/^https:\/\//i, "").replace(/\/$/, "").replace(/:[0-9]+$/, "").replace(/^\[(.*)\]$/, "$1");
    return ipaddr.isValid(host) ? ipaddr.parse(host).kind() : undefined;
}

/** An `ip` and a URL with an IP literal of the other family: one BMC network, one family. */
function familyIssues(ext: ExternalConfig, key: string, add: AddIssue) {
    if (!ext.ip || !ipaddr.isValid(ext.ip)) return;
    const kind = ipaddr.parse(ext.ip).kind();
    for (const k of ["httpUrl", "callbackUrl"] as const) {
        const f = urlFamily(ext[k]);
        if (f && f !== kind) add(`${key}.${k}`, `an ${f} address while ${key}.ip ${ext.ip} is ${kind}: BMCs reach Ironic on one network; use an address of the same family (or a DNS name), or drop ${key}.ip`);
    }
}

/** ironic.config options an external block sets: httpUrl (or ip) the virtual-media URL, callbackUrl (or ip) the callback. */
function ownedOptionIssues(config: Record<string, unknown>, ext: ExternalConfig, from: string, add: AddIssue) {
    for (const [option, k] of OWNED_OPTIONS) {
        if (ext[k] === undefined && ext.ip === undefined) continue;
        for (const key of Object.keys(config)) {
            if (key.toLowerCase() === option) add(`ironic.config.${key}`, `set by ${from}.${ext[k] !== undefined ? k : "ip"} (the image's IRONIC_EXTERNAL_* variables); remove it here`);
        }
    }
}

export const externalRule: Rule = ({ config: c, parsed }, add) => {
    if (c.external) {
        if (c.topology === "multi") {
            add("external", 'not used with topology "multi": each conductor serves the virtual media of the nodes it owns at its own address; set conductors[].external for every listed node instead');
        } else {
            familyIssues(c.external, "external", add);
            ownedOptionIssues(c.ironic.config, c.external, "external", add);
        }
    }
    if (c.topology !== "multi") return;
    const listed = parsed.conductors ?? [];
    // A conductor without external (listed or not) hands BMCs its provisioning-network URLs: docs say to list every node.
    const withExt = listed.filter((cd) => cd.external !== undefined && Object.keys(cd.external).length > 0);
    listed.forEach((cd, i) => {
        if (cd.external) familyIssues(cd.external, `conductors[${i}].external`, add);
    });
    if (withExt[0]?.external) ownedOptionIssues(c.ironic.config, withExt[0].external, "conductors[].external", add);
};
