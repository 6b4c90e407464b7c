/**
 * `readiness`: the live check after the workload (components/readiness.ts, assets/ironic-readiness.py):
 * every conductor alive in the Ironic API, or `pulumi up` fails. Its schema, defaults, resolved type
 * and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import type { SectionBlocks, SectionDocs } from "./section";

/** How long the live readiness check waits for every conductor unless `readiness.timeoutSeconds` says otherwise. */
export const DEFAULT_READINESS_TIMEOUT = 600;

/** The `readiness` section. */
export function readinessSection({ strict }: SectionBlocks) {
    return strict({
        enabled: z.boolean().optional(),
        mode: z.enum(["auto", "in-cluster", "port-forward"], { error: 'must be "auto", "in-cluster" (the API Service URL) or "port-forward" (kubectl port-forward)' }).optional(),
        timeoutSeconds: z.number().int("must be a whole number of seconds").min(10, "must be at least 10").max(86400, "must be at most 86400 (a day)").optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof readinessSection>> | undefined;

/** Defaults: on, `auto`, 600 s. */
export function resolveReadiness(r: Parsed) {
    return {
        enabled: r?.enabled ?? true,
        mode: r?.mode ?? "auto",
        timeoutSeconds: r?.timeoutSeconds ?? DEFAULT_READINESS_TIMEOUT,
    };
}

/** What StackConfig holds for `readiness`. */
export type ReadinessConfig = ReturnType<typeof resolveReadiness>;

export const READINESS_DOCS: SectionDocs = {
    description: "The live check after the workload: every conductor alive in the Ironic API, or pulumi up fails.",
    reference: [
        { keys: ["readiness.enabled"], type: "bool", default: "`true`", notes: "after the workload, wait until every conductor is alive in the API, else fail `pulumi up`; see [Live readiness](gitops.md#live-readiness); must be `false` with `tls.mode: cert-manager`" },
        { keys: ["readiness.mode"], default: "`auto`", notes: "how the check reaches the API: `auto` = `in-cluster` when `KUBERNETES_SERVICE_HOST` is set (e.g. under PKO), else `port-forward`" },
        { keys: ["readiness.timeoutSeconds"], type: "10–86400", default: "`600`", notes: "how long the check waits for every conductor" },
    ],
};
