/**
 * Images: the Ironic version the downgrade guard compares. A bare digest (`repo@sha256:…`) names
 * no version, so with a database that outlives the image (schema Jobs) it must be stated.
 */
import { compareVersions, imageTag, ironicVersion, isBareDigest, parseVersion } from "../version";
import type { Rule } from "./rule";

export const imagesRule: Rule = ({ config: c, parsed }, add) => {
    const stated = parsed.images?.ironicVersion;
    const image = c.images.ironic;
    const jobs = c.database.kind !== "sqlite";
    if (stated === undefined) {
        if (jobs && parsed.images !== undefined && isBareDigest(image)) {
            add(
                "images.ironicVersion",
                `required with a digest-only images.ironic and database.kind "${c.database.kind}": the downgrade guard cannot read a version from ${image}; ` +
                    "state it (e.g. pulumi config set --path metal3-ironic:images.ironicVersion 38.0) or pin as <repo>:v38.0.0@sha256:<digest>",
            );
        }
        return;
    }
    if (!jobs) add("images.ironicVersion", 'only used with database.kind "external", "mariadb" or "mariadb-operator" (the downgrade guard of a kept database)');
    const named = ironicVersion(image);
    if (named && compareVersions(named, parseVersion(stated)!) !== 0) {
        add("images.ironicVersion", `${stated} contradicts the tag ${imageTag(image)} of images.ironic; remove images.ironicVersion or make them agree`);
    }
};
