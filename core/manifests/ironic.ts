/**
 * The Ironic workload: its pod (assembled from podVolumes, the per-topology start and the
 * container builders), the single topology's Deployment, the multi topology's DaemonSet, and the
 * API Service.
 */
import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";

import { IRONIC_GID, IRONIC_UID, PATHS } from "../contract";
import { endpointSliceLabels } from "../labels";
import type { IronicPlan } from "../plan/types";
import { dnsmasqConfigHash } from "./configmaps";
import {
    conductorCertsContainer,
    dhcpPrunerContainer,
    dnsmasqContainer,
    httpdContainer,
    ironicContainer,
    keepalivedContainer,
    keepalivedVolumes,
    provisioningIpCheckContainer,
    ramdiskLogsContainer,
} from "./containers";
import { imageCacheClient } from "./image-cache";
import { dhcpDirsContainer, sharedDirsContainer } from "./init-dirs";
import { ironicTrust } from "./trust";
import { exporterContainer, exporterVolumes } from "./metrics";
import { ANNOTATIONS, podBase, sortedRecord, stackMeta } from "./meta";
import type { Container, PodSpec } from "./meta";
import { slotAgentContainer, usesSlotAgents } from "./slots";
import { podTopology } from "./topology";
import { SHARED_VOLUME, mount, podVolumes } from "./volumes";
import type { VolumeMount } from "./volumes";

/** The Ironic pod spec: one template for the single Deployment and the multi DaemonSet. */
export function ironicPodSpec(plan: IronicPlan): PodSpec {
    const topology = podTopology(plan);
    const { volumes, mounts } = podVolumes(plan);
    // No IPA download in the Ironic pods: the client only reads the image cache (or only builds its CA bundle).
    const cache = imageCacheClient(plan);
    // trust.bmcCa/trustedCa: the bundles are written before Ironic starts and kept current beside it.
    const trust = ironicTrust(plan);
    const initContainers: Container[] = [...(cache ? [cache.initContainer] : []), ...(trust ? [trust.initContainer] : [])];
    const ironicMounts = [...mounts.ironic, ...(cache?.ironicMounts ?? []), ...(trust?.ironicMounts ?? [])];
    const containers: Container[] = [ironicContainer(plan, ironicMounts, topology), httpdContainer(plan, mounts.httpd, topology)];
    if (mounts.certMinter) containers.push(conductorCertsContainer(plan, mounts.certMinter, topology));
    if (mounts.dhcpDirs) initContainers.push(dhcpDirsContainer(plan, mounts.dhcpDirs));
    if (mounts.dnsmasq) containers.push(dnsmasqContainer(plan, mounts.dnsmasq.mounts, mounts.dnsmasq.startScript, topology));
    if (mounts.slotAgent) containers.push(slotAgentContainer(plan, mounts.slotAgent));
    if (mounts.dhcpPruner) containers.push(dhcpPrunerContainer(plan, mounts.dhcpPruner, topology));
    containers.push(ramdiskLogsContainer(plan, mounts.ramdiskLogs));
    if (plan.topology.kind === "single" && plan.topology.keepalivedVirtualIps) containers.push(keepalivedContainer(plan, plan.topology.keepalivedVirtualIps));
    if (trust) containers.push(trust.sidecar);
    const metrics = plan.metrics.enabled;
    if (metrics) containers.push(exporterContainer(plan));
    // The parts of /shared mounted on their own (sharedPart), made before any container starts.
    const parts = [...new Set([...initContainers, ...containers].flatMap((c) => (c.volumeMounts ?? []) as VolumeMount[]).filter((m) => m.name === SHARED_VOLUME && m.subPath).map((m) => m.mountPath as string))].sort();
    if (parts.length > 0) initContainers.unshift(sharedDirsContainer(plan, [mount(SHARED_VOLUME, PATHS.shared)], parts));
    // Single without keepalived serves on provisioning.ip: only a node that holds it may run the pod (checked first).
    if (plan.topology.kind === "single" && !plan.topology.keepalivedVirtualIps) initContainers.unshift(provisioningIpCheckContainer(plan));
    return {
        hostNetwork: true,
        dnsPolicy: "ClusterFirstWithHostNet",
        ...podBase(plan, IRONIC_UID, IRONIC_GID, topology.nodeSelector),
        // Multi with DHCP: the slot agents' identity (only the dnsmasq container mounts its token).
        ...(usesSlotAgents(plan) ? { serviceAccountName: plan.names.slotAccount } : {}),
        ...(initContainers.length > 0 ? { initContainers } : {}),
        containers,
        volumes: [...volumes, ...(cache?.volumes ?? []), ...(trust?.volumes ?? []), ...(metrics ? exporterVolumes() : []), ...keepalivedVolumes(plan)],
    };
}

/** Deployment of the single topology: one replica, Recreate (host ports cannot roll). */
export function ironicDeployment(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.Deployment {
    const dnsHash = dnsmasqConfigHash(plan);
    const podAnnotations: Record<string, pulumi.Input<string>> = {
        ...(dnsHash ? { [ANNOTATIONS.dnsmasqConfig]: dnsHash } : {}),
        ...(imageCacheClient(plan)?.annotations ?? {}),
        ...sortedRecord(annotations),
    };
    return {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: stackMeta(plan, plan.names.deployment),
        spec: {
            replicas: 1,
            strategy: { type: "Recreate" },
            selector: { matchLabels: plan.selector },
            template: {
                metadata: { labels: plan.labels, annotations: podAnnotations },
                spec: ironicPodSpec(plan),
            },
        },
    };
}

/**
 * Multi: one conductor per labelled control-plane node. The template depends on nothing
 * node-specific, so adding, removing or replacing a node leaves it byte-identical.
 */
export function conductorDaemonSet(plan: IronicPlan, annotations: Record<string, pulumi.Input<string>> = {}): k8s.types.input.apps.v1.DaemonSet {
    const cache = imageCacheClient(plan)?.annotations;
    const podAnnotations = cache || Object.keys(annotations).length > 0 ? { ...(cache ?? {}), ...sortedRecord(annotations) } : undefined;
    return {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: stackMeta(plan, plan.names.deployment),
        spec: {
            selector: { matchLabels: plan.selector },
            // Host ports: the old pod must go before the new one starts on the same node.
            updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
            template: {
                metadata: { labels: plan.labels, annotations: podAnnotations },
                spec: ironicPodSpec(plan),
            },
        },
    };
}

/** ClusterIP Service in front of the API (httpd's TLS proxy on the host network); bound, without a selector (its endpoint: ironicEndpointSlice). */
export function ironicService(plan: IronicPlan): k8s.types.input.core.v1.Service {
    return {
        apiVersion: "v1",
        kind: "Service",
        metadata: stackMeta(plan, plan.names.service),
        spec: {
            type: "ClusterIP",
            ...(plan.apiBind ? {} : { selector: plan.selector }),
            ports: [{ name: API_PORT_NAME, port: plan.ports.api, targetPort: plan.ports.api, protocol: "TCP" }],
        },
    };
}

const API_PORT_NAME = "ironic-api";

/**
 * The bound API Service's endpoints (plan.apiBind: provisioning.ip, or each listed conductor's
 * address), written by this program (managed-by names it, so the EndpointSlice controller leaves
 * it alone); undefined when the Service selects the pods. Always ready, whatever the pods' state:
 * kube-proxy keeps sending connections to a conductor that is down (clients retry, as BMO does).
 */
export function ironicEndpointSlice(plan: IronicPlan): k8s.types.input.discovery.v1.EndpointSlice | undefined {
    const addresses = plan.apiBind;
    if (!addresses) return undefined;
    return {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        metadata: stackMeta(plan, `${plan.names.service}-provisioning`, { labels: endpointSliceLabels(plan.labels, plan.names.service) }),
        addressType: addresses[0]?.includes(":") ? "IPv6" : "IPv4",
        endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
        ports: [{ name: API_PORT_NAME, port: plan.ports.api, protocol: "TCP" }],
    };
}
