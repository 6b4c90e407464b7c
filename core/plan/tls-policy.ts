/**
 * The TLS policy (tls.minVersion, tls.ciphers, tls.ciphersTls13, tls.curves): httpd's vhosts (the
 * API and virtual media) through the image's variables. Unset, both vhosts take TLS 1.2 and 1.3
 * (the minimum is always rendered); unset ciphers and curves leave OpenSSL's.
 *
 * The image (tls-common.sh) defaults the API vhost to `-ALL +TLSv1.2 +TLSv1.3` and the virtual-media
 * vhost to `ALL` (whatever the system's OpenSSL policy allows); its templates write `SSLProtocol`,
 * `SSLCipherSuite <12>`, `SSLCipherSuite TLSv1.3 <13>` and `SSLOpenSSLConfCmd Curves <curves>`
 * from them. The iPXE vhost is left alone: iPXE speaks TLS 1.2 only.
 * Ironic's own TLS server (JSON-RPC, multi) is not governed by these keys: its peers are the stack's
 * own conductors, and Ironic 38's `[json_rpc]tls_minimum_version` default (1.3, whose suites a
 * TLS 1.2 cipher list does not touch) is stricter than anything tls.minVersion could ask; its API
 * server's options are unused here (httpd terminates the API's TLS).
 */
import type { StackConfig } from "../config";
import { HTTPD_TLS_ENV } from "../contract";
import type { EnvMap } from "./types";

/** Apache's SSLProtocol for the oldest accepted version. */
export function sslProtocol(minVersion: "1.2" | "1.3"): string {
    return minVersion === "1.3" ? "-ALL +TLSv1.3" : "-ALL +TLSv1.2 +TLSv1.3";
}

/** The image's httpd TLS variables, for both vhosts. */
export function httpdTlsEnv(config: StackConfig): EnvMap {
    const { minVersion, ciphers, ciphersTls13, curves } = config.tls;
    const env: EnvMap = {};
    for (const vhost of [HTTPD_TLS_ENV.api, HTTPD_TLS_ENV.vmedia]) {
        env[vhost.protocol] = sslProtocol(minVersion ?? "1.2");
        if (ciphers) env[vhost.ciphers12] = ciphers;
        if (ciphersTls13) env[vhost.ciphers13] = ciphersTls13;
        if (curves) env[vhost.curves] = curves;
    }
    return env;
}
