/**
 * bmo.enabled with the real release: baremetal-operator v0.13.2's module zip as the toolchain
 * build downloaded it (its Go module cache is a `file://` Go module proxy), loaded and verified by
 * the program, rendered by `npm run plan`'s renderer, and held against the real kustomize (the
 * toolchain's kubectl) building the release's config/base with the overlay docs/getting-started.md
 * documents: the same objects, rules, pod spec and webhooks, under the stack's names. Every object
 * is valid against the Kubernetes schema, and the webhook's certificate is signed by the CA of its caBundle.
 */
import { strict as assert } from "assert";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";

import { loadBmoRelease } from "../../components/bmo-release";
import { BMO_MODULE, BMO_PINNED, hash1, unzipFiles } from "../../core/bmo-release";
import { bmoWebhookDnsNames } from "../../core/manifests";
import { RawConfig } from "../../core/config";
import { readStackConfig } from "../../tools/render";
import { schemaError } from "../helpers/k8s-schema";
import { requireToolchain, toolchainBin, toolchainGoProxy } from "../e2e/toolchain";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { run, tmpDir } from "../helpers/sys";
import { planOf } from "../helpers/plan";

const ROOT = path.join(__dirname, "..", "..");
const ZIP = "github.com/metal3-io/baremetal-operator/@v/v0.13.2.zip";

describe("bmo.enabled with baremetal-operator's real release (v0.13.2 from the toolchain's Go module cache)", function () {
    this.timeout(120000);
    let work = "";
    let cacheBefore: string | undefined;
    let raw: RawConfig;
    let objects: Record<string, any>[] = [];
    let secrets: Record<string, Record<string, string>> = {};

    before(async function () {
        requireToolchain(this, "cluster");
        work = tmpDir("bmo-release");
        // The program's cache of verified zips: this run's own.
        cacheBefore = process.env.METAL3_IRONIC_CACHE;
        process.env.METAL3_IRONIC_CACHE = path.join(work, "cache");
        raw = { ...readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")), bmo: { enabled: true, goproxy: toolchainGoProxy() } };
        const r = await renderWithRealSecrets(raw, "dev");
        objects = r.rendered.objects;
        secrets = r.cluster.secrets;
    });
    after(function () {
        if (cacheBefore === undefined) delete process.env.METAL3_IRONIC_CACHE;
        else process.env.METAL3_IRONIC_CACHE = cacheBefore;
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("the zip hashes to the h1 Go itself recorded for it (the toolchain's go.sum) and pinned here", function () {
        const zipFile = new URL(`${toolchainGoProxy()}/${ZIP}`).pathname;
        const goSum = fs.readFileSync(path.join(path.dirname(toolchainBin()), "work", "bmo", "go.sum"), "utf8");
        const line = goSum.split("\n").find((l) => l.startsWith(`${BMO_MODULE} ${BMO_PINNED.version} h1:`));
        assert.equal(line, `${BMO_MODULE} ${BMO_PINNED.version} ${BMO_PINNED.h1}`);
        assert.equal(hash1(unzipFiles(fs.readFileSync(zipFile))), BMO_PINNED.h1);
    });

    it("the program loaded it through bmo.goproxy into its cache; a second load needs no proxy", async function () {
        const cached = path.join(work, "cache", "bmo", `${BMO_MODULE}@${BMO_PINNED.version}.zip`);
        assert.ok(fs.existsSync(cached), cached);
        const again = await loadBmoRelease({ version: BMO_PINNED.version, h1: BMO_PINNED.h1, goproxy: `file://${path.join(work, "no-proxy")}`, cacheDir: path.join(work, "cache") });
        assert.equal(again.source, cached);
        assert.equal([...again.config.keys()].filter((k) => k.startsWith("base/crds/bases/")).length, 11);
    });

    it("every object is valid against the Kubernetes schema, and the webhook's certificate is signed by the CA its caBundle holds, for the webhook Service's names", async function () {
        const bmo = objects.filter((o) => o.metadata?.labels?.["app.kubernetes.io/name"] === "baremetal-operator");
        const kinds = bmo.map((o) => o.kind).sort();
        assert.deepEqual([...new Set(kinds)], ["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "Deployment", "Role", "RoleBinding", "Secret", "Service", "ServiceAccount", "ValidatingWebhookConfiguration"]);
        const errors: string[] = [];
        for (const o of bmo) {
            const e = await schemaError(o);
            if (e) errors.push(`${o.kind}/${o.metadata.name}: ${e}`);
        }
        assert.deepEqual(errors, []);
        const plan = planOf(raw);
        const vwc = bmo.find((o) => o.kind === "ValidatingWebhookConfiguration")!;
        const tlsSecret = secrets["ironic-bmo-webhook-cert"];
        assert.ok(tlsSecret?.["tls.crt"] && tlsSecret["tls.key"], "the webhook's serving certificate Secret");
        // caBundle is the webhook's CA (the Secret's ca.crt), which signed the serving certificate: a renewed one is trusted at once.
        for (const w of vwc.webhooks) assert.equal(Buffer.from(w.clientConfig.caBundle, "base64").toString(), tlsSecret["ca.crt"]);
        const cert = path.join(work, "webhook.crt");
        fs.writeFileSync(cert, tlsSecret["tls.crt"]);
        const caFile = path.join(work, "webhook-ca.crt");
        fs.writeFileSync(caFile, Buffer.from(vwc.webhooks[0].clientConfig.caBundle, "base64"));
        assert.match(execFileSync("openssl", ["verify", "-CAfile", caFile, "-purpose", "sslserver", cert], { encoding: "utf8" }), /: OK/);
        const sans = execFileSync("openssl", ["x509", "-in", cert, "-noout", "-ext", "subjectAltName"], { encoding: "utf8" });
        assert.deepEqual(sans.match(/DNS:[^,\s]+/g), bmoWebhookDnsNames(plan).map((n) => `DNS:${n}`));
        // The key is the certificate's.
        const key = path.join(work, "webhook.key");
        fs.writeFileSync(key, tlsSecret["tls.key"]);
        const pub = (args: string[]) => execFileSync("openssl", args, { encoding: "utf8" });
        assert.equal(pub(["x509", "-in", cert, "-noout", "-pubkey"]), pub(["pkey", "-in", key, "-pubout"]));
    });

    it("is what the real kustomize builds from the release with the documented overlay: the same CRDs, rules, bindings, Services, webhooks and pod, under the stack's names", function () {
        // The overlay of docs/getting-started.md over the release's config/ as the program read it.
        const doc = fs.readFileSync(path.join(ROOT, "docs", "getting-started.md"), "utf8");
        const m = /```yaml\n(# kustomization\.yaml[^\n]*\n[\s\S]*?)```/.exec(doc);
        assert.ok(m, "docs/getting-started.md has the kustomization.yaml block");
        const dir = path.join(work, "overlay");
        const zipFile = new URL(`${toolchainGoProxy()}/${ZIP}`).pathname;
        const prefix = `${BMO_MODULE}@${BMO_PINNED.version}/config/`;
        for (const f of unzipFiles(fs.readFileSync(zipFile)).filter((x) => x.name.startsWith(prefix))) {
            const to = path.join(dir, "config", f.name.slice(prefix.length));
            fs.mkdirSync(path.dirname(to), { recursive: true });
            fs.writeFileSync(to, f.data);
        }
        fs.writeFileSync(path.join(dir, "kustomization.yaml"), m[1]);
        const built = parseAllDocuments(run(path.join(toolchainBin(), "kubectl"), ["kustomize", dir]).stdout)
            .map((d) => d.toJS())
            .filter((o) => o && !String(o.apiVersion).startsWith("cert-manager.io/"));
        // The webhook's certificate Secret is ours alone (the release has cert-manager write it).
        const ours = objects.filter((o) => o.metadata?.labels?.["app.kubernetes.io/name"] === "baremetal-operator" && o.kind !== "Secret");
        assert.equal(ours.length, built.length, `kustomize: ${built.map((o) => `${o.kind}/${o.metadata.name}`).join(", ")}`);
        /** Ours for kustomize's object: the same kind, and the release's own name at the end of ours. */
        const mate = (o: any) => {
            const base = o.metadata.name.replace(/^baremetal-operator-/, "");
            const found = ours.filter((x) => x.kind === o.kind && (x.metadata.name === base || x.metadata.name.endsWith(`-${base}`) || (base === "controller-manager" && x.metadata.name === "ironic-baremetal-operator") || (base === "controller-manager-metrics-service" && x.metadata.name === "ironic-bmo-metrics") || (base === "webhook-service" && x.metadata.name === "ironic-bmo-webhook")));
            assert.equal(found.length, 1, `${o.kind}/${o.metadata.name}: ${found.map((x) => x.metadata.name).join(", ") || "none of ours"}`);
            return found[0];
        };
        for (const o of built) {
            const x = mate(o);
            const what = `${o.kind}/${o.metadata.name}`;
            if (!x.metadata.namespace !== !o.metadata.namespace) assert.fail(`${what}: namespaced in one and not the other`);
            if (o.metadata.namespace) assert.equal(x.metadata.namespace, o.metadata.namespace, what);
            switch (o.kind) {
                case "CustomResourceDefinition":
                    assert.deepEqual(x.spec, o.spec, what);
                    break;
                case "ClusterRole":
                case "Role":
                    assert.deepEqual(x.rules, o.rules, what);
                    break;
                case "ClusterRoleBinding":
                case "RoleBinding":
                    assert.equal(mate({ kind: o.roleRef.kind, metadata: { name: o.roleRef.name } }).metadata.name, x.roleRef.name, what);
                    assert.deepEqual(x.subjects.map((s: any) => [s.kind, s.namespace]), o.subjects.map((s: any) => [s.kind, s.namespace]), what);
                    assert.deepEqual(x.subjects.map((s: any) => s.name), ["ironic-baremetal-operator"], what);
                    break;
                case "Service":
                    assert.deepEqual(x.spec.ports, o.spec.ports, what);
                    assert.deepEqual({ ...x.spec.selector, ...o.spec.selector }, x.spec.selector, `${what}: ours selects at least what the release does`);
                    break;
                case "ValidatingWebhookConfiguration": {
                    const strip = (v: any) => v.webhooks.map((w: any) => ({ ...w, clientConfig: { path: w.clientConfig.service.path } }));
                    assert.deepEqual(strip(x), strip(o), what);
                    for (const w of x.webhooks) assert.deepEqual([w.clientConfig.service.name, w.clientConfig.service.namespace], ["ironic-bmo-webhook", "metal3"]);
                    break;
                }
                case "Deployment": {
                    const spec = JSON.parse(JSON.stringify(x.spec.template.spec));
                    // Ours differ in what names the stack's own objects and in the image's tag (the release's manifests name no tag).
                    spec.serviceAccountName = o.spec.template.spec.serviceAccountName;
                    spec.volumes.find((v: any) => v.name === "cert").secret.secretName = o.spec.template.spec.volumes.find((v: any) => v.name === "cert").secret.secretName;
                    assert.equal(spec.containers[0].image, `${o.spec.template.spec.containers[0].image}:v0.13.2`);
                    spec.containers[0].image = o.spec.template.spec.containers[0].image;
                    // Lists merged by name: kustomize's strategic merge orders them its own way, which means nothing to the pod.
                    const byName = (p: any) => {
                        p.volumes.sort((a: any, b: any) => a.name.localeCompare(b.name));
                        for (const c of p.containers) for (const list of ["volumeMounts", "ports"]) c[list]?.sort((a: any, b: any) => a.name.localeCompare(b.name));
                        return p;
                    };
                    assert.deepEqual(byName(spec), byName(JSON.parse(JSON.stringify(o.spec.template.spec))), what);
                    assert.deepEqual([x.spec.replicas, x.spec.minReadySeconds, x.spec.strategy], [o.spec.replicas, o.spec.minReadySeconds, o.spec.strategy], what);
                    // Ours select and label at least what the release does (and this stack's BMO only).
                    const sup = (ours: Record<string, string>, theirs: Record<string, string>, where: string) => assert.deepEqual({ ...ours, ...theirs }, ours, `${what} ${where}`);
                    sup(x.spec.selector.matchLabels, o.spec.selector.matchLabels, "selector");
                    sup(x.spec.template.metadata.labels, o.spec.template.metadata.labels, "pod labels");
                    sup(x.spec.template.metadata.labels, x.spec.selector.matchLabels, "pod labels match its selector");
                    break;
                }
                case "ServiceAccount":
                    break;
                default:
                    assert.fail(`${what}: a kind this test does not compare`);
            }
        }
    });
});
