/** rules/images.ts: a digest-only Ironic image needs its version stated when a database outlives it. */
import { imagesRule } from "../../../../core/config/rules/images";
import { devRaw, haRaw, hasIssue, issues, ruleTable } from "../support";

const DIGEST = `sha256:${"a".repeat(64)}`;
const img = (images: Record<string, unknown>, base = haRaw) => ({ ...base, images });

describe("config rule: images", function () {
    ruleTable(imagesRule, [
        { name: "bare digest with mariadb", raw: img({ ironic: `quay.io/metal3-io/ironic@${DIGEST}` }), key: "images.ironicVersion", message: "required with a digest-only images.ironic", reported: true },
        {
            name: "bare digest with an external database",
            raw: img({ ironic: `quay.io/metal3-io/ironic@${DIGEST}` }, { ...devRaw, database: { kind: "external", host: "db.example", credentialsSecret: "db-creds" } }),
            key: "images.ironicVersion",
            message: "pulumi config set --path metal3-ironic:images.ironicVersion 38.0",
            reported: true,
        },
        { name: "bare digest with the version stated", raw: img({ ironic: `quay.io/metal3-io/ironic@${DIGEST}`, ironicVersion: "38.0" }), key: "images.ironicVersion", message: "required", reported: false },
        { name: "bare digest with SQLite (no schema Jobs)", raw: img({ ironic: `quay.io/metal3-io/ironic@${DIGEST}` }, devRaw), key: "images.ironicVersion", message: "required", reported: false },
        { name: "tag and digest", raw: img({ ironic: `quay.io/metal3-io/ironic:release-38.0@${DIGEST}` }), key: "images.ironicVersion", message: "required", reported: false },
        { name: "latest (no version, no guard, as before)", raw: img({ ironic: "quay.io/metal3-io/ironic:latest" }), key: "images.ironicVersion", message: "required", reported: false },
        { name: "stated version contradicting the tag", raw: img({ ironic: "quay.io/metal3-io/ironic:release-38.0", ironicVersion: "37.0" }), key: "images.ironicVersion", message: "37.0 contradicts the tag release-38.0", reported: true },
        { name: "stated version agreeing with the tag", raw: img({ ironic: "quay.io/metal3-io/ironic:v38.0.0", ironicVersion: "38.0" }), key: "images.ironicVersion", message: "contradicts", reported: false },
        { name: "stated version with SQLite", raw: img({ ironicVersion: "38.0" }, devRaw), key: "images.ironicVersion", message: 'only used with database.kind "external", "mariadb" or "mariadb-operator"', reported: true },
    ]);

    it("images.ironicVersion is dotted numbers", function () {
        hasIssue(issues(img({ ironic: `quay.io/metal3-io/ironic@${DIGEST}`, ironicVersion: "release-38.0" })), "images.ironicVersion", /dotted Ironic version such as 38\.0/);
        hasIssue(issues(img({ ironicVersion: "38" + ".0".repeat(5) })), "images.ironicVersion", /dotted/);
    });
});
