/** metrics.*: the config (schema, defaults, rule), Ironic's sensor settings, the exporter container, the Service and the ServiceMonitor. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { exporterCommand, exporterContainer, metricsService, serviceMonitor, staleMinutes } from "../../../core/manifests/metrics";
import { ironicPodSpec } from "../../../core/manifests/ironic";
import { osloSettings } from "../../../core/plan";
import { issues, listing } from "../config/support";
import { configOf, devRaw, haRaw, planOf, withKeys } from "../plan/support";

const keyed = (raw: Record<string, unknown>) => listing(issues(raw));
const on = (base: Record<string, unknown>, m: Record<string, unknown> = {}) => withKeys(base, { metrics: { enabled: true, ...m } });

describe("metrics: config", function () {
    it("defaults: off, the image's interval (160 s) and port (9608), no ServiceMonitor", function () {
        assert.deepEqual(configOf(devRaw).metrics, { enabled: false, sensorInterval: 160, port: 9608, serviceMonitor: { enabled: false, labels: {} } });
    });

    it("refuses settings without metrics.enabled, an interval under 60 s, a port another Ironic port or dnsmasq holds, naming key and fix", function () {
        const off = keyed(withKeys(devRaw, { metrics: { sensorInterval: 300, serviceMonitor: { enabled: true } } }));
        assert.match(off, /metrics\.sensorInterval: has no effect while metrics\.enabled is false .*set metrics\.enabled: true, or remove it/);
        assert.match(off, /metrics\.serviceMonitor\.enabled: needs metrics\.enabled: true .*nothing to scrape/);
        assert.match(keyed(on(devRaw, { sensorInterval: 30 })), /metrics\.sensorInterval: must be at least 60/);
        assert.match(keyed(on(devRaw, { port: 6385 })), /metrics\.port: port 6385 is already used by ports\.api.*choose another port/);
        assert.match(keyed(on(devRaw, { port: 69 })), /metrics\.port: port 69 is taken by dnsmasq/);
        assert.match(keyed(on(devRaw, { serviceMonitor: { enabled: true, interval: "1 minute" } })), /metrics\.serviceMonitor\.interval: must be a Prometheus duration/);
        assert.match(keyed(on(devRaw, { servicemonitor: {} })), /did you mean "serviceMonitor"\?/);
        assert.equal(validateConfig(on(devRaw, { sensorInterval: 60, port: 9100, serviceMonitor: { enabled: true, interval: "1m30s", labels: { release: "prometheus" } } })).ok, true);
    });

    it("refuses ironic.config options the exporter's settings own, all at once", function () {
        const text = keyed(withKeys(on(devRaw), { ironic: { config: { "sensor_data.interval": "30", "oslo_messaging_notifications.driver": "log" } } }));
        assert.match(text, /ironic\.config\.sensor_data\.interval: set by metrics\.sensorInterval; remove it from ironic\.config/);
        assert.match(text, /ironic\.config\.oslo_messaging_notifications\.driver: set by metrics\.enabled/);
        // Without metrics the options are the user's.
        assert.equal(validateConfig(withKeys(devRaw, { ironic: { config: { "sensor_data.interval": "300" } } })).ok, true);
    });
});

describe("metrics: Ironic's settings and the pods", function () {
    it("sensor collection on the ironic container only with metrics.enabled: SEND_SENSOR_DATA and [sensor_data]interval", function () {
        const env = (raw: Record<string, unknown>) => planOf(raw).ironicEnv;
        assert.equal(env(devRaw).SEND_SENSOR_DATA, undefined);
        assert.equal(env(on(devRaw, { sensorInterval: 300 })).SEND_SENSOR_DATA, "true");
        assert.deepEqual(osloSettings(configOf(on(devRaw, { sensorInterval: 300 }))).filter(([g]) => g === "sensor_data"), [["sensor_data", "interval", "300"]]);
    });

    it("an exporter container in the single Deployment's pod and in every conductor's (multi), as the image starts it", function () {
        for (const raw of [on(devRaw), haRaw]) {
            const plan = planOf(raw);
            const spec = ironicPodSpec(plan) as any;
            const c = spec.containers.find((x: any) => x.name === "ironic-prometheus-exporter");
            assert.ok(c, `${plan.topology.kind}: no exporter container`);
            assert.deepEqual(c, exporterContainer(plan) as any);
            assert.equal(c.command.at(-1).endsWith("exec /bin/runironic-exporter"), true);
            assert.deepEqual(c.env, [
                { name: "FLASK_RUN_HOST", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
                { name: "FLASK_RUN_PORT", value: "9608" },
                { name: "XDG_RUNTIME_DIR", value: "/tmp" },
            ]);
            assert.equal(c.securityContext.readOnlyRootFilesystem, true);
            // A /shared of its own (the image's start makes html and tmp there) and, of the pod's, the notifications only.
            assert.deepEqual(c.volumeMounts.map((m: any) => `${m.name}${m.subPath ? `/${m.subPath}` : ""}:${m.mountPath}`), ["exporter-shared:/shared", "shared/ironic_prometheus_exporter:/shared/ironic_prometheus_exporter", "exporter-conf:/conf", "exporter-data:/data", "exporter-tmp:/tmp"]);
            for (const v of ["exporter-conf", "exporter-data", "exporter-tmp", "exporter-shared"]) assert.ok(spec.volumes.some((x: any) => x.name === v && x.emptyDir), v);
        }
        assert.equal((ironicPodSpec(planOf(devRaw)) as any).containers.some((x: any) => x.name === "ironic-prometheus-exporter"), false);
    });

    it("stale files (three sensor intervals, at least 5 minutes) are swept at start and every minute", function () {
        assert.equal(staleMinutes(planOf(on(devRaw))), 8);
        assert.equal(staleMinutes(planOf(on(devRaw, { sensorInterval: 60 }))), 5);
        assert.match(exporterCommand(planOf(on(devRaw, { sensorInterval: 600 })))[2], /find \/shared\/ironic_prometheus_exporter -type f -mmin \+30 -delete/);
    });

    it("a headless Service over every Ironic pod, and a ServiceMonitor only by its switch, selecting that Service only", function () {
        const plan = planOf(on(haRaw, { port: 9100, serviceMonitor: { enabled: true, interval: "1m", labels: { release: "prometheus" } } }));
        const svc = metricsService(plan) as any;
        assert.equal(svc.spec.clusterIP, "None");
        assert.deepEqual(svc.spec.selector, plan.selector);
        assert.deepEqual(svc.spec.ports, [{ name: "metrics", port: 9100, targetPort: 9100, protocol: "TCP" }]);
        const sm = serviceMonitor(plan) as any;
        assert.equal(sm.metadata.labels.release, "prometheus");
        // Matches the metrics Service and not the API Service (same pods, same stack labels).
        for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) assert.equal(svc.metadata.labels[k], v);
        assert.equal(sm.spec.selector.matchLabels["app.kubernetes.io/component"], "metrics");
        assert.deepEqual(sm.spec.endpoints[0].port, "metrics");
        assert.equal(sm.spec.endpoints[0].interval, "1m");
    });
});
