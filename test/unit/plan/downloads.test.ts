/** core/plan/downloads.ts and env.ts: the downloader's proxy and CA variables, the noProxy defaults, Ironic's opt-in, and the user-owned names. */
import { strict as assert } from "assert";

import { buildPlan } from "../../../core/plan";
import { defaultNoProxy, noProxyList } from "../../../core/plan/downloads";
import { downgradeError } from "../../../core/plan/database";
import { previousStateIssues } from "../../../core/plan/previous";
import { userConfigMaps, userSecretIssues, userSecrets } from "../../../core/plan/secrets";
import { configOf, devRaw, haRaw, planOf, withKeys } from "./support";

const PROXY = { httpProxy: "http://proxy.corp.example:3128", httpsProxy: "http://proxy.corp.example:3129" };

describe("plan/downloads: proxy variables of the IPA downloader", function () {
    it("none without a proxy (the examples render unchanged)", function () {
        const env = planOf(devRaw).ipaDownloaderEnv;
        for (const k of Object.keys(env)) assert.doesNotMatch(k, /proxy|CA_BUNDLE|SSL_CERT/i);
    });

    it("both spellings of HTTP_PROXY, HTTPS_PROXY and NO_PROXY; NO_PROXY = loopback, cluster names, provisioning CIDR and IP, then the user's", function () {
        const plan = planOf(withKeys(devRaw, { proxy: { ...PROXY, noProxy: [".corp.example", "10.96.0.0/12", "localhost"] } }));
        const env = plan.ipaDownloaderEnv;
        assert.equal(env.HTTP_PROXY, PROXY.httpProxy);
        assert.equal(env.http_proxy, PROXY.httpProxy);
        assert.equal(env.HTTPS_PROXY, PROXY.httpsProxy);
        assert.equal(env.https_proxy, PROXY.httpsProxy);
        const p = plan.provisioning;
        const want = ["localhost", "127.0.0.1", ".svc", `.${plan.clusterDomain}`, p.cidr, p.ip, ".corp.example", "10.96.0.0/12"].join(",");
        assert.equal(env.NO_PROXY, want, "defaults first, the user's after, each once");
        assert.equal(env.no_proxy, want);
        assert.equal(env.SHARED_DIR, "/shared", "the downloader's own variables stay");
    });

    it("only the proxy that is set: httpsProxy alone gives no HTTP_PROXY", function () {
        const env = planOf(withKeys(devRaw, { proxy: { httpsProxy: PROXY.httpsProxy } })).ipaDownloaderEnv;
        assert.equal(env.HTTP_PROXY, undefined);
        assert.equal(env.http_proxy, undefined);
        assert.equal(env.https_proxy, PROXY.httpsProxy);
        assert.ok(env.NO_PROXY.includes(".svc"));
    });

    it("multi: the CIDR and no node's address (each wrapper adds its own: a listing changes no pod template), and clusterDomain is followed", function () {
        const c = configOf(withKeys(haRaw, { clusterDomain: "k8s.example", proxy: { ...PROXY, applyToIronic: true } }));
        const d = defaultNoProxy(c);
        assert.ok(d.includes("172.22.0.0/24"));
        for (const n of c.conductors) assert.ok(!d.includes(n.ip!), n.ip);
        const listed = planOf(withKeys(haRaw, { conductors: [...(haRaw.conductors as object[]), { name: "cp-3", ip: "172.22.0.5", external: { ip: "10.20.0.15" } }], proxy: { ...PROXY, applyToIronic: true } }));
        assert.equal(listed.ironicEnv.NO_PROXY, planOf(withKeys(haRaw, { proxy: { ...PROXY, applyToIronic: true } })).ironicEnv.NO_PROXY);
        assert.ok(d.includes(".k8s.example"));
        assert.ok(!d.includes(""), "no empty entry (multi has no provisioning.ip)");
        assert.equal(new Set(noProxyList(c)).size, noProxyList(c).length);
    });

    it("the ironic container gets the proxy only with proxy.applyToIronic; httpd never", function () {
        const off = planOf(withKeys(devRaw, { proxy: PROXY }));
        assert.equal(off.ironicEnv.HTTPS_PROXY, undefined);
        const on = planOf(withKeys(devRaw, { proxy: { ...PROXY, applyToIronic: true } }));
        assert.equal(on.ironicEnv.HTTPS_PROXY, PROXY.httpsProxy);
        assert.equal(on.ironicEnv.no_proxy, on.ipaDownloaderEnv.no_proxy);
        assert.equal(on.commonEnv.HTTPS_PROXY, undefined);
    });

    it("trust.extraCaBundle: curl's, OpenSSL's and requests' bundle variables all name the combined bundle in /tmp", function () {
        const env = planOf(withKeys(devRaw, { trust: { extraCaBundle: { configMap: "corp-ca" } } })).ipaDownloaderEnv;
        for (const k of ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"]) assert.equal(env[k], "/tmp/metal3-ironic-ca-bundle.crt", k);
    });
});

describe("plan/secrets: the user's pull Secrets and CA bundle are never the program's", function () {
    it("pull Secrets and a CA Secret are user Secrets (guarded); a CA ConfigMap is a user ConfigMap", function () {
        const plan = planOf(withKeys(devRaw, { imagePullSecrets: ["mirror-pull"], trust: { extraCaBundle: { secret: "corp-ca" } } }));
        assert.deepEqual(userSecrets(plan), [
            { key: "trust.extraCaBundle.secret", name: "corp-ca" },
            { key: "imagePullSecrets[0]", name: "mirror-pull" },
        ]);
        assert.deepEqual(userConfigMaps(planOf(withKeys(devRaw, { trust: { extraCaBundle: { configMap: "corp-ca" } } }))), [{ key: "trust.extraCaBundle.configMap", name: "corp-ca" }]);
    });

    it("a name the program writes is refused, with the key and what the program keeps there", function () {
        const name = (devRaw.name as string) ?? "ironic";
        const s = userSecretIssues(planOf(withKeys(devRaw, { imagePullSecrets: ["ok", `${name}-credentials`] })));
        assert.deepEqual(s.map((i) => i.key), ["imagePullSecrets[1]"]);
        assert.match(s[0].message, /Secret this program writes \(the API credentials\)/);
        const c = userSecretIssues(planOf(withKeys(devRaw, { trust: { extraCaBundle: { configMap: `${name}-bmo` } } })));
        assert.deepEqual(c.map((i) => i.key), ["trust.extraCaBundle.configMap"]);
        assert.match(c[0].message, /"ironic-bmo" is the name of a ConfigMap this program writes \(the settings baremetal-operator reads\)/);
    });
});

describe("plan: the downgrade guard after images.registry", function () {
    const R = "quay.io/metal3-io/ironic";
    it("compares the mirrored reference by its tag: a mirror of an older release is refused, moving to a mirror is not a downgrade", function () {
        const mirrored = (tag: string) => configOf(withKeys(haRaw, { images: { registry: "mirror.corp.example:5000/m3", ironic: `${R}:${tag}` } }));
        const older = mirrored("release-37.0");
        assert.equal(older.images.ironic, "mirror.corp.example:5000/m3/metal3-io/ironic:release-37.0");
        const issues = previousStateIssues(buildPlan(older), { ironicImage: `${R}:release-38.0` });
        assert.deepEqual(issues.map((i) => i.key), ["images.ironic"]);
        assert.match(issues[0].message, /37\.0 < 38\.0/);
        assert.deepEqual(previousStateIssues(buildPlan(mirrored("release-38.0")), { ironicImage: `${R}:release-38.0` }), []);
        // The registry's port is not read as a tag.
        assert.equal(downgradeError("mirror.corp.example:5000/ironic:release-38.0", "mirror.corp.example:5000/ironic", false), undefined);
        assert.match(String(downgradeError("mirror.corp.example:5000/m3/ironic:release-38.0", "mirror.corp.example:5000/m3/ironic:release-37.0", false)), /37\.0 < 38\.0/);
    });
});
