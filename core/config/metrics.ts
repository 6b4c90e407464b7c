/**
 * `metrics`: the ironic-prometheus-exporter beside every Ironic (each conductor's in multi), the
 * conductors' sensor data collection, and an optional ServiceMonitor. Its schema, defaults and
 * resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import { EXPORTER } from "../contract";
import { labelKey, labelValue } from "./strings";
import type { SectionDocs } from "./section";

/** The image template's interval (release-38.0: "do not lower below 120", BMC polling every 60 s). */
export const DEFAULT_SENSOR_INTERVAL = 160;

/** The exporter and what is collected for it, defaulted. */
export interface MetricsConfig {
    enabled: boolean;
    /** Seconds between two sensor readings of a node by its conductor (`[sensor_data]interval`). */
    sensorInterval: number;
    /** The exporter's port on each Ironic node's host network. */
    port: number;
    /** A prometheus-operator ServiceMonitor over every exporter (needs its CRD in the cluster). */
    serviceMonitor: { enabled: boolean; labels: Record<string, string>; interval?: string };
}

/** Prometheus duration (the ServiceMonitor CRD's pattern for `endpoints[].interval`). */
const DURATION = /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/;

interface Blocks {
    port: z.ZodType<number>;
    strict: <T extends z.ZodRawShape>(shape: T) => z.ZodObject<T, z.core.$strict>;
}

/** The `metrics` section. */
export function metricsSection({ port, strict }: Blocks) {
    return strict({
        enabled: z.boolean().optional(),
        sensorInterval: z
            .number({ error: "must be a whole number of seconds" })
            .int("must be a whole number of seconds")
            .min(60, "must be at least 60 (Ironic polls power every 60 s; BMCs should not be asked more often)")
            .max(86400, "must be at most 86400 (a day)")
            .optional(),
        port: port.optional(),
        serviceMonitor: strict({
            enabled: z.boolean().optional(),
            labels: z.record(labelKey, labelValue).optional(),
            interval: z.string().regex(DURATION, "must be a Prometheus duration such as 30s, 1m or 2m30s").optional(),
        }).optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof metricsSection>> | undefined;

/** Defaults: off; the image's interval and port; no ServiceMonitor. */
export function resolveMetrics(m: Parsed): MetricsConfig {
    return {
        enabled: m?.enabled ?? false,
        sensorInterval: m?.sensorInterval ?? DEFAULT_SENSOR_INTERVAL,
        port: m?.port ?? EXPORTER.port,
        serviceMonitor: {
            enabled: m?.serviceMonitor?.enabled ?? false,
            labels: m?.serviceMonitor?.labels ?? {},
            ...(m?.serviceMonitor?.interval !== undefined ? { interval: m.serviceMonitor.interval } : {}),
        },
    };
}

export const METRICS_DOCS: SectionDocs = {
    description: "Sensor data and the ironic-prometheus-exporter beside every Ironic (every conductor in multi); optional ServiceMonitor.",
    reference: [
        { keys: ["metrics.enabled"], type: "bool", default: "`false`", notes: "sensor data collection on every conductor and an `ironic-prometheus-exporter` container in every Ironic pod, each serving only its own conductor's nodes, plus a headless Service with one endpoint per conductor; see [Metrics](metrics.md)" },
        { keys: ["metrics.sensorInterval"], type: "seconds, 60–86400", default: "`160`", notes: "how often each conductor reads its nodes' BMC sensors (`[sensor_data]interval`); the image's default; exporter files not refreshed for 3 intervals are dropped" },
        { keys: ["metrics.port"], type: "port", default: "`9608`", notes: "the exporter's port on each Ironic node's host network (bound to the pod IP, plain HTTP: the release-38.0 image has no exporter TLS)" },
        { keys: ["metrics.serviceMonitor.enabled"], type: "bool", default: "`false`", notes: "also a prometheus-operator `ServiceMonitor` (monitoring.coreos.com/v1) scraping every conductor's exporter; a switch, not a lookup (previews stay the same whether or not the CRD is installed): without the CRD `pulumi up` fails" },
        { keys: ["metrics.serviceMonitor.labels"], type: "map of label → value", default: "`{}`", notes: "extra labels on the ServiceMonitor, e.g. the one your Prometheus' `serviceMonitorSelector` matches (`release: prometheus`)" },
        { keys: ["metrics.serviceMonitor.interval"], type: "Prometheus duration", default: "— (Prometheus' own)", notes: "the scrape interval of every exporter (`endpoints[].interval`)" },
    ],
};
