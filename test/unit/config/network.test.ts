/** core/config/network.ts and rules/downloads.ts: proxy, noProxy, registry, trust and pull-Secret validation, and the registry rewrite. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { mirrorImage, noProxyProblem, proxyUrlProblem, registryProblem } from "../../../core/config/network";
import { devRaw, issues } from "./support";

const keyed = (raw: Record<string, unknown>) => issues({ ...devRaw, ...raw }).map((i) => `${i.key}: ${i.message}`);
const ok = (raw: Record<string, unknown>) => {
    const r = validateConfig({ ...devRaw, ...raw });
    if (!r.ok) assert.fail(JSON.stringify(r.issues));
    return r.config;
};

describe("config/network: proxy URLs", function () {
    it("accepts http(s)://host[:port] with a name or IPv4 and an optional trailing slash", function () {
        for (const s of ["http://proxy.corp.example:3128", "https://proxy.corp.example", "http://10.0.0.1:8080/", "http://Proxy.Corp:1"]) assert.equal(proxyUrlProblem(s), undefined, s);
    });

    it("refuses credentials with the reason (pod spec) and the alternative", function () {
        const p = proxyUrlProblem("http://user:secret@proxy:3128");
        assert.match(String(p), /must not carry credentials/);
        assert.match(String(p), /readable by anyone who can read the Deployment/);
        assert.match(String(proxyUrlProblem("http://user@proxy:3128")), /credentials/);
    });

    it("refuses other schemes, paths, bad ports and hosts, control characters", function () {
        for (const s of ["socks5://proxy:1080", "proxy:3128", "http://proxy:3128/path", "http://proxy:3128?x=1", "http://proxy:0", "http://proxy:70000", "http://pro xy:1", "http://-bad-:1"]) {
            assert.match(String(proxyUrlProblem(s)), /must be http:\/\/host\[:port\]/, s);
        }
        assert.match(String(proxyUrlProblem("http://proxy:3128\n")), /control characters/);
    });

    it("names the key in the stack's errors: proxy.httpProxy, proxy.httpsProxy", function () {
        const got = keyed({ proxy: { httpProxy: "http://u:p@proxy:3128", httpsProxy: "ftp://x" } });
        assert.ok(got.some((m) => m.startsWith("proxy.httpProxy: must not carry credentials")), got.join("\n"));
        assert.ok(got.some((m) => m.startsWith("proxy.httpsProxy: must be http://host[:port]")), got.join("\n"));
    });
});

describe("config/network: noProxy entries", function () {
    it("accepts names, leading-dot domains, IP addresses and CIDRs of either family", function () {
        for (const s of ["registry.corp.example", ".corp.example", "localhost", "10.96.0.0/12", "192.168.1.10", "Mirror.Local", "fd00:1:2:3::2", "fd00:1:2:3::/64"]) assert.equal(noProxyProblem(s), undefined, s);
    });

    it("refuses '*', '*.x' (with the form to use), ports, URLs and bad CIDRs", function () {
        assert.match(String(noProxyProblem("*")), /unset proxy\.httpProxy and proxy\.httpsProxy instead/);
        assert.match(String(noProxyProblem("*.corp.example")), /write \.corp\.example/);
        assert.match(String(noProxyProblem("mirror:5000")), /without a port/);
        assert.match(String(noProxyProblem("http://mirror")), /not a URL/);
        assert.match(String(noProxyProblem("10.0.0.0/33")), /not a valid IPv4 CIDR/);
        assert.match(String(noProxyProblem("fd00::/129")), /not a valid IPv6 CIDR/);
        assert.match(String(noProxyProblem("fe80::1%eth0")), /must be a host name/);
        assert.match(String(noProxyProblem("a b")), /must be a host name/);
    });

    it("reports the entry by its index: proxy.noProxy[1]", function () {
        const got = keyed({ proxy: { httpProxy: "http://proxy:3128", noProxy: [".ok.example", "*"] } });
        assert.deepEqual(got.filter((m) => m.startsWith("proxy.")).map((m) => m.split(":")[0]), ["proxy.noProxy[1]"]);
    });

    it("noProxy or applyToIronic without any proxy is refused (they would do nothing)", function () {
        const got = keyed({ proxy: { noProxy: [".corp.example"], applyToIronic: true } });
        assert.ok(got.some((m) => /^proxy\.noProxy: does nothing without a proxy: set proxy\.httpProxy/.test(m)), got.join("\n"));
        assert.ok(got.some((m) => /^proxy\.applyToIronic: does nothing without a proxy/.test(m)), got.join("\n"));
        assert.match(keyed({ proxy: { prxy: "x" } }).join("\n"), /^proxy: unknown key "prxy"/m);
    });
});

describe("config/network: images.registry", function () {
    it("accepts host[:port][/path] with a '.', a port or localhost", function () {
        for (const s of ["mirror.corp.example", "mirror:5000", "localhost/metal3", "mirror.corp.example:5000/proxy/quay", "10.0.0.5:5000"]) assert.equal(registryProblem(s), undefined, s);
    });

    it("refuses a scheme, a trailing slash, a bare word (a Docker Hub namespace), bad path parts and ports", function () {
        assert.match(String(registryProblem("https://mirror.corp")), /drop the https:\/\//);
        assert.match(String(registryProblem("mirror.corp/")), /drop the trailing '\/'/);
        assert.match(String(registryProblem("mirror")), /Docker Hub namespace \(docker\.io\/mirror\/…\): write e\.g\. mirror\.local or mirror:5000/);
        assert.match(String(registryProblem("mirror.corp/Upper")), /each path part/);
        assert.match(String(registryProblem("mirror.corp:99999")), /port must be 1-65535/);
        assert.deepEqual(keyed({ images: { registry: "mirror" } }).filter((m) => m.startsWith("images.")).length, 1);
    });

    it("maps quay.io, docker.io/library, host-less and Docker Hub short references; keeps tags and digests; leaves mirrored refs alone", function () {
        const d = `sha256:${"c".repeat(64)}`;
        const R = "mirror.corp:5000/m3";
        assert.equal(mirrorImage("quay.io/metal3-io/ironic:release-38.0", R), `${R}/metal3-io/ironic:release-38.0`);
        assert.equal(mirrorImage(`quay.io/metal3-io/ironic:release-38.0@${d}`, R), `${R}/metal3-io/ironic:release-38.0@${d}`);
        assert.equal(mirrorImage(`quay.io/metal3-io/ironic@${d}`, R), `${R}/metal3-io/ironic@${d}`);
        assert.equal(mirrorImage("docker.io/library/mariadb:11.4.5", R), `${R}/library/mariadb:11.4.5`);
        assert.equal(mirrorImage("docker.io/mariadb:11", R), `${R}/library/mariadb:11`);
        assert.equal(mirrorImage("mariadb:11", R), `${R}/library/mariadb:11`);
        assert.equal(mirrorImage("someone/tool:1", R), `${R}/someone/tool:1`);
        assert.equal(mirrorImage("localhost:5000/x/y:1", R), `${R}/x/y:1`);
        assert.equal(mirrorImage(`${R}/metal3-io/ironic:dev`, R), `${R}/metal3-io/ironic:dev`);
        assert.equal(mirrorImage("quay.io/metal3-io/ironic:1", undefined), "quay.io/metal3-io/ironic:1");
    });

    it("rewrites every image of the defaulted config, the user's own references included", function () {
        const c = ok({ images: { registry: "mirror.corp.example", ironic: "quay.io/metal3-io/ironic:release-37.0" } });
        assert.deepEqual(
            { ...c.images },
            {
                ironic: "mirror.corp.example/metal3-io/ironic:release-37.0",
                ipaDownloader: "mirror.corp.example/metal3-io/ironic-ipa-downloader:latest",
                keepalived: "mirror.corp.example/metal3-io/keepalived:latest",
                mariadb: "mirror.corp.example/library/mariadb:11.4.5",
                baremetalOperator: "mirror.corp.example/metal3-io/baremetal-operator:v0.13.2",
                registry: "mirror.corp.example",
            },
        );
    });

    it("a prefix that makes a reference too long is reported on images.registry, naming the image", function () {
        const prefix = Array.from({ length: 8 }, (_, i) => `p${i}${"x".repeat(20)}`).join("/");
        const got = keyed({ images: { registry: `mirror.corp/${prefix}`, ironic: `quay.io/metal3-io/${"i".repeat(40)}:release-38.0` } });
        assert.ok(got.some((m) => /^images\.registry: rewrites images\.ironic to .* which image reference is too long: shorten/.test(m)), got.join("\n"));
    });
});

describe("config/network: trust.extraCaBundle and imagePullSecrets", function () {
    it("defaults the key to ca.crt and records the kind", function () {
        assert.deepEqual(ok({ trust: { extraCaBundle: { configMap: "corp-ca" } } }).trust, { extraCaBundle: { kind: "configMap", name: "corp-ca", key: "ca.crt" } });
        assert.deepEqual(ok({ trust: { extraCaBundle: { secret: "corp-ca", key: "bundle.pem" } } }).trust, { extraCaBundle: { kind: "secret", name: "corp-ca", key: "bundle.pem" } });
        assert.deepEqual(ok({}).trust, {});
    });

    it("needs exactly one of configMap and secret; names and keys are checked", function () {
        assert.match(keyed({ trust: { extraCaBundle: { configMap: "a", secret: "b" } } }).join("\n"), /trust\.extraCaBundle: name exactly one of configMap or secret/);
        assert.match(keyed({ trust: { extraCaBundle: {} } }).join("\n"), /trust\.extraCaBundle: name exactly one/);
        assert.match(keyed({ trust: { extraCaBundle: { secret: "Corp_CA" } } }).join("\n"), /trust\.extraCaBundle\.secret: must be a Secret name \(DNS subdomain\)/);
        assert.match(keyed({ trust: { extraCaBundle: { secret: "ca", key: "a/b" } } }).join("\n"), /trust\.extraCaBundle\.key: must be a ConfigMap\/Secret key/);
        assert.match(keyed({ trust: { extraCaBundle: { configmap: "ca" } } }).join("\n"), /did you mean "configMap"\?/);
    });

    it("trust.bmcCa and trust.trustedCa: the same shape and checks as extraCaBundle, each recorded on its own", function () {
        assert.deepEqual(ok({ trust: { bmcCa: { configMap: "bmc-ca" }, trustedCa: { secret: "corp-pki", key: "bundle.pem" } } }).trust, {
            bmcCa: { kind: "configMap", name: "bmc-ca", key: "ca.crt" },
            trustedCa: { kind: "secret", name: "corp-pki", key: "bundle.pem" },
        });
        assert.match(keyed({ trust: { bmcCa: { configMap: "a", secret: "b" } } }).join("\n"), /trust\.bmcCa: name exactly one of configMap or secret/);
        assert.match(keyed({ trust: { trustedCa: { secret: "ca", key: "a/b" } } }).join("\n"), /trust\.trustedCa\.key: must be a ConfigMap\/Secret key/);
        assert.match(keyed({ trust: { bmcCA: { secret: "ca" } } }).join("\n"), /did you mean "bmcCa"\?/);
    });

    it("refuses ironic.config setting the option a trust bundle sets, naming both keys and the fix", function () {
        const got = keyed({ trust: { bmcCa: { configMap: "bmc-ca" }, trustedCa: { configMap: "corp" } }, ironic: { apiUsername: "metal3", config: { "redfish.verify_ca": "/x.pem", "default.webserver_verify_ca": false } } });
        assert.ok(got.some((m) => /^ironic\.config\.redfish\.verify_ca: set by trust\.bmcCa .*remove it, or remove trust\.bmcCa/.test(m)), got.join("\n"));
        assert.ok(got.some((m) => /^ironic\.config\.default\.webserver_verify_ca: set by trust\.trustedCa/.test(m)), got.join("\n"));
        // Without the trust keys the options stay the user's.
        ok({ ironic: { apiUsername: "metal3", config: { "redfish.verify_ca": "/x.pem" } } });
    });

    it("imagePullSecrets are Secret names, reported by index", function () {
        assert.deepEqual(ok({ imagePullSecrets: ["mirror-pull", "quay.io-pull"] }).imagePullSecrets, ["mirror-pull", "quay.io-pull"]);
        const got = keyed({ imagePullSecrets: ["ok", "Not_OK"] });
        assert.ok(got.some((m) => m.startsWith("imagePullSecrets[1]: must be a Secret name (DNS subdomain)")), got.join("\n"));
        assert.match(keyed({ imagePullSecrets: "mirror-pull" }).join("\n"), /imagePullSecrets: /);
    });
});
