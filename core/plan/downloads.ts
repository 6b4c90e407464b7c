/**
 * How the IPA downloads reach the network: the proxy variables with the destinations that must
 * never be proxied, and the CA bundle variables when an extra bundle is trusted. Pure data; the
 * downloader's environment (env.ts, ipaDownloaderEnv) and any other downloader (an image cache)
 * take them from here. The volume, mount and start command of the extra bundle are in
 * core/manifests/downloads.ts.
 */
import type { StackConfig } from "../config";
import { IPA_DOWNLOADER } from "../contract";
import { EXTRA_CA } from "../scripts";
import type { EnvMap } from "./types";

/** Loopback: the pod's own processes (and a sidecar's port) are never reached through a proxy. */
export const LOOPBACK_NO_PROXY = ["localhost", "127.0.0.1"];

/**
 * What bypasses the proxy before anything the user lists: loopback; every cluster Service name
 * (`.svc` for `<svc>.<ns>.svc`, `.<clusterDomain>` for the fully qualified form), so that an image
 * cache or other in-cluster source is reached directly; the provisioning network as a CIDR and,
 * for tools that only match exact addresses (curl before 7.86), Ironic's own addresses on it.
 * The Service CIDR is not known to the program: list it in proxy.noProxy if sources are reached
 * by ClusterIP.
 */
export function defaultNoProxy(config: StackConfig): string[] {
    // Multi: no node's address (a listing would change every pod's template); each conductor's
    // start wrapper adds its own to NO_PROXY/no_proxy, the CIDR covers the peers.
    // Dual-stack: the IPv6 side likewise (its CIDR; single: its address).
    const v6 = config.provisioning.ipv6;
    const own = config.topology === "multi" ? [] : [config.provisioning.ip, ...(v6?.ip ? [v6.ip] : [])];
    return [...LOOPBACK_NO_PROXY, ".svc", `.${config.clusterDomain}`, config.provisioning.cidr, ...(v6 ? [v6.cidr] : []), ...own].filter((x) => x !== "" && x !== ".");
}

/** The default entries, then the user's proxy.noProxy, each once, in that order. */
export function noProxyList(config: StackConfig): string[] {
    return [...new Set([...defaultNoProxy(config), ...config.proxy.noProxy])];
}

/**
 * HTTP_PROXY/HTTPS_PROXY/NO_PROXY in both spellings (curl reads `http_proxy` only in lower case;
 * Python and Go read either), or nothing when no proxy is configured.
 */
export function proxyEnv(config: StackConfig): EnvMap {
    const { httpProxy, httpsProxy } = config.proxy;
    if (httpProxy === undefined && httpsProxy === undefined) return {};
    const env: EnvMap = {};
    const set = (names: readonly string[], value: string) => names.forEach((n) => (env[n] = value));
    if (httpProxy !== undefined) set(IPA_DOWNLOADER.proxyEnv.http, httpProxy);
    if (httpsProxy !== undefined) set(IPA_DOWNLOADER.proxyEnv.https, httpsProxy);
    set(IPA_DOWNLOADER.proxyEnv.no, noProxyList(config).join(","));
    return env;
}

/**
 * With trust.extraCaBundle: every CA-bundle variable points at the combined bundle. Each of them
 * replaces the tool's default bundle, which is why the start command concatenates the system
 * bundle and the extra one instead of pointing them at the extra one alone (public TLS, e.g.
 * tarballs.opendev.org, would stop verifying).
 */
export function extraCaEnv(config: StackConfig): EnvMap {
    if (!config.trust.extraCaBundle) return {};
    return Object.fromEntries(IPA_DOWNLOADER.caBundleEnv.map((n) => [n, EXTRA_CA.combined]));
}
