/**
 * The per-topology part of the Ironic pod that is not a volume (volumes.ts holds those): how a
 * container is started and where the pod runs. `single` starts commands as they are; `multi` starts
 * them through the conductor wrapper, which finds this node's address (or takes its conductors[]
 * entry's, by NODE_NAME), and runs on every node `placement.nodeSelector` and
 * `placement.conductorNodeSelector` select (by default the control-plane nodes).
 */
import { COMMANDS, CONDUCTOR_PATHS, ENV, WRAPPER_ENV } from "../contract";
import { conductorCaChainCheck } from "../plan/read";
import type { IronicPlan } from "../plan/types";
import { untraced } from "./meta";
import type { EnvVar } from "./meta";
import { SCRIPT_FILES } from "../scripts";

export interface PodTopology {
    /** The container command that runs `command` in this topology. */
    command(command: string[]): string[];
    /**
     * Environment the start wrapper of `container` reads (empty for single). With `certs`, the
     * node's certificate goes into `certs.dirs`: minted from the conductor CA (`mint`, the
     * `conductor-certs` container only), else copied from what that container minted.
     */
    wrapperEnv(container: string, certs?: { dirs: string[]; mint?: boolean }): EnvVar[];
    /** Added to the configured node selector. */
    nodeSelector: Record<string, string>;
}

export const SINGLE: PodTopology = {
    command: (command) => command,
    wrapperEnv: () => [],
    nodeSelector: {},
};

/** The SANs every conductor's certificate shares, as the minter's DNS:<name> / IP:<address> words. */
function conductorCertSanWords(plan: IronicPlan): string[] {
    return [...plan.certificate.dnsNames.map((n) => `DNS:${n}`), ...plan.certificate.ipAddresses.map((ip) => `IP:${ip}`)];
}

export function multiTopology(plan: IronicPlan): PodTopology {
    const wrapper = `${CONDUCTOR_PATHS.scripts}/${SCRIPT_FILES.wrapper}`;
    return {
        command: (command) => [COMMANDS.shell, wrapper, ...command],
        wrapperEnv: (container, certs) => [
            { name: WRAPPER_ENV.node, valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
            { name: WRAPPER_ENV.namespace, value: plan.namespace },
            { name: WRAPPER_ENV.configMap, value: plan.names.nodeDataConfigMap },
            { name: WRAPPER_ENV.dataDir, value: CONDUCTOR_PATHS.nodeData },
            { name: WRAPPER_ENV.scriptsDir, value: CONDUCTOR_PATHS.scripts },
            { name: WRAPPER_ENV.runDir, value: `${CONDUCTOR_PATHS.run}/${container}` },
            { name: WRAPPER_ENV.python, value: COMMANDS.python },
            ...(plan.provisioning.interface ? [{ name: WRAPPER_ENV.defaultInterface, value: plan.provisioning.interface }] : []),
            { name: WRAPPER_ENV.cidr, value: plan.provisioning.cidr },
            ...ipv6Env(plan),
            // With DHCP, the finder refuses a found address dnsmasq could hand out (the range) or
            // names as the hosts' router (the gateway); config validation checks conductors[].ip.
            ...dhcpEnv(plan),
            ...(certs && certs.dirs.length > 0 ? certEnv(plan, certs.dirs, !!certs.mint) : []),
        ],
        // Every node both selectors select runs a conductor, listed in conductors[] or not; the
        // stack-wide placement.nodeSelector also places MariaDB and the image cache.
        nodeSelector: plan.placement.conductorNodeSelector,
    };
}

/** Where the node's certificate goes and what it names; the CA (and the chain check) only where it is minted. */
function certEnv(plan: IronicPlan, dirs: string[], mint: boolean): EnvVar[] {
    const trust = conductorCaChainCheck(plan);
    return [
        { name: WRAPPER_ENV.certDirs, value: dirs.join(" ") },
        { name: WRAPPER_ENV.certSans, value: conductorCertSanWords(plan).join(" ") },
        ...(mint
            ? [
                  { name: WRAPPER_ENV.caDir, value: CONDUCTOR_PATHS.conductorCa },
                  // Your (your issuer's) conductor CA must chain to the CA the peers verify with.
                  ...(trust ? [{ name: WRAPPER_ENV.caTrust, value: trust }] : []),
              ]
            : [{ name: WRAPPER_ENV.mintedDir, value: CONDUCTOR_PATHS.minted }]),
    ];
}

function dhcpEnv(plan: IronicPlan): EnvVar[] {
    const dhcp = plan.provisioning.dhcp;
    if (!dhcp) return [];
    return [{ name: WRAPPER_ENV.dhcpRange, value: `${dhcp.rangeStart}-${dhcp.rangeEnd}` }, ...(dhcp.gateway ? [{ name: WRAPPER_ENV.gateway, value: dhcp.gateway }] : [])];
}

/** Dual-stack: where a node without conductors[].ipv6 finds its IPv6 address, and the DHCPv6 range it must not be in. */
function ipv6Env(plan: IronicPlan): EnvVar[] {
    const v6 = plan.provisioning.ipv6;
    if (!v6) return [];
    return [{ name: WRAPPER_ENV.cidr6, value: v6.cidr }, ...(v6.dhcp ? [{ name: WRAPPER_ENV.dhcpRange6, value: `${v6.dhcp.rangeStart}-${v6.dhcp.rangeEnd}` }] : [])];
}

export function podTopology(plan: IronicPlan): PodTopology {
    return plan.topology.kind === "multi" ? multiTopology(plan) : SINGLE;
}

/**
 * How the kubelet checks httpd's plain port: with `path`, a GET that must succeed; else that it
 * answers. Bound (provisioning.bindInterface), httpd is on the provisioning address alone, not the
 * pod's (node's) address the kubelet dials by default: single names it (`host`); multi's template
 * cannot (each node has its own), so a command reads the address the node's wrapper rendered.
 */
export function httpdCheck(plan: IronicPlan, path?: string) {
    const port = plan.ports.http;
    if (plan.apiBind && plan.topology.kind === "multi") {
        const nodeEnv = `${CONDUCTOR_PATHS.run}/httpd/${CONDUCTOR_PATHS.nodeEnv}`;
        // Untraced as every command of a container that mounts credentials (this one reads none).
        return { exec: { command: untraced([COMMANDS.shell, "-c", BOUND_HTTPD_CHECK, "httpd-check", nodeEnv, String(port), path ?? ""]) } };
    }
    const host = plan.apiBind ? { host: plan.apiBind[0] } : {};
    return path ? { httpGet: { ...host, path, port, scheme: "HTTP" } } : { tcpSocket: { ...host, port } };
}

/** $1 the node's env file, $2 the port, $3 the path (empty: any HTTP answer will do). */
const BOUND_HTTPD_CHECK = [
    "set -e",
    '. "$1"',
    `h=$${ENV.provisioningIp}`,
    'case $h in *:*) h="[$h]" ;; esac',
    'if [ -n "$3" ]; then exec curl -gsSf -o /dev/null --max-time 4 "http://$h:$2$3"; fi',
    'exec curl -gsS -o /dev/null --max-time 4 "http://$h:$2/"',
].join("\n");
