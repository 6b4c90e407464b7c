/**
 * Config set with `pulumi config set --secret` stays secret end to end (components/secret-config.ts):
 * a value that reaches a container's environment is read from the Secret <name>-config-secrets
 * (components/config-secrets.ts), every other resource property and stack output that carries
 * the value is a secret, and nothing the engine would store or print in clear holds it.
 */
import { strict as assert } from "assert";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig } from "../../core/config";
import { carries, maskProps, secretNeedles } from "../../components/secret-config";
import { containsSecret, unwrapSecrets, valueOf } from "../../tools/offline";
import { renderOffline, readStackConfig } from "../../tools/render";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const SECRET = "s3cr3t-callback-token";

describe("config set with --secret stays secret", function () {
    this.timeout(120000);
    // Only the secret under `ironic` (the CLI reports secrecy per top-level key: see the last test).
    const raw: RawConfig = { ...devRaw, ironic: { config: { "conductor.deploy_callback_timeout": 1800, "deploy.erase_devices_priority": SECRET } } };

    it("plain config: the value reaches the pod environment in clear (what the test below must change)", async function () {
        const r = await renderOffline(raw, "dev");
        const dep = r.resources.find((x) => x.type === "kubernetes:apps/v1:Deployment" && x.rawInputs?.metadata?.name === "ironic")!;
        assert.equal(containsSecret(dep.rawInputs.spec), false);
        assert.match(JSON.stringify(dep.inputs), new RegExp(SECRET));
    });

    it("secret config: it is in the Secret <name>-config-secrets only, the Deployment reads it by reference and stays in clear; no recorded input shows it", async function () {
        const r = await renderOffline(raw, "dev", { secretKeys: ["ironic"] });
        const carrying = r.resources.filter((x) => JSON.stringify(unwrapSecrets(x.rawInputs)).includes(SECRET));
        assert.ok(carrying.length >= 1, "the value is deployed");
        for (const res of carrying) {
            for (const [k, v] of Object.entries(res.rawInputs)) {
                if (JSON.stringify(unwrapSecrets(v)).includes(SECRET)) assert.equal(containsSecret(v), true, `${res.type} ${res.name}: ${k} must be a secret`);
            }
            assert.doesNotMatch(JSON.stringify(res.inputs), new RegExp(SECRET), `${res.type} ${res.name}`);
        }
        assert.deepEqual(carrying.map((x) => `${x.type} ${x.rawInputs.metadata?.name}`), ["kubernetes:core/v1:Secret ironic-config-secrets"], "only the Secret holds it");
        // The Deployment stays readable in a preview: the env entry names the Secret and its key.
        const dep = r.resources.find((x) => x.type === "kubernetes:apps/v1:Deployment" && JSON.stringify(unwrapSecrets(x.rawInputs.metadata)).includes('"name":"ironic"'))!;
        assert.equal(containsSecret(dep.rawInputs.metadata), false, "metadata stays plain");
        assert.equal(containsSecret(dep.rawInputs.spec), false, "the spec stays plain");
        // An Ironic option: in the Secret's config file (test/components/secret-env.test.ts), no env entry.
        const env = dep.rawInputs.spec.template.spec.containers.find((c: any) => c.name === "ironic").env;
        assert.equal(env.find((e: any) => e.name === "OS_DEPLOY__ERASE_DEVICES_PRIORITY"), undefined);
        // No rendered file shows it.
        for (const f of r.files) assert.doesNotMatch(f.content, new RegExp(SECRET), f.name);
    });

    it("a secret key whose value reaches a stack output makes that output secret", async function () {
        const r = await renderOffline({ ...devRaw, namespace: "ironic-secret-ns" }, "dev", { secretKeys: ["namespace"] });
        assert.equal(await pulumi.isSecret(r.outputs.topology), true, "topology names the namespace");
        assert.equal(await pulumi.isSecret(r.outputs.ironicImage), false, "the image does not carry it");
        assert.equal((await valueOf(r.outputs.topology) as { namespace: string }).namespace, "ironic-secret-ns");
    });

    it("secrecy is per top-level key: every string under it counts, so a plain value beside the secret is a needle too", function () {
        const needles = secretNeedles({ ...raw, ironic: { ...(raw.ironic as object), apiUsername: "bmo-operator" } }, ["ironic"]);
        assert.deepEqual([...needles].sort(), ["bmo-operator", SECRET].sort());
    });

    it("a string the config states in clear under a key that is not secret is no needle (the namespace beside ironic.apiUsername)", async function () {
        assert.deepEqual(secretNeedles({ namespace: "metal3", ironic: { apiUsername: "metal3", config: { "x.y": SECRET } } }, ["ironic"]), [SECRET]);
        const r = await renderOffline({ ...raw, ironic: { ...(raw.ironic as object), apiUsername: "metal3" } }, "dev", { secretKeys: ["ironic"] });
        const ns = r.resources.find((x) => x.type === "kubernetes:core/v1:Namespace")!;
        assert.equal(containsSecret(ns.rawInputs.metadata), false, "namespace: metal3 is stated in clear: every object's metadata stays readable");
        const dep = r.resources.find((x) => x.type === "kubernetes:apps/v1:Deployment" && JSON.stringify(unwrapSecrets(x.rawInputs.metadata)).includes('"name":"ironic"'))!;
        assert.equal(containsSecret(dep.rawInputs.spec), false, "the spec reads the secret from its Secret: in clear");
    });

    it("with the stack file: a string of a secret key is public only where the file states the same string at the same path (fails closed)", function () {
        const stated: RawConfig = { namespace: "metal3", ironic: { apiUsername: "metal3", kernelParams: "console=ttyS0", config: { "redfish.password": null }, list: ["first-item"] }, token: null };
        const needles = (ironic: object, token = "tok-12345") => secretNeedles({ namespace: "metal3", ironic, token }, ["ironic", "token"], stated).sort();
        assert.deepEqual(needles({ apiUsername: "metal3", kernelParams: "console=ttyS0", config: { "redfish.password": SECRET }, list: ["first-item"] }), [SECRET, "tok-12345"]);
        assert.deepEqual(needles({ apiUsername: "metal3", kernelParams: "console=ttyS1", config: { "redfish.password": SECRET } }), [SECRET, "console=ttyS1", "tok-12345"].sort(), "stated otherwise (a stale file): secret");
        assert.deepEqual(needles({ config: { "redfish.password": SECRET, "x.y": "not-in-file" } }), [SECRET, "not-in-file", "tok-12345"].sort(), "not in the file: secret");
        assert.deepEqual(needles({ list: { 0: "first-item" } }), ["first-item", "tok-12345"], "an object where the file has a list: not the same path");
        assert.deepEqual(secretNeedles({ token: "tok-12345" }, ["token"], { token: "tok-12345" }), ["tok-12345"], "a key that is one value is secret whole, whatever the file says");
        assert.deepEqual(secretNeedles({ ironic: { a: "value-a" } }, ["ironic"], {}), ["value-a"], "a key the file lacks: all of it");
    });

    it("needles: string leaves of secret keys only, long enough not to match by accident, JSON-escaped", function () {
        const needles = secretNeedles({ a: { x: 'pa"ss\\word', y: 42, z: true, w: "abc" }, b: "not-secret-value" }, ["a"]);
        assert.deepEqual(needles, ['pa\\"ss\\\\word']);
        assert.equal(carries({ env: [{ value: 'pa"ss\\word' }] }, needles), true);
        assert.equal(carries({ env: [{ value: "password" }] }, needles), false);
        assert.equal(maskProps({ a: 1, b: "x" }, needles), undefined, "nothing to mask: the props are left alone");
    });
});
