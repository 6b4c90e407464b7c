/**
 * Network settings on what the program renders, for every example stack: with imagePullSecrets
 * and images.registry set, every pod of every object (found generically, so a pod added later is
 * covered too) carries the pull Secrets and pulls every container's image from the mirror; the
 * IPA downloader gets the proxy and the extra CA bundle; every object stays valid Kubernetes.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { DEFAULT_IMAGES } from "../../core/contract";
import { EXAMPLE_STACKS } from "../../tools/golden";
import { crdErrors } from "../helpers/operator-crds";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import type { ValidateFunction } from "ajv";
import { certManagerCrd } from "../helpers/cert-manager";
import { containersOf, podSpecs } from "../helpers/pod-specs";
import { kubernetesAjv, strictUnknownFields } from "../helpers/crd-schema";

const ROOT = path.join(__dirname, "..", "..");
const REGISTRY = "mirror.corp.example:5000/m3";
const NETWORK: RawConfig = {
    images: { registry: REGISTRY },
    imagePullSecrets: ["mirror-pull", "quay-pull"],
    proxy: { httpProxy: "http://proxy.corp.example:3128", httpsProxy: "http://proxy.corp.example:3128", noProxy: [".corp.example"] },
    trust: { extraCaBundle: { configMap: "corp-ca", key: "bundle.pem" } },
};

const esmImport = new Function("specifier", "return import(specifier)") as (s: string) => Promise<any>;

/** cert-manager's Certificate, checked against cert-manager's own CRD schema (test/helpers/cert-manager.ts). */
let certificateSchema: ValidateFunction | undefined;

async function schemaError(o: any): Promise<string | undefined> {
    // The MariaDB operator's objects: against its CRDs (test/helpers/operator-crds.ts).
    if (o.apiVersion.startsWith("k8s.mariadb.com/")) return crdErrors(o).join("; ") || undefined;
    if (o.apiVersion === "cert-manager.io/v1") {
        certificateSchema ??= kubernetesAjv().compile(strictUnknownFields(certManagerCrd("cert-manager.io_certificates.yaml").schema));
        return certificateSchema(o) ? undefined : JSON.stringify(certificateSchema.errors);
    }
    const Model = (await esmImport(`kubernetes-models/${o.apiVersion}`))[o.kind];
    try {
        new Model(o).validate();
        return undefined;
    } catch (e) {
        return (e as Error).message;
    }
}

describe("network settings on every pod of every example stack", function () {
    this.timeout(60000);
    for (const ex of EXAMPLE_STACKS) {
        describe(ex.stack, function () {
            let plain: Rendered;
            let net: Rendered;
            before(async function () {
                const raw = readStackConfig(path.join(ROOT, ex.file));
                plain = await renderOffline(raw, ex.stack);
                net = await renderOffline({ ...raw, ...NETWORK, images: { ...(raw.images as object), registry: REGISTRY } }, ex.stack);
            });

            it("without the keys: no pull Secrets, images from their own registries, the downloader runs its entrypoint", function () {
                const pods = plain.objects.flatMap((o) => podSpecs(o));
                assert.ok(pods.length > 0);
                for (const { where, spec } of pods) {
                    assert.equal(spec.imagePullSecrets, undefined, where);
                    for (const c of containersOf(spec)) assert.ok(!c.image.startsWith(REGISTRY), `${where}/${c.name}`);
                    const dl = containersOf(spec).find((c) => c.name === "ipa-downloader");
                    if (dl) assert.equal(dl.command, undefined, "the image's entrypoint");
                }
            });

            it("every pod has the pull Secrets and every container pulls from the mirror (path, tag and digest kept)", function () {
                const pods = net.objects.flatMap((o) => podSpecs(o));
                assert.equal(pods.length, plain.objects.flatMap((o) => podSpecs(o)).length, "the same pods");
                const known = Object.values(DEFAULT_IMAGES).map((r) => r.replace(/^[^/]+\//, `${REGISTRY}/`));
                for (const { where, spec } of pods) {
                    assert.deepEqual(spec.imagePullSecrets, [{ name: "mirror-pull" }, { name: "quay-pull" }], where);
                    for (const c of containersOf(spec)) {
                        assert.ok(c.image.startsWith(`${REGISTRY}/`), `${where}/${c.name}: ${c.image}`);
                        assert.ok(known.includes(c.image), `${where}/${c.name}: ${c.image} is a default image moved to the mirror`);
                    }
                }
            });

            it("the IPA downloaders (image cache): proxy variables, the CA bundle mounted read-only and combined before the sync script", function () {
                const pods = net.objects.flatMap((o) => podSpecs(o));
                const withDl = pods.filter(({ spec }) => containersOf(spec).some((c) => c.name.startsWith("ipa-downloader")));
                assert.ok(withDl.length >= 1, "the cache pod downloads");
                for (const { where, spec } of withDl) {
                    for (const dl of containersOf(spec).filter((c) => c.name.startsWith("ipa-downloader"))) {
                        const env = Object.fromEntries(dl.env.map((e: any) => [e.name, e.value]));
                        assert.equal(env.http_proxy, "http://proxy.corp.example:3128", where);
                        assert.match(env.NO_PROXY, /^localhost,127\.0\.0\.1,\.svc,\.cluster\.local,.*\.corp\.example$/);
                        assert.equal(env.CURL_CA_BUNDLE, "/tmp/metal3-ironic-ca-bundle.crt");
                        assert.deepEqual(dl.command.slice(0, 2), ["/bin/sh", "-c"]);
                        assert.match(dl.command[dl.command.length - 1], /ipa-cache-sync\.sh$/, "then the cache's sync script (which runs get-resource.sh)");
                        assert.ok(dl.volumeMounts.some((m: any) => m.mountPath === "/certs/extra-ca" && m.readOnly === true));
                        assert.ok(dl.volumeMounts.some((m: any) => m.mountPath === "/tmp"), "a writable /tmp for the combined bundle");
                    }
                    const v = spec.volumes.find((x: any) => x.name === "extra-ca");
                    assert.deepEqual(v, { name: "extra-ca", configMap: { name: "corp-ca", items: [{ key: "bundle.pem", path: "ca-bundle.crt" }] } });
                }
                for (const { where, spec } of pods) {
                    const ironic = spec.containers.find((c: any) => c.name === "ironic");
                    if (ironic) assert.ok(!(ironic.env ?? []).some((e: any) => /^(https?|no)_proxy$/i.test(e.name)), `${where}: Ironic is not proxied unless proxy.applyToIronic`);
                }
                assert.ok(!net.objects.some((o) => o.kind === "ConfigMap" && o.metadata.name === "corp-ca"), "the user's ConfigMap is never written");
            });

            it("every object stays valid against the Kubernetes schema", async function () {
                for (const o of net.objects) {
                    const err = await schemaError(o);
                    assert.equal(err, undefined, `${o.kind}/${o.metadata?.name}: ${err}`);
                }
            });
        });
    }
});
