/**
 * Config set with `pulumi config set --secret` that would reach a container's environment is read
 * from a Secret the stack owns instead of being written into the pod template: the Deployment,
 * DaemonSet or Job stays in clear in `pulumi preview --diff` and `npm run plan`, and the value is in
 * the cluster only in the Secret. Pure: the component applies it to every workload it registers
 * (components/config-secrets.ts).
 *
 * - An Ironic option (`ironic.config`, OS_<GROUP>__<OPTION> of the ironic container) goes into an
 *   INI file in the Secret, which the container links into the image's IRONIC_CONF_DIR before it
 *   starts: runironic hands Ironic `--config-dir` (every *.conf there, later files win), and the
 *   image's configure-ironic.sh prints every OS_* variable to the log at start (`env | grep ^OS_`),
 *   so an env entry, even one read from a Secret, would put the value in the container log.
 * - Any other env entry (a proxy URL, ...) becomes a `valueFrom.secretKeyRef`.
 */
import { COMMANDS, OSLO_ENV_PREFIX, PATHS } from "../contract";
import type { EnvVar } from "./meta";
import type { Volume, VolumeMount } from "./volumes";

/** The resource types whose pod template can carry environment. */
export const WORKLOAD_TYPES: readonly string[] = ["kubernetes:apps/v1:Deployment", "kubernetes:apps/v1:DaemonSet", "kubernetes:apps/v1:StatefulSet", "kubernetes:batch/v1:Job"];

/** The pod template annotation that changes with the moved values, so the pods roll when one does. */
export const SECRET_ENV_HASH_ANNOTATION = "metal3-ironic.metal3.io/config-secrets-hash";

/** Where the ironic container mounts the INI file of secret options, and the name it links it as in IRONIC_CONF_DIR (after ironic.conf). */
export const SECRET_CONFIG = { volume: "config-secrets", mountPath: "/etc/metal3-ironic/config-secrets", file: "ironic.conf", link: `${PATHS.confIronic}/zz-config-secrets.conf` } as const;

/** Whether `value` carries one of the needles (secret values as they appear inside JSON). */
export function carriesNeedle(value: string, needles: readonly string[]): boolean {
    const text = JSON.stringify(value).slice(1, -1);
    return needles.some((n) => text.includes(n));
}

/** The Secret key of a value: `base`, or with the container's name when another value holds that key. */
function keyFor(data: Record<string, string>, base: string, container: string, value: string): string {
    for (const key of [base, `${base}.${container}`]) if (data[key] === undefined || data[key] === value) return key;
    let n = 2;
    while (data[`${base}.${container}.${n}`] !== undefined && data[`${base}.${container}.${n}`] !== value) n++;
    return `${base}.${container}.${n}`;
}

interface PodTemplate {
    metadata?: { annotations?: Record<string, unknown> } & Record<string, unknown>;
    spec?: { containers?: ContainerLike[]; initContainers?: ContainerLike[]; volumes?: Volume[] } & Record<string, unknown>;
}
interface ContainerLike {
    name: string;
    command?: string[];
    env?: EnvVar[];
    volumeMounts?: VolumeMount[];
}

const OSLO_ENV = new RegExp(`^${OSLO_ENV_PREFIX}([A-Z0-9_]+?)__([A-Z0-9_]+)$`);

/**
 * `[group]` / `option = "value"` lines of OS_<GROUP>__<OPTION> entries (DEFAULT stays upper case;
 * Ironic's names are lower case). Quoted: oslo.config's parser strips a value's surrounding blanks
 * and then one pair of matching quotes, so a quoted value reads back exactly as the variable held
 * it (spaces, quotes, '#' and ';' included; config validation refuses line breaks).
 */
export function osloIni(entries: [string, string][]): string {
    const groups = new Map<string, string[]>();
    for (const [env, value] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const [, g, o] = OSLO_ENV.exec(env)!;
        const group = g === "DEFAULT" ? g : g.toLowerCase();
        groups.set(group, [...(groups.get(group) ?? []), `${o.toLowerCase()} = "${value}"`]);
    }
    return [...groups].map(([g, lines]) => `[${g}]\n${lines.join("\n")}\n`).join("\n");
}

/**
 * `template` with every env entry whose plain value carries a needle moved into the Secret
 * `secretName`: the ironic container's OS_* entries as one INI file it links into IRONIC_CONF_DIR,
 * the others as `secretKeyRef`s. `data` (key → value) gains the keys; `keys`: those this template
 * reads, sorted (for the roll hash). Undefined when nothing carries a needle.
 */
export function moveSecretEnv<T extends PodTemplate>(template: T, needles: readonly string[], secretName: string, data: Record<string, string>): { template: T; keys: string[] } | undefined {
    if (needles.length === 0 || !template.spec) return undefined;
    const keys = new Set<string>();
    let fileKey: string | undefined;
    const move = (c: ContainerLike): ContainerLike => {
        const secret = (e: EnvVar): e is EnvVar & { value: string } => typeof e.value === "string" && carriesNeedle(e.value, needles);
        const toFile = (e: EnvVar) => c.name === "ironic" && OSLO_ENV.test(String(e.name));
        const options = (c.env ?? []).filter((e) => secret(e) && toFile(e)).map((e) => [String(e.name), e.value as string] as [string, string]);
        const env = c.env?.flatMap((e): EnvVar[] => {
            if (!secret(e)) return [e];
            if (toFile(e)) return [];
            const key = keyFor(data, String(e.name), c.name, e.value);
            data[key] = e.value;
            keys.add(key);
            return [{ name: e.name, valueFrom: { secretKeyRef: { name: secretName, key } } }];
        });
        if (options.length === 0) return { ...c, env };
        fileKey = keyFor(data, SECRET_CONFIG.file, c.name, osloIni(options));
        data[fileKey] = osloIni(options);
        keys.add(fileKey);
        // Linked before the image's start (its own command, unchanged, runs after).
        const link = `mkdir -p ${PATHS.confIronic} && ln -sfn ${SECRET_CONFIG.mountPath}/${SECRET_CONFIG.file} ${SECRET_CONFIG.link} && exec "$@"`;
        return {
            ...c,
            command: [COMMANDS.shell, "-c", link, "config-secrets", ...(c.command ?? [])],
            env,
            volumeMounts: [...(c.volumeMounts ?? []), { name: SECRET_CONFIG.volume, mountPath: SECRET_CONFIG.mountPath, readOnly: true }],
        };
    };
    const containers = template.spec.containers?.map(move);
    const initContainers = template.spec.initContainers?.map(move);
    if (keys.size === 0) return undefined;
    const volumes = fileKey ? [...(template.spec.volumes ?? []), { name: SECRET_CONFIG.volume, secret: { secretName, items: [{ key: fileKey, path: SECRET_CONFIG.file }] } }] : template.spec.volumes;
    const spec = { ...template.spec, containers, ...(initContainers ? { initContainers } : {}), ...(volumes ? { volumes } : {}) };
    return { template: { ...template, spec }, keys: [...keys].sort() };
}
