/** imageCache: every new key validated with its name: mode-specific required keys, URLs, architectures, keys a mode does not use. */
import { strict as assert } from "assert";
import { createHash } from "crypto";

import { imageCacheRule, ipaDownloadRule } from "../../../../core/config/rules/image-cache";
import { validateConfig } from "../../../../core/config";
import { buildPlan, userSecretIssues } from "../../../../core/plan";
import { devRaw, hasIssue, issues, ruleTable } from "../support";
import { planOf } from "../../../helpers/plan";
import { deployedCache } from "../../../../core/manifests/image-cache";

const cache = (imageCache: Record<string, unknown>) => ({ ...devRaw, imageCache });
const PEM = "-----BEGIN CERTIFICATE-----\nMIIBAA==\n-----END CERTIFICATE-----\n";
const URL = "https://ironic-ipa-cache.other.svc:6186";
const SHA = "0123456789abcdef".repeat(4);
const HTTP = "http://mirror.example/ipa";

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

    describe("IPA downloads over plain http (deploy)", function () {
        ruleTable(ipaDownloadRule, [
            { name: "an entry's own http baseUri", raw: cache({ ipa: [{ architecture: "x86_64" }, { architecture: "aarch64", baseUri: HTTP }] }), key: "imageCache.ipa[1].baseUri", message: "is plain http: anyone on the path could replace the ramdisk every host boots (the aarch64 IPA). Use https, or pin the tarball with imageCache.ipa[1].sha256", reported: true },
            { name: "ironic.ipa.baseUri inherited by the default entry (imageCache unset)", raw: { ...devRaw, ironic: { ipa: { baseUri: HTTP } } }, key: "ironic.ipa.baseUri", message: "pin the tarball with an imageCache.ipa entry {architecture: x86_64, sha256: <its sha256sum>} (the cache then serves nothing else), or accept it with imageCache.allowHttp: true", reported: true },
            { name: "an upper-case scheme is still plain http", raw: cache({ ipa: [{ architecture: "x86_64", baseUri: "HTTP://mirror.example/ipa" }] }), key: "imageCache.ipa[0].baseUri", message: "is plain http", reported: true },
            { name: "http with the tarball's sha256", raw: cache({ ipa: [{ architecture: "x86_64", baseUri: HTTP, sha256: SHA }] }), key: "imageCache.ipa[0].baseUri", message: "plain http", reported: false },
            { name: "http accepted with allowHttp", raw: cache({ allowHttp: true, ipa: [{ architecture: "x86_64", baseUri: HTTP }] }), key: "imageCache.ipa[0].baseUri", message: "plain http", reported: false },
            { name: "https", raw: cache({ ipa: [{ architecture: "x86_64", baseUri: "https://mirror.example/ipa" }] }), key: "imageCache.ipa[0].baseUri", message: "plain http", reported: false },
            { name: "none: nothing downloads", raw: { ...cache({ mode: "none", kernelUrl: { x86_64: "http://i/k" }, ramdiskUrl: { x86_64: "http://i/r" } }), ironic: { ipa: { baseUri: HTTP } } }, key: "ironic.ipa.baseUri", message: "plain http", reported: false },
        ]);
        ruleTable(imageCacheRule, [
            { name: "external with a sha256", raw: cache({ mode: "external", url: URL, caSecret: "cache-ca", ipa: [{ architecture: "x86_64", sha256: SHA }] }), key: "imageCache.ipa[0].sha256", message: "the other stack's cache decides", reported: true },
            { name: "none with allowHttp", raw: cache({ mode: "none", kernelUrl: { x86_64: "http://i/k" }, ramdiskUrl: { x86_64: "http://i/r" }, allowHttp: true }), key: "imageCache.allowHttp", message: 'only used with imageCache.mode "deploy"', reported: true },
        ]);
        it("the plan hands the expected sha256 to the entry's sync script (IPA_CACHE_SHA256) and makes it part of the version key; unset, the key is what it was", function () {
            const planFor = (entry: Record<string, unknown>) => deployedCache(planOf(cache({ ipa: [{ architecture: "x86_64", ...entry }] }))).versions[0];
            const pinned = planFor({ sha256: SHA });
            const plain = planFor({});
            assert.equal(pinned.env.IPA_CACHE_SHA256, SHA);
            assert.equal(plain.env.IPA_CACHE_SHA256, undefined);
            assert.notEqual(pinned.key, plain.key, "a new expected sha256 is a new version: checked before it is served");
            // The key of an entry without sha256 (JSON of the selecting settings, the unset ones omitted) is unchanged: no download on upgrade.
            assert.equal(plain.key, createHash("sha256").update(JSON.stringify({ image: "quay.io/metal3-io/ironic-ipa-downloader:latest", architecture: "x86_64" })).digest("hex"));
        });

        it("entries inheriting the same http ironic.ipa.baseUri are reported once, under that key", function () {
            const found = issues({ ...cache({ ipa: [{ architecture: "x86_64" }, { architecture: "aarch64" }] }), ironic: { ipa: { baseUri: HTTP } } }).filter((i) => i.key === "ironic.ipa.baseUri");
            assert.equal(found.length, 1, JSON.stringify(found));
        });

        it("a sha256 must be 64 lowercase hex digits", function () {
            hasIssue(issues(cache({ ipa: [{ architecture: "x86_64", sha256: SHA.toUpperCase() }] })), "imageCache.ipa[0].sha256", /64 lowercase hex digits/);
            hasIssue(issues(cache({ ipa: [{ architecture: "x86_64", sha256: SHA.slice(1) }] })), "imageCache.ipa[0].sha256", /64 lowercase hex digits/);
        });
    });

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
        const found = userSecretIssues(planOf(cache({ mode: "external", url: URL, caSecret: "ironic-ipa-cache-ca" })));
        assert.deepEqual(found.map((i) => i.key), ["imageCache.caSecret"]);
        assert.match(found[0].message, /"ironic-ipa-cache-ca" is the name of a Secret this program writes/);
        const mine = validateConfig(cache({ mode: "external", url: URL, caSecret: "other-stack-cache-ca" }));
        assert.ok(mine.ok);
        assert.deepEqual(userSecretIssues(buildPlan(mine.config)), []);
    });
});
