/**
 * Whether an image reference is pinned: a digest, or a version tag (`v38.0.0`, `11.4.5`),
 * never a moving name like `latest` or a branch build like `release-38.0` (rebuilt on every push to
 * its branch). Shared by the policy pack's `images-pinned` rule (which refuses unpinned images
 * outside the dev stacks) and `npm run plan` (which warns before that).
 */
import { DEFAULT_IMAGES } from "../contract";

export interface ImageRef {
    repository: string;
    tag?: string;
    digest?: string;
}

/** [registry/]path[:tag][@digest]; a colon before the last slash is a registry port. */
export function parseImage(image: string): ImageRef {
    const [name, digest] = image.split("@");
    const slash = name.lastIndexOf("/");
    const colon = name.lastIndexOf(":");
    const hasTag = colon > slash;
    return { repository: hasTag ? name.slice(0, colon) : name, tag: hasTag ? name.slice(colon + 1) : undefined, digest };
}

/**
 * A release tag names one build of a version (`v38.0.0`, `11.4.5`, `v1.2.3-rc1`), not a moving name
 * like `latest` nor a branch tag like `release-38.0`, which the image's CI pushes again on every
 * commit to its branch (ironic-image's release-38.0 is rebuilt as its branch moves).
 */
export function isReleaseTag(tag: string): boolean {
    return !isBranchTag(tag) && /^v?[0-9]+\.[0-9]+(\.[0-9]+)*([-+_.][0-9A-Za-z.-]+)?$/.test(tag);
}

/** `release-38.0`: the tag of a release branch's latest build, moved on every push to that branch. */
export function isBranchTag(tag: string): boolean {
    return /^release-/.test(tag);
}

/** The config key of each default image's repository (images.ironic, ...), for hints. */
export const IMAGE_KEYS = new Map(Object.entries(DEFAULT_IMAGES).map(([key, image]) => [parseImage(image).repository, `images.${key}`]));

/** Repositories that publish no release tags upstream (their default is `latest`): a digest is the only pin. */
export const DIGEST_ONLY_REPOSITORIES = [DEFAULT_IMAGES.ipaDownloader, DEFAULT_IMAGES.keepalived].map((i) => parseImage(i).repository);

/** Why `image` is not pinned (undefined: it is), with the config key that sets it when known. */
export function unpinnedReason(image: string): string | undefined {
    const ref = parseImage(image);
    if (ref.digest) return undefined;
    const key = IMAGE_KEYS.get(ref.repository);
    const hint = key ? ` (config ${key})` : "";
    if (DIGEST_ONLY_REPOSITORIES.includes(ref.repository)) return `${ref.repository} publishes no release tags, pin it by digest${hint}: ${ref.repository}@sha256:<digest>`;
    if (ref.tag && isBranchTag(ref.tag)) {
        return `not pinned: ${ref.tag} is a branch tag, rebuilt on every push to its branch; use a version tag (e.g. v${ref.tag.slice("release-".length)}.0) or ${ref.tag}@sha256:<digest>${hint}`;
    }
    if (!ref.tag || !isReleaseTag(ref.tag)) return `not pinned: use a version tag or an @sha256 digest${hint}`;
    return undefined;
}
