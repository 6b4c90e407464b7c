/**
 * tls.mode "cert-manager": the rendered Certificate objects validated against cert-manager's own
 * CRD schema (cert-manager.io_certificates.yaml of its Go module, pinned in
 * test/helpers/cert-manager.ts, downloaded through the Go module proxy into a cache outside the
 * repository; a failed download fails here, naming why) with ajv as the API server validates
 * (strict unknown fields), and the stack wired to them: no stack CA, no certificate Secret or key
 * written by this program, every Secret a Certificate writes mounted where the pods read it.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import type { ErrorObject, ValidateFunction } from "ajv";

import { RawConfig, validateConfig } from "../../core/config";
import { PATHS } from "../../core/contract";
import { CONDUCTOR_PATHS, WRAPPER_ENV } from "../../core/conductor-wrapper";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { CERT_MANAGER_MODULE, CERT_MANAGER_VERSION, certManagerCrd, certManagerModuleDir } from "../helpers/cert-manager";
import { tmpDir } from "../helpers/sys";
import { kubernetesAjv, strictUnknownFields } from "../helpers/crd-schema";

const ROOT = path.join(__dirname, "..", "..");
const fixtureRaw = readStackConfig(path.join(ROOT, "test", "fixtures", "Pulumi.cert-manager.yaml"));
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
const singleRaw: RawConfig = { ...devRaw, tls: { mode: "cert-manager", issuer: { name: "metal3-ca" } }, database: { kind: "mariadb" }, readiness: { enabled: false } };

const errorsOf = (errors: ErrorObject[] | null | undefined) => (errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.keyword === "additionalProperties" ? `: ${e.params.additionalProperty}` : ""}`);
const certificates = (r: Rendered) => r.objects.filter((o) => o.kind === "Certificate");

describe(`tls.mode cert-manager: Certificates against cert-manager's CRD schema (${CERT_MANAGER_MODULE}@${CERT_MANAGER_VERSION})`, function () {
    this.timeout(360000);
    let validate: ValidateFunction;
    let multi: Rendered;
    let single: Rendered;

    before(async function () {
        // Downloads the module on first use (then the cache answers); a failure fails the suite, naming why.
        const { schema, crd } = certManagerCrd("cert-manager.io_certificates.yaml");
        assert.equal(crd.spec.group, "cert-manager.io");
        assert.equal(crd.spec.names.kind, "Certificate");
        validate = kubernetesAjv().compile(strictUnknownFields(schema));
        multi = await renderOffline(fixtureRaw, "cert-manager");
        single = await renderOffline(singleRaw, "dev");
    });

    it("every rendered Certificate (multi: API, virtual media, conductor CA, MariaDB, IPA cache; single: all but the conductor CA) is valid", function () {
        const names = (r: Rendered) => certificates(r).map((o) => o.metadata.name).sort();
        assert.deepEqual(names(multi), ["ironic-conductor-ca", "ironic-ipa-cache-tls", "ironic-mariadb-tls", "ironic-tls", "ironic-vmedia-tls"]);
        assert.deepEqual(names(single), ["ironic-ipa-cache-tls", "ironic-mariadb-tls", "ironic-tls", "ironic-vmedia-tls"]);
        for (const o of [...certificates(multi), ...certificates(single)]) {
            assert.equal(o.apiVersion, "cert-manager.io/v1");
            assert.ok(validate(o), `${o.metadata.name}: ${errorsOf(validate.errors).join("; ")}`);
        }
    });

    it("the check can fail: a misspelled field, a wrong type and an unknown usage are each rejected", function () {
        const base = certificates(multi)[0];
        const variants: [string, (o: any) => void, RegExp][] = [
            ["misspelled field", (o) => (o.spec.dnsName = o.spec.dnsNames), /additionalProperties: dnsName|must NOT have additional properties/],
            ["key size as a string", (o) => (o.spec.privateKey.size = "3072"), /\/spec\/privateKey\/size must be integer/],
            ["unknown usage", (o) => (o.spec.usages = ["server-auth"]), /\/spec\/usages\/0 must be equal to one of the allowed values/],
            ["no issuer name", (o) => delete o.spec.issuerRef.name, /must have required property 'name'/],
        ];
        for (const [what, change, expected] of variants) {
            const o = structuredClone(base);
            change(o);
            assert.ok(!validate(o), `${what}: accepted`);
            assert.match(errorsOf(validate.errors).join("; "), expected, what);
        }
    });

    it("names the issuer, the stack's validity and renewal; the conductor CA is a CA, the others serve and verify", function () {
        const byName = Object.fromEntries(certificates(multi).map((o) => [o.metadata.name, o.spec]));
        for (const spec of Object.values<any>(byName)) {
            assert.deepEqual(spec.issuerRef, { name: "corp-ca", kind: "ClusterIssuer", group: "cert-manager.io" });
            assert.equal(spec.duration, "2160h0m0s");
            assert.equal(spec.renewBefore, "720h0m0s");
            assert.equal(spec.privateKey.rotationPolicy, "Always");
        }
        assert.equal(byName["ironic-conductor-ca"].isCA, true);
        assert.deepEqual(byName["ironic-conductor-ca"].usages, ["cert sign", "crl sign", "digital signature"]);
        assert.deepEqual(byName["ironic-tls"].ipAddresses, ["172.22.0.2", "172.22.0.3", "172.22.0.4"], "every listed conductor's address (IPA and BMCs dial it)");
        assert.ok(byName["ironic-tls"].dnsNames.includes("ironic.metal3.svc"));
        assert.deepEqual(byName["ironic-vmedia-tls"].ipAddresses, byName["ironic-tls"].ipAddresses);
        assert.ok(byName["ironic-mariadb-tls"].dnsNames.includes("ironic-mariadb.metal3.svc"));
        assert.ok(byName["ironic-ipa-cache-tls"].dnsNames.includes("ironic-ipa-cache.metal3.svc"));
        assert.equal(single.objects.find((o) => o.kind === "Certificate" && o.metadata.name === "ironic-tls")!.spec.ipAddresses[0], "172.22.0.2", "single: provisioning.ip");
    });

    it("no stack CA, no key and no certificate Secret of this program's; nothing is read", function () {
        for (const r of [multi, single]) {
            assert.deepEqual(r.resources.filter((x) => x.type.startsWith("tls:")).map((x) => x.name), []);
            assert.deepEqual(r.reads, []);
            const secrets = r.objects.filter((o) => o.kind === "Secret").map((o) => o.metadata.name);
            for (const c of certificates(r)) assert.ok(!secrets.includes(c.spec.secretName), `${c.spec.secretName} is cert-manager's to write`);
            assert.ok(!secrets.includes("ironic-cacert"), "no CA Secret: the CA is the issuer's, in ca.crt of each Secret");
        }
    });

    it("multi: httpd serves the API and virtual-media Secrets; conductor-certs mints the ironic container's JSON-RPC certificate from the conductor CA Certificate, checked against the issuer's ca.crt", function () {
        const spec = multi.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec;
        const vol = (name: string) => spec.volumes.find((v: any) => v.name === name)?.secret;
        const mounts = (c: string) => Object.fromEntries(spec.containers.find((x: any) => x.name === c).volumeMounts.map((m: any) => [m.mountPath, m.name]));
        const env = (c: string) => Object.fromEntries(spec.containers.find((x: any) => x.name === c).env.map((e: any) => [e.name, e.value]));
        assert.equal(vol("tls").secretName, "ironic-tls");
        assert.deepEqual(vol("ca"), { secretName: "ironic-tls", items: [{ key: "ca.crt", path: "tls.crt" }] });
        assert.equal(vol("vmedia-tls").secretName, "ironic-vmedia-tls");
        assert.equal(vol("conductor-ca").secretName, "ironic-conductor-ca");
        assert.equal(mounts("httpd")[PATHS.certsIronic], "tls");
        assert.equal(mounts("httpd")[PATHS.certsVmedia], "vmedia-tls");
        assert.equal(mounts("httpd")[CONDUCTOR_PATHS.conductorCa], undefined);
        assert.equal(mounts("ironic")[PATHS.certsIronic], "ironic-certs");
        assert.equal(mounts("ironic")[PATHS.certsVmedia], "vmedia-tls");
        assert.equal(mounts("ironic")[CONDUCTOR_PATHS.conductorCa], undefined);
        assert.equal(mounts("conductor-certs")[CONDUCTOR_PATHS.conductorCa], "conductor-ca");
        assert.equal(env("conductor-certs")[WRAPPER_ENV.caTrust], `${PATHS.certsIronicCa}/tls.crt`);
        assert.equal(mounts("conductor-certs")[PATHS.certsIronicCa], "ca", "the bundle the chain check reads (CI of 973c858: the minter refused without it)");
        // The IPA cache's CA: ca.crt of its own Certificate's Secret.
        const cacheCa = spec.volumes.find((v: any) => v.name === "ipa-cache-ca").secret;
        assert.equal(cacheCa.secretName, "ironic-ipa-cache-tls");
        const db = spec.volumes.find((v: any) => v.name === "db-ca").secret;
        assert.equal(db.secretName, "ironic-mariadb-tls");
    });

    it("single: the Deployment mounts the API, CA and virtual-media Secrets of its Certificates", function () {
        const spec = single.objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ironic")!.spec.template.spec;
        const names = spec.volumes.filter((v: any) => v.secret).map((v: any) => `${v.name}=${v.secret.secretName}`);
        for (const want of ["tls=ironic-tls", "ca=ironic-tls", "vmedia-tls=ironic-vmedia-tls", "db-ca=ironic-mariadb-tls", "ipa-cache-ca=ironic-ipa-cache-tls"]) assert.ok(names.includes(want), `${want} in ${names.join(", ")}`);
    });

    it("validation: the issuer is required with cert-manager and refused without; the live check must be off", function () {
        const keys = (raw: RawConfig) => {
            const v = validateConfig(raw);
            return v.ok ? [] : v.issues.map((i) => `${i.key}: ${i.message}`);
        };
        assert.match(keys({ ...singleRaw, tls: { mode: "cert-manager" } }).join("\n"), /^tls\.issuer: required with tls\.mode "cert-manager"/m);
        assert.match(keys({ ...devRaw, tls: { issuer: { name: "x" } } }).join("\n"), /^tls\.issuer: only used with tls\.mode "cert-manager"/m);
        assert.match(keys({ ...singleRaw, readiness: {} }).join("\n"), /^readiness\.enabled: must be false with tls\.mode "cert-manager" \(it is on by default\)/m);
        assert.match(keys({ ...singleRaw, tls: { mode: "cert-manager", issuer: { name: "x", kind: "Cluster" } } }).join("\n"), /^tls\.issuer\.kind: must be "Issuer" \(in the namespace\) or "ClusterIssuer"/m);
        assert.deepEqual(keys(singleRaw), []);
        assert.deepEqual(keys(fixtureRaw), []);
    });

    it("a module that cannot be downloaded fails, naming the module, the cache and go's reason", function () {
        const saved = { cache: process.env.METAL3_CERT_MANAGER_CACHE, proxy: process.env.GOPROXY };
        const empty = tmpDir("cm-cache");
        try {
            process.env.METAL3_CERT_MANAGER_CACHE = empty;
            process.env.GOPROXY = "off";
            assert.throws(() => certManagerModuleDir(), (e: Error) => {
                assert.match(e.message, new RegExp(`cannot download ${CERT_MANAGER_MODULE.replace(/\./g, "\\.")}@${CERT_MANAGER_VERSION.replace(/\./g, "\\.")} through the Go module proxy into ${empty}`));
                assert.match(e.message, /GOPROXY=off|module lookup disabled/);
                return true;
            });
        } finally {
            for (const [k, v] of [["METAL3_CERT_MANAGER_CACHE", saved.cache], ["GOPROXY", saved.proxy]] as const) {
                if (v === undefined) delete process.env[k];
                else process.env[k] = v;
            }
            fs.rmSync(empty, { recursive: true, force: true });
        }
    });
});
