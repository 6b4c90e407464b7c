/** core/config/pinning.ts: what counts as pinned, for the policy pack and `npm run plan`'s warning. */
import { strict as assert } from "assert";

import { DEFAULT_IMAGES } from "../../../core/contract";
import { isBranchTag, isReleaseTag, parseImage, unpinnedReason } from "../../../core/config/pinning";

const D = `sha256:${"c".repeat(64)}`;

describe("config/pinning", function () {
    it("version tags are release tags; latest, main and branch tags (release-38.0, pushed again on every commit to its branch) are not", function () {
        for (const t of ["v38.0.0", "38.0.0", "11.4.5", "v1.2.3-rc1", "v0.13.2"]) assert.equal(isReleaseTag(t), true, t);
        for (const t of ["latest", "main", "release-38.0", "release-38.0.1", "stable"]) assert.equal(isReleaseTag(t), false, t);
        assert.equal(isBranchTag("release-38.0"), true);
        assert.equal(isBranchTag("v38.0.0"), false);
    });

    it("unpinnedReason: none for a version tag or any digest; a branch tag is named with the version tag to use; latest with its config key", function () {
        assert.equal(unpinnedReason("quay.io/metal3-io/ironic:v38.0.0"), undefined);
        assert.equal(unpinnedReason(`quay.io/metal3-io/ironic:release-38.0@${D}`), undefined);
        assert.equal(unpinnedReason(`quay.io/metal3-io/ironic@${D}`), undefined);
        assert.equal(
            unpinnedReason("quay.io/metal3-io/ironic:release-38.0"),
            "not pinned: release-38.0 is a branch tag, rebuilt on every push to its branch; use a version tag (e.g. v38.0.0) or release-38.0@sha256:<digest> (config images.ironic)",
        );
        assert.equal(unpinnedReason("quay.io/metal3-io/ironic:latest"), "not pinned: use a version tag or an @sha256 digest (config images.ironic)");
        assert.match(String(unpinnedReason("quay.io/metal3-io/keepalived:v2.0.0")), /publishes no release tags, pin it by digest \(config images\.keepalived\)/);
    });

    it("the default Ironic image is pinned (a version tag); the downloader's and keepalived's are not until you pin a digest", function () {
        assert.equal(parseImage(DEFAULT_IMAGES.ironic).tag, "v38.0.0");
        assert.equal(unpinnedReason(DEFAULT_IMAGES.ironic), undefined);
        assert.equal(unpinnedReason(DEFAULT_IMAGES.mariadb), undefined);
        assert.ok(unpinnedReason(DEFAULT_IMAGES.ipaDownloader));
        assert.ok(unpinnedReason(DEFAULT_IMAGES.keepalived));
    });
});
