/**
 * The Ironic version an image reference names, read from its tag: used by the downgrade guard
 * (core/plan/database.ts) and by the rule that asks for `images.ironicVersion` when a reference
 * has no tag at all.
 */

/** `a/b:tag@sha256:…` → `a/b:tag`; `a/b@sha256:…` → `a/b`. */
function withoutDigest(image: string): string {
    const at = image.indexOf("@");
    return at >= 0 ? image.slice(0, at) : image;
}

/** The tag of an image reference (digest ignored), if it has one. */
export function imageTag(image: string): string | undefined {
    const ref = withoutDigest(image);
    const slash = ref.lastIndexOf("/");
    const colon = ref.lastIndexOf(":");
    return colon > slash ? ref.slice(colon + 1) : undefined;
}

/** A digest pin without a tag (`repo@sha256:…`): it names no version at all. */
export function isBareDigest(image: string): boolean {
    return image.includes("@") && imageTag(image) === undefined;
}

/** `38.0.1` → [38, 0, 1]; undefined when it is not dotted numbers. */
export function parseVersion(v: string): number[] | undefined {
    return /^[0-9]+(?:\.[0-9]+)*$/.test(v) ? v.split(".").map(Number) : undefined;
}

/**
 * The Ironic version an image reference names, when it names one: `release-38.0` → [38, 0],
 * `38.0.1` / `v38.0.1` → [38, 0, 1], also with a digest after the tag (`:release-38.0@sha256:…`).
 * `latest`, `main` and bare digests name none.
 */
export function ironicVersion(image: string): number[] | undefined {
    const tag = imageTag(image);
    const m = tag === undefined ? null : /^(?:release-|v)?([0-9]+(?:\.[0-9]+)*)$/.exec(tag);
    return m ? parseVersion(m[1]) : undefined;
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b` (missing parts are 0). */
export function compareVersions(a: number[], b: number[]): number {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
        const d = (a[i] ?? 0) - (b[i] ?? 0);
        if (d !== 0) return d;
    }
    return 0;
}

/** The version the guards compare: the stated one, else the one the tag names (none for latest, main, bare digests). */
export function effectiveIronicVersion(i: { image: string; version?: string }): number[] | undefined {
    return i.version ? parseVersion(i.version) : ironicVersion(i.image);
}
