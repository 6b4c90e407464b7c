/**
 * `images`: the container image of every role, an optional mirror every image is rewritten to, and
 * the Ironic version of a digest-only image. Its schema, defaults (core/contract.ts DEFAULT_IMAGES),
 * resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import { DEFAULT_IMAGES } from "../contract";
import { mirrorImage, registryProblem } from "./network";
import { parseImage } from "./pinning";
import type { SectionBlocks, SectionDocs } from "./section";
import { checked } from "./strings";

/**
 * Container image reference: [registry[:port]/]path[:tag][@digest], following the grammar of
 * the distribution reference (lower-case path components, tag up to 128 characters, sha256 digest).
 */
const IMAGE_REF =
    /^(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
export const imageRef = z
    .string()
    .max(255, "image reference is too long")
    .regex(IMAGE_REF, "not a valid image reference (expected e.g. quay.io/metal3-io/ironic:v38.0.0 or ...@sha256:<64 hex>)");

/** The `images` section. */
export function imagesSection({ strict }: SectionBlocks) {
    return strict({
        ironic: imageRef.optional(),
        ipaDownloader: imageRef.optional(),
        keepalived: imageRef.optional(),
        mariadb: imageRef.optional(),
        baremetalOperator: imageRef.optional(),
        registry: checked(registryProblem).optional(),
        ironicVersion: z.string().regex(/^[0-9]+(\.[0-9]+){0,3}$/, "must be a dotted Ironic version such as 38.0 or 38.0.1").optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof imagesSection>> | undefined;

/** Every image, then rewritten to images.registry when set: what every pod pulls. `bmoVersion` is `bmo.version` as set. */
export function resolveImages(i: Parsed, bmoVersion: string | undefined) {
    const registry = i?.registry;
    const m = (ref: string) => mirrorImage(ref, registry);
    const bmo = parseImage(DEFAULT_IMAGES.baremetalOperator);
    return {
        ironic: m(i?.ironic ?? DEFAULT_IMAGES.ironic),
        ipaDownloader: m(i?.ipaDownloader ?? DEFAULT_IMAGES.ipaDownloader),
        keepalived: m(i?.keepalived ?? DEFAULT_IMAGES.keepalived),
        mariadb: m(i?.mariadb ?? DEFAULT_IMAGES.mariadb),
        /** baremetal-operator's (used with bmo.enabled): the release bmo.version names unless set, the manifests and the binary of one release. */
        baremetalOperator: m(i?.baremetalOperator ?? `${bmo.repository}:${bmoVersion ?? bmo.tag}`),
        /** The mirror every image above was rewritten to (already applied to them), if set. */
        ...(registry !== undefined ? { registry } : {}),
        /** The Ironic version of images.ironic when its reference has no comparable tag (a bare digest). */
        ...(i?.ironicVersion !== undefined ? { ironicVersion: i.ironicVersion } : {}),
    };
}

/** What StackConfig holds for `images`. */
export type ImagesConfig = ReturnType<typeof resolveImages>;

export const IMAGES_DOCS: SectionDocs = {
    description: "Container images (tag or @sha256 digest).",
    reference: [
        { keys: ["images.ironic"], type: "image ref", default: "`quay.io/metal3-io/ironic:v38.0.0`", notes: "tag, `tag@sha256:` digest, or a bare `@sha256:` digest (then `images.ironicVersion` with a database)" },
        { keys: ["images.ironicVersion"], type: "dotted version", default: "— (read from the tag)", notes: "`38.0`: the version of a digest-only `images.ironic`, for the downgrade guard; required with a bare digest and `database.kind` `mariadb` or `external`" },
        { keys: ["images.ipaDownloader"], type: "image ref", default: "`quay.io/metal3-io/ironic-ipa-downloader:latest`", notes: "the downloader publishes no release tags: pin a digest in production" },
        { keys: ["images.keepalived"], type: "image ref", default: "`quay.io/metal3-io/keepalived:latest`", notes: "only with `provisioning.keepalived`; no release tags: pin a digest in production" },
        { keys: ["images.mariadb"], type: "image ref", default: "`docker.io/library/mariadb:11.4.5`", notes: "with `database.kind: mariadb`" },
        { keys: ["images.baremetalOperator"], type: "image ref", default: "`quay.io/metal3-io/baremetal-operator:v0.13.2`", notes: "with `bmo.enabled`; unless set, its tag is `bmo.version`: the binary of the release whose manifests are deployed" },
        { keys: ["images.registry"], type: "`host[:port][/path]`", default: "— (each image's own registry)", notes: "pull every image from this mirror: `quay.io/metal3-io/ironic:v38.0.0` → `<registry>/metal3-io/ironic:v38.0.0`, Docker Hub images under `library/`; see [Network](networks-and-trust.md#registry-mirror)" },
    ],
};
