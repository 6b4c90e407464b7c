/**
 * The TLS policy (tls.minVersion, tls.ciphers, tls.ciphersTls13, tls.curves): httpd's vhosts (the
 * API and virtual media) through the image's variables, Ironic's own TLS server (JSON-RPC, multi)
 * through oslo options. Unset keys leave the image's and Ironic's defaults.
 *
 * The image (tls-common.sh) defaults the API vhost to `-ALL +TLSv1.2 +TLSv1.3` and the virtual-media
 * vhost to `ALL`; its templates write `SSLProtocol`, `SSLCipherSuite <12>`, `SSLCipherSuite TLSv1.3 <13>`
 * and `SSLOpenSSLConfCmd Curves <curves>` from them. The iPXE vhost is left alone: iPXE speaks TLS 1.2 only.
 * Ironic 38's `[json_rpc]tls_minimum_version` (1.2 or 1.3, default 1.3) and `tls_ciphers` apply
 * to its JSON-RPC server; its API server's are unused here (httpd terminates the API's TLS).
 */
import type { StackConfig } from "../config";
import { HTTPD_TLS_ENV } from "../contract";
import type { EnvMap, OsloSetting } from "./types";

/** Apache's SSLProtocol for the oldest accepted version. */
export function sslProtocol(minVersion: "1.2" | "1.3"): string {
    return minVersion === "1.3" ? "-ALL +TLSv1.3" : "-ALL +TLSv1.2 +TLSv1.3";
}

/** The image's httpd TLS variables, for both vhosts. */
export function httpdTlsEnv(config: StackConfig): EnvMap {
    const { minVersion, ciphers, ciphersTls13, curves } = config.tls;
    const env: EnvMap = {};
    for (const vhost of [HTTPD_TLS_ENV.api, HTTPD_TLS_ENV.vmedia]) {
        if (minVersion) env[vhost.protocol] = sslProtocol(minVersion);
        if (ciphers) env[vhost.ciphers12] = ciphers;
        if (ciphersTls13) env[vhost.ciphers13] = ciphersTls13;
        if (curves) env[vhost.curves] = curves;
    }
    return env;
}

/** Multi: Ironic's JSON-RPC server. */
export function tlsOsloSettings(config: StackConfig): OsloSetting[] {
    if (config.topology !== "multi") return [];
    const { minVersion, ciphers } = config.tls;
    return [...(minVersion ? [["json_rpc", "tls_minimum_version", minVersion] as OsloSetting] : []), ...(ciphers ? [["json_rpc", "tls_ciphers", ciphers] as OsloSetting] : [])];
}
