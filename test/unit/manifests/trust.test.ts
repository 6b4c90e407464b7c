/** core/plan/trust.ts and core/manifests/trust.ts: Ironic's BMC and trusted CA bundles in the plan and in the Ironic pods. */
import { strict as assert } from "assert";

import { ironicPodSpec } from "../../../core/manifests/ironic";
import { ironicTrust } from "../../../core/manifests/trust";
import { osloSettings } from "../../../core/plan";
import { trustBundles } from "../../../core/plan/trust";
import { userConfigMaps, userSecrets } from "../../../core/plan/secrets";
import { configOf, devRaw, haRaw, planOf, withKeys } from "../plan/support";

const verify = (raw: Record<string, unknown>) => osloSettings(configOf(raw)).filter(([, o]) => /verify_ca/.test(o));

describe("plan/trust: the bundles and Ironic's settings", function () {
    it("nothing without trust.bmcCa/trustedCa: the IPA cache's bundle stays webserver_verify_ca, no redfish setting", function () {
        assert.deepEqual(trustBundles(configOf(devRaw)), []);
        assert.deepEqual(verify(devRaw), [["DEFAULT", "webserver_verify_ca", "/certs/ipa-cache/ca-bundle.crt"]]);
        assert.equal(ironicTrust(planOf(devRaw)), undefined);
    });

    it("trust.bmcCa: [redfish]verify_ca names the pod's bundle built from /certs/ca/bmc/<key>", function () {
        const raw = withKeys(devRaw, { trust: { bmcCa: { secret: "bmc-ca", key: "vendor.pem" } } });
        assert.deepEqual(trustBundles(configOf(raw)), [{ key: "trust.bmcCa", output: "/certs/metal3-ironic-trust/bmc-ca-bundle.crt", inputs: ["/certs/ca/bmc/vendor.pem"] }]);
        assert.deepEqual(verify(raw), [
            ["DEFAULT", "webserver_verify_ca", "/certs/ipa-cache/ca-bundle.crt"],
            ["redfish", "verify_ca", "/certs/metal3-ironic-trust/bmc-ca-bundle.crt"],
        ]);
    });

    it("trust.trustedCa: one webserver_verify_ca, the trusted bundle, which also holds the IPA cache's CA", function () {
        const raw = withKeys(devRaw, { trust: { trustedCa: { configMap: "corp-pki" } } });
        assert.deepEqual(trustBundles(configOf(raw)), [{ key: "trust.trustedCa", output: "/certs/metal3-ironic-trust/trusted-ca-bundle.crt", inputs: ["/certs/ca/trusted/ca.crt", "/certs/ipa-cache-ca/ca.crt"] }]);
        assert.deepEqual(verify(raw), [["DEFAULT", "webserver_verify_ca", "/certs/metal3-ironic-trust/trusted-ca-bundle.crt"]]);
        // Without a cache CA (mode none with your own URLs) only your CA is added.
        const none = withKeys(raw, { imageCache: { mode: "none", kernelUrl: { x86_64: "https://images.corp/k" }, ramdiskUrl: { x86_64: "https://images.corp/r" } } });
        assert.deepEqual(trustBundles(configOf(none))[0].inputs, ["/certs/ca/trusted/ca.crt"]);
    });

    it("the user's ConfigMaps and Secrets are listed as theirs (never written, name clashes refused)", function () {
        const plan = planOf(withKeys(devRaw, { trust: { bmcCa: { configMap: "bmc-ca" }, trustedCa: { secret: "corp-pki" } } }));
        assert.deepEqual(userConfigMaps(plan), [{ key: "trust.bmcCa.configMap", name: "bmc-ca" }]);
        assert.ok(userSecrets(plan).some((s) => s.key === "trust.trustedCa.secret" && s.name === "corp-pki"));
    });
});

describe("manifests/trust: the Ironic pods with trust.bmcCa and trust.trustedCa", function () {
    for (const [stack, base] of [["single", devRaw], ["multi", haRaw]] as const) {
        it(`${stack}: init ca-bundles, sidecar ca-bundles-watch, the CAs read-only where the image expects them, the bundles read-only in ironic`, function () {
            const plan = planOf(withKeys(base, { trust: { bmcCa: { configMap: "bmc-ca" }, trustedCa: { secret: "corp-pki", key: "bundle.pem" } } }));
            const spec = ironicPodSpec(plan) as any;
            const init = spec.initContainers.find((c: any) => c.name === "ca-bundles");
            const watch = spec.containers.find((c: any) => c.name === "ca-bundles-watch");
            assert.ok(init && watch);
            assert.deepEqual(init.command.slice(0, 2), ["/bin/bash", "-c"]);
            assert.deepEqual(watch.command.slice(-1), ["--watch"]);
            assert.deepEqual(init.command.slice(2, 3), watch.command.slice(2, 3), "one script for both");
            const env = Object.fromEntries(init.env.map((e: any) => [e.name, e.value]));
            assert.equal(env.CA_BUNDLES, "/certs/metal3-ironic-trust/bmc-ca-bundle.crt /certs/ca/bmc/ca.crt\n/certs/metal3-ironic-trust/trusted-ca-bundle.crt /certs/ca/trusted/bundle.pem /certs/ipa-cache-ca/ca.crt");
            assert.deepEqual(init.volumeMounts, [
                { name: "ca-bundles", mountPath: "/certs/metal3-ironic-trust" },
                { name: "bmc-ca", mountPath: "/certs/ca/bmc", readOnly: true },
                { name: "trusted-ca", mountPath: "/certs/ca/trusted", readOnly: true },
                { name: "ipa-cache-ca", mountPath: "/certs/ipa-cache-ca", readOnly: true },
            ]);
            assert.deepEqual(watch.volumeMounts, init.volumeMounts);
            for (const c of [init, watch]) {
                assert.equal(c.securityContext.readOnlyRootFilesystem, true);
                assert.ok(c.resources.limits.memory);
            }
            const ironic = spec.containers.find((c: any) => c.name === "ironic");
            for (const m of [{ name: "ca-bundles", mountPath: "/certs/metal3-ironic-trust", readOnly: true }, { name: "bmc-ca", mountPath: "/certs/ca/bmc", readOnly: true }]) assert.ok(ironic.volumeMounts.some((x: any) => JSON.stringify(x) === JSON.stringify(m)), JSON.stringify(m));
            const ienv = Object.fromEntries(ironic.env.filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value]));
            assert.equal(ienv.OS_REDFISH__VERIFY_CA, "/certs/metal3-ironic-trust/bmc-ca-bundle.crt");
            assert.equal(ienv.OS_DEFAULT__WEBSERVER_VERIFY_CA, "/certs/metal3-ironic-trust/trusted-ca-bundle.crt");
            // Projected without subPath (the kubelet updates such mounts in place), and never written by the program.
            const vol = (n: string) => spec.volumes.find((v: any) => v.name === n);
            assert.deepEqual(vol("bmc-ca"), { name: "bmc-ca", configMap: { name: "bmc-ca", items: [{ key: "ca.crt", path: "ca.crt" }] } });
            assert.deepEqual(vol("trusted-ca").secret.secretName, "corp-pki");
            assert.deepEqual(vol("ca-bundles"), { name: "ca-bundles", emptyDir: {} });
            for (const c of [...spec.initContainers, ...spec.containers]) for (const m of c.volumeMounts ?? []) if (["bmc-ca", "trusted-ca"].includes(m.name)) assert.equal(m.subPath, undefined);
        });
    }
});
