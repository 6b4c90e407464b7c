/**
 * metrics.enabled: the ironic-prometheus-exporter beside Ironic in every Ironic pod (the single
 * Deployment's, each conductor's in multi), a headless Service whose endpoints are those pods (one
 * scrape target per conductor), and with metrics.serviceMonitor.enabled a prometheus-operator
 * ServiceMonitor over it.
 *
 * A node's sensor data is read and sent only by the conductor that owns it (Ironic's hash ring), so
 * each node's file is in one pod's /shared and is served by that pod's exporter only: summing over
 * the targets counts every node once. When a node moves (a conductor joins, a node is deleted), the
 * old owner's file is no longer refreshed: the exporter container drops files older than three
 * sensor intervals before serving, and every minute, so a moved node is not counted twice for long.
 */
import type * as k8s from "@pulumi/kubernetes";

import { COMMANDS, EXPORTER, PATHS } from "../contract";
import type { IronicPlan } from "../plan/types";
import { containerResources, restrictedSecurityContext } from "./meta";
import type { Container } from "./meta";
import { fromEmptyDir, mount, sharedPart, type Volume } from "./volumes";
import { componentLabel } from "../labels";

/** The Service's and ServiceMonitor's port name. */
export const METRICS_PORT_NAME = "metrics";

/** What sets the exporter's Service apart from the API Service (same pods, same stack labels). */
export const METRICS_COMPONENT = componentLabel("metrics");

/** Minutes after which a notification file no longer refreshed is stale (three sensor intervals, at least 5). */
export function staleMinutes(plan: IronicPlan): number {
    return Math.max(5, Math.ceil((3 * plan.metrics.sensorInterval) / 60));
}

/** The container's start: the stale-file sweep in the background, then the image's entrypoint. */
export function exporterCommand(plan: IronicPlan): string[] {
    const sweep = `find ${EXPORTER.notificationsDir} -type f -mmin +${staleMinutes(plan)} -delete 2>/dev/null`;
    return [COMMANDS.shell, "-c", `mkdir -p ${EXPORTER.notificationsDir}; ${sweep}; (while sleep 60; do ${sweep}; done) & exec ${EXPORTER.command}`];
}

/**
 * The exporter's own writable directories: the image's start writes its ironic.conf and makes
 * /shared/html and /shared/tmp, in a /shared of its own; of the pod's, only the notifications.
 */
export function exporterVolumes(): Volume[] {
    return ["exporter-conf", "exporter-data", "exporter-tmp", "exporter-shared"].map(fromEmptyDir);
}

export function exporterContainer(plan: IronicPlan): Container {
    const port = plan.metrics.port;
    return {
        name: "ironic-prometheus-exporter",
        image: plan.images.ironic,
        command: exporterCommand(plan),
        env: [
            // The pod IP is the node's (host network): reachable by Prometheus, not on every interface.
            { name: EXPORTER.env.host, valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            { name: EXPORTER.env.port, value: String(port) },
            { name: EXPORTER.env.runtimeDir, value: PATHS.tmp },
        ],
        securityContext: restrictedSecurityContext(),
        ports: [{ name: METRICS_PORT_NAME, containerPort: port, hostPort: port, protocol: "TCP" }],
        volumeMounts: [mount("exporter-shared", PATHS.shared), sharedPart(EXPORTER.notificationsDir), mount("exporter-conf", PATHS.conf), mount("exporter-data", PATHS.data), mount("exporter-tmp", PATHS.tmp)],
        readinessProbe: { httpGet: { path: "/metrics", port, scheme: "HTTP" }, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 3 },
        livenessProbe: { tcpSocket: { port }, initialDelaySeconds: 30, periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 10 },
        resources: containerResources(plan, "exporter"),
    };
}

/** Headless: no virtual IP to balance over; its endpoints are every Ironic pod, one per conductor. */
export function metricsService(plan: IronicPlan): k8s.types.input.core.v1.Service {
    const port = plan.metrics.port;
    return {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: plan.names.metricsService, namespace: plan.namespace, labels: { ...plan.labels, ...METRICS_COMPONENT } },
        spec: {
            clusterIP: "None",
            selector: plan.selector,
            ports: [{ name: METRICS_PORT_NAME, port, targetPort: port, protocol: "TCP" }],
        },
    };
}

/** A ServiceMonitor object (monitoring.coreos.com/v1) as plain data. */
export interface ServiceMonitor {
    apiVersion: "monitoring.coreos.com/v1";
    kind: "ServiceMonitor";
    metadata: { name: string; namespace: string; labels: Record<string, string> };
    spec: Record<string, unknown>;
}

/** Every endpoint of the metrics Service, labelled with its conductor's node. */
export function serviceMonitor(plan: IronicPlan): ServiceMonitor {
    const sm = plan.metrics.serviceMonitor;
    return {
        apiVersion: "monitoring.coreos.com/v1",
        kind: "ServiceMonitor",
        metadata: { name: plan.names.metricsService, namespace: plan.namespace, labels: { ...sm.labels, ...plan.labels, ...METRICS_COMPONENT } },
        spec: {
            selector: { matchLabels: { ...plan.selector, ...METRICS_COMPONENT } },
            namespaceSelector: { matchNames: [plan.namespace] },
            endpoints: [
                {
                    port: METRICS_PORT_NAME,
                    path: "/metrics",
                    scheme: "http",
                    ...(sm.interval ? { interval: sm.interval } : {}),
                    // The conductor's node: one target each (the pod IP is the node's with host networking).
                    relabelings: [{ sourceLabels: ["__meta_kubernetes_pod_node_name"], targetLabel: "conductor", action: "replace" }],
                },
            ],
        },
    };
}
