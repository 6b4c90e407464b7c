/** imageCache: every new key validated with its name: mode-specific required keys, URLs, architectures, keys a mode does not use. */
import { strict as assert } from "assert";

import { imageCacheRule } from "../../../../core/config/rules/image-cache";
import { validateConfig } from "../../../../core/config";
import { buildPlan, userSecretIssues } from "../../../../core/plan";
import { devRaw, hasIssue, issues, ruleTable } from "../support";

const cache = (imageCache: Record<string, unknown>) => ({ ...devRaw, imageCache });
const PEM = "-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n";
const URL = "https://ironic-ipa-cache.other.svc:6186";

describe("config rule: imageCache", function () {
    ruleTable(imageCacheRule, [
        { name: "a bare none without URLs", raw: cache({ mode: "none" }), key: "imageCache.kernelUrl", message: 'required with imageCache.mode "none"', reported: true },
        { name: "none: a kernel without its ramdisk", raw: cache({ mode: "none", kernelUrl: { aarch64: "http://i.example/k" } }), key: "imageCache.ramdiskUrl.aarch64", message: "refuse a kernel without its ramdisk", reported: true },
        { name: "none: a ramdisk without its kernel", raw: cache({ mode: "none", kernelUrl: { x86_64: "http://i.example/k" }, ramdiskUrl: { x86_64: "http://i.example/r", aarch64: "http://i.example/r2" } }), key: "imageCache.kernelUrl.aarch64", message: "refuse a ramdisk without its kernel", reported: true },
        { name: "none with both URLs", raw: cache({ mode: "none", kernelUrl: { x86_64: "http://i.example/k" }, ramdiskUrl: { x86_64: "http://i.example/r" } }), key: "imageCache.kernelUrl", message: "required", reported: false },
        { name: "external without url", raw: cache({ mode: "external", caPem: PEM }), key: "imageCache.url", message: 'required with imageCache.mode "external"', reported: true },
        { name: "external with a plain http url", raw: cache({ mode: "external", url: "http://cache.example:6186", caPem: PEM }), key: "imageCache.url", message: "must be an https:// URL", reported: true },
        { name: "external without a CA", raw: cache({ mode: "external", url: URL }), key: "imageCache.caSecret", message: "required with imageCache.mode \"external\"", reported: true },
        { name: "external with caSecret and caPem", raw: cache({ mode: "external", url: URL, caSecret: "cache-ca", caPem: PEM }), key: "imageCache.caPem", message: "not both", reported: true },
        { name: "external with IPA settings", raw: cache({ mode: "external", url: URL, caSecret: "cache-ca", ipa: [{ architecture: "x86_64", branch: "master" }] }), key: "imageCache.ipa[0].branch", message: "the other stack's cache decides", reported: true },
        { name: "deploy with url", raw: cache({ url: URL }), key: "imageCache.url", message: 'only used with imageCache.mode "external"', reported: true },
        { name: "deploy with kernelUrl", raw: cache({ kernelUrl: { x86_64: "http://i.example/k" } }), key: "imageCache.kernelUrl", message: 'only used with imageCache.mode "none"', reported: true },
        { name: "none with storageSize", raw: cache({ mode: "none", kernelUrl: { x86_64: "http://i/k" }, ramdiskUrl: { x86_64: "http://i/r" }, storageSize: "1Gi" }), key: "imageCache.storageSize", message: 'only used with imageCache.mode "deploy"', reported: true },
        { name: "the same architecture twice", raw: cache({ ipa: [{ architecture: "x86_64" }, { architecture: "x86_64", branch: "master" }] }), key: "imageCache.ipa[1].architecture", message: "already imageCache.ipa[0]", reported: true },
        { name: "both architectures", raw: cache({ ipa: [{ architecture: "x86_64" }, { architecture: "aarch64", flavor: "centos9" }] }), key: "imageCache.ipa[1].architecture", message: "already", reported: false },
    ]);

    it("structural problems name the key: mode, architecture names, URLs, times, PEM, empty list", function () {
        hasIssue(issues(cache({ mode: "local" })), "imageCache.mode", /"deploy" .*"external" .*"none"/);
        hasIssue(issues(cache({ ipa: [{ architecture: "arm64" }] })), "imageCache.ipa[0].architecture", /x86_64 or aarch64 \(arm64 is aarch64\)/);
        hasIssue(issues(cache({ mode: "none", kernelUrl: { arm64: "http://i/k" }, ramdiskUrl: { arm64: "http://i/r" } })), "imageCache.kernelUrl.arm64", /this key must be an architecture/);
        hasIssue(issues(cache({ mode: "none", kernelUrl: { x86_64: "ftp://i/k" }, ramdiskUrl: { x86_64: "http://i/r" } })), "imageCache.kernelUrl.x86_64", /http:\/\/ or https:\/\/ URL/);
        hasIssue(issues(cache({ mode: "none", kernelUrl: { x86_64: "http://i/k,x" }, ramdiskUrl: { x86_64: "http://i/r" } })), "imageCache.kernelUrl.x86_64", /must not contain ','/);
        hasIssue(issues(cache({ minimumModificationTime: "yesterday" })), "imageCache.minimumModificationTime", /UTC time such as 2026-08-01T00:00:00Z/);
        hasIssue(issues(cache({ mode: "external", url: URL, caPem: "not a certificate" })), "imageCache.caPem", /PEM certificates/);
        hasIssue(issues(cache({ ipa: [] })), "imageCache.ipa", /at least one architecture/);
        hasIssue(issues(cache({ ipa: [{ architecture: "x86_64", branch: "../x" }] })), "imageCache.ipa[0].branch", /IPA branch/);
        hasIssue(issues(cache({ port: 0 })), "imageCache.port", /port number|between 1 and 65535/);
        hasIssue(issues(cache({ storeSize: "1Gi" })), "imageCache", /unknown key "storeSize": did you mean "storageSize"/);
    });

    it("a caSecret named like a Secret the program writes is refused with its key", function () {
        const r = validateConfig(cache({ mode: "external", url: URL, caSecret: "ironic-ipa-cache-ca" }));
        assert.ok(r.ok, "valid on its own");
        const found = userSecretIssues(buildPlan(r.config));
        assert.deepEqual(found.map((i) => i.key), ["imageCache.caSecret"]);
        assert.match(found[0].message, /"ironic-ipa-cache-ca" is the name of a Secret this program writes/);
        const mine = validateConfig(cache({ mode: "external", url: URL, caSecret: "other-stack-cache-ca" }));
        assert.ok(mine.ok);
        assert.deepEqual(userSecretIssues(buildPlan(mine.config)), []);
    });
});
