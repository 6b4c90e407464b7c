/**
 * `kubernetes`: the Kubernetes provider the program registers everything with. Its schema,
 * defaults, resolved type and documentation in one place (core/config/section.ts).
 */
import type { z } from "zod";

import type { SectionBlocks, SectionDocs } from "./section";

/** The `kubernetes` section. */
export function kubernetesSection({ strict, kubeContext }: SectionBlocks & { kubeContext: z.ZodType<string> }) {
    return strict({
        context: kubeContext.optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof kubernetesSection>> | undefined;

/** Defaults: the kubeconfig's current context (no key set). */
export function resolveKubernetes(k: Parsed): { context?: string } {
    return k ?? {};
}

/** What StackConfig holds for `kubernetes`. */
export type KubernetesConfig = ReturnType<typeof resolveKubernetes>;

export const KUBERNETES_DOCS: SectionDocs = {
    description: "The Kubernetes provider: kubeconfig context.",
    reference: [
        { keys: ["kubernetes.context"], type: "string", default: "current context", notes: "kubeconfig context of the explicit provider (and of `kubectl` in the readiness check); letters, digits and `. _ @ : / + = -`" },
    ],
};
