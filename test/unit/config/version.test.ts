/** core/config/version.ts: the Ironic version an image reference names, digests included. */
import { strict as assert } from "assert";

import { compareVersions, imageTag, ironicVersion, isBareDigest, parseVersion } from "../../../core/config/version";

const D = `sha256:${"0123456789abcdef".repeat(4)}`;

describe("config: image versions", function () {
    it("reads release-, v- and plain dotted tags, with or without a digest after them", function () {
        assert.deepEqual(ironicVersion("quay.io/metal3-io/ironic:release-38.0"), [38, 0]);
        assert.deepEqual(ironicVersion("quay.io/metal3-io/ironic:v38.0.1"), [38, 0, 1]);
        assert.deepEqual(ironicVersion("registry:5000/ironic:26.1.2"), [26, 1, 2]);
        assert.deepEqual(ironicVersion(`quay.io/metal3-io/ironic:release-38.0@${D}`), [38, 0]);
        assert.deepEqual(ironicVersion(`registry.local:5000/metal3/ironic:v37.0@${D}`), [37, 0]);
    });

    it("names no version for main, latest, other tags, no tag and a bare digest (a registry port is not a tag)", function () {
        for (const image of ["quay.io/metal3-io/ironic:main", "quay.io/metal3-io/ironic:latest", "quay.io/metal3-io/ironic:capm3-v1.4.4", "registry:5000/ironic", `quay.io/metal3-io/ironic@${D}`, `registry:5000/ironic@${D}`, `x/ironic:main@${D}`]) {
            assert.equal(ironicVersion(image), undefined, image);
        }
    });

    it("tells a bare digest from a tagged pin", function () {
        assert.equal(isBareDigest(`quay.io/metal3-io/ironic@${D}`), true);
        assert.equal(isBareDigest(`registry:5000/ironic@${D}`), true);
        assert.equal(isBareDigest(`quay.io/metal3-io/ironic:release-38.0@${D}`), false);
        assert.equal(isBareDigest("quay.io/metal3-io/ironic:latest"), false);
        assert.equal(imageTag(`registry:5000/ironic:v1@${D}`), "v1");
        assert.equal(imageTag("registry:5000/ironic"), undefined);
    });

    it("parses and compares dotted versions, missing parts counting as 0", function () {
        assert.deepEqual(parseVersion("38.0.1"), [38, 0, 1]);
        assert.equal(parseVersion("v38"), undefined);
        assert.equal(compareVersions([38], [38, 0]), 0);
        assert.ok(compareVersions([38, 0, 5], [38, 1]) < 0);
        assert.ok(compareVersions([39], [38, 9]) > 0);
    });
});
