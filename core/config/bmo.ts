/**
 * `bmo`: baremetal-operator deployed by the stack, in its namespace, already wired to this Ironic
 * (core/manifests/bmo.ts). Its manifests are its release's own `config/`, taken from the release's
 * Go module (the zip a Go module proxy serves, verified against its go.sum `h1:` line), so what is
 * deployed is exactly what that release ships, and nothing of BMO is kept in this repository.
 * Its schema, defaults and resolved type in one place (registered by schema.ts and defaults.ts).
 */
import { z } from "zod";

import { BMO_PINNED } from "../bmo-release";
import { checked, controlProblem, tooLong } from "./strings";

/** The section, defaulted. */
export interface BmoConfig {
    enabled: boolean;
    /** The release (a tag of github.com/metal3-io/baremetal-operator, e.g. v0.13.2). */
    version: string;
    /** Its module zip's go.sum hash (`h1:…`): known for the pinned release, required for any other. */
    checksum?: string;
    /** The Go module proxy the release's zip comes from: https://, http:// or file:// (a GOPROXY-shaped directory). */
    goproxy: string;
}

export const DEFAULT_GOPROXY = "https://proxy.golang.org";

const version = z.string().regex(/^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/, "must be a release tag of baremetal-operator such as v0.13.2");
const checksum = z.string().regex(/^h1:[A-Za-z0-9+/]{43}=$/, "must be the module's go.sum hash, h1: and 44 characters of base64 (the line `github.com/metal3-io/baremetal-operator <version> h1:…`)");

export function goproxyProblem(s: string): string | undefined {
    const fix = "must be a Go module proxy URL: https://, http:// or file:// (a directory laid out like a GOPROXY, e.g. $(go env GOMODCACHE)/cache/download)";
    if (tooLong(s, 2048) || controlProblem(s) || /[\s"'`$\\]/.test(s)) return fix;
    try {
        const u = new URL(s);
        // file:///abs/dir (a host part, as in file://dir/x, is not a local directory).
        if (u.protocol === "file:") return u.hostname === "" || u.hostname === "localhost" ? undefined : fix;
        if ((u.protocol !== "http:" && u.protocol !== "https:") || u.hostname === "") return fix;
    } catch {
        return fix;
    }
    return undefined;
}

interface Blocks {
    strict: <T extends z.ZodRawShape>(shape: T) => z.ZodObject<T, z.core.$strict>;
}

/** The `bmo` section. */
export function bmoSection({ strict }: Blocks) {
    return strict({
        enabled: z.boolean().optional(),
        version: version.optional(),
        checksum: checksum.optional(),
        goproxy: checked(goproxyProblem).optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof bmoSection>> | undefined;

/** Defaults: off; the pinned release with its known checksum; the public Go module proxy. */
export function resolveBmo(b: Parsed): BmoConfig {
    const v = b?.version ?? BMO_PINNED.version;
    const sum = b?.checksum ?? (v === BMO_PINNED.version ? BMO_PINNED.h1 : undefined);
    return { enabled: b?.enabled ?? false, version: v, ...(sum !== undefined ? { checksum: sum } : {}), goproxy: (b?.goproxy ?? DEFAULT_GOPROXY).replace(/\/+$/, "") };
}
