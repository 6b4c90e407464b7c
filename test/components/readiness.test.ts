/**
 * The live readiness check under Pulumi mocks (components/readiness.ts): one `local.Command`
 * under a `metal3:ops:Readiness` component, registered after the workload and waiting for it and
 * the API Service, with the plan's environment, the credentials as secrets, the stack CA, and
 * triggers that change with the workload and nothing else. Offline, the mock engine answers it
 * as the script would when every conductor is alive (tools/offline.ts), so `conductorsAlive`
 * resolves in renders; the golden renders hold Kubernetes objects only and do not change.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig } from "../../core/config";
import { podTemplateHash } from "../../core/plan/readiness";
import { containsSecret, RecordedResource, unwrapSecrets, valueOf } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { READINESS_ENV } from "../../core/scripts";

const ROOT = path.join(__dirname, "..", "..");
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
const PASSWORD = "readinessTestPassw0rd";

/** The random provider's answer, with a known password. */
function knownPassword(type: string, _name: string, inputs: Record<string, any>) {
    if (type !== "random:index/randomPassword:RandomPassword") return undefined;
    return { result: PASSWORD, bcryptHash: `(bcrypt of a ${inputs.length}-character password)` };
}

interface Run {
    r: Rendered;
    order: string[];
    parentOf: (name: string) => string;
    dependsOn: (name: string) => string[];
    command: () => RecordedResource;
}

async function render(raw: RawConfig, stack: string): Promise<Run> {
    const order: string[] = [];
    const regs = new Map<string, pulumi.ResourceTransformationArgs>();
    const byResource = new Map<unknown, string>();
    const r = await renderOffline(raw, stack, {
        hook: knownPassword,
        onRegister: (a) => {
            order.push(a.name);
            regs.set(a.name, a);
            byResource.set(a.resource, a.name);
        },
    });
    const reg = (name: string) => {
        const a = regs.get(name);
        assert.ok(a, `${name} registered; have ${order.join(", ")}`);
        return a!;
    };
    return {
        r,
        order,
        parentOf: (name) => byResource.get(reg(name).opts.parent) ?? "?",
        dependsOn: (name) => {
            const deps = reg(name).opts.dependsOn;
            return (Array.isArray(deps) ? deps : deps ? [deps] : []).map((d) => byResource.get(d) ?? "?");
        },
        command: () => {
            const c = r.resources.filter((x) => x.type === "command:local:Command");
            assert.equal(c.length, 1, "one readiness Command");
            return c[0];
        },
    };
}

const templateOf = (r: Rendered, kind: string) => r.objects.find((o) => o.kind === kind)!.spec.template;

describe("live readiness (components/readiness.ts) under mocks", function () {
    this.timeout(60000);
    let dev: Run;
    let ha: Run;

    before(async function () {
        dev = await render(devRaw, "dev");
        ha = await render(haRaw, "ha");
    });

    it("single: a Command under metal3:ops:Readiness, registered after the Deployment, waiting for it and the API Service", function () {
        assert.equal(dev.parentOf("ironic-readiness"), "ironic");
        assert.equal(dev.parentOf("ironic-readiness-check"), "ironic-readiness");
        assert.deepEqual(dev.dependsOn("ironic-readiness-check"), ["ironic-ironic-deployment", "ironic-ironic-service"]);
        assert.ok(dev.order.indexOf("ironic-readiness-check") > dev.order.indexOf("ironic-ironic-deployment"));
        assert.ok(dev.order.indexOf("ironic-readiness-check") > dev.order.indexOf("ironic-ironic-service"));
    });

    it("multi: waits for the DaemonSet and the Service", function () {
        assert.deepEqual(ha.dependsOn("ironic-readiness-check"), ["ironic-conductors-daemonset", "ironic-conductors-service"]);
        assert.ok(ha.order.indexOf("ironic-readiness-check") > ha.order.indexOf("ironic-conductors-daemonset"));
    });

    it("runs the script from stdin with the plan's environment; the credentials are secrets, the CA is the stack CA", async function () {
        const c = dev.command();
        const inputs = unwrapSecrets(c.rawInputs);
        assert.equal(inputs.create, "python3 -");
        assert.equal(inputs.stdin, fs.readFileSync(path.join(ROOT, "assets", "ironic-readiness.py"), "utf8"));
        assert.equal(inputs.addPreviousOutputInEnv, false);
        // Pulumi keeps secrecy per top-level property: the credentials make the whole environment secret.
        assert.ok(containsSecret(c.rawInputs.environment), "the environment (with the credentials) is secret");
        assert.ok(!containsSecret(c.rawInputs.triggers) && !containsSecret(c.rawInputs.create), "what decides a re-run stays visible in previews");
        const plain = unwrapSecrets(c.rawInputs.environment);
        const names = Object.values(READINESS_ENV).filter((n) => n !== READINESS_ENV.inCluster);
        assert.deepEqual(Object.keys(plain).sort(), [...names].sort(), "exactly the READINESS_ENV variables (KUBERNETES_SERVICE_HOST is Kubernetes' to set)");
        assert.equal(plain.READINESS_PASSWORD, PASSWORD);
        assert.equal(plain.READINESS_USERNAME, "metal3");
        assert.equal(plain.READINESS_CA_PEM, await valueOf(dev.r.outputs.caCertificate));
        assert.equal(plain.READINESS_API_URL, "https://ironic.metal3.svc:6385");
        assert.equal(plain.READINESS_CONDUCTORS, "");
        const visible = JSON.stringify({ ...inputs, environment: undefined });
        assert.ok(!visible.includes(PASSWORD), "the password is nowhere but in the secret environment");
        const off = await render({ ...devRaw, readiness: { enabled: false } }, "dev");
        assert.ok(!JSON.stringify(off.r.resources.filter((x) => x.type !== "kubernetes:core/v1:Secret").map((x) => unwrapSecrets(x.rawInputs))).includes(PASSWORD));
    });

    it("triggers: the image, the conductors and the hash of the pod template the workload got", function () {
        assert.deepEqual(unwrapSecrets(dev.command().rawInputs.triggers), ["quay.io/metal3-io/ironic:v38.0.0", "", podTemplateHash(templateOf(dev.r, "Deployment"))]);
        assert.deepEqual(unwrapSecrets(ha.command().rawInputs.triggers), [
            "quay.io/metal3-io/ironic:v38.0.0",
            "172.22.0.2,172.22.0.3,172.22.0.4",
            podTemplateHash(templateOf(ha.r, "DaemonSet")),
        ]);
    });

    it("re-runs when the workload changes, not by itself: same stack, same triggers; image, conductors or template change them", async function () {
        const triggers = async (raw: RawConfig) => unwrapSecrets((await render(raw, "ha")).command().rawInputs.triggers) as string[];
        const base = unwrapSecrets(ha.command().rawInputs.triggers) as string[];
        assert.deepEqual(await triggers(haRaw), base, "a second run: nothing changes (no timestamps)");
        const image = await triggers({ ...haRaw, images: { ironic: "quay.io/metal3-io/ironic:release-39.0" } });
        assert.notEqual(image[0], base[0]);
        assert.notEqual(image[2], base[2], "the image is in the pod template too");
        const conductors = [...(haRaw.conductors as object[]), { name: "cp-3", ip: "172.22.0.5" }];
        const added = await triggers({ ...haRaw, conductors });
        assert.equal(added[1], "172.22.0.2,172.22.0.3,172.22.0.4,172.22.0.5");
        const config = await triggers({ ...haRaw, ironic: { ...(haRaw.ironic as object), config: { "conductor.deploy_callback_timeout": 1800 } } });
        assert.deepEqual([config[0], config[1]], [base[0], base[1]]);
        assert.notEqual(config[2], base[2], "an ironic.conf option changes the pod template");
        assert.deepEqual(await triggers({ ...haRaw, readiness: { timeoutSeconds: 60 } }), base, "the check's own settings are no trigger (they change its environment)");
    });

    it("conductorsAlive: offline, the expected hostnames (multi) or a placeholder (single)", async function () {
        assert.deepEqual(await valueOf(ha.r.outputs.conductorsAlive!), ["172.22.0.2", "172.22.0.3", "172.22.0.4"]);
        assert.deepEqual(await valueOf(dev.r.outputs.conductorsAlive!), ["(the conductor's host name: known at deploy time)"]);
    });

    it("readiness.enabled false: no Command, no component, no conductorsAlive output; the Kubernetes objects are the same", async function () {
        const off = await render({ ...haRaw, readiness: { enabled: false } }, "ha");
        assert.ok(!off.r.resources.some((x) => x.type.startsWith("command:")));
        assert.ok(!off.order.includes("ironic-readiness"));
        assert.ok(!("conductorsAlive" in off.r.outputs));
        assert.deepEqual(off.r.objects, ha.r.objects);
    });
});
