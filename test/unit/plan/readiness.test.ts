/** The live readiness check's plan (core/plan/readiness.ts): what the Command gets, per topology and setting. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/read";
import * as fs from "fs";
import * as path from "path";

import { ENV } from "../../../core/contract";
import { READINESS_COMMAND, canonicalJson, parseConductorsAlive, podTemplateHash, readinessPlan } from "../../../core/plan/readiness";
import { devRaw, haRaw, planOf, withKeys } from "./support";
import { READINESS_ENV } from "../../../core/scripts";

const ROOT = path.join(__dirname, "..", "..", "..");

describe("readiness plan (core/plan/readiness.ts)", function () {
    it("multi: expects exactly each conductor's [DEFAULT]host as the plan sets it (IRONIC_CONDUCTOR_HOST of the node entry)", function () {
        const plan = planOf(haRaw);
        const r = readinessPlan(plan)!;
        assert.deepEqual(r.expected, ["172.22.0.2", "172.22.0.3", "172.22.0.4"]);
        assert.deepEqual(r.expected, listedConductors(plan).map((c) => c.resolved!.env[ENV.conductorHost]).sort());
        // Entries without an address: their conductors' hostnames are known only in their pods.
        assert.deepEqual(readinessPlan(planOf({ ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.2" }, { name: "cp-1" }] }))!.expected, ["172.22.0.2"]);
        assert.deepEqual(readinessPlan(planOf({ ...haRaw, conductors: [] }))!.expected, []);
        assert.deepEqual(r.env, {
            READINESS_MODE: "auto",
            READINESS_API_URL: "https://ironic.metal3.svc:6385",
            READINESS_TLS_NAME: "ironic.metal3.svc",
            READINESS_CONDUCTORS: "172.22.0.2,172.22.0.3,172.22.0.4",
            READINESS_TIMEOUT: "600",
            READINESS_INTERVAL: "5",
            READINESS_KUBE_CONTEXT: "",
            READINESS_NAMESPACE: "metal3",
            READINESS_SERVICE: "ironic",
            READINESS_SERVICE_PORT: "6385",
        });
        assert.ok(plan.certificate.dnsNames.includes(r.env.READINESS_TLS_NAME), "the name checked is one the API certificate carries");
        assert.deepEqual(r.triggers, [plan.images.ironic, "172.22.0.2,172.22.0.3,172.22.0.4"]);
        assert.equal(r.script, fs.readFileSync(path.join(ROOT, "assets", "ironic-readiness.py"), "utf8"));
        assert.equal(READINESS_COMMAND, "python3 -", "the script comes on stdin: no path of this checkout in the state");
    });

    it("single: any one conductor; the settings and the provider's context reach the environment", function () {
        const r = readinessPlan(
            planOf(withKeys(devRaw, { name: "ir", namespace: "bm", ports: { api: 7385 }, kubernetes: { context: "staging-admin" }, readiness: { mode: "port-forward", timeoutSeconds: 120 } })),
        )!;
        assert.deepEqual(r.expected, []);
        assert.equal(r.env.READINESS_CONDUCTORS, "");
        assert.equal(r.env.READINESS_MODE, "port-forward");
        assert.equal(r.env.READINESS_TIMEOUT, "120");
        assert.equal(r.env.READINESS_KUBE_CONTEXT, "staging-admin");
        assert.equal(r.env.READINESS_API_URL, "https://ir.bm.svc:7385");
        assert.equal(r.env.READINESS_TLS_NAME, "ir.bm.svc");
        assert.equal(r.env.READINESS_SERVICE, "ir");
        assert.equal(r.env.READINESS_SERVICE_PORT, "7385");
        assert.equal(r.env.READINESS_NAMESPACE, "bm");
    });

    it("readiness.enabled false: no check", function () {
        assert.equal(readinessPlan(planOf(withKeys(haRaw, { readiness: { enabled: false } }))), undefined);
    });

    it("the program never sets the credentials, the CA or KUBERNETES_SERVICE_HOST in the plain environment", function () {
        const env = readinessPlan(planOf(haRaw))!.env as Record<string, string>;
        for (const k of [READINESS_ENV.username, READINESS_ENV.password, READINESS_ENV.caPem, READINESS_ENV.inCluster]) assert.equal(env[k], undefined, k);
    });

    it("parses the script's stdout into conductorsAlive", function () {
        assert.deepEqual(parseConductorsAlive("172.22.0.2\n172.22.0.3\n"), ["172.22.0.2", "172.22.0.3"]);
        assert.deepEqual(parseConductorsAlive(""), []);
    });

    it("hashes a pod template by content, not by key order; any changed value changes it", function () {
        const a = { metadata: { annotations: { x: "1", y: "2" } }, spec: { containers: [{ name: "ironic", image: "i:1" }] } };
        const b = { spec: { containers: [{ image: "i:1", name: "ironic" }] }, metadata: { annotations: { y: "2", x: "1" } } };
        assert.equal(canonicalJson(a), canonicalJson(b));
        assert.equal(podTemplateHash(a), podTemplateHash(b));
        assert.notEqual(podTemplateHash(a), podTemplateHash({ ...a, spec: { containers: [{ name: "ironic", image: "i:2" }] } }));
        assert.notEqual(podTemplateHash(a), podTemplateHash({ ...a, metadata: { annotations: { x: "1", y: "3" } } }));
        assert.match(podTemplateHash(a), /^[0-9a-f]{64}$/);
    });
});
