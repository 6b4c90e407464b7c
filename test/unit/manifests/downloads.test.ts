/** core/manifests/downloads.ts: the extra CA bundle's volume, mount and start command, reusable by any downloader container. */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";

import { COMBINE_CA_SCRIPT, downloadTrustVolumes, withDownloadTrust } from "../../../core/manifests/downloads";
import { podBase } from "../../../core/manifests/meta";
import { devRaw, planOf, withKeys } from "../plan/support";

describe("manifests/downloads: the extra CA bundle in a pod", function () {
    const secretCa = planOf(withKeys(devRaw, { trust: { extraCaBundle: { secret: "corp-ca" } } })).trust;

    it("nothing without trust.extraCaBundle: no volume, the container unchanged", function () {
        const c = planOf(devRaw).trust;
        const container = { name: "x", image: "i", volumeMounts: [] };
        assert.deepEqual(downloadTrustVolumes(c), []);
        assert.equal(withDownloadTrust(container, c), container);
    });

    it("a Secret's key projected as ca-bundle.crt (mode as the kubelet defaults), mounted read-only", function () {
        assert.deepEqual(downloadTrustVolumes(secretCa), [{ name: "extra-ca", secret: { secretName: "corp-ca", items: [{ key: "ca.crt", path: "ca-bundle.crt" }] } }]);
        const c = withDownloadTrust({ name: "dl", image: "i", volumeMounts: [{ name: "tmp", mountPath: "/tmp" }] }, secretCa);
        assert.deepEqual(c.volumeMounts, [{ name: "tmp", mountPath: "/tmp" }, { name: "extra-ca", mountPath: "/certs/extra-ca", readOnly: true }]);
    });

    it("wraps the container's own command and args (an image cache's), or the downloader's entrypoint", function () {
        const own = withDownloadTrust({ name: "cache", image: "i", command: ["/bin/cache"], args: ["--once"] }, secretCa);
        assert.deepEqual(own.command, ["/bin/sh", "-c", COMBINE_CA_SCRIPT, "combine-ca-bundle", "/bin/cache", "--once"]);
        assert.equal(own.args, undefined);
        assert.deepEqual((withDownloadTrust({ name: "dl", image: "i" }, secretCa).command as string[]).slice(4), ["/usr/local/bin/get-resource.sh"]);
    });

    it("the script is valid sh that tries the CentOS bundle before Debian's and ends in exec \"$@\"", function () {
        assert.equal(spawnSync("sh", ["-n", "-c", COMBINE_CA_SCRIPT]).status, 0);
        assert.ok(COMBINE_CA_SCRIPT.indexOf("/etc/pki/tls/certs/ca-bundle.crt") < COMBINE_CA_SCRIPT.indexOf("/etc/ssl/certs/ca-certificates.crt"));
        assert.match(COMBINE_CA_SCRIPT, /exec "\$@"$/);
    });

    it("podBase carries imagePullSecrets when set (every pod builder spreads it)", function () {
        assert.deepEqual(podBase(planOf(withKeys(devRaw, { imagePullSecrets: ["a", "b"] })), 1, 1).imagePullSecrets, [{ name: "a" }, { name: "b" }]);
        assert.equal("imagePullSecrets" in podBase(planOf(devRaw), 1, 1), false);
    });
});
