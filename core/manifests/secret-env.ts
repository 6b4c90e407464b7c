/**
 * Config set with `pulumi config set --secret` that reaches a container's environment (an
 * `ironic.config` option, a proxy URL) is read from a Secret the stack owns, not written into the
 * pod template: the Deployment, DaemonSet or Job stays in clear in `pulumi preview --diff` and
 * `npm run plan` (only that env entry becomes a `secretKeyRef`), and the value is in the cluster
 * only in the Secret. Pure: the component applies it to every workload it registers
 * (components/args.ts secretEnv).
 */
import type { EnvVar } from "./meta";

/** The resource types whose pod template can carry environment. */
export const WORKLOAD_TYPES: readonly string[] = ["kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:StatefulSet", "kubernetes:batch/v1:Job"];

/** The pod template annotation that changes with the moved values, so the pods roll when one does. */
export const SECRET_ENV_HASH_ANNOTATION = "metal3-ironic.metal3.io/config-secrets-hash";

/** Whether `value` carries one of the needles (secret values as they appear inside JSON). */
export function carriesNeedle(value: string, needles: readonly string[]): boolean {
    const text = JSON.stringify(value).slice(1, -1);
    return needles.some((n) => text.includes(n));
}

/** The Secret key of an env entry: its name, or with the container's when another value holds that name. */
function keyFor(data: Record<string, string>, env: string, container: string, value: string): string {
    for (const key of [env, `${env}.${container}`]) if (data[key] === undefined || data[key] === value) return key;
    let n = 2;
    while (data[`${env}.${container}.${n}`] !== undefined && data[`${env}.${container}.${n}`] !== value) n++;
    return `${env}.${container}.${n}`;
}

interface PodTemplate {
    metadata?: { annotations?: Record<string, unknown> } & Record<string, unknown>;
    spec?: { containers?: ContainerLike[]; initContainers?: ContainerLike[] } & Record<string, unknown>;
}
interface ContainerLike {
    name: string;
    env?: EnvVar[];
}

/**
 * `template` with every env entry whose plain value carries a needle turned into a reference to
 * the key of `secretName` that holds it; `data` (key → value) gains those keys. `keys`: the keys
 * this template reads, sorted (for the roll hash). Undefined when nothing carries a needle.
 */
export function moveSecretEnv<T extends PodTemplate>(template: T, needles: readonly string[], secretName: string, data: Record<string, string>): { template: T; keys: string[] } | undefined {
    if (needles.length === 0 || !template.spec) return undefined;
    const moved = new Set<string>();
    const containers = (list: ContainerLike[] | undefined) =>
        list?.map((c) => ({
            ...c,
            env: c.env?.map((e): EnvVar => {
                if (typeof e.value !== "string" || !carriesNeedle(e.value, needles)) return e;
                const key = keyFor(data, String(e.name), c.name, e.value);
                data[key] = e.value;
                moved.add(key);
                return { name: e.name, valueFrom: { secretKeyRef: { name: secretName, key } } };
            }),
        }));
    const spec = { ...template.spec, containers: containers(template.spec.containers), ...(template.spec.initContainers ? { initContainers: containers(template.spec.initContainers) } : {}) };
    if (moved.size === 0) return undefined;
    return { template: { ...template, spec }, keys: [...moved].sort() };
}
