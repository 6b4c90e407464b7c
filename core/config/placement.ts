/**
 * `placement`: where the pods run (every pod's node selector and tolerations; multi: which nodes run
 * a conductor). Its schema, defaults, resolved type and documentation in one place
 * (core/config/section.ts).
 */
import { z } from "zod";

import type { SectionBlocks, SectionDocs } from "./section";
import { tolerationProblems } from "./strings";

/** The control-plane role label: multi runs a conductor on every node carrying it unless `placement.conductorNodeSelector` says otherwise. */
export const CONTROL_PLANE_ROLE = "node-role.kubernetes.io/control-plane";

/** Tolerated unless `placement.tolerations` is set: Ironic runs on the control-plane nodes. */
export const CONTROL_PLANE_TOLERATIONS = [
    { key: "node-role.kubernetes.io/control-plane", operator: "Exists" as const, effect: "NoSchedule" as const },
    { key: "node-role.kubernetes.io/master", operator: "Exists" as const, effect: "NoSchedule" as const },
];

interface Blocks extends SectionBlocks {
    labelKey: z.ZodType<string>;
    labelValue: z.ZodType<string>;
}

/** One toleration: its fields, and what the API server would refuse of them (tolerationProblems). */
function tolerationSchema({ strict, labelKey, labelValue }: Blocks) {
    return strict({
        key: labelKey.optional(),
        operator: z.enum(["Exists", "Equal"]).optional(),
        value: labelValue.optional(),
        effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
        tolerationSeconds: z.number().int().optional(),
    }).superRefine((t, ctx) => {
        for (const [field, message] of tolerationProblems(t)) ctx.addIssue({ code: "custom", path: [field], message, input: t });
    });
}

export type Toleration = z.infer<ReturnType<typeof tolerationSchema>>;

/** The `placement` section. */
export function placementSection(blocks: Blocks) {
    const { strict, labelKey, labelValue } = blocks;
    const toleration = tolerationSchema(blocks);
    return strict({
        nodeSelector: z.record(labelKey, labelValue).optional(),
        conductorNodeSelector: z.record(labelKey, labelValue).optional(),
        tolerations: z.array(toleration).optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof placementSection>> | undefined;

/** Defaults: no node selector; conductors on the control-plane nodes, whose taints are tolerated. */
export function resolvePlacement(p: Parsed): { nodeSelector: Record<string, string>; conductorNodeSelector: Record<string, string>; tolerations: Toleration[] } {
    return {
        /** Every pod of the stack (Ironic, MariaDB, the image cache). */
        nodeSelector: p?.nodeSelector ?? {},
        /** Multi: which of those nodes run a conductor (added to nodeSelector); default the control-plane role. */
        conductorNodeSelector: p?.conductorNodeSelector ?? { [CONTROL_PLANE_ROLE]: "" },
        tolerations: p?.tolerations ?? CONTROL_PLANE_TOLERATIONS,
    };
}

/** What StackConfig holds for `placement`. */
export type PlacementConfig = ReturnType<typeof resolvePlacement>;

export const PLACEMENT_DOCS: SectionDocs = {
    description: "Where the pods run: node selector and tolerations; multi: which nodes run a conductor.",
    reference: [
        { keys: ["placement.nodeSelector"], type: "map", default: "`{}`", notes: "every pod of the stack (Ironic, MariaDB, the image cache), e.g. `{\"node-role.kubernetes.io/control-plane\": \"\"}`; keys and values follow Kubernetes' label syntax (checked before anything is deployed)" },
        { keys: ["placement.conductorNodeSelector"], type: "map", default: "`{\"node-role.kubernetes.io/control-plane\": \"\"}`", notes: "multi only: which nodes run a conductor, added to `placement.nodeSelector` (both must match). Every node it selects runs one, listed in `conductors[]` or not; `{}` means every node `placement.nodeSelector` selects" },
        { keys: ["placement.tolerations"], type: "list", default: "control-plane and master `NoSchedule`", notes: "Kubernetes tolerations; `key` label-key syntax (required unless `operator: Exists`), `value` label-value syntax (none with `Exists`), `tolerationSeconds` only with `effect: NoExecute`" },
    ],
};
