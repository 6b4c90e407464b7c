/**
 * BMCs on another network: the URLs Ironic hands them (virtual media, `[deploy]external_http_url`)
 * and IPA's callback (`[deploy]external_callback_url`), as the image's IRONIC_EXTERNAL_* variables,
 * and the hosts the certificates must carry.
 *
 * The image derives both URLs from IRONIC_EXTERNAL_IP without bracketing an IPv6 address
 * (ironic-image #1058, #1153): the program always passes both URLs itself, bracketed, so the
 * image's derivation never runs; IRONIC_EXTERNAL_IP is passed as well, for anything else that reads it.
 */
import * as ipaddr from "ipaddr.js";

import type { ExternalConfig, StackConfig } from "../config";
import { ENV } from "../contract";
import type { EnvMap, ExternalPlan } from "./types";

export type { ExternalPlan };

/** `host` of a URL as written, brackets removed. */
export function urlHost(url: string): string {
    const rest = url.replace(/^https:\/\//i, "").replace(/\/$/, "");
    const m = /^\[([^\]]+)\]/.exec(rest);
    return m ? m[1] : rest.replace(/:[0-9]+$/, "");
}

/** An address for a URL: IPv6 in brackets. */
export function urlAddress(ip: string): string {
    return ip.includes(":") ? `[${ip}]` : ip;
}

/** An address in its canonical form (the certificate's IP SAN, compared as the TLS client does). */
function canonical(ip: string): string {
    return ipaddr.parse(ip).toString();
}

/** The resolved URLs of one external block: given ones as written, the others from `ip` (virtual media over TLS, the API's port). */
export function planExternal(config: StackConfig, ext: ExternalConfig | undefined): ExternalPlan | undefined {
    if (!ext || (ext.ip === undefined && ext.httpUrl === undefined && ext.callbackUrl === undefined)) return undefined;
    const { ports } = config;
    const host = ext.ip !== undefined ? urlAddress(ext.ip) : undefined;
    const httpUrl = ext.httpUrl ?? (host ? `https://${host}:${ports.vmediaTls}` : undefined);
    const callbackUrl = ext.callbackUrl ?? (host ? `https://${host}:${ports.api}` : undefined);
    const dnsNames: string[] = [];
    const ipAddresses: string[] = [];
    for (const h of [...(ext.ip ? [ext.ip] : []), ...[httpUrl, callbackUrl].filter((u): u is string => !!u).map(urlHost)]) {
        if (ipaddr.isValid(h)) ipAddresses.push(canonical(h));
        else dnsNames.push(h.toLowerCase());
    }
    return {
        ...(ext.ip ? { ip: ext.ip } : {}),
        ...(httpUrl ? { httpUrl } : {}),
        ...(callbackUrl ? { callbackUrl } : {}),
        sans: { dnsNames: [...new Set(dnsNames)], ipAddresses: [...new Set(ipAddresses)] },
    };
}

/** The image's variables for one external block. */
export function externalEnv(x: ExternalPlan | undefined): EnvMap {
    if (!x) return {};
    return {
        ...(x.ip ? { [ENV.externalIp]: x.ip } : {}),
        ...(x.httpUrl ? { [ENV.externalHttpUrl]: x.httpUrl } : {}),
        ...(x.callbackUrl ? { [ENV.externalCallbackUrl]: x.callbackUrl } : {}),
    };
}

/** SANs as the conductor certificate minter takes them: DNS:<name> / IP:<address> words. */
export function sanWords(s: { dnsNames: string[]; ipAddresses: string[] }): string[] {
    return [...s.dnsNames.map((n) => `DNS:${n}`), ...s.ipAddresses.map((ip) => `IP:${ip}`)];
}
