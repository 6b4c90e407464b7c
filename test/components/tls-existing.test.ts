/**
 * tls.mode "existing": the user's Secret is read, never written, replaced or deleted; BMO's
 * `<name>-cacert` and the `caCertificate` output carry the user's CA; MariaDB keeps its own
 * certificate from the stack CA. Checked over every topology × database × tls combination that
 * validation accepts.
 */
import { strict as assert } from "assert";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, validateConfig } from "../../core/config";
import { Metal3Ironic } from "../../components/stack";
import { runOffline, unwrapSecrets, valueOf } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));
const fixtureRaw = readStackConfig(path.join(__dirname, "..", "fixtures", "Pulumi.tls-existing.yaml"));

const pem = (kind: string, body: string) => `-----BEGIN ${kind}-----\n${body}\n-----END ${kind}-----\n`;
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const USER_CA = pem("CERTIFICATE", "TUlJQnVzZXJDQWZvcnRoZXRlc3Q=");
const USER_CERT = pem("CERTIFICATE", "TUlJQnVzZXJsZWFmZm9ydGhldGVzdA==");
const USER_KEY = pem("PRIVATE KEY", "TUlJRXVzZXJrZXlmb3J0aGV0ZXN0");

const EXISTING: RawConfig["tls"] = { mode: "existing", existingSecret: "my-tls" };
const singleExisting: RawConfig = { ...devRaw, tls: EXISTING };

/** Answers the read of the user's Secret with `data` (plain strings, base64-encoded here like the API server does). */
function userSecret(data: Record<string, string>) {
    return (type: string, id: string) => {
        if (type !== "kubernetes:core/v1:Secret" || id !== "metal3/my-tls") return undefined;
        const [namespace, name] = id.split("/");
        return {
            apiVersion: "v1",
            kind: "Secret",
            metadata: { name, namespace },
            type: "kubernetes.io/tls",
            data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
        };
    };
}

const FULL = { "tls.crt": USER_CERT, "tls.key": USER_KEY, "ca.crt": USER_CA };

function registered(r: Rendered, kind: string, name: string) {
    return r.resources.find((x) => x.type === `kubernetes:core/v1:${kind}` && x.rawInputs?.metadata?.name === name);
}

function deployment(r: Rendered) {
    return r.objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ironic")!;
}

describe("tls.mode existing (pulumi mocks)", function () {
    this.timeout(60000);

    describe("BMO's CA Secret and the caCertificate output", function () {
        let r: Rendered;
        const registrations: pulumi.ResourceTransformationArgs[] = [];

        before(async function () {
            r = await renderOffline(singleExisting, "dev", { existing: userSecret(FULL), onRegister: (a) => registrations.push(a) });
        });

        it("creates <name>-cacert with tls.crt = the ca.crt of the user's Secret", function () {
            const s = registered(r, "Secret", "ironic-cacert");
            assert.ok(s, `Secret ironic-cacert registered; have ${r.objects.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
            assert.deepEqual(unwrapSecrets(s!.rawInputs.stringData), { "tls.crt": USER_CA });
            assert.equal(s!.rawInputs.metadata.namespace, "metal3");
            const rendered = r.objects.find((o) => o.kind === "Secret" && o.metadata.name === "ironic-cacert")!;
            assert.deepEqual(Object.keys(rendered.stringData), ["tls.crt"]);
        });

        it("exports the user's CA as caCertificate, in clear (a CA certificate is public)", async function () {
            assert.equal(await valueOf(r.outputs.caCertificate), USER_CA);
            assert.equal(await pulumi.isSecret(r.outputs.caCertificate), false);
        });

        it("reads the user's Secret through the explicit provider, parented to the component, and never registers it", function () {
            assert.deepEqual(
                r.reads.map((x) => `${x.type} ${x.id}`),
                ["kubernetes:core/v1:Secret metal3/my-tls"],
            );
            assert.match(r.reads[0].provider, /pulumi:providers:kubernetes::kubernetes::/);
            const reg = registrations.find((a) => a.opts.id !== undefined && a.type.startsWith("kubernetes:"));
            assert.ok(reg, "the read goes through the resource constructor (Secret.get)");
            assert.equal((reg!.opts.parent as any)?.__pulumiType ?? (reg!.opts.parent as any)?.constructor?.name, "metal3:index:Metal3Ironic");
            assert.ok(!r.resources.some((x) => x.rawInputs?.metadata?.name === "my-tls"), "no registered resource is named my-tls");
            assert.ok(!r.objects.some((o) => o.metadata?.name === "my-tls"), "the read is not rendered as an object this program creates");
        });

        it("keeps mounting the user's Secret for the API certificate and the CA the containers trust", function () {
            const vols = Object.fromEntries(deployment(r).spec.template.spec.volumes.map((v: any) => [v.name, v]));
            assert.equal(vols.tls.secret.secretName, "my-tls");
            assert.equal(vols.ca.secret.secretName, "my-tls");
        });

        it("rolls the pods when the user's certificate changes (hash of its tls.crt), and only then", async function () {
            const hash = (x: Rendered) => deployment(x).spec.template.metadata.annotations["metal3-ironic.metal3.io/tls-cert-hash"];
            const same = await renderOffline(singleExisting, "dev", { existing: userSecret({ ...FULL, "tls.key": pem("PRIVATE KEY", "b3RoZXI=") }) });
            const renewed = await renderOffline(singleExisting, "dev", { existing: userSecret({ ...FULL, "tls.crt": pem("CERTIFICATE", "cmVuZXdlZA==") }) });
            assert.match(hash(r), /^[0-9a-f]{64}$/);
            assert.equal(hash(same), hash(r));
            assert.notEqual(hash(renewed), hash(r));
        });

        it("a preview reads and registers exactly what an update does", async function () {
            const preview = await renderOffline(singleExisting, "dev", { preview: true, existing: userSecret(FULL) });
            const key = (x: { type: string; name: string }) => `${x.type}::${x.name}`;
            assert.deepEqual(preview.resources.map(key).sort(), r.resources.map(key).sort());
            assert.deepEqual(preview.reads.map(key), r.reads.map(key));
        });
    });

    it("offline, a stand-in Secret answers the read when the test or plan supplies none", async function () {
        const r = await renderOffline(singleExisting);
        assert.deepEqual(r.reads.map((x) => x.id), ["metal3/my-tls"]);
        assert.match(await valueOf(r.outputs.caCertificate), /^-----BEGIN CERTIFICATE-----\n.*metal3\/my-tls.*\n-----END CERTIFICATE-----\n$/);
        assert.ok(registered(r, "Secret", "ironic-cacert"));
    });

    for (const [missing, data] of [
        ["ca.crt", { "tls.crt": USER_CERT, "tls.key": USER_KEY }],
        ["ca.crt", { "tls.crt": USER_CERT, "tls.key": USER_KEY, "ca.crt": "" }],
        ["tls.key", { "tls.crt": USER_CERT, "ca.crt": USER_CA }],
    ] as [string, Record<string, string>][]) {
        it(`fails with the key and the fix, without a stack trace, when the user's Secret lacks ${missing}${data[missing] === "" ? " (empty)" : ""}`, async function () {
            let err: any;
            const reached: string[] = [];
            try {
                await renderOffline(singleExisting, "dev", { existing: userSecret(data), hook: (type, name) => (reached.push(`${type} ${name}`), undefined) });
            } catch (e) {
                err = e;
            }
            assert.ok(err, "rendering must fail");
            for (const dependent of ["kubernetes:core/v1:Secret ironic-cacert", "kubernetes:apps/v1:Deployment ironic-ironic-deployment"]) {
                assert.ok(!reached.includes(dependent), `${dependent} is not written with a broken certificate`);
            }
            assert.ok(err.constructor?.name === "RunError" || err.hideStack === true, `reported without a stack trace (got ${err.constructor?.name})`);
            assert.match(err.message, /^tls\.existingSecret: Secret metal3\/my-tls /);
            assert.match(err.message, new RegExp(`"${missing.replace(".", "\\.")}"`));
            assert.match(err.message, /set tls\.mode to "generate"/);
        });
    }

    it("fails when ca.crt of the user's Secret is not a PEM certificate", async function () {
        await assert.rejects(
            renderOffline(singleExisting, "dev", { existing: userSecret({ ...FULL, "ca.crt": "not a certificate" }) }),
            (e: any) => e.hideStack === true && /^tls\.existingSecret: Secret metal3\/my-tls: "ca\.crt" is not a PEM certificate .*set tls\.mode to "generate"/.test(e.message),
        );
    });

    describe("a user's Secret is never written, replaced or deleted", function () {
        const USER_SECRETS = ["my-tls", "my-conductor-ca", "my-db-credentials", "my-db-ca"];
        const tlsModes: Record<string, RawConfig["tls"]> = { generate: { mode: "generate" }, existing: EXISTING };
        const databases: Record<string, RawConfig["database"]> = {
            sqlite: { kind: "sqlite" },
            mariadb: { kind: "mariadb" },
            external: { kind: "external", host: "db.example.com", credentialsSecret: "my-db-credentials", caSecret: "my-db-ca" },
        };
        const topologies: Record<string, RawConfig> = { single: devRaw, multi: haRaw };

        for (const [topo, base] of Object.entries(topologies)) {
            for (const [mode, tls] of Object.entries(tlsModes)) {
                for (const [db, database] of Object.entries(databases)) {
                    // Multi with "existing": the conductors mint their JSON-RPC certificates from the user's CA.
                    const raw: RawConfig = { ...base, tls: topo === "multi" && mode === "existing" ? { ...(EXISTING as object), conductorCaSecret: "my-conductor-ca" } : tls, database };
                    const rejectedFor: string[] = [];
                    if (topo === "multi" && db === "sqlite") rejectedFor.push("database.kind");
                    const label = `${topo} × tls ${mode} × ${db}`;

                    if (rejectedFor.length > 0) {
                        it(`${label}: rejected by validation (${rejectedFor.join(", ")}) before anything is registered`, async function () {
                            const v = validateConfig(raw);
                            assert.ok(!v.ok);
                            assert.deepEqual([...new Set(v.issues.map((i) => i.key))].sort(), rejectedFor.sort());
                            let registered = 0;
                            await assert.rejects(renderOffline(raw, "dev", { onRegister: () => registered++ }), (e: any) => e.constructor?.name === "RunError");
                            assert.equal(registered, 0);
                        });
                        continue;
                    }

                    it(`${label}`, async function () {
                        assert.ok(validateConfig(raw).ok, "accepted by validation");
                        const r = await renderOffline(raw, "dev", { existing: userSecret(FULL) });
                        for (const x of r.resources) {
                            const name = x.rawInputs?.metadata?.name;
                            assert.ok(!USER_SECRETS.includes(name), `${x.type} ${x.name} is named ${name}, a Secret the user owns`);
                        }
                        const csrs = r.resources.filter((x) => x.type === "tls:index/certRequest:CertRequest");
                        const apiCsrs = csrs.filter((x) => (x.inputs.dnsNames ?? []).includes("ironic.metal3.svc"));
                        if (mode === "existing") {
                            assert.deepEqual(r.reads.map((x) => `${x.type} ${x.id}`), ["kubernetes:core/v1:Secret metal3/my-tls"]);
                            assert.deepEqual(apiCsrs, [], "no certificate is issued for the API");
                            assert.ok(!r.resources.some((x) => x.type.startsWith("tls:") && x.name.startsWith("ironic-api")), "no tls: resource for the API");
                            const pod = r.objects.find((o) => ["Deployment", "DaemonSet"].includes(o.kind) && o.metadata.name === "ironic")!;
                            const vols = Object.fromEntries(pod.spec.template.spec.volumes.map((v: any) => [v.name, v]));
                            assert.equal(vols.tls.secret.secretName, "my-tls");
                            assert.match(pod.spec.template.metadata.annotations["metal3-ironic.metal3.io/tls-cert-hash"], /^[0-9a-f]{64}$/, "the pods roll when the user's certificate changes");
                            if (topo === "multi") {
                                assert.equal(vols["conductor-ca"].secret.secretName, "my-conductor-ca", "the conductors mint from the user's conductor CA, mounted by name");
                                assert.ok(!registered(r, "Secret", "ironic-conductor-ca"), "no conductor CA of the program's");
                                assert.ok(!r.resources.some((x) => x.type.startsWith("tls:") && x.name.includes("conductor-ca")), "no tls: resource for a conductor CA");
                            }
                            assert.deepEqual(unwrapSecrets(registered(r, "Secret", "ironic-cacert")!.rawInputs.stringData), { "tls.crt": USER_CA });
                            assert.equal(await valueOf(r.outputs.caCertificate), USER_CA);
                        } else {
                            assert.deepEqual(r.reads, [], "nothing is read");
                            if (topo === "multi") assert.deepEqual(csrs.filter((x) => x.name === "ironic-conductors-conductor-ca-csr").length, 1, "the conductors mint theirs from a conductor CA the stack CA signs");
                            else assert.ok(apiCsrs.length >= 1, "the API certificate comes from the stack CA");
                            assert.ok(registered(r, "Secret", "ironic-cacert"));
                        }
                        if (db === "mariadb") {
                            const dbCsr = csrs.filter((x) => (x.inputs.dnsNames ?? []).includes("ironic-mariadb.metal3.svc"));
                            assert.equal(dbCsr.length, 1, "MariaDB gets its own server certificate");
                            assert.ok(!dbCsr[0].inputs.dnsNames.includes("ironic.metal3.svc"));
                            const s = registered(r, "Secret", "ironic-mariadb-tls");
                            assert.ok(s, "in its own Secret");
                            assert.deepEqual(Object.keys(unwrapSecrets(s!.rawInputs.stringData)).sort(), ["ca.crt", "tls.crt", "tls.key"]);
                        } else {
                            assert.ok(!registered(r, "Secret", "ironic-mariadb-tls"));
                        }
                        if (mode === "existing" && db !== "mariadb") {
                            // The stack CA exists only for the IPA cache's server certificate (imageCache.mode "deploy").
                            const names = r.resources.filter((x) => x.type === "tls:index/certRequest:CertRequest").map((x) => x.inputs.dnsNames);
                            assert.deepEqual(names, [["ironic-ipa-cache", "ironic-ipa-cache.metal3", "ironic-ipa-cache.metal3.svc", "ironic-ipa-cache.metal3.svc.cluster.local"]], "the stack CA signs only the IPA cache");
                        }
                    });
                }
            }
        }

        for (const [key, value, extra] of [
            ["tls.existingSecret", "ironic-cacert", {}],
            ["tls.existingSecret", "ironic-mariadb-tls", { database: { kind: "mariadb" } }],
            ["tls.existingSecret", "ironic-credentials", {}],
        ] as [string, string, RawConfig][]) {
            it(`refuses ${key}: ${value}, a Secret this program writes, before registering anything`, async function () {
                let registered = 0;
                let err: any;
                try {
                    await renderOffline({ ...singleExisting, tls: { mode: "existing", existingSecret: value }, ...extra }, "dev", { onRegister: () => registered++ });
                } catch (e) {
                    err = e;
                }
                assert.ok(err, "must fail");
                assert.equal(err.constructor?.name, "RunError");
                assert.match(err.message, new RegExp(`${key.replace(".", "\\.")}: "${value}" is the name of a Secret this program writes`));
                assert.equal(registered, 0);
            });
        }

        it("a guard in the component refuses to register a Secret named like a user's, even past validation", async function () {
            // Valid config (validation refuses a user Secret named like one of ours); a transformation
            // of the caller's, run before the component's own, renames the CA Secret this program
            // writes to the user's: the component's guard must stop it.
            const raw = singleExisting;
            const rename: pulumi.ResourceTransformation = (a) =>
                a.name === "ironic-cacert" ? { props: { ...a.props, metadata: { ...a.props.metadata, name: "my-tls" } }, opts: a.opts } : undefined;
            const written: string[] = [];
            await assert.rejects(
                runOffline(raw, () => new Metal3Ironic("ironic", { config: raw }, { transformations: [rename] }).caCertificate, {
                    existing: userSecret(FULL),
                    hook: (type, name) => (written.push(`${type} ${name}`), undefined),
                }),
                (e: any) => e.hideStack === true && /^tls\.existingSecret: Secret metal3\/my-tls belongs to you; ironic-cacert must not write it/.test(e.message),
            );
            assert.ok(!written.includes("kubernetes:core/v1:Secret ironic-cacert"));
        });

        it("refuses database.credentialsSecret that names a Secret this program writes", async function () {
            const raw: RawConfig = { ...devRaw, database: { kind: "external", host: "db.example.com", credentialsSecret: "ironic-credentials", tls: false } };
            await assert.rejects(renderOffline(raw), /database\.credentialsSecret: "ironic-credentials" is the name of a Secret this program writes/);
        });
    });

    it("the example fixture (existing + MariaDB) renders: read, CA Secret, MariaDB certificate, no API certificate", async function () {
        const r = await renderOffline(fixtureRaw);
        assert.deepEqual(r.reads.map((x) => x.id), ["metal3/my-tls"]);
        assert.ok(registered(r, "Secret", "ironic-cacert"));
        assert.ok(registered(r, "Secret", "ironic-mariadb-tls"));
        assert.ok(!registered(r, "Secret", "my-tls"));
        assert.ok(!r.resources.some((x) => x.type.startsWith("tls:") && x.name.startsWith("ironic-api")));
    });
});
