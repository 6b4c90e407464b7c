/**
 * metrics.enabled against the real programs: the `ironic-prometheus-exporter` container of the
 * rendered Ironic pods, started by the pod runner as the pod declares it (mounts, env with the
 * downward-API pod IP, uid, read-only root, its command with the stale-file sweep), runs PyPI's
 * ironic-prometheus-exporter 4.10.0 under gunicorn (the image's /bin/runironic-exporter, stood in
 * from its contract). What it serves is written by Ironic 38's own sensor data task
 * (ConductorManager._send_sensor_data: its hash ring picks the conductor's nodes, its sensors
 * notifier sends through the exporter's `prometheus_exporter` oslo driver) with the ironic
 * container's settings (the image template's notification sections for SEND_SENSOR_DATA=true and
 * the container's OS_* variables), into the pod's /shared volume, as uid 997 like the ironic
 * container. Only the database rows, the node lock and the BMC's reading are stood in for
 * (test/helpers/sensor_data_probe.py).
 *
 * single: the dev stack's pod on 127.0.0.1 (scraped over loopback). multi: the ha stack's three
 * conductors, each in its own node namespace at its own address; each exporter serves exactly the
 * nodes its conductor owns, together every node once. The Grafana dashboard's metric names are
 * checked against what the exporter served.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { DEFAULT_IMAGES } from "../../core/contract";
import { readStackConfig } from "../../tools/render";
import { imageOf, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { IMAGE_VENV, IMAGE_VENV_NEEDED, imageVenvReady, prepareImages } from "../helpers/standins";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const PROBE = path.join(__dirname, "..", "helpers", "sensor_data_probe.py");
const DASHBOARD = path.join(ROOT, "docs", "grafana", "ironic-sensors.json");
const EXPORTER_CONTAINER = "ironic-prometheus-exporter";
const NODES = ["node-a", "node-b", "node-c", "node-d", "node-e", "node-f", "node-g", "node-h", "node-i"];

/** Prometheus text: sample name → the node_name (or hostname) label of each of its samples. */
function samples(text: string): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const line of text.split("\n")) {
        const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? /.exec(line);
        if (!m) continue;
        const who = /(?:node_name|hostname)="([^"]*)"/.exec(m[3] ?? "")?.[1] ?? "";
        out.set(m[1], [...(out.get(m[1]) ?? []), who]);
    }
    return out;
}

/** Every metric name a dashboard expression reads (identifiers of the exporter's families). */
function dashboardMetrics(): string[] {
    const dash = JSON.parse(fs.readFileSync(DASHBOARD, "utf8"));
    const names = new Set<string>();
    for (const p of dash.panels) for (const t of p.targets ?? []) for (const m of String(t.expr).matchAll(/\b(baremetal_[a-z0-9_]+|conductor_[a-z0-9_]+)\b/g)) names.add(m[1]);
    return [...names].sort();
}

describe("metrics: the exporter serves Ironic 38's sensor data as the pods declare it (pod runner)", function () {
    this.timeout(300000);
    const net = new NetnsLab();
    let work = "";
    let images: Record<string, StandinImage>;
    const pods: PodRunner[] = [];

    before(function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        const tools = ["nsenter", "unshare", "setpriv", "setcap", "curl"];
        requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        work = tmpDir("metrics");
        images = prepareImages(work);
        assert.deepEqual(imageOf(images, DEFAULT_IMAGES.ironic).hostDirs, [IMAGE_VENV]);
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") {
            for (const p of pods) for (const c of p.spec.containers) if (p.logs(c.name)) console.log(`---- ${p.o.name}/${c.name} ----\n${tail(p.logs(c.name), 2000)}`);
        }
    });

    after(async function () {
        for (const p of pods) await p.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    /** The rendered Ironic pod spec of a stack (Deployment in single, the DaemonSet's template in multi). */
    async function render(raw: RawConfig, stack: string) {
        const { rendered, cluster } = await renderWithRealSecrets(raw, stack);
        const o = rendered.objects.find((x) => (x.kind === "Deployment" || x.kind === "DaemonSet") && x.metadata.name === "ironic")!;
        return { spec: o.spec.template.spec, cluster, rendered };
    }

    /** Start only the exporter container of a pod on node `nodeName` at `ip` in namespace `ns`; ready by its declared probe. */
    async function startExporter(r: Awaited<ReturnType<typeof render>>, ns: string, nodeName: string, ip: string, stale?: string): Promise<PodRunner> {
        // multi: the pod's projected slot-API token is for the dnsmasq container's slot agent, which this test does not start.
        const serviceAccount = { apiHost: "10.96.0.1", apiPort: 443, token: "not-used-by-the-exporter-or-ironic", caCrt: "" };
        const p = new PodRunner({ name: `ironic-${pods.length}-${nodeName}`, namespace: "metal3", spec: r.spec, cluster: r.cluster, images, work, netns: ns, nodeName, hostIP: ip, podIP: ip, serviceAccount });
        pods.push(p);
        p.prepareVolumes();
        if (stale) {
            // A node this conductor reported an hour ago and no longer owns: the sweep must drop it.
            const dir = path.join(p.volumePath("shared"), "ironic_prometheus_exporter");
            fs.mkdirSync(dir, { recursive: true });
            fs.chownSync(dir, 997, 994);
            const f = path.join(dir, `${stale}-hardware.redfish.metrics`);
            fs.writeFileSync(f, `baremetal_last_payload_timestamp_seconds{node_name="${stale}"} 1.0\n`);
            const hourAgo = new Date(Date.now() - 3600 * 1000);
            fs.utimesSync(f, hourAgo, hourAgo);
        }
        p.startContainers([EXPORTER_CONTAINER]);
        await p.waitReady(EXPORTER_CONTAINER, 60000);
        // gunicorn's control socket goes to the declared runtime dir (/tmp), not $HOME on the read-only root.
        assert.doesNotMatch(p.logs(EXPORTER_CONTAINER), /Control server error|Read-only file system/);
        return p;
    }

    /**
     * Ironic 38's sensor task for conductor `host` among `hosts`, run in the ironic container's view
     * (its mounts, its whole declared env, its uid) with the image's ironic.conf sections for
     * SEND_SENSOR_DATA=true; the probe and that file are put on the container's /conf volume.
     */
    function sensorRound(p: PodRunner, host: string, hosts: string[]): { send_sensor_data: boolean; interval: number; driver: string[]; metrics_backend: string; owned: string[] } {
        assert.equal(p.env(p.container("ironic")).SEND_SENSOR_DATA, "true", "the ironic container turns sensor collection on");
        p.prepareVolumes();
        const dir = path.join(p.volumePath("ironic-conf"), "metrics-probe");
        fs.mkdirSync(dir, { recursive: true });
        fs.copyFileSync(PROBE, path.join(dir, "sensor_data_probe.py"));
        // The image's ironic.conf.j2 with SEND_SENSOR_DATA=true (docs/ironic-image-contract.md, Metrics).
        const conf = ["[oslo_messaging_notifications]", "driver = prometheus_exporter", "location = /shared/ironic_prometheus_exporter", "transport_url = fake://", "", "[sensor_data]", "send_sensor_data = true", "interval = 160", "", "[metrics]", "backend = collector", ""];
        fs.writeFileSync(path.join(dir, "ironic.conf"), conf.join("\n"));
        const r = p.exec("ironic", [path.join(IMAGE_VENV, "bin", "python"), "/conf/metrics-probe/sensor_data_probe.py", "/conf/metrics-probe/ironic.conf", host, hosts.join(","), ...NODES], 120000);
        const line = r.stdout.trim().split("\n").pop() ?? "";
        try {
            return JSON.parse(line);
        } catch {
            throw new Error(`sensor probe exited ${r.status}: ${tail(r.stderr)}`);
        }
    }

    function scrape(ns: string, ip: string, port = 9608): string {
        const r = run("ip", ["netns", "exec", ns, "curl", "-sf", "--max-time", "10", `http://${ip}:${port}/metrics`], { allowFail: true });
        assert.equal(r.status, 0, `scrape of ${ip}:${port} in ${ns} failed: ${r.stderr}`);
        return r.stdout;
    }

    let singleText = "";

    it("single: the exporter container runs as declared, serves the conductor's sensor data on the pod IP, and drops a stale file", async function () {
        const raw: RawConfig = { ...readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")), metrics: { enabled: true, sensorInterval: 120 } };
        const r = await render(raw, "dev");
        const ns = net.addNamespace("ms");
        const p = await startExporter(r, ns, "cp-0", "127.0.0.1", "node-moved-away");
        const c = p.container(EXPORTER_CONTAINER);
        assert.equal(c.securityContext.readOnlyRootFilesystem, true);
        assert.equal(p.env(c).FLASK_RUN_HOST, "127.0.0.1", "bound to the pod IP (downward API)");
        // Nothing yet: the stale file is gone before the first scrape (the sweep runs at start).
        assert.equal(fs.existsSync(path.join(p.volumePath("shared"), "ironic_prometheus_exporter", "node-moved-away-hardware.redfish.metrics")), false);
        assert.doesNotMatch(scrape(ns, "127.0.0.1"), /node-moved-away/);

        const round = sensorRound(p, "cp-0", ["cp-0"]);
        assert.equal(round.send_sensor_data, true);
        assert.equal(round.interval, 120, "metrics.sensorInterval reaches Ironic as [sensor_data]interval");
        assert.deepEqual(round.driver, ["prometheus_exporter"]);
        assert.equal(round.metrics_backend, "collector");
        assert.deepEqual(round.owned, NODES, "a single conductor owns every node");

        singleText = scrape(ns, "127.0.0.1");
        const s = samples(singleText);
        assert.deepEqual([...new Set(s.get("baremetal_last_payload_timestamp_seconds"))].sort(), NODES);
        for (const m of ["baremetal_temp_cpu_celsius", "baremetal_temperature_status", "baremetal_power_status", "baremetal_fan_status", "baremetal_drive_status"]) assert.equal(s.get(m)?.length, NODES.length, m);
        assert.deepEqual(s.get("conductor_service_last_payload_timestamp_seconds"), ["cp-0"]);
        assert.ok([...s.keys()].some((k) => /^ironic_conductormanager_send_sensor_data_(time|call_count)$/.test(k)), "the conductor's own timers ([metrics]backend = collector)");
        // Not reachable on another address of the node (bound to the pod IP only).
        run("ip", ["-n", ns, "addr", "add", "127.0.0.7/8", "dev", "lo"]);
        assert.notEqual(run("ip", ["netns", "exec", ns, "curl", "-sf", "--max-time", "5", "http://127.0.0.7:9608/metrics"], { allowFail: true }).status, 0);
    });

    it("the Grafana dashboard reads only metric names the exporter served", function () {
        assert.ok(singleText, "needs the single test's scrape");
        const served = new Set(samples(singleText).keys());
        const read = dashboardMetrics();
        assert.ok(read.length >= 6, `the dashboard reads ${read.join(", ")}`);
        assert.deepEqual(read.filter((m) => !served.has(m)), [], "dashboard metrics the exporter does not emit");
    });

    it("multi: every conductor's exporter is scraped, each serves exactly its own nodes, together every node once", async function () {
        const raw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
        const r = await render(raw, "ha");
        const conductors = (raw.conductors as { name: string; ip: string }[]).map((c) => ({ ...c, host: `${c.ip}:6189` }));
        const started = [];
        for (const [i, c] of conductors.entries()) {
            const ns = net.addNamespace(`mh${i}`);
            run("ip", ["-n", ns, "addr", "add", `${c.ip}/32`, "dev", "lo"]);
            started.push({ ...c, ns, pod: await startExporter(r, ns, c.name, c.ip) });
        }
        const hosts = conductors.map((c) => c.host);
        const owned = new Map<string, string[]>();
        for (const c of started) {
            const round = sensorRound(c.pod, c.host, hosts);
            assert.equal(round.interval, 160);
            owned.set(c.name, round.owned);
        }
        // The ring spreads these nodes over all three (else the test would show nothing).
        for (const c of started) assert.ok(owned.get(c.name)!.length > 0, `${c.name} owns no node: ${JSON.stringify([...owned])}`);
        const all: string[] = [];
        for (const c of started) {
            const s = samples(scrape(c.ns, c.ip));
            const nodes = [...(s.get("baremetal_last_payload_timestamp_seconds") ?? [])].sort();
            assert.deepEqual(nodes, owned.get(c.name), `${c.name}'s exporter serves exactly the nodes its conductor owns`);
            assert.deepEqual(s.get("conductor_service_last_payload_timestamp_seconds"), [c.host], `${c.name}: its own conductor only`);
            all.push(...nodes);
        }
        assert.deepEqual(all.sort(), NODES, "across all targets every node is counted once");
    });
});
