/**
 * Whether a credential a pod mounts reaches what others can read: a container's log (`pods/log`,
 * the `view` role) or an exec probe's output (a failed probe's output goes into the pod's events).
 * The credentials are the values of the Secret keys a container mounts under /auth whose name says
 * password or htpasswd, and each htpasswd line's bcrypt hash on its own; usernames are not secret.
 */
import type { PodRunner } from "./pod-runner";

interface Credential {
    /** `<secret>/<key>` (and ` hash` for an htpasswd line's hash): what a failure names, never the value. */
    what: string;
    value: string;
}

/** The credentials the pod's containers mount under /auth, each once. */
export function mountedCredentials(pod: PodRunner): Credential[] {
    const spec = pod.spec;
    const out = new Map<string, Credential>();
    const volumes = new Map<string, any>((spec.volumes ?? []).map((v: any) => [v.name, v]));
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
        for (const m of c.volumeMounts ?? []) {
            if (!String(m.mountPath).startsWith("/auth")) continue;
            const secretName = volumes.get(m.name)?.secret?.secretName;
            if (!secretName) continue;
            const data = pod.o.cluster.secrets[secretName];
            if (!data) throw new Error(`pod ${pod.o.name}: container ${c.name} mounts Secret ${secretName}, which the cluster data lacks`);
            const keys: string[] = volumes.get(m.name).secret.items?.map((i: any) => i.key) ?? Object.keys(data);
            for (const key of keys.filter((k) => /password|htpasswd/i.test(k))) {
                const value = data[key];
                if (!value) continue;
                out.set(`${secretName}/${key}`, { what: `${secretName}/${key}`, value: value.trim() });
                if (/htpasswd/i.test(key)) {
                    for (const line of value.split("\n").filter((l) => l.includes(":"))) {
                        const hash = line.slice(line.indexOf(":") + 1).trim();
                        out.set(`${secretName}/${key} ${hash}`, { what: `${secretName}/${key} hash`, value: hash });
                    }
                }
            }
        }
    }
    return [...out.values()];
}

/**
 * Where the pod's mounted credentials appear: every container's log so far and, with `probes`, the
 * output of each running container's exec probes, run as the kubelet runs them. One line per leak
 * (`<container> log: <secret>/<key>`), empty when none; `credentials` says what was looked for.
 */
export function credentialLeaks(pod: PodRunner, opts: { probes?: boolean } = {}): { leaks: string[]; credentials: string[] } {
    const creds = mountedCredentials(pod);
    const leaks: string[] = [];
    const look = (where: string, text: string) => {
        for (const c of creds) if (text.includes(c.value)) leaks.push(`${where}: ${c.what}`);
    };
    const all = [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])];
    for (const c of all) look(`${c.name} log`, pod.logs(c.name));
    if (opts.probes) {
        for (const c of pod.spec.containers ?? []) {
            if (!pod.isRunning(c.name)) continue;
            for (const which of ["readinessProbe", "livenessProbe", "startupProbe"]) {
                const p = c[which]?.exec;
                if (!p) continue;
                const r = pod.exec(c.name, p.command, 30000);
                look(`${c.name} ${which} output`, r.stdout + r.stderr);
            }
        }
    }
    return { leaks, credentials: creds.map((c) => c.what) };
}
