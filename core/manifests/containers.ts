/**
 * One builder per container of the Ironic pod. Each takes the plan, its mounts (from podVolumes)
 * and, when it starts differently per topology, the pod topology (topology.ts); none of them
 * tests the topology itself.
 */
import { COMMANDS, DHCP_PROVIDER_PATHS, DNSMASQ_CAPABILITIES, ENV, KEEPALIVED_CAPABILITIES, KEEPALIVED_IMAGE, KEEPALIVED_START, PATHS, PRUNER_ENV, CONDUCTOR_PATHS, WRAPPER_ENV } from "../contract";
import { readAsset } from "../render/assets";
import { cidrParts } from "../ip";
import { PRUNER_TIMINGS } from "../timings";
import type { IronicPlan } from "../plan/types";
import { cacheUrl } from "./image-cache";
import { containerResources, restrictedSecurityContext, sortedEnv, untraced } from "./meta";
import type { Container } from "./meta";
import { SLOT_PATHS } from "../slot-agent";
import { slotFenceCommand, slotFenceEnv, usesSlotAgents } from "./slots";
import { httpdCheck } from "./topology";
import type { PodTopology } from "./topology";
import { PRUNER_AUTH_DIR, fromSecret } from "./volumes";
import type { Volume, VolumeMount } from "./volumes";
import { SCRIPT_FILES } from "../scripts";

/** Touched by the pruner on every poll, in the pod's wrapper directory (its only writable mount but the DHCP files). */
export const PRUNER_HEARTBEAT_FILE = `${CONDUCTOR_PATHS.run}/dhcp-pruner.heartbeat`;

/**
 * Where the wrapper puts the node's certificate in multi (copied from what `conductor-certs`
 * minted). With tls.mode "generate" both ironic and httpd serve it (API, virtual media, JSON-RPC);
 * with "existing" ("cert-manager") httpd serves your (your issuer's) Secrets and only the ironic
 * container's JSON-RPC certificate is minted, from your conductor CA (the CA your issuer signed).
 */
function nodeCertDirs(plan: IronicPlan, container: "ironic" | "httpd"): { dirs: string[] } {
    if (plan.tls.source !== "stack") return { dirs: container === "ironic" ? [PATHS.certsIronic] : [] };
    return { dirs: [PATHS.certsIronic, PATHS.certsVmedia] };
}

/**
 * Multi: the only container that mounts the conductor CA and its key. Its wrapper mints this node's
 * certificate into the minted volume (ironic and httpd copy it), then sleeps; it starts again, and
 * mints again, when the CA, the node's entry or its address changes.
 */
export function conductorCertsContainer(plan: IronicPlan, volumeMounts: VolumeMount[], topology: PodTopology): Container {
    return {
        name: "conductor-certs",
        image: plan.images.ironic,
        command: topology.command(["sleep", "infinity"]),
        env: topology.wrapperEnv("conductor-certs", { dirs: [CONDUCTOR_PATHS.minted], mint: true }),
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        // Ready once the pair is minted (ironic and httpd copy it when it names their inputs).
        readinessProbe: { exec: { command: ["test", "-s", `${CONDUCTOR_PATHS.minted}/${CONDUCTOR_PATHS.mintedStamp}`] }, periodSeconds: 10, timeoutSeconds: 5 },
        resources: containerResources(plan, "certMinter"),
    };
}

export function ironicContainer(plan: IronicPlan, volumeMounts: VolumeMount[], topology: PodTopology): Container {
    return {
        name: "ironic",
        image: plan.images.ironic,
        command: untraced(topology.command([COMMANDS.ironic])),
        env: [...topology.wrapperEnv("ironic", nodeCertDirs(plan, "ironic")), ...sortedEnv({ ...plan.commonEnv, ...plan.ironicEnv })],
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        // SQLite is reset on every restart: probes are lenient so a slow start is not killed.
        readinessProbe: { exec: { command: untraced([COMMANDS.readiness]) }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 },
        livenessProbe: { exec: { command: untraced([COMMANDS.liveness]) }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: containerResources(plan, "ironic"),
    };
}

/** httpd: the API's TLS proxy (to Ironic's unix socket), the image server and the virtual-media TLS vhost. */
export function httpdContainer(plan: IronicPlan, volumeMounts: VolumeMount[], topology: PodTopology): Container {
    const p = plan.ports;
    return {
        name: "httpd",
        image: plan.images.ironic,
        command: untraced(topology.command([COMMANDS.httpd])),
        env: [...topology.wrapperEnv("httpd", nodeCertDirs(plan, "httpd")), ...sortedEnv(plan.commonEnv)],
        securityContext: restrictedSecurityContext(),
        ports: [
            { name: "ironic-api", containerPort: p.api, hostPort: p.api, protocol: "TCP" },
            { name: "image-svc", containerPort: p.http, hostPort: p.http, protocol: "TCP" },
            { name: "image-svc-tls", containerPort: p.vmediaTls, hostPort: p.vmediaTls, protocol: "TCP" },
        ],
        volumeMounts,
        // Ready once it serves the IPA kernel the cache client put into /shared/html/images (mode "none" puts none there).
        readinessProbe: { ...httpdCheck(plan, cacheUrl(plan.imageCache) ? "/images/ironic-python-agent.kernel" : "/"), periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 12 },
        livenessProbe: { ...httpdCheck(plan), initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: containerResources(plan, "httpd"),
    };
}

export function ramdiskLogsContainer(plan: IronicPlan, volumeMounts: VolumeMount[]): Container {
    return {
        name: "ramdisk-logs",
        image: plan.images.ironic,
        command: [COMMANDS.ramdiskLogs],
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        // The watcher reads the directory Ironic drops ramdisk logs into (created by the ironic
        // container's start): gone or read-only, nothing is collected and a restart shows it.
        livenessProbe: {
            exec: { command: [COMMANDS.shell, "-c", `test -d ${PATHS.deployLogs} && test -w ${PATHS.deployLogs}`] },
            initialDelaySeconds: 120,
            periodSeconds: 60,
            timeoutSeconds: 10,
            failureThreshold: 3,
        },
        resources: containerResources(plan, "ramdiskLogs"),
    };
}

/**
 * Single without keepalived: an init container that waits (60 s) for provisioning.ip on the node
 * the pod landed on and fails, saying how to pin the pod or use keepalived, when it never comes.
 */
export function provisioningIpCheckContainer(plan: IronicPlan): Container {
    const { ip, interface: iface } = plan.provisioning;
    return {
        name: "provisioning-ip",
        image: plan.images.ironic,
        command: [COMMANDS.shell, "-c", readAsset(SCRIPT_FILES.provisioningIpCheck), SCRIPT_FILES.provisioningIpCheck, ip, ...(iface ? [iface] : [])],
        env: [{ name: WRAPPER_ENV.node, valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }],
        securityContext: restrictedSecurityContext(),
        resources: containerResources(plan, "addressCheck"),
    };
}

/** DHCP (67, or 547 for DHCPv6 on an IPv6 network: IrSO #692; dual-stack with DHCPv6: both) and TFTP (69) are listened on. */
const listens = (plan: IronicPlan) => {
    const dhcp6 = plan.provisioning.ipv6?.dhcp ? " && ss -lun | grep -q ':547 '" : "";
    return `ss -lun | grep -q ':${cidrParts(plan.provisioning.cidr).family === 6 ? 547 : 67} '${dhcp6} && ss -lun | grep -q ':69 '`;
};

/**
 * dnsmasq on our rendered config, started by `startScript` (a path inside its mounts). Multi with
 * DHCP: under the fence, which runs dnsmasq only for the slot the slot agent's container grants it
 * and only until the renew deadline the agent keeps moving.
 */
export function dnsmasqContainer(plan: IronicPlan, volumeMounts: VolumeMount[], startScript: string, topology: PodTopology): Container {
    const slots = usesSlotAgents(plan);
    const env = [...topology.wrapperEnv("dnsmasq"), ...(slots ? slotFenceEnv() : [])];
    const start = [COMMANDS.shell, startScript];
    return {
        name: "dnsmasq",
        image: plan.images.ironic,
        command: topology.command(slots ? slotFenceCommand(start) : start),
        ...(env.length > 0 ? { env } : {}),
        securityContext: {
            // The image's dnsmasq binary carries file capabilities; they only apply with
            // privilege escalation allowed.
            allowPrivilegeEscalation: true,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ["ALL"], add: [...DNSMASQ_CAPABILITIES] },
        },
        volumeMounts,
        // Alive when dnsmasq listens, or (multi) while its fence has no slot to serve (the agent waits for one).
        livenessProbe: {
            exec: { command: [COMMANDS.shell, "-c", slots ? `${listens(plan)} || grep -q '^idle ' ${SLOT_PATHS.fenceState}` : listens(plan)] },
            initialDelaySeconds: 30,
            periodSeconds: 30,
            timeoutSeconds: 10,
            failureThreshold: 10,
        },
        resources: containerResources(plan, "dnsmasq"),
    };
}

/** Exit 0 when the file argv[1] was modified less than argv[2] seconds ago (a missing file fails). */
const PRUNER_HEARTBEAT_CHECK = "import os, sys, time; sys.exit(0 if time.time() - os.stat(sys.argv[1]).st_mtime < float(sys.argv[2]) else 1)";

/** Multi: keeps this conductor's dnsmasq files consistent with node ownership (assets/dhcp-pruner.py). */
export function dhcpPrunerContainer(plan: IronicPlan, volumeMounts: VolumeMount[], topology: PodTopology): Container {
    return {
        name: "dhcp-pruner",
        image: plan.images.ironic,
        command: topology.command([COMMANDS.python, `${CONDUCTOR_PATHS.scripts}/${SCRIPT_FILES.pruner}`]),
        env: [
            ...topology.wrapperEnv("dhcp-pruner"),
            ...sortedEnv({
                [PRUNER_ENV.apiUrl]: plan.urls.apiInCluster,
                [PRUNER_ENV.caFile]: `${PATHS.certsIronicCa}/tls.crt`,
                [PRUNER_ENV.authDir]: PRUNER_AUTH_DIR,
                [PRUNER_ENV.hostsDir]: DHCP_PROVIDER_PATHS.hostsDir,
                [PRUNER_ENV.optsDir]: DHCP_PROVIDER_PATHS.optsDir,
                [PRUNER_ENV.interval]: String(PRUNER_TIMINGS.interval),
                [PRUNER_ENV.fullInterval]: String(PRUNER_TIMINGS.fullInterval),
                [PRUNER_ENV.pausePerPass]: String(PRUNER_TIMINGS.pausePerPass),
                // Longer than the API's ring can lag a conductor's (hash_ring_reset_interval).
                [PRUNER_ENV.grace]: String(PRUNER_TIMINGS.grace),
                // A rebalance (a conductor joined): give the new owner time to take over first.
                [PRUNER_ENV.rebalanceDelay]: String(PRUNER_TIMINGS.rebalanceDelay),
                [PRUNER_ENV.heartbeatFile]: PRUNER_HEARTBEAT_FILE,
            }),
        ],
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        // The poll loop is alive: the heartbeat is fresh (an unusable API does not stop it).
        livenessProbe: {
            exec: { command: [COMMANDS.python, "-c", PRUNER_HEARTBEAT_CHECK, PRUNER_HEARTBEAT_FILE, String(PRUNER_TIMINGS.heartbeatMaxAge)] },
            initialDelaySeconds: 60,
            periodSeconds: 30,
            timeoutSeconds: 10,
            failureThreshold: 3,
        },
        resources: containerResources(plan, "dhcpPruner"),
    };
}

/**
 * keepalived holding the provisioning IP (and keepalived.extraVips) as VIPs, in its own image as its
 * own non-root user. With a VRRP router id or password: our start script writes the image's template
 * first (core/keepalived.ts), the password read from the user's Secret, mounted for this container only.
 */
export function keepalivedContainer(plan: IronicPlan, virtualIps: string): Container {
    const k = plan.keepalived;
    const vrrp = k.virtualRouterId !== undefined || k.passwordSecret !== undefined;
    const env = [
        { name: ENV.keepalivedVirtualIps, value: virtualIps },
        ...(k.virtualRouterId !== undefined ? [{ name: KEEPALIVED_START.env.routerId, value: String(k.virtualRouterId) }] : []),
        ...(k.passwordSecret ? [{ name: KEEPALIVED_START.env.passwordFile, value: `${KEEPALIVED_START.passwordDir}/${KEEPALIVED_START.passwordFile}` }] : []),
    ];
    return {
        name: "keepalived",
        image: plan.images.keepalived,
        ...(vrrp ? { command: [COMMANDS.shell, "-c", readAsset(SCRIPT_FILES.keepalivedStart), SCRIPT_FILES.keepalivedStart, ...KEEPALIVED_IMAGE.command] } : {}),
        env,
        securityContext: {
            allowPrivilegeEscalation: true,
            runAsUser: KEEPALIVED_IMAGE.uid,
            runAsGroup: KEEPALIVED_IMAGE.gid,
            runAsNonRoot: true,
            capabilities: { drop: ["ALL"], add: [...KEEPALIVED_CAPABILITIES] },
        },
        ...(k.passwordSecret ? { volumeMounts: [{ name: KEEPALIVED_VRRP_VOLUME, mountPath: KEEPALIVED_START.passwordDir, readOnly: true }] } : {}),
        resources: containerResources(plan, "keepalived"),
    };
}

/** The volume of keepalived.passwordSecret's key, as `password`: readable by keepalived's user (not in the pod's fsGroup), mounted only there. */
export const KEEPALIVED_VRRP_VOLUME = "keepalived-vrrp";
export function keepalivedVolumes(plan: IronicPlan): Volume[] {
    const s = plan.keepalived.passwordSecret;
    if (plan.topology.kind !== "single" || !plan.topology.keepalivedVirtualIps || !s) return [];
    return [fromSecret(KEEPALIVED_VRRP_VOLUME, s.name, { items: [[s.key, KEEPALIVED_START.passwordFile]], defaultMode: 0o444 })];
}
