/**
 * The live readiness check, pure: what components/readiness.ts hands to @pulumi/command.
 *
 * After the workload, `pulumi up` runs assets/ironic-readiness.py (Python 3 standard library, as
 * `python3 -` with the script on stdin, so the command line is the same on every machine) where
 * `pulumi up` runs. It reaches the API at its in-cluster Service URL when the runner is in the
 * cluster (KUBERNETES_SERVICE_HOST is set, e.g. under the Pulumi Kubernetes Operator), else through
 * `kubectl port-forward` to the API Service (with the provider's kubeconfig context), verifies the
 * API certificate with the stack CA for the Service name, authenticates with the generated API
 * credentials, and waits until every conductor the program configures is alive in
 * `GET /v1/conductors` (microversion 1.49). Its stdout lists the alive hostnames: `conductorsAlive`.
 *
 * Expected hostnames: multi, exactly each conductor's [DEFAULT]host as the plan sets it
 * (IRONIC_CONDUCTOR_HOST in the node's entry: its provisioning IP); single, any one conductor (the
 * image picks the host name).
 */
import { createHash } from "crypto";

import { readAsset } from "../render/assets";
import { READINESS_ENV, SCRIPT_FILES } from "../scripts";
import { listedConductors } from "./read";
import type { IronicPlan } from "./types";

/** What the program sets; the credentials and the CA come from resources (components/readiness.ts). */
export type ReadinessPlainEnv = Record<Exclude<(typeof READINESS_ENV)[keyof typeof READINESS_ENV], "READINESS_CA_PEM" | "READINESS_USERNAME" | "READINESS_PASSWORD" | "KUBERNETES_SERVICE_HOST">, string>;

/** The command line: the script comes on stdin, so no path of this checkout is in the state. */
export const READINESS_COMMAND = "python3 -";

/** Seconds between two polls of the API. */
export const READINESS_INTERVAL = 5;

export interface ReadinessPlan {
    /** Conductor hostnames that must be alive (sorted); empty: any one (single). */
    expected: string[];
    env: ReadinessPlainEnv;
    /** The script, byte for byte as in assets/ironic-readiness.py. */
    script: string;
    /** Inputs whose change must run the check again (the Command's triggers), besides the pod template hash. */
    triggers: string[];
}

/** The check for this plan, or undefined with `readiness.enabled: false`. */
export function readinessPlan(plan: IronicPlan): ReadinessPlan | undefined {
    const { readiness } = plan;
    if (!readiness.enabled) return undefined;
    // Multi: the conductors whose address the config names (the others' is known only in their pods).
    const expected = listedConductors(plan).flatMap((cd) => (cd.ip ? [cd.ip] : [])).sort();
    const url = new URL(plan.urls.apiInCluster);
    const env: ReadinessPlainEnv = {
        [READINESS_ENV.mode]: readiness.mode,
        [READINESS_ENV.apiUrl]: plan.urls.apiInCluster,
        [READINESS_ENV.tlsName]: url.hostname,
        [READINESS_ENV.conductors]: expected.join(","),
        [READINESS_ENV.timeout]: String(readiness.timeoutSeconds),
        [READINESS_ENV.interval]: String(READINESS_INTERVAL),
        [READINESS_ENV.kubeContext]: plan.kubernetes.context ?? "",
        [READINESS_ENV.namespace]: plan.namespace,
        [READINESS_ENV.service]: plan.names.service,
        [READINESS_ENV.servicePort]: String(plan.ports.api),
    };
    return { expected, env, script: readAsset(SCRIPT_FILES.readiness), triggers: [plan.images.ironic, expected.join(",")] };
}

/** `conductorsAlive` from the script's stdout: one hostname per line. */
export function parseConductorsAlive(stdout: string): string[] {
    return stdout
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "");
}

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(v: unknown): string {
    if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
    if (v && typeof v === "object") {
        const o = v as Record<string, unknown>;
        return `{${Object.keys(o)
            .filter((k) => o[k] !== undefined)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
            .join(",")}}`;
    }
    return JSON.stringify(v) ?? "null";
}

/** The pod template's hash (a trigger): any change of the template (image, env, a content-hash annotation) runs the check again. */
export function podTemplateHash(template: unknown): string {
    return createHash("sha256").update(canonicalJson(template)).digest("hex");
}
