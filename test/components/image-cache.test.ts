/**
 * The IPA image cache in the rendered stack (offline, pulumi mocks): both architectures cached and
 * named in Ironic's by-arch options and BMO's URLs; mode "none" renders no downloader anywhere and
 * gives BMO and Ironic the user's URLs; mode "external" renders no cache, mounts the given CA and
 * points everything at the other stack's URL; the claim is kept and protected; stack outputs.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";

import { RawConfig } from "../../core/config";
import { unwrapSecrets, valueOf } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { containersOf } from "../helpers/pod-specs";
import * as path from "path";

const ROOT = path.join(__dirname, "..", "..");
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
const BOTH = { ipa: [{ architecture: "x86_64" }, { architecture: "aarch64", filename: "ipa-centos9-master-aarch64.tar.gz" }] };
const CACHE = "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent";

const obj = (r: Rendered, kind: string, name: string) => r.objects.find((o) => o.kind === kind && o.metadata?.name === name);
const envOf = (c: any): Record<string, string> => Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e.value]));
const podsOf = (r: Rendered) => r.objects.filter((o) => o.spec?.template?.spec).map((o) => ({ o, spec: o.spec.template.spec }));

describe("IPA image cache in the rendered stack (pulumi mocks)", function () {
    this.timeout(120000);

    for (const [topology, base, kind] of [["single", devRaw, "Deployment"], ["multi", haRaw, "DaemonSet"]] as const) {
        it(`${topology}: x86_64 and aarch64 cached; Ironic's by-arch options and BMO's URLs name both; no downloader in the Ironic pods`, async function () {
            const r = await renderOffline({ ...base, imageCache: BOTH } as RawConfig);
            const cache = obj(r, "Deployment", "ironic-ipa-cache")!.spec.template.spec;
            assert.deepEqual(cache.initContainers.map((c: any) => c.name), ["ipa-downloader-x86-64", "ipa-downloader-aarch64"]);
            const keys = cache.initContainers.map((c: any) => envOf(c).IPA_CACHE_KEY);
            assert.ok(keys.every((k: string) => /^[0-9a-f]{64}$/.test(k)) && keys[0] !== keys[1], "a version key per architecture");
            assert.equal(envOf(cache.initContainers[1]).IPA_ARCH, "aarch64");
            assert.equal(envOf(cache.initContainers[1]).IPA_FILENAME, "ipa-centos9-master-aarch64.tar.gz");
            assert.equal(envOf(cache.containers[0]).IPA_CACHE_ARCHES, "x86_64 aarch64");

            const ironic = obj(r, kind, "ironic")!.spec.template.spec;
            assert.equal(ironic.dnsPolicy, "ClusterFirstWithHostNet", "host-network conductors resolve the cache Service name");
            assert.ok(!containersOf(ironic).some((c: any) => c.image.includes("ipa-downloader")), "no downloader in the Ironic pods");
            const env = envOf(ironic.containers.find((c: any) => c.name === "ironic"));
            assert.equal(env.OS_CONDUCTOR__DEPLOY_KERNEL_BY_ARCH, `x86_64:${CACHE}_x86_64.kernel,aarch64:${CACHE}_aarch64.kernel`);
            assert.equal(env.OS_CONDUCTOR__DEPLOY_RAMDISK_BY_ARCH, `x86_64:${CACHE}_x86_64.initramfs,aarch64:${CACHE}_aarch64.initramfs`);
            assert.equal(env.OS_CONDUCTOR__DEPLOY_KERNEL, `${CACHE}_x86_64.kernel`);
            assert.equal(env.OS_DEFAULT__WEBSERVER_VERIFY_CA, "/certs/ipa-cache/ca-bundle.crt");
            const client = envOf(ironic.initContainers.find((c: any) => c.name === "ipa-cache-client"));
            assert.equal(client.IPA_CACHE_ARCHES, "x86_64 aarch64");
            assert.equal(client.IPA_CACHE_DEFAULT_ARCH, "x86_64");
            const bmo = obj(r, "ConfigMap", "ironic-bmo")!.data;
            assert.equal(bmo.DEPLOY_KERNEL_URL_AARCH64, `${CACHE}_aarch64.kernel`);
            assert.equal(bmo.DEPLOY_RAMDISK_URL_AARCH64, `${CACHE}_aarch64.initramfs`);
            assert.equal(bmo.DEPLOY_KERNEL_URL_X86_64, `${CACHE}_x86_64.kernel`);
            assert.equal(bmo.DEPLOY_KERNEL_URL, `${CACHE}_x86_64.kernel`);
        });
    }

    it("the cache's claim is kept on destroy and protected; the stack exports the cache URL and CA", async function () {
        const claimOpts = async (raw: RawConfig) => {
            const regs: { type: string; opts: any }[] = [];
            const r = await renderOffline(raw, "dev", { onRegister: (a) => regs.push({ type: a.type, opts: a.opts }) });
            return { r, opts: regs.find((x) => x.type === "kubernetes:core/v1:PersistentVolumeClaim")!.opts };
        };
        const { r, opts } = await claimOpts(devRaw);
        assert.ok(obj(r, "PersistentVolumeClaim", "ironic-ipa-cache-data"));
        assert.deepEqual([opts.retainOnDelete, opts.protect], [true, true], "kept on pulumi destroy, protected");
        const off = await claimOpts({ ...devRaw, imageCache: { retainOnDelete: false, protect: false } } as RawConfig);
        assert.deepEqual([off.opts.retainOnDelete, off.opts.protect], [false, false]);
        assert.ok(r.resources.some((x) => x.type === "metal3:images:ImageCache"));
        assert.equal(await valueOf(r.outputs.imageCacheUrl!), "https://ironic-ipa-cache.metal3.svc:6186");
        assert.equal(await valueOf(r.outputs.imageCacheCaCertificate!), await valueOf(r.outputs.caCertificate));
    });

    it("the cache's certificate: from a root of its own in multi with tls generate (the conductor CA, whose key is in the cluster, chains to the stack CA); from the stack CA in single", async function () {
        const issuerOf = (r: Rendered) => {
            const cert = r.resources.find((x) => x.type === "tls:index/locallySignedCert:LocallySignedCert" && x.name === "ironic-ipa-cache-server-cert");
            assert.ok(cert, r.resources.filter((x) => x.type.startsWith("tls:")).map((x) => x.name).join(", "));
            const secret = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs?.metadata?.name === "ironic-ipa-cache-ca")!.rawInputs;
            const mounted = (unwrapSecrets(secret) as any).stringData["ca.crt"];
            assert.equal(cert.inputs.caCertPem, mounted, "the Ironic pods trust exactly the CA that signed it");
            return /\((.+): generated/.exec(mounted)![1];
        };
        const multi = await renderOffline(haRaw);
        assert.equal(issuerOf(multi), "ironic-ipa-cache-root-ca");
        const root = multi.resources.find((x) => x.type === "tls:index/selfSignedCert:SelfSignedCert" && x.name === "ironic-ipa-cache-root-ca")!;
        assert.equal(root.inputs.subject.commonName, "metal3-ironic metal3/ironic IPA cache CA");
        // Its hash on the conductor pod template: a re-issued root rolls the pods, whose cache client builds the trust bundle at start.
        const ds = obj(multi, "DaemonSet", "ironic")!.spec.template.metadata.annotations;
        const rootPem = "-----BEGIN CERTIFICATE-----\n(ironic-ipa-cache-root-ca: generated by @pulumi/tls at deploy time)\n-----END CERTIFICATE-----\n";
        assert.equal(ds["metal3-ironic.metal3.io/ipa-cache-ca-cert-hash"], createHash("sha256").update(rootPem).digest("hex"));
        const single = await renderOffline(devRaw);
        assert.equal(issuerOf(single), "ironic-pki-ca");
        assert.equal(obj(single, "Deployment", "ironic")!.spec.template.metadata.annotations["metal3-ironic.metal3.io/ipa-cache-ca-cert-hash"], undefined, "the stack CA's renewal is not this annotation's");
    });

    it('mode "none": no downloader container in any rendered object, no cache objects; BMO and Ironic get the user\'s URLs', async function () {
        const k = "http://images.example/ipa.kernel";
        const i = "http://images.example/ipa.initramfs";
        const ka = "http://images.example/ipa-arm.kernel";
        const ia = "http://images.example/ipa-arm.initramfs";
        for (const base of [devRaw, haRaw]) {
            const r = await renderOffline({ ...base, imageCache: { mode: "none", kernelUrl: { x86_64: k, aarch64: ka }, ramdiskUrl: { x86_64: i, aarch64: ia } } } as RawConfig);
            for (const { o, spec } of podsOf(r)) {
                for (const c of containersOf(spec)) {
                    assert.ok(!/ipa-downloader|ipa-cache/.test(c.name) && !c.image.includes("ipa-downloader"), `${o.kind}/${o.metadata.name}: ${c.name}`);
                    assert.ok(!(c.env ?? []).some((e: any) => e.name === "IPA_CACHE_URL" || e.name === "IPA_BASEURI"), `${c.name} downloads nothing`);
                }
            }
            assert.ok(!r.objects.some((o) => String(o.metadata?.name).includes("ipa-cache")), "no cache objects");
            assert.ok(!JSON.stringify(r.objects).includes("ironic-ipa-downloader"), "the downloader image is named nowhere");
            const bmo = obj(r, "ConfigMap", "ironic-bmo")!.data;
            assert.deepEqual([bmo.DEPLOY_KERNEL_URL, bmo.DEPLOY_RAMDISK_URL, bmo.DEPLOY_KERNEL_URL_AARCH64, bmo.DEPLOY_RAMDISK_URL_AARCH64], [k, i, ka, ia]);
            const ironic = r.objects.find((o) => (o.kind === "Deployment" || o.kind === "DaemonSet") && o.metadata.name === "ironic")!.spec.template.spec;
            const env = envOf(ironic.containers.find((c: any) => c.name === "ironic"));
            assert.equal(env.OS_CONDUCTOR__DEPLOY_KERNEL_BY_ARCH, `x86_64:${k},aarch64:${ka}`);
            assert.equal(env.OS_DEFAULT__WEBSERVER_VERIFY_CA, undefined, "no CA given: Ironic's default trust");
            assert.equal(r.outputs.imageCacheUrl, undefined);
        }
    });

    it('mode "external": no cache here; the other stack\'s URL and the given CA (caSecret read, never written)', async function () {
        const url = "https://ironic-ipa-cache.shared.svc:6186";
        const r = await renderOffline({ ...devRaw, imageCache: { mode: "external", url, caSecret: "shared-cache-ca", ipa: [{ architecture: "aarch64" }] } } as RawConfig);
        assert.ok(!r.objects.some((o) => o.kind === "Deployment" && o.metadata.name === "ironic-ipa-cache"));
        assert.ok(!r.objects.some((o) => o.kind === "Secret" && o.metadata.name === "shared-cache-ca"), "the user's Secret is not written");
        const ironic = obj(r, "Deployment", "ironic")!.spec.template.spec;
        assert.equal(ironic.volumes.find((v: any) => v.name === "ipa-cache-ca").secret.secretName, "shared-cache-ca");
        const client = envOf(ironic.initContainers.find((c: any) => c.name === "ipa-cache-client"));
        assert.equal(client.IPA_CACHE_URL, url);
        assert.equal(client.IPA_CACHE_DEFAULT_ARCH, "aarch64", "without x86_64 the first architecture is the default");
        assert.equal(obj(r, "ConfigMap", "ironic-bmo")!.data.DEPLOY_KERNEL_URL, `${url}/images/ironic-python-agent_aarch64.kernel`);
        assert.equal(await valueOf(r.outputs.imageCacheUrl!), url);
    });

    it("a downloader under a moving tag is pulled at every cache pod start (imagePullPolicy Always); pinned by digest, the default", async function () {
        const pull = async (ipaDownloader?: string) => {
            const r = await renderOffline({ ...devRaw, imageCache: BOTH, ...(ipaDownloader ? { images: { ipaDownloader } } : {}) } as RawConfig);
            const spec = obj(r, "Deployment", "ironic-ipa-cache")!.spec.template.spec;
            return { downloaders: spec.initContainers.map((c: any) => c.imagePullPolicy), server: spec.containers[0].imagePullPolicy };
        };
        // The default quay.io/metal3-io/ironic-ipa-downloader:latest, and a mirror's moving tag.
        assert.deepEqual(await pull(), { downloaders: ["Always", "Always"], server: undefined });
        assert.deepEqual((await pull("registry.example:5000/metal3/ironic-ipa-downloader:main")).downloaders, ["Always", "Always"]);
        const digest = `quay.io/metal3-io/ironic-ipa-downloader@sha256:${"a".repeat(64)}`;
        assert.deepEqual((await pull(digest)).downloaders, [undefined, undefined], "a digest names its content: the node's copy is that content");
    });
});
