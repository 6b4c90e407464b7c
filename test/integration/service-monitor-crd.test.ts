/**
 * The ServiceMonitor the program renders (metrics.serviceMonitor.enabled) against
 * prometheus-operator's own CRD schema: example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml
 * of the pinned Go module github.com/prometheus-operator/prometheus-operator, downloaded at test
 * time by `go mod download` into a module cache outside the checkout (METAL3_CRD_CACHE, default
 * /var/cache/metal3-ironic-crds). A download that fails fails the test, naming why. Validated with
 * ajv as the API server would (structural schema, unknown fields refused), in single and multi,
 * and checked to select the metrics Service by its labels and port.
 */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { ValidateFunction } from "ajv";
import * as YAML from "yaml";

import { RawConfig } from "../../core/config";
import { readStackConfig, renderOffline } from "../../tools/render";
import { describeErrors, kubernetesAjv, strictUnknownFields } from "../helpers/crd-schema";

const ROOT = path.join(__dirname, "..", "..");
const MODULE = "github.com/prometheus-operator/prometheus-operator";
const VERSION = "v0.85.0";
const CRD_FILE = "example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml";
const CACHE = process.env.METAL3_CRD_CACHE ?? "/var/cache/metal3-ironic-crds";

/** The module's directory in the cache, downloaded when missing; throws naming what failed. */
function moduleDir(): string {
    const env = { ...process.env, GOMODCACHE: path.join(CACHE, "gomod"), GOFLAGS: "-modcacherw", GO111MODULE: "on", GOTOOLCHAIN: "local" };
    const cwd = fs.mkdtempSync("/tmp/m3i-crd-");
    const r = spawnSync("go", ["mod", "download", "-json", `${MODULE}@${VERSION}`], { encoding: "utf8", env, cwd, timeout: 300000 });
    fs.rmSync(cwd, { recursive: true, force: true });
    if (r.error) throw new Error(`cannot run \`go mod download ${MODULE}@${VERSION}\` (the Go toolchain .ci/run installs): ${r.error.message}`);
    let info: { Dir?: string; Error?: string } = {};
    try {
        info = JSON.parse(r.stdout);
    } catch {
        /* reported below */
    }
    if (r.status !== 0 || !info.Dir) throw new Error(`go mod download ${MODULE}@${VERSION} failed (exit ${r.status}): ${info.Error ?? r.stderr.trim()}`);
    return info.Dir;
}

async function rendered(raw: RawConfig, stack: string) {
    const r = await renderOffline(raw, stack);
    const sm = r.objects.find((o) => o.kind === "ServiceMonitor");
    const svc = r.objects.find((o) => o.kind === "Service" && o.metadata.name.endsWith("-metrics"));
    return { sm, svc };
}

describe(`metrics.serviceMonitor: the ServiceMonitor against prometheus-operator's CRD (${MODULE}@${VERSION})`, function () {
    this.timeout(300000);
    let validate: ValidateFunction;

    before(function () {
        const crd = YAML.parse(fs.readFileSync(path.join(moduleDir(), CRD_FILE), "utf8"));
        assert.equal(crd.spec.group, "monitoring.coreos.com");
        const v1 = crd.spec.versions.find((v: any) => v.name === "v1" && v.served);
        assert.ok(v1, "the CRD serves monitoring.coreos.com/v1");
        validate = kubernetesAjv().compile(strictUnknownFields(v1.schema.openAPIV3Schema));
    });

    const withMetrics = (file: string, sm: Record<string, unknown>): RawConfig => ({ ...readStackConfig(path.join(ROOT, file)), metrics: { enabled: true, serviceMonitor: { enabled: true, ...sm } } });

    for (const [file, stack] of [["Pulumi.dev.yaml", "dev"], ["Pulumi.ha.yaml", "ha"]] as const) {
        it(`${stack}: valid against the CRD schema, and selects the metrics Service's endpoints by label and port name`, async function () {
            const { sm, svc } = await rendered(withMetrics(file, { labels: { release: "prometheus" }, interval: "1m" }), stack);
            assert.ok(sm, "a ServiceMonitor is rendered");
            const ok = validate(sm);
            assert.deepEqual(describeErrors(validate.errors), []);
            assert.equal(ok, true);
            assert.equal(sm.apiVersion, "monitoring.coreos.com/v1");
            for (const [k, v] of Object.entries<string>(sm.spec.selector.matchLabels)) assert.equal(svc!.metadata.labels[k], v, `Service label ${k}`);
            assert.deepEqual(sm.spec.namespaceSelector.matchNames, [svc!.metadata.namespace]);
            assert.ok(svc!.spec.ports.some((p: any) => p.name === sm.spec.endpoints[0].port), "the endpoint port names a port of the Service");
        });
    }

    it("the check can fail: a wrong type and an unknown field are refused", async function () {
        const { sm } = await rendered(withMetrics("Pulumi.ha.yaml", {}), "ha");
        const bad = JSON.parse(JSON.stringify(sm));
        bad.spec.endpoints[0].scheme = 443;
        bad.spec.endpoints[0].relabelings[0].bogus = "x";
        assert.equal(validate(bad), false);
        assert.match(describeErrors(validate.errors).join("\n"), /scheme|bogus/);
    });

    it("no ServiceMonitor unless switched on (a switch, not a lookup of the CRD)", async function () {
        const { sm, svc } = await rendered({ ...readStackConfig(path.join(ROOT, "Pulumi.ha.yaml")) }, "ha");
        assert.equal(sm, undefined);
        assert.ok(svc, "the ha example still has its metrics Service");
    });
});
