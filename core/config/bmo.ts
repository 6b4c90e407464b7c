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
import type { SectionDocs } from "./section";

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

export const BMO_DOCS: SectionDocs = {
    description: "baremetal-operator deployed in the namespace from its release's Go module, already wired to this Ironic (off by default).",
    reference: [
        { keys: ["bmo.enabled"], type: "bool", default: "`false`", notes: "deploy baremetal-operator in the namespace, wired to this Ironic (its `<name>-bmo` ConfigMap, CA and credentials), with its release's CRDs (kept on delete), RBAC and validating webhook (a serving certificate from a CA of its own); see [Getting started](getting-started.md#baremetal-operator-from-the-stack). The CRDs are cluster-wide: one stack per cluster enables it" },
        { keys: ["bmo.version"], type: "release tag", default: "`v0.13.2`", notes: "the release whose `config/` (from its Go module) is deployed; another than the default needs `bmo.checksum`" },
        { keys: ["bmo.checksum"], type: "`h1:` hash", default: "v0.13.2's: `h1:XSkyBv4l1OvCL66b7T0FEUaGeS0zOjQKhot9V8zeZQc=`", notes: "the module zip's go.sum hash (`github.com/metal3-io/baremetal-operator <version> h1:…`): the zip is refused unless it matches" },
        { keys: ["bmo.goproxy"], type: "URL", default: "`https://proxy.golang.org`", notes: "the Go module proxy the zip comes from: `https://`, `http://` or `file://` (a GOPROXY-shaped directory such as `$(go env GOMODCACHE)/cache/download`, for air-gapped runs); the verified zip is cached (under `bmo/` of `$METAL3_IRONIC_CACHE`, else `$XDG_CACHE_HOME/metal3-ironic`, else `~/.cache/metal3-ironic`)" },
    ],
};
