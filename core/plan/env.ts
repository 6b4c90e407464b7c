/**
 * The containers' environment, as the ironic image reads it: what ironic and httpd share, the
 * ironic container's own variables and oslo.config overrides (OS_<GROUP>__<OPTION>), the IPA
 * downloader's, and the database connection.
 */
import type { StackConfig } from "../config";
import { DHCP_PROVIDER_PATHS, ENV, EXPORTER, IPXE_FILES, PATHS, osloEnvName } from "../contract";
import { conductorCaPlan } from "./certificates";
import type { DatabasePlan } from "./database";
import { extraCaEnv, proxyEnv } from "./downloads";
import { imageCacheOsloSettings } from "./image-cache";
import { externalEnv, planExternal } from "./external";
import { ipv6Env } from "./dual-stack";
import { httpdTlsEnv } from "./tls-policy";
import { trustOsloSettings } from "./trust";
import { FAILOVER_SETTINGS } from "../timings";
import type { EnvMap, OsloSetting } from "./types";

/** Environment common to the ironic and httpd containers. */
export function commonEnv(config: StackConfig): EnvMap {
    const { ports, provisioning } = config;
    const env: EnvMap = {
        // provisioning.bindInterface: the image's httpd templates bind the API and boot-file ports to
        // IRONIC_IP alone (single: provisioning.ip; multi: the node's, from its env file); virtual
        // media stays on every address (its vhost has none).
        [ENV.listenAllInterfaces]: provisioning.bindInterface ? "false" : "true",
        [ENV.httpPort]: String(ports.http),
        [ENV.accessPort]: String(ports.api),
        [ENV.listenPort]: String(ports.api),
        // httpd terminates TLS on the API port and proxies to Ironic's unix socket (as IrSO and
        // BMO's tls component do); Ironic itself is not reachable from the network.
        [ENV.reverseProxySetup]: "true",
        [ENV.privatePort]: "unix",
        [ENV.vmediaTlsPort]: String(ports.vmediaTls),
        // Only defaulted in configure-ironic: pass it to httpd too or inspector.ipxe gets an empty value.
        [ENV.enableVlanInterfaces]: "all",
        // Roll Ironic and httpd when a mounted certificate Secret is updated in place.
        [ENV.restartOnCertUpdate]: "true",
        // tls.*: httpd's TLS policy (configure-ironic also sources tls-common.sh, which only defaults them).
        ...httpdTlsEnv(config),
    };
    // Multi: each node's provisioning IP and interface come from its own env file (ConductorPlan.env).
    if (config.topology === "single") {
        env[ENV.provisioningIp] = provisioning.ip;
        if (provisioning.interface) env[ENV.provisioningInterface] = provisioning.interface;
    }
    if (config.ironic.kernelParams) env[ENV.kernelParams] = config.ironic.kernelParams;
    if (config.ironic.ramdiskSshKey) env[ENV.ramdiskSshKey] = config.ironic.ramdiskSshKey;
    return env;
}

/** Extra environment of the ironic container: the image variables, then every OS_* override. */
export function ironicEnv(config: StackConfig, database: DatabasePlan): EnvMap {
    const env: EnvMap = {
        [ENV.automatedClean]: config.ironic.automatedClean ? "true" : "false",
        ...database.env,
    };
    if (database.jobs) {
        // Schema changes run in the ordered Jobs, not concurrently in every conductor.
        env[ENV.skipDbsync] = "true";
    }
    if (config.topology === "multi") {
        // Active/active conductors: JSON-RPC between them, one port for all (peers dial their own port).
        env[ENV.exposeJsonRpc] = "true";
        env[ENV.jsonRpcPort] = String(config.ports.jsonRpc);
        // JSON-RPC listens on the conductor's provisioning address only (the image's [json_rpc]host_ip
        // = IRONIC_IP), the address its peers dial ([DEFAULT]host), not on every NIC of the node. The
        // API sits on the unix socket behind httpd either way; httpd keeps its own value (commonEnv).
        env[ENV.listenAllInterfaces] = "false";
    }
    // metrics.enabled: the image's template turns on the notification driver the exporter reads.
    if (config.metrics.enabled) env[EXPORTER.env.sendSensorData] = "true";
    // Single: what BMCs on another network reach (multi: each node's entry, core/plan/conductors.ts).
    if (config.topology === "single") Object.assign(env, externalEnv(planExternal(config, config.external)));
    // Dual-stack single: Ironic's IPv6 address (multi: each node's env file, core/plan/conductors.ts).
    if (config.topology === "single") Object.assign(env, ipv6Env(config, config.provisioning.ipv6?.ip));
    for (const [group, option, value] of osloSettings(config)) env[osloEnvName(group, option)] = value;
    // Off by default: Ironic also talks to BMCs (Redfish over HTTPS), which a proxy rarely reaches.
    if (config.proxy.applyToIronic) Object.assign(env, proxyEnv(config));
    return env;
}

/** The oslo.config overrides: the program's own (multi, deploy images, trust.bmcCa/trustedCa, metrics.sensorInterval), then the user's `ironic.config`, sorted by key. */
export function osloSettings(config: StackConfig): OsloSetting[] {
    const trust = trustOsloSettings(config);
    // One value per option: the trusted bundle also holds the IPA cache's CA (core/plan/trust.ts).
    const cache = imageCacheOsloSettings(config).filter(([g, o]) => !trust.some(([tg, to]) => tg === g && to === o));
    const metrics: OsloSetting[] = config.metrics.enabled ? [[...EXPORTER.sensorInterval, String(config.metrics.sensorInterval)]] : [];
    return [...programOsloSettings(config), ...cache, ...trust, ...metrics, ...userOsloSettings(config)];
}

function programOsloSettings(config: StackConfig): OsloSetting[] {
    if (config.topology !== "multi") return [];
    const settings: OsloSetting[] = [...FAILOVER_SETTINGS];
    // The stack's own conductor root: JSON-RPC peers trust it alone (the image's IRONIC_CACERT_FILE,
    // your ca.crt, stays what IPA is handed for the API).
    const ca = conductorCaPlan(config);
    if (ca?.source === "stack-root") settings.push(["json_rpc", "cafile", ca.jsonRpcCaFile]);
    if (config.provisioning.dhcp) {
        // Ironic's dnsmasq provider writes each owned host into this conductor's own directories.
        settings.push(
            ["dhcp", "dhcp_provider", "dnsmasq"],
            ["dnsmasq", "dhcp_hostsdir", DHCP_PROVIDER_PATHS.hostsDir],
            ["dnsmasq", "dhcp_leasefile", DHCP_PROVIDER_PATHS.leaseFile],
            ["dnsmasq", "dhcp_optsdir", DHCP_PROVIDER_PATHS.optsDir],
            // The provider's options name the firmware a PXE ROM loads from this conductor's TFTP
            // root: only the image's files are there (Ironic's UEFI default, snponly.efi, is not).
            // Ironic looks up cpu_arch first, then boot mode: x86_64 stays out of the map, or a
            // BIOS x86_64 host would be given the EFI binary.
            ["pxe", "ipxe_bootfile_name", IPXE_FILES.bios],
            ["pxe", "uefi_ipxe_bootfile_name", IPXE_FILES.efiX86_64],
            ["pxe", "ipxe_bootfile_name_by_arch", `aarch64:${IPXE_FILES.efiArm64}`],
        );
    }
    return settings;
}

function userOsloSettings(config: StackConfig): OsloSetting[] {
    const user = config.ironic.config;
    return Object.keys(user)
        .sort()
        .map((k) => {
            const [group, option] = k.split(".");
            return [group, option, osloValue(user[k])];
        });
}

function osloValue(v: string | number | boolean): string {
    return typeof v === "boolean" ? (v ? "True" : "False") : String(v);
}

/**
 * The IPA downloader: where to put the ramdisk, where to fetch it from, through which proxy
 * (core/plan/downloads.ts) and trusting which CA bundle.
 */
export function ipaDownloaderEnv(config: StackConfig): EnvMap {
    const ipa = config.ironic.ipa;
    const env: EnvMap = { [ENV.sharedDir]: PATHS.shared, ...proxyEnv(config), ...extraCaEnv(config) };
    if (ipa.baseUri) env[ENV.ipaBaseUri] = ipa.baseUri;
    if (ipa.branch) env[ENV.ipaBranch] = ipa.branch;
    if (ipa.flavor) env[ENV.ipaFlavor] = ipa.flavor;
    return env;
}

