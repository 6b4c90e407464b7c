/**
 * tls.mode "existing" in topology "multi" (the corporate PKI): httpd serves the user's API
 * certificate; each conductor's ironic container mints its JSON-RPC certificate at start, from the
 * user's conductor CA (tls.conductorCaSecret: mounted by name and never read, so its key never
 * reaches Pulumi) or, without one, from a root the stack makes that only the JSON-RPC peers trust.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { PATHS } from "../../core/contract";
import { CONDUCTOR_PATHS, WRAPPER_ENV } from "../../core/conductor-wrapper";
import { containsSecret, unwrapSecrets } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";

const fixtureRaw = readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.tls-existing-ha.yaml"));
/** The fixture with a CA of the user's PKI for the conductors. */
const withUserCa = { ...fixtureRaw, tls: { ...(fixtureRaw.tls as object), conductorCaSecret: "my-conductor-ca" } };

const pem = (kind: string, body: string) => `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----\n`;
const USER_CA = pem("CERTIFICATE", "TUlJQnVzZXJDQWZvcnRoZXRlc3Q=");
const USER_CERT = pem("CERTIFICATE", "TUlJQnVzZXJsZWFmZm9ydGhldGVzdA==");
const USER_KEY = pem("PRIVATE KEY", "TUlJRXVzZXJrZXlmb3J0aGV0ZXN0");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

/** Answers the read of my-tls only: a read of the conductor CA Secret would find nothing. */
function userSecret(type: string, id: string) {
    if (type !== "kubernetes:core/v1:Secret" || id !== "metal3/my-tls") return undefined;
    const data = { "tls.crt": USER_CERT, "tls.key": USER_KEY, "ca.crt": USER_CA };
    return { apiVersion: "v1", kind: "Secret", metadata: { name: "my-tls", namespace: "metal3" }, type: "kubernetes.io/tls", data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) };
}

for (const userCa of [true, false]) {
describe(`tls.mode existing in multi, ${userCa ? "with the user's conductor CA (tls.conductorCaSecret)" : "with only the user's certificate"} (pulumi mocks)`, function () {
    this.timeout(60000);
    let r: Rendered;
    let spec: any;
    const container = (name: string) => spec.containers.find((c: any) => c.name === name);
    const mountsOf = (name: string) => Object.fromEntries(container(name).volumeMounts.map((m: any) => [m.mountPath, m]));
    const envOf = (name: string) => Object.fromEntries(container(name).env.map((e: any) => [e.name, e.value]));
    const volume = (name: string) => spec.volumes.find((v: any) => v.name === name);
    const conductorCaSecret = userCa ? "my-conductor-ca" : "ironic-conductor-ca";

    before(async function () {
        r = await renderOffline(userCa ? withUserCa : fixtureRaw, "tls-existing-ha", { existing: userSecret });
        spec = r.objects.find((o) => o.kind === "DaemonSet" && o.metadata.name === "ironic")!.spec.template.spec;
    });

    it(`reads only the user's API Secret${userCa ? ", never the conductor CA Secret," : ""} and writes no Secret of the user's`, function () {
        assert.deepEqual(r.reads.map((x) => `${x.type} ${x.id}`), ["kubernetes:core/v1:Secret metal3/my-tls"]);
        for (const x of r.resources) assert.ok(!["my-tls", "my-conductor-ca"].includes(x.rawInputs?.metadata?.name), `${x.type} ${x.name} writes a Secret of the user's`);
        const own = r.resources.filter((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs?.metadata?.name === "ironic-conductor-ca");
        assert.equal(own.length, userCa ? 0 : 1, "a conductor CA of the program's only without the user's");
        assert.ok(!r.resources.some((x) => x.type.startsWith("tls:") && /ironic-api/.test(x.name)), "no tls: resource for an API certificate");
        // Nothing registered carries the user's key: it stays in the user's Secret.
        const everything = JSON.stringify(r.resources.map((x) => unwrapSecrets(x.rawInputs)));
        assert.ok(!everything.includes("TUlJRXVzZXJrZXlmb3J0aGV0ZXN0"), "the user's API key is in no registered resource");
    });

    it("BMO's CA Secret and the API's trust are the ca.crt of the user's Secret", function () {
        const ca = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs?.metadata?.name === "ironic-cacert")!;
        assert.deepEqual(unwrapSecrets(ca.rawInputs.stringData), { "tls.crt": USER_CA });
        assert.equal(volume("ca").secret.secretName, "ironic-cacert");
        assert.equal(mountsOf("ironic")[PATHS.certsIronicCa].name, "ca");
    });

    it("httpd serves the user's certificate for the API and virtual media, and mounts no conductor CA key", function () {
        assert.deepEqual(volume("tls").secret, { secretName: "my-tls", items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }] });
        const httpd = mountsOf("httpd");
        assert.equal(httpd[PATHS.certsIronic].name, "tls");
        assert.equal(httpd[PATHS.certsVmedia].name, "tls");
        assert.ok(!httpd[CONDUCTOR_PATHS.conductorCa], "httpd never sees the conductor CA's key");
        assert.equal(envOf("httpd")[WRAPPER_ENV.certDirs], undefined, "nothing is minted for httpd");
    });

    it(`conductor-certs mints the ironic container's JSON-RPC certificate from ${userCa ? "the user's conductor CA, checked against the user's CA" : "the stack's conductor root, which its peers alone trust for JSON-RPC"}`, function () {
        assert.deepEqual(volume("conductor-ca").secret, { secretName: conductorCaSecret, items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }], defaultMode: 0o440 });
        const ironic = mountsOf("ironic");
        assert.equal(ironic[PATHS.certsIronic].name, "ironic-certs", "a writable emptyDir the wrapper copies the minted pair into");
        assert.ok(!ironic[PATHS.certsIronic].readOnly);
        assert.equal(ironic[PATHS.certsVmedia].name, "tls", "the user's certificate, so that the image hands BMCs the TLS virtual-media URL");
        assert.ok(!ironic[CONDUCTOR_PATHS.conductorCa], "the ironic container never sees the conductor CA's key");
        assert.deepEqual([ironic[CONDUCTOR_PATHS.minted].name, ironic[CONDUCTOR_PATHS.minted].readOnly], ["minted-certs", true]);
        assert.equal(mountsOf("conductor-certs")[CONDUCTOR_PATHS.conductorCa].name, "conductor-ca");
        const env = envOf("ironic");
        assert.equal(env[WRAPPER_ENV.certDirs], PATHS.certsIronic);
        assert.equal(env[WRAPPER_ENV.mintedDir], CONDUCTOR_PATHS.minted);
        // With the user's CA the peers verify against ca.crt (the image's default [json_rpc]cafile), and the minter checks the chain.
        assert.equal(envOf("conductor-certs")[WRAPPER_ENV.caTrust], userCa ? `${PATHS.certsIronicCa}/tls.crt` : undefined);
        // The bundle that chain check reads, mounted where it reads it.
        assert.equal(mountsOf("conductor-certs")[PATHS.certsIronicCa]?.name, userCa ? "ca" : undefined);
        assert.equal(env[WRAPPER_ENV.caTrust], undefined);
        assert.equal(env.OS_JSON_RPC__CAFILE, userCa ? undefined : `${CONDUCTOR_PATHS.conductorCaCert}/tls.crt`);
        // The root's certificate, not its key, where the JSON-RPC client reads it.
        if (!userCa) assert.deepEqual([ironic[CONDUCTOR_PATHS.conductorCaCert].name, volume("conductor-ca-cert").secret], ["conductor-ca-cert", { secretName: conductorCaSecret, items: [{ key: "tls.crt", path: "tls.crt" }] }]);
        else assert.equal(ironic[CONDUCTOR_PATHS.conductorCaCert], undefined);
        assert.equal(envOf("httpd")[WRAPPER_ENV.caTrust], undefined);
        assert.equal(envOf("httpd").OS_JSON_RPC__CAFILE, undefined);
    });

    it(`the stack CA signs only MariaDB's and the IPA cache's certificates${userCa ? "" : "; the conductor root is a CA of its own, its key a secret"}`, function () {
        const names = r.resources.filter((x) => x.type === "tls:index/certRequest:CertRequest").map((x) => x.inputs.dnsNames[0]).sort();
        assert.deepEqual(names, ["ironic-ipa-cache", "ironic-mariadb"]);
        const roots = r.resources.filter((x) => x.type === "tls:index/selfSignedCert:SelfSignedCert").map((x) => x.inputs.subject.commonName).sort();
        assert.deepEqual(roots, userCa ? ["metal3-ironic metal3/ironic CA"] : ["metal3-ironic metal3/ironic CA", "metal3/ironic conductor CA"]);
        if (!userCa) {
            const secret = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs?.metadata?.name === "ironic-conductor-ca")!;
            // A Secret's data is secret as a whole (Pulumi marks the object holding a secret value).
            assert.ok(containsSecret(secret.rawInputs.stringData), "the key is a secret input");
            assert.deepEqual(Object.keys(unwrapSecrets(secret.rawInputs.stringData)).sort(), ["tls.crt", "tls.key"]);
            assert.equal(secret.rawInputs.type, "kubernetes.io/tls");
        }
    });
});
}
