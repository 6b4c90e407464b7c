/**
 * Validated config → deployment plan: every derived value (names, labels, URLs, SANs, DHCP
 * ranges, environment of each container) as plain data. Pure; tested without Pulumi.
 */
import * as ipaddr from "ipaddr.js";

import { StackConfig, ipToNumber } from "../config";
import { DHCP_PROVIDER_PATHS, DNSMASQ_CONFIG_DIR, DNSMASQ_CONFIG_FILE, ENV, IPXE_FILES, PATHS, osloEnvName } from "../contract";
import { DhcpRange, DnsmasqOptions, renderDnsmasqConf, renderDnsmasqStartScript } from "../render/dnsmasq";
import { NODE_DNSMASQ_CONF_SHELL } from "./names";
import { DatabasePlan, databasePlan } from "./database";
import { planSlices } from "./slices";
import { FAILOVER_SETTINGS } from "./timings";

export { FAILOVER_SETTINGS };

import type { EnvMap } from "./types";

export type { EnvMap };

export interface ConductorPlan {
    /** Kubernetes node name ("" for the single topology, which is not pinned to a node). */
    node: string;
    ip: string;
    interface?: string;
    /** Multi: the DHCP slot and whether it was derived from the node name. */
    slot?: number;
    autoSlot?: boolean;
    /** Multi: the node's own environment (provisioning IP, conductor host), resolved at start. */
    env?: EnvMap;
    /** DHCP slice this conductor's dnsmasq hands out. */
    range?: DhcpRange & { size: number };
    /** Inputs of the dnsmasq renderer and its output (absent without DHCP). */
    dnsmasqOptions?: DnsmasqOptions;
    dnsmasqConf?: string;
}

export interface IronicPlan {
    config: StackConfig;
    name: string;
    namespace: string;
    labels: Record<string, string>;
    selector: Record<string, string>;
    names: {
        deployment: string;
        service: string;
        dnsmasqConfigMap: string;
        tlsSecret: string;
        caSecret: string;
        credentialsSecret: string;
        bmoConfigMap: string;
        /** Multi only. */
        rpcCredentialsSecret: string;
        nodeDataConfigMap: string;
        nodeCertsSecret: string;
        scriptsConfigMap: string;
    };
    /** In-cluster DNS names of the API Service, shortest first. */
    serviceDnsNames: string[];
    urls: {
        /** What BMO and in-cluster clients use. */
        apiInCluster: string;
        /** What hosts, IPA and BMCs use on the provisioning network. */
        apiProvisioning: string;
        http: string;
        vmediaTls: string;
    };
    certificate: { dnsNames: string[]; ipAddresses: string[] };
    database: DatabasePlan;
    conductors: ConductorPlan[];
    dhcpEnabled: boolean;
    /** Environment common to the ironic and httpd containers. */
    commonEnv: EnvMap;
    /** Extra environment of the ironic container: the image variables and OS_* overrides. */
    ironicEnv: EnvMap;
    /** The OS_* overrides alone (a subset of ironicEnv), as [group, option, value]. */
    osloSettings: [string, string, string][];
    ipaDownloaderEnv: EnvMap;
    dnsmasqStartScript: string;
    keepalivedVirtualIps?: string;
}

/** Sorted copy of an env map: stable order in manifests regardless of insertion order. */
export function sortedEnv(env: EnvMap): { name: string; value: string }[] {
    return Object.keys(env)
        .sort()
        .map((name) => ({ name, value: env[name] }));
}

export function cidrParts(cidr: string): { network: string; prefixLength: number } {
    const [addr, prefixLength] = ipaddr.parseCIDR(cidr);
    return { network: addr.toString(), prefixLength };
}

function osloValue(v: string | number | boolean): string {
    return typeof v === "boolean" ? (v ? "True" : "False") : String(v);
}


export function buildPlan(config: StackConfig): IronicPlan {
    const { name, namespace, ports, provisioning } = config;
    const labels = {
        "app.kubernetes.io/name": "ironic",
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/part-of": "metal3",
        "app.kubernetes.io/managed-by": "metal3-ironic",
    };
    const selector = { "app.kubernetes.io/name": "ironic", "app.kubernetes.io/instance": name };
    const serviceDnsNames = [
        name,
        `${name}.${namespace}`,
        `${name}.${namespace}.svc`,
        `${name}.${namespace}.svc.${config.clusterDomain}`,
    ];
    const ip = provisioning.ip;
    const { prefixLength } = cidrParts(provisioning.cidr);
    const dhcp = provisioning.dhcp;

    const conductors: ConductorPlan[] = [];
    if (config.topology === "single") {
        const range = dhcp
            ? {
                  start: dhcp.rangeStart,
                  end: dhcp.rangeEnd,
                  prefixLength,
                  leaseTime: dhcp.leaseTime,
                  size: ipToNumber(dhcp.rangeEnd) - ipToNumber(dhcp.rangeStart) + 1,
              }
            : undefined;
        const opts: DnsmasqOptions = {
            header: `dnsmasq for ${namespace}/${name} (topology single)`,
            interface: provisioning.interface,
            serverIp: ip,
            httpUrl: `http://${ip}:${ports.http}`,
            range,
            gateway: dhcp?.gateway,
            dns: dhcp?.dns,
        };
        conductors.push({
            node: "",
            ip,
            interface: provisioning.interface,
            range,
            dnsmasqOptions: range ? opts : undefined,
            dnsmasqConf: range ? renderDnsmasqConf(opts) : undefined,
        });
    } else {
        const slices = dhcp
            ? planSlices({ rangeStart: dhcp.rangeStart, rangeEnd: dhcp.rangeEnd, slots: dhcp.slots, minSize: dhcp.minSize, conductors: config.conductors })
            : undefined;
        for (const c of config.conductors) {
            const iface = c.interface ?? provisioning.interface;
            const slice = slices?.slices.find((x) => x.node === c.name);
            const range = slice && dhcp ? { start: slice.start, end: slice.end, prefixLength, leaseTime: dhcp.leaseTime, size: slice.size } : undefined;
            const opts: DnsmasqOptions | undefined = range
                ? {
                      header: `dnsmasq for conductor ${c.name} of ${namespace}/${name} (slot ${slice!.slot} of ${dhcp!.slots})`,
                      interface: iface,
                      serverIp: c.ip,
                      httpUrl: `http://${c.ip}:${ports.http}`,
                      range,
                      gateway: dhcp?.gateway,
                      dns: dhcp?.dns,
                      knownHostsOnly: { hostsDir: DHCP_PROVIDER_PATHS.hostsDir, optsDir: DHCP_PROVIDER_PATHS.optsDir },
                      leaseFile: DHCP_PROVIDER_PATHS.leaseFile,
                  }
                : undefined;
            const env: EnvMap = { [ENV.provisioningIp]: c.ip, [ENV.conductorHost]: c.ip };
            if (iface) env[ENV.provisioningInterface] = iface;
            conductors.push({
                node: c.name,
                ip: c.ip,
                interface: iface,
                slot: slice?.slot,
                autoSlot: slice?.auto,
                env,
                range,
                dnsmasqOptions: opts,
                dnsmasqConf: opts ? renderDnsmasqConf(opts) : undefined,
            });
        }
    }
    const multi = config.topology === "multi";

    // Single: one certificate for the API Service and the provisioning IP. Multi: this is the
    // shared part of every node certificate (the Service names); each node adds its own IP and name.
    const certIps = uniqueSorted([...(multi ? [] : [ip]), ...config.tls.extraIps], compareIps);
    const certDns = uniq([...serviceDnsNames, ...config.tls.extraDnsNames]);

    const commonEnv: EnvMap = {
        [ENV.listenAllInterfaces]: "true",
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
    };
    if (!multi) {
        commonEnv[ENV.provisioningIp] = ip;
        if (provisioning.interface) commonEnv[ENV.provisioningInterface] = provisioning.interface;
    }
    if (config.ironic.kernelParams) commonEnv[ENV.kernelParams] = config.ironic.kernelParams;
    if (config.ironic.ramdiskSshKey) commonEnv[ENV.ramdiskSshKey] = config.ironic.ramdiskSshKey;

    const database = databasePlan(config);
    const ironicEnv: EnvMap = {
        [ENV.automatedClean]: config.ironic.automatedClean ? "true" : "false",
        ...databaseEnv(database),
    };
    if (database.jobs) {
        // Schema changes run in the ordered Jobs, not concurrently in every conductor.
        ironicEnv[ENV.skipDbsync] = "true";
    }
    if (multi) {
        // Active/active conductors: JSON-RPC between them, one port for all (peers dial their own port).
        ironicEnv[ENV.exposeJsonRpc] = "true";
        ironicEnv[ENV.jsonRpcPort] = String(ports.jsonRpc);
    }
    const programSettings: [string, string, string][] = [];
    if (multi) {
        programSettings.push(...FAILOVER_SETTINGS);
    }
    if (multi && dhcp) {
        // Ironic's dnsmasq provider writes each owned host into this conductor's own directories.
        programSettings.push(
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
    const userSettings: [string, string, string][] = Object.keys(config.ironic.config)
        .sort()
        .map((k) => {
            const [group, option] = k.split(".");
            return [group, option, osloValue(config.ironic.config[k])];
        });
    const osloSettings = [...programSettings, ...userSettings];
    for (const [group, option, value] of osloSettings) ironicEnv[osloEnvName(group, option)] = value;

    const ipaDownloaderEnv: EnvMap = { [ENV.sharedDir]: PATHS.shared };
    if (config.ironic.ipa.baseUri) ipaDownloaderEnv[ENV.ipaBaseUri] = config.ironic.ipa.baseUri;
    if (config.ironic.ipa.branch) ipaDownloaderEnv[ENV.ipaBranch] = config.ironic.ipa.branch;
    if (config.ironic.ipa.flavor) ipaDownloaderEnv[ENV.ipaFlavor] = config.ironic.ipa.flavor;

    return {
        config,
        name,
        namespace,
        labels,
        selector,
        names: {
            deployment: name,
            service: name,
            dnsmasqConfigMap: `${name}-dnsmasq`,
            tlsSecret: config.tls.mode === "existing" ? config.tls.existingSecret! : `${name}-tls`,
            caSecret: `${name}-cacert`,
            credentialsSecret: `${name}-credentials`,
            bmoConfigMap: `${name}-bmo`,
            rpcCredentialsSecret: `${name}-rpc-credentials`,
            nodeDataConfigMap: `${name}-conductors`,
            nodeCertsSecret: `${name}-conductor-tls`,
            scriptsConfigMap: `${name}-scripts`,
        },
        serviceDnsNames,
        urls: {
            apiInCluster: `https://${name}.${namespace}.svc:${ports.api}`,
            apiProvisioning: multi ? `https://<conductor IP>:${ports.api}` : `https://${ip}:${ports.api}`,
            http: multi ? `http://<conductor IP>:${ports.http}` : `http://${ip}:${ports.http}`,
            vmediaTls: multi ? `https://<conductor IP>:${ports.vmediaTls}` : `https://${ip}:${ports.vmediaTls}`,
        },
        certificate: { dnsNames: certDns, ipAddresses: certIps },
        database,
        conductors,
        dhcpEnabled: dhcp !== undefined,
        commonEnv,
        ironicEnv,
        osloSettings,
        ipaDownloaderEnv,
        dnsmasqStartScript: multi
            ? renderDnsmasqStartScript(NODE_DNSMASQ_CONF_SHELL, { leaseFile: DHCP_PROVIDER_PATHS.leaseFile })
            : renderDnsmasqStartScript(`${DNSMASQ_CONFIG_DIR}/${DNSMASQ_CONFIG_FILE}`),
        keepalivedVirtualIps: provisioning.keepalived ? `${ip},${provisioning.interface},${prefixLength}` : undefined,
    };
}

/** What the ironic image reads to reach the database (credentials and CA are mounted files). */
export function databaseEnv(db: DatabasePlan): EnvMap {
    if (db.kind === "sqlite") return { [ENV.useMariadb]: "false" };
    return { [ENV.useMariadb]: "true", [ENV.mariadbHost]: db.hostForIronic!, [ENV.mariadbDatabase]: db.database };
}

function uniq<T>(xs: T[]): T[] {
    return [...new Set(xs)];
}

function compareIps(a: string, b: string): number {
    return ipToNumber(a) - ipToNumber(b);
}

function uniqueSorted(xs: string[], cmp: (a: string, b: string) => number): string[] {
    return uniq(xs).sort(cmp);
}
