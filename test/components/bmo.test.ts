/**
 * bmo.enabled through the program (components/bmo.ts, components/program.ts): the release's zip
 * loaded through bmo.goproxy and refused unless bmo.checksum matches, before any managed resource is
 * registered; the objects registered with the options that keep hosts (CRDs kept on delete), the
 * webhook's key secret, and nothing of BMO when it is off. The release is a small one in v0.13's
 * layout (test/unit/manifests/bmo.test.ts), zipped as a Go module proxy serves it.
 */
import { strict as assert } from "assert";
import { strToU8, zipSync } from "fflate";
import * as fs from "fs";
import * as path from "path";
import { pathToFileURL } from "url";

import * as YAML from "yaml";

import { RawConfig } from "../../core/config";
import { hash1, unzipFiles } from "../../core/bmo-release";
import { readStackConfig, renderOffline } from "../../tools/render";
import { buildPlanCliFirst, planCli } from "../helpers/plan-cli";
import { tmpDir } from "../helpers/sys";
import { smallRelease } from "../helpers/bmo-release";

const ROOT = path.join(__dirname, "..", "..");
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));

describe("bmo.enabled through the program", function () {
    this.timeout(60000);
    let work = "";
    let goproxy = "";
    let checksum = "";
    let cacheBefore: string | undefined;

    before(function () {
        work = tmpDir("bmo-program");
        const zip = zipSync(Object.fromEntries([...smallRelease()].map(([k, v]) => [`github.com/metal3-io/baremetal-operator@v0.13.1/config/${k}`, strToU8(v)])));
        checksum = hash1(unzipFiles(zip));
        const at = path.join(work, "proxy", "github.com/metal3-io/baremetal-operator/@v/v0.13.1.zip");
        fs.mkdirSync(path.dirname(at), { recursive: true });
        fs.writeFileSync(at, zip);
        goproxy = pathToFileURL(path.join(work, "proxy")).href;
        cacheBefore = process.env.METAL3_IRONIC_CACHE;
        process.env.METAL3_IRONIC_CACHE = path.join(work, "cache");
    });
    after(function () {
        if (cacheBefore === undefined) delete process.env.METAL3_IRONIC_CACHE;
        else process.env.METAL3_IRONIC_CACHE = cacheBefore;
        fs.rmSync(work, { recursive: true, force: true });
    });

    const withBmo = (b: Record<string, unknown>): RawConfig => ({ ...devRaw, bmo: { enabled: true, version: "v0.13.1", checksum, goproxy, ...b } });

    it("registers the release's objects under metal3:bmo:BaremetalOperator, the CRDs kept on delete, the manager after what it mounts, the webhook after the manager", async function () {
        const regs: { type: string; name: string; opts: any }[] = [];
        const r = await renderOffline(withBmo({}), "dev", { onRegister: (a) => regs.push({ type: a.type, name: a.name, opts: a.opts }) });
        const comp = regs.find((x) => x.type === "metal3:bmo:BaremetalOperator");
        assert.ok(comp, "the component");
        const mine = regs.filter((x) => x.opts.parent && (x.opts.parent as any).__name === comp!.name);
        assert.deepEqual(mine.map((x) => x.type).sort(), [
            "kubernetes:admissionregistration.k8s.io/v1:ValidatingWebhookConfiguration",
            "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
            "kubernetes:apps/v1:Deployment",
            "kubernetes:core/v1:Secret",
            "kubernetes:core/v1:Service",
            "kubernetes:core/v1:Service",
            "kubernetes:core/v1:ServiceAccount",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRole",
            "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
            "kubernetes:rbac.authorization.k8s.io/v1:Role",
            "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding",
            // The webhook's CA (its own key and self-signed certificate inside) and the serving certificate it signs.
            "metal3:tls:StackPki",
            "tls:index/certRequest:CertRequest",
            "tls:index/locallySignedCert:LocallySignedCert",
            "tls:index/privateKey:PrivateKey",
        ]);
        // The webhook CA's key is not protected: turning BMO off removes it (the stack CA's is).
        const caKeys = regs.filter((x) => x.type === "tls:index/privateKey:PrivateKey" && x.name.endsWith("-ca-key"));
        assert.deepEqual(caKeys.map((x) => [x.name, !!x.opts.protect]).sort(), [["ironic-baremetal-operator-webhook-pki-ca-key", false], ["ironic-pki-ca-key", true]]);
        const crd = mine.find((x) => x.type.endsWith(":CustomResourceDefinition"))!;
        assert.equal(crd.opts.retainOnDelete, true, "deleting a CRD would delete every BareMetalHost");
        const dep = mine.find((x) => x.type === "kubernetes:apps/v1:Deployment")!;
        const depNames = (dep.opts.dependsOn as any[]).map((d) => d.__name);
        for (const n of ["ironic-bmo", "ironic-credentials-secret", "ironic-cacert", "ironic-baremetal-operator-webhook-tls"]) assert.ok(depNames.includes(n), `the manager waits for ${n}: ${depNames.join(", ")}`);
        const vwc = mine.find((x) => x.type.endsWith(":ValidatingWebhookConfiguration"))!;
        assert.ok((vwc.opts.dependsOn as any[]).some((d) => d.__name === "ironic-baremetal-operator-deployment"));
        // The webhook's key is a secret: redacted in the render.
        const secret = r.objects.find((o) => o.kind === "Secret" && o.metadata.name === "ironic-bmo-webhook-cert")!;
        assert.match(JSON.stringify(secret), /tls\.key/);
        assert.doesNotMatch(JSON.stringify(secret), /PRIVATE KEY/);
        const bmoDeployment = r.objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ironic-baremetal-operator")!;
        assert.equal(bmoDeployment.spec.template.spec.containers[0].image, "quay.io/metal3-io/baremetal-operator:v0.13.1");
        // BMO reads the API credentials once at start: a new password rolls its pod, as it rolls Ironic's.
        const credsHash = (d: any) => d.spec.template.metadata.annotations?.["metal3-ironic.metal3.io/credentials-hash"];
        assert.match(credsHash(bmoDeployment), /^[0-9a-f]{64}$/);
        assert.equal(credsHash(bmoDeployment), credsHash(r.objects.find((o) => o.kind === "Deployment" && o.metadata.name === "ironic")!));
    });

    describe("npm run plan", function () {
        buildPlanCliFirst();
        it("says which release it deploys, from where, verified by which hash, and writes its objects; a proxy that does not answer is one clear line, no file written", function () {
            const file = path.join(work, "Pulumi.dev.yaml");
            const stack = YAML.parse(fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8"));
            stack.config["metal3-ironic:bmo"] = { enabled: true, version: "v0.13.1", checksum, goproxy };
            fs.writeFileSync(file, YAML.stringify(stack));
            const env = { ...process.env, METAL3_IRONIC_CACHE: path.join(work, "plan-cache") };
            const r = planCli(["--file", file, "--out", path.join(work, "out")], { env });
            assert.equal(r.status, 0, r.stderr);
            assert.ok(r.stdout.includes(`baremetal-operator: v0.13.1 (quay.io/metal3-io/baremetal-operator:v0.13.1), its release's config/ from ${goproxy} (the module zip, verified: ${checksum}; cached in ${path.join(work, "plan-cache")})`), r.stdout);
            assert.ok(fs.existsSync(path.join(work, "out", "deployment", "metal3", "ironic-baremetal-operator.yaml")));
            stack.config["metal3-ironic:bmo"].goproxy = "http://127.0.0.1:9";
            fs.writeFileSync(file, YAML.stringify(stack));
            const down = planCli(["--file", file, "--out", path.join(work, "out-down")], { env: { ...env, METAL3_IRONIC_CACHE: path.join(work, "empty-cache") } });
            assert.equal(down.status, 1);
            assert.match(down.stderr, /cannot download github\.com\/metal3-io\/baremetal-operator from http:\/\/127\.0\.0\.1:9\/.*set bmo\.goproxy/);
            assert.doesNotMatch(down.stderr, /\n\s+at /, "no stack trace");
            assert.ok(!fs.existsSync(path.join(work, "out-down")), "nothing written");
        });
    });

    it("off by default: nothing of BMO is registered and no release is loaded", async function () {
        // A cache of its own: a load would fill it (from the default proxy, or fail trying).
        process.env.METAL3_IRONIC_CACHE = path.join(work, "off-cache");
        try {
            const r = await renderOffline(devRaw);
            assert.deepEqual(r.resources.filter((x) => /bmo:|baremetal-operator|CustomResourceDefinition|ValidatingWebhook/.test(`${x.type} ${x.name}`)).map((x) => x.name), []);
            assert.ok(!fs.existsSync(path.join(work, "off-cache")), "no release loaded");
        } finally {
            process.env.METAL3_IRONIC_CACHE = path.join(work, "cache");
        }
    });

    it("a zip whose hash is not bmo.checksum is refused before any managed resource is registered, saying expected and got", async function () {
        const regs: string[] = [];
        const wrong = `h1:${"A".repeat(43)}=`;
        await assert.rejects(renderOffline(withBmo({ checksum: wrong }), "dev", { onRegister: (a) => regs.push(a.type) }), (e: Error) => {
            assert.match(e.message, new RegExp(`checksum mismatch for github\\.com/metal3-io/baremetal-operator@v0\\.13\\.1 from file://.*: expected ${wrong} \\(bmo\\.checksum\\), got ${checksum.replace(/[+/]/g, "\\$&")}`));
            return true;
        });
        // The previous run's outputs are read first (a StackReference, no managed resource): nothing else.
        assert.deepEqual(regs, ["pulumi:pulumi:StackReference"]);
    });
});
