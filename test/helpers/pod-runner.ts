/**
 * A pod runner for tests: starts the containers of a rendered pod the way the kubelet would, so
 * that what runs is what the pod declares and nothing else.
 *
 * For each container it builds a private view (a mount and PID namespace made with `unshare`,
 * entered into the pod's network namespace with `nsenter`):
 *  - a root file system from the container's image. The image is a stand-in layer
 *    (test/standins/<image>/) overlaid on this machine's /usr and /etc, so the real Debian
 *    programs (dnsmasq, python3, Ironic, mariadbd) run inside it. With
 *    `readOnlyRootFilesystem` the root is mounted read-only: only declared volumes are writable;
 *  - every declared volumeMount at its mountPath (readOnly, subPath): emptyDirs shared by the
 *    pod's containers, ConfigMap and Secret keys as files in the kubelet's atomic-writer layout
 *    (`..data` symlink, `items`, `defaultMode`, group ownership and g+r for `fsGroup`), projected
 *    volumes (ServiceAccount token, ConfigMap items, downward API);
 *  - the declared env (`value`, downward API `fieldRef`, `secretKeyRef`, `configMapKeyRef`,
 *    `envFrom`, `$(VAR)` expansion) and nothing from the test's environment;
 *  - the declared uid/gid (pod securityContext, overridden per container), fsGroup and
 *    supplementalGroups as supplementary groups, the capability bounding set from
 *    `capabilities` (drop/add) and no_new_privs unless `allowPrivilegeEscalation`;
 *  - `command` + `args`, or the image's entrypoint when `command` is absent.
 * A container whose declared mounts or env are wrong fails here the way it would in a cluster.
 *
 * Every process is started with setsid and stopped by its PID.
 */
import { ChildProcess, spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { trackProcessGroup } from "./sys";
import { SERVICE_ACCOUNT_DIR } from "../../core/scripts";

/** A container image as the runner knows it: a stand-in layer and the image's ENTRYPOINT/CMD. */
export interface StandinImage {
    /** Directory whose usr/ and etc/ are overlaid on the host's, and whose other top-level dirs are the image's. */
    layer: string;
    entrypoint?: string[];
    cmd?: string[];
    /** Image ENV (PATH and the like). */
    env?: Record<string, string>;
    /** Host directories that are part of the image (a Python environment), bind-mounted read-only at the same path. */
    hostDirs?: string[];
    /**
     * Files of the image that a test replaces (container path → host file), bind-mounted read-only
     * over the path after hostDirs: e.g. the default CA bundle of the image's Python, which lives in
     * the shared hostDirs.
     */
    fileOverrides?: Record<string, string>;
}

/** What the API server would hold: ConfigMap and Secret data by name (secrets with real values). */
export interface ClusterData {
    configMaps: Record<string, Record<string, string>>;
    secrets: Record<string, Record<string, string>>;
}

export interface PodRunnerOptions {
    /** Pod name (also HOSTNAME for pods without host networking). */
    name: string;
    namespace: string;
    spec: any;
    cluster: ClusterData;
    /** Image reference → stand-in. A reference not found by exact match is looked up by repository. */
    images: Record<string, StandinImage>;
    work: string;
    /** Network namespace the pod's containers run in (the node's, for hostNetwork pods). */
    netns: string;
    nodeName: string;
    hostIP: string;
    podIP: string;
    /** /etc/hosts entries of the pod (cluster DNS stand-in), name → IP. */
    hosts?: Record<string, string>;
    /**
     * The kubelet's part of a pod that uses its ServiceAccount: KUBERNETES_SERVICE_HOST/PORT in
     * every container and, unless the pod sets automountServiceAccountToken: false, the token, the
     * cluster CA and the namespace at /var/run/secrets/kubernetes.io/serviceaccount (read-only).
     * A pod that mounts a token with none given here fails to start.
     */
    serviceAccount?: { apiHost: string; apiPort: number; token: string; caCrt: string };
}


export interface ContainerRun {
    name: string;
    proc: ChildProcess;
    logFile: string;
    /** Host PID of the container's PID 1 (the init of its PID namespace). */
    initPid?: number;
}

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

function q(s: string): string {
    return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The image of a reference: exact match, else the same repository with any tag/digest. */
export function imageOf(images: Record<string, StandinImage>, ref: string): StandinImage {
    if (images[ref]) return images[ref];
    const repo = (r: string) => r.replace(/@sha256:[a-f0-9]+$/, "").replace(/:[^/:]+$/, "");
    const hit = Object.keys(images).find((k) => repo(k) === repo(ref));
    if (!hit) throw new Error(`no stand-in image for ${ref} (have ${Object.keys(images).join(", ")})`);
    return images[hit];
}

export class PodRunner {
    readonly dir: string;
    private readonly volumesDir: string;
    private readonly running: ContainerRun[] = [];
    private prepared = false;

    constructor(readonly o: PodRunnerOptions) {
        this.dir = path.join(o.work, `pod-${o.name}`);
        this.volumesDir = path.join(this.dir, "volumes");
        fs.mkdirSync(this.volumesDir, { recursive: true });
    }

    get spec(): any {
        return this.o.spec;
    }

    private get fsGroup(): number | undefined {
        return this.o.spec.securityContext?.fsGroup;
    }

    /** Where `absPath` inside container `container` is on this machine: through the deepest of its volume mounts that holds it. */
    resolve(container: string, absPath: string): string {
        const c = [...(this.o.spec.initContainers ?? []), ...this.o.spec.containers].find((x: any) => x.name === container);
        const m = (c?.volumeMounts ?? [])
            .filter((x: any) => absPath === x.mountPath || absPath.startsWith(`${x.mountPath.replace(/\/$/, "")}/`))
            .sort((a: any, b: any) => b.mountPath.length - a.mountPath.length)[0];
        if (!m) throw new Error(`container ${container}: no volume mount holds ${absPath}`);
        return path.join(this.volumePath(m.name), m.subPath ?? "", absPath.slice(m.mountPath.length));
    }

    /** Host directory of a pod volume (emptyDirs are shared by every container of the pod). */
    volumePath(name: string): string {
        return path.join(this.volumesDir, name);
    }

    /** Create every volume of the pod, as the kubelet does before any container starts. */
    prepareVolumes(): void {
        if (this.prepared) return;
        for (const v of this.o.spec.volumes ?? []) {
            const dir = this.volumePath(v.name);
            if (v.emptyDir) {
                fs.mkdirSync(dir, { recursive: true });
                fs.chmodSync(dir, 0o777);
                this.applyFsGroup(dir, true, false);
            } else if (v.configMap || v.secret) {
                const isSecret = !!v.secret;
                const objName = isSecret ? v.secret.secretName : v.configMap.name;
                const data = (isSecret ? this.o.cluster.secrets : this.o.cluster.configMaps)[objName];
                const optional = (isSecret ? v.secret.optional : v.configMap.optional) === true;
                if (!data) {
                    if (optional) {
                        fs.mkdirSync(dir, { recursive: true });
                        continue;
                    }
                    throw new Error(`volume ${v.name}: ${isSecret ? "Secret" : "ConfigMap"} ${this.o.namespace}/${objName} not found (the pod would stay in ContainerCreating)`);
                }
                const src = isSecret ? v.secret : v.configMap;
                const defaultMode: number = src.defaultMode ?? 0o644;
                const items: { key: string; path: string; mode?: number }[] = src.items ?? Object.keys(data).sort().map((key) => ({ key, path: key }));
                this.writeAtomic(dir, objName, data, items, defaultMode);
            } else if (v.projected) {
                this.writeProjected(v, dir);
            } else if (v.hostPath) {
                // The node's own directory: outlives the pod, one per node (under work/nodes/<node>/);
                // a missing one made as the kubelet makes it for DirectoryOrCreate (root's, 0755).
                const host = path.join(this.o.work, "nodes", this.o.nodeName, v.hostPath.path);
                if (!fs.existsSync(host)) {
                    if (v.hostPath.type !== "DirectoryOrCreate") throw new Error(`volume ${v.name}: hostPath ${v.hostPath.path} does not exist on the node (type ${v.hostPath.type ?? "unset"})`);
                    fs.mkdirSync(host, { recursive: true, mode: 0o755 });
                    fs.chmodSync(host, 0o755);
                    fs.chownSync(host, 0, 0);
                }
                fs.mkdirSync(path.dirname(dir), { recursive: true });
                if (!fs.existsSync(dir)) fs.symlinkSync(host, dir);
            } else if (v.persistentVolumeClaim) {
                // Stand-in for a bound volume: a directory that outlives the pod (kept under work/).
                const pv = path.join(this.o.work, "pv", v.persistentVolumeClaim.claimName);
                fs.mkdirSync(pv, { recursive: true });
                fs.mkdirSync(path.dirname(dir), { recursive: true });
                if (!fs.existsSync(dir)) fs.symlinkSync(pv, dir);
                this.applyFsGroup(pv, true, false);
            } else {
                throw new Error(`volume ${v.name}: kind not supported by the pod runner: ${JSON.stringify(v)}`);
            }
        }
        this.prepared = true;
    }

    /** ConfigMap/Secret volume in the kubelet's layout: ..<ts>/<files>, ..data → ..<ts>, <path> → ..data/<path>. */
    private writeAtomic(dir: string, objName: string, data: Record<string, string>, items: { key: string; path: string; mode?: number }[], defaultMode: number) {
        fs.mkdirSync(dir, { recursive: true });
        const ts = "..2026_01_01_00_00_00.000000001";
        const tsDir = path.join(dir, ts);
        fs.mkdirSync(tsDir, { recursive: true });
        const tops = new Set<string>();
        for (const it of items) {
            if (!(it.key in data)) throw new Error(`volume for ${objName}: key ${it.key} not found (the pod would stay in ContainerCreating)`);
            const file = path.join(tsDir, it.path);
            fs.mkdirSync(path.dirname(file), { recursive: true });
            fs.writeFileSync(file, data[it.key]);
            fs.chmodSync(file, it.mode ?? defaultMode);
            tops.add(it.path.split("/")[0]);
        }
        fs.symlinkSync(ts, path.join(dir, "..data"));
        for (const t of tops) fs.symlinkSync(path.join("..data", t), path.join(dir, t));
        this.applyFsGroup(dir, false, true);
    }

    /**
     * A ConfigMap or Secret update reaching a mounted volume, as the kubelet's atomic writer does
     * it: the new files in a new `..<timestamp>` directory, then `..data` swapped to it by a rename
     * (the key links keep pointing at `..data/<path>`), then the old directory removed. The
     * runner's cluster data is updated too. Not for subPath mounts (the kubelet never updates those).
     */
    updateVolume(volumeName: string, data: Record<string, string>): void {
        const v = (this.o.spec.volumes ?? []).find((x: any) => x.name === volumeName);
        if (!v || !(v.configMap || v.secret)) throw new Error(`pod ${this.o.name} has no ConfigMap or Secret volume ${volumeName}`);
        const isSecret = !!v.secret;
        const src = isSecret ? v.secret : v.configMap;
        const objName = isSecret ? src.secretName : src.name;
        (isSecret ? this.o.cluster.secrets : this.o.cluster.configMaps)[objName] = data;
        const dir = this.volumePath(volumeName);
        const old = fs.readlinkSync(path.join(dir, "..data"));
        const ts = `..2026_01_01_00_00_00.${String(Date.now()).padStart(9, "0")}`;
        const tsDir = path.join(dir, ts);
        fs.mkdirSync(tsDir);
        const items: { key: string; path: string; mode?: number }[] = src.items ?? Object.keys(data).map((k) => ({ key: k, path: k }));
        for (const it of items) {
            if (!(it.key in data)) throw new Error(`volume for ${objName}: key ${it.key} not found`);
            const file = path.join(tsDir, it.path);
            fs.mkdirSync(path.dirname(file), { recursive: true });
            fs.writeFileSync(file, data[it.key]);
            fs.chmodSync(file, it.mode ?? src.defaultMode ?? 0o644);
        }
        fs.symlinkSync(ts, path.join(dir, "..data_tmp"));
        fs.renameSync(path.join(dir, "..data_tmp"), path.join(dir, "..data"));
        fs.rmSync(path.join(dir, old), { recursive: true, force: true });
        this.applyFsGroup(dir, false, true);
    }

    /**
     * A projected volume: ServiceAccount token (the runner's serviceAccount option), ConfigMap
     * items (`kube-root-ca.crt`, published in every namespace by the controller manager, is the
     * runner's CA) and downward API fields, in one atomic-writer directory.
     */
    private writeProjected(v: any, dir: string) {
        const data: Record<string, string> = {};
        const items: { key: string; path: string; mode?: number }[] = [];
        const add = (p: string, value: string, mode?: number) => {
            data[p] = value;
            items.push({ key: p, path: p, ...(mode !== undefined ? { mode } : {}) });
        };
        for (const src of v.projected.sources ?? []) {
            if (src.serviceAccountToken) {
                const sa = this.o.serviceAccount;
                if (!sa) throw new Error(`volume ${v.name}: a serviceAccountToken source needs the runner's serviceAccount option (the API the token is for)`);
                add(src.serviceAccountToken.path, sa.token);
            } else if (src.configMap) {
                const cm = src.configMap.name === "kube-root-ca.crt" && this.o.serviceAccount ? { "ca.crt": this.o.serviceAccount.caCrt } : this.o.cluster.configMaps[src.configMap.name];
                if (!cm) throw new Error(`volume ${v.name}: ConfigMap ${this.o.namespace}/${src.configMap.name} not found (the pod would stay in ContainerCreating)`);
                for (const it of src.configMap.items ?? Object.keys(cm).map((key) => ({ key, path: key }))) {
                    if (!(it.key in cm)) throw new Error(`volume ${v.name}: key ${it.key} of ConfigMap ${src.configMap.name} not found`);
                    add(it.path, cm[it.key], it.mode);
                }
            } else if (src.downwardAPI) {
                for (const it of src.downwardAPI.items ?? []) add(it.path, this.fieldValue(it.fieldRef.fieldPath), it.mode);
            } else {
                throw new Error(`volume ${v.name}: projected source not supported by the pod runner: ${JSON.stringify(src)}`);
            }
        }
        this.writeAtomic(dir, v.name, data, items, v.projected.defaultMode ?? 0o644);
    }

    /** A downward API field of this pod. */
    private fieldValue(fieldPath: string): string {
        const m: Record<string, string> = {
            "spec.nodeName": this.o.nodeName,
            "status.hostIP": this.o.hostIP,
            "status.podIP": this.o.podIP,
            "metadata.name": this.o.name,
            "metadata.namespace": this.o.namespace,
        };
        if (!(fieldPath in m)) throw new Error(`downward API field ${fieldPath} not supported by the pod runner`);
        return m[fieldPath];
    }

    /** The host directory of the projected ServiceAccount token, or undefined when the pod opts out. */
    private serviceAccountDir(c: any): string | undefined {
        if (this.o.spec.automountServiceAccountToken === false) return undefined;
        const sa = this.o.serviceAccount;
        if (!sa) throw new Error(`container ${c.name}: the pod mounts its ServiceAccount token (automountServiceAccountToken is not false) but the runner was given no API (serviceAccount option)`);
        const dir = path.join(this.dir, "serviceaccount");
        if (!fs.existsSync(dir)) {
            fs.mkdirSync(dir, { recursive: true });
            // The kubelet's projected volume: world-readable files unless fsGroup says otherwise.
            for (const [f, v] of [["token", sa.token], ["ca.crt", sa.caCrt], ["namespace", this.o.namespace]]) fs.writeFileSync(path.join(dir, f), v, { mode: 0o644 });
            this.applyFsGroup(dir, false, true);
        }
        return dir;
    }

    /** fsGroup: group ownership, setgid dirs, and g+rw (read-write volumes) or g+r (read-only ones). */
    private applyFsGroup(p: string, rw: boolean, recursive: boolean) {
        const g = this.fsGroup;
        if (g === undefined) return;
        const walk = (f: string) => {
            const st = fs.lstatSync(f);
            if (st.isSymbolicLink()) return;
            fs.chownSync(f, 0, g);
            if (st.isDirectory()) {
                fs.chmodSync(f, (st.mode & 0o7777) | 0o2000 | (rw ? 0o070 : 0o050));
                if (recursive) for (const e of fs.readdirSync(f)) walk(path.join(f, e));
            } else {
                fs.chmodSync(f, (st.mode & 0o7777) | (rw ? 0o060 : 0o040));
            }
        };
        walk(p);
    }

    /** The container named `name` among init containers and containers. */
    container(name: string): any {
        const c = [...(this.o.spec.initContainers ?? []), ...(this.o.spec.containers ?? [])].find((x: any) => x.name === name);
        if (!c) throw new Error(`pod ${this.o.name} has no container ${name}`);
        return c;
    }

    /** The container's environment, resolved as the kubelet resolves it. */
    env(c: any): Record<string, string> {
        const img = imageOf(this.o.images, c.image);
        const env: Record<string, string> = { PATH: DEFAULT_PATH, ...(img.env ?? {}), HOSTNAME: this.o.spec.hostNetwork ? this.o.nodeName : this.o.name, HOME: "/" };
        const sa = this.o.serviceAccount;
        if (sa) Object.assign(env, { KUBERNETES_SERVICE_HOST: sa.apiHost, KUBERNETES_SERVICE_PORT: String(sa.apiPort) });
        const field = (p: string): string => {
            try {
                return this.fieldValue(p);
            } catch (e) {
                throw new Error(`container ${c.name}: ${(e as Error).message}`);
            }
        };
        const lookup = (kind: "secrets" | "configMaps", name: string, key: string, optional?: boolean): string | undefined => {
            const d = this.o.cluster[kind][name];
            if (!d || !(key in d)) {
                if (optional) return undefined;
                throw new Error(`container ${c.name}: ${kind === "secrets" ? "Secret" : "ConfigMap"} ${name} key ${key} not found (CreateContainerConfigError)`);
            }
            return d[key];
        };
        for (const ef of c.envFrom ?? []) {
            const ref = ef.configMapRef ?? ef.secretRef;
            const d = this.o.cluster[ef.configMapRef ? "configMaps" : "secrets"][ref.name];
            if (!d) {
                if (ref.optional) continue;
                throw new Error(`container ${c.name}: envFrom ${ref.name} not found`);
            }
            for (const [k, v] of Object.entries(d)) env[(ef.prefix ?? "") + k] = v;
        }
        for (const e of c.env ?? []) {
            let v: string | undefined;
            if (e.value !== undefined) v = expand(e.value, env);
            else if (e.valueFrom?.fieldRef) v = field(e.valueFrom.fieldRef.fieldPath);
            else if (e.valueFrom?.secretKeyRef) v = lookup("secrets", e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key, e.valueFrom.secretKeyRef.optional);
            else if (e.valueFrom?.configMapKeyRef) v = lookup("configMaps", e.valueFrom.configMapKeyRef.name, e.valueFrom.configMapKeyRef.key, e.valueFrom.configMapKeyRef.optional);
            else v = "";
            if (v !== undefined) env[e.name] = v;
        }
        return env;
    }

    /** argv of the container: command/args with $(VAR) expansion, or the image's entrypoint/cmd. */
    argv(c: any, env: Record<string, string>): string[] {
        const img = imageOf(this.o.images, c.image);
        const command: string[] = c.command ?? img.entrypoint ?? [];
        const args: string[] = c.args ?? (c.command ? [] : img.cmd ?? []);
        const argv = [...command, ...args].map((a) => expand(a, env));
        if (argv.length === 0) throw new Error(`container ${c.name}: no command and the image has no entrypoint`);
        return argv;
    }

    private identity(c: any): { uid: number; gid: number; groups: number[] } {
        const pod = this.o.spec.securityContext ?? {};
        const sc = c.securityContext ?? {};
        const uid = sc.runAsUser ?? pod.runAsUser ?? 0;
        const gid = sc.runAsGroup ?? pod.runAsGroup ?? 0;
        if ((sc.runAsNonRoot ?? pod.runAsNonRoot) && uid === 0) throw new Error(`container ${c.name}: runAsNonRoot with uid 0 (CreateContainerConfigError)`);
        const groups = [gid, ...(pod.fsGroup !== undefined ? [pod.fsGroup] : []), ...(pod.supplementalGroups ?? [])];
        return { uid, gid, groups: [...new Set(groups)] };
    }

    /** The bash script that builds the container's view as root and then execs "$@" as the container's user. */
    private launchScript(c: any): string {
        const img = imageOf(this.o.images, c.image);
        const cdir = path.join(this.dir, "containers", c.name);
        // A fresh lower layer per launch: a running container's overlay keeps using its own (an
        // exec or probe must not delete and rewrite the layer under a mounted overlay).
        fs.mkdirSync(cdir, { recursive: true });
        const skel = fs.mkdtempSync(path.join(cdir, "skel-"));
        fs.mkdirSync(path.join(skel, "usr"), { recursive: true });
        fs.mkdirSync(path.join(skel, "etc"), { recursive: true });
        const root = path.join(cdir, "root");
        fs.mkdirSync(root, { recursive: true });
        // Mount points under /usr and /etc must exist in a lower layer (those trees are read-only overlays).
        for (const m of c.volumeMounts ?? []) {
            if (/^\/(usr|etc)\//.test(m.mountPath)) fs.mkdirSync(path.join(skel, m.mountPath), { recursive: true });
        }
        // /etc/hosts as the kubelet writes it, plus the cluster DNS stand-in.
        const hosts = ["127.0.0.1\tlocalhost", "::1\tlocalhost", ...Object.entries(this.o.hosts ?? {}).map(([n, ip]) => `${ip}\t${n}`)];
        fs.writeFileSync(path.join(skel, "etc", "hosts"), hosts.join("\n") + "\n");
        fs.writeFileSync(path.join(skel, "etc", "resolv.conf"), "# no DNS server in the pod runner: names come from /etc/hosts\noptions ndots:1\n");

        const { uid, gid, groups } = this.identity(c);
        const sc = c.securityContext ?? {};
        const drop: string[] = (sc.capabilities?.drop ?? []).map((x: string) => x.toLowerCase());
        const add: string[] = (sc.capabilities?.add ?? []).map((x: string) => x.toLowerCase());
        // Container runtimes give a default set; "drop: [ALL]" empties it before "add".
        const defaults = ["chown", "dac_override", "fowner", "fsetid", "kill", "setgid", "setuid", "setpcap", "net_bind_service", "net_raw", "sys_chroot", "mknod", "audit_write", "setfcap"];
        const caps = new Set(drop.includes("all") ? [] : defaults.filter((x) => !drop.includes(x)));
        for (const a of add) caps.add(a);
        const bounding = ["-all", ...[...caps].sort().map((x) => `+${x}`)].join(",");
        const noNewPrivs = sc.allowPrivilegeEscalation === false;
        const readOnlyRoot = sc.readOnlyRootFilesystem === true;
        const env = this.env(c);

        const lines: string[] = [
            "#!/bin/bash",
            `# Container ${c.name} of pod ${this.o.name}, as declared. Run by the pod runner as root in fresh mount+pid namespaces.`,
            "set -euo pipefail",
            `R=${q(root)}`,
            'mount -t tmpfs -o mode=755 tmpfs "$R"',
            'mkdir -p "$R/usr" "$R/etc" "$R/proc" "$R/dev" "$R/sys" "$R/tmp" "$R/run" "$R/var/tmp"',
            'chmod 1777 "$R/tmp" "$R/var/tmp"',
            `mount -t overlay overlay -o lowerdir=${q(path.join(skel, "usr"))}:${q(path.join(img.layer, "usr"))}:/usr "$R/usr"`,
            // /etc is writable, as a container's root file system is unless readOnlyRootFilesystem
            // (the keepalived image's script rewrites its template there); /usr stays read-only.
            readOnlyRoot
                ? `mount -t overlay overlay -o lowerdir=${q(path.join(skel, "etc"))}:${q(path.join(img.layer, "etc"))}:/etc "$R/etc"`
                : `rm -rf ${q(path.join(cdir, "etc-upper"))} ${q(path.join(cdir, "etc-work"))}; mkdir -p ${q(path.join(cdir, "etc-upper"))} ${q(path.join(cdir, "etc-work"))}; mount -t overlay overlay -o lowerdir=${q(path.join(skel, "etc"))}:${q(path.join(img.layer, "etc"))}:/etc,upperdir=${q(path.join(cdir, "etc-upper"))},workdir=${q(path.join(cdir, "etc-work"))} "$R/etc"`,
            'ln -s usr/bin "$R/bin"; ln -s usr/sbin "$R/sbin"; ln -s usr/lib "$R/lib"; ln -s usr/lib64 "$R/lib64"',
        ];
        // The image's own top-level directories (e.g. /tftpboot, /templates) are copied into the root.
        for (const top of fs.existsSync(img.layer) ? fs.readdirSync(img.layer) : []) {
            if (top === "usr" || top === "etc") continue;
            lines.push(`cp -a ${q(path.join(img.layer, top))} "$R/"`);
        }
        for (const d of img.hostDirs ?? []) lines.push(`mkdir -p "$R"${q(d)}`, `mount --bind ${q(d)} "$R"${q(d)}`, `mount -o remount,bind,ro "$R"${q(d)}`);
        for (const [target, file] of Object.entries(img.fileOverrides ?? {}).sort()) lines.push(`mount --bind ${q(file)} "$R"${q(target)}`, `mount -o remount,bind,ro "$R"${q(target)}`);
        lines.push('mount -t proc proc "$R/proc"', 'mount --rbind /dev "$R/dev"', 'mount -t sysfs -o ro sysfs "$R/sys"');
        for (const m of c.volumeMounts ?? []) {
            const v = (this.o.spec.volumes ?? []).find((x: any) => x.name === m.name);
            if (!v) throw new Error(`container ${c.name}: volumeMount ${m.name} names no volume of the pod`);
            const root = fs.realpathSync(this.volumePath(m.name));
            let src = root;
            if (m.subPath) {
                src = path.join(root, m.subPath);
                // As the kubelet does: a missing subPath is made as root, with the volume root's mode.
                if (!fs.existsSync(src)) {
                    const mode = fs.statSync(root).mode & 0o7777;
                    for (let d = root, rest = m.subPath.split("/"); rest.length > 0; ) {
                        d = path.join(d, rest.shift()!);
                        if (fs.existsSync(d)) continue;
                        fs.mkdirSync(d, { mode });
                        fs.chmodSync(d, mode);
                        fs.chownSync(d, 0, 0);
                    }
                }
            }
            const target = `"$R"${q(m.mountPath)}`;
            const isFile = fs.existsSync(src) && !fs.statSync(src).isDirectory();
            if (!/^\/(usr|etc)\//.test(m.mountPath)) {
                lines.push(isFile ? `mkdir -p "$(dirname ${target})"; touch ${target}` : `mkdir -p ${target}`);
            } else if (isFile) {
                throw new Error(`container ${c.name}: subPath file mounts under /usr or /etc are not supported by the pod runner`);
            }
            lines.push(`mount --bind ${q(src)} ${target}`);
            if (m.readOnly) lines.push(`mount -o remount,bind,ro ${target}`);
        }
        const token = this.serviceAccountDir(c);
        if (token) lines.push(`mkdir -p "$R"${q(SERVICE_ACCOUNT_DIR)}`, `mount --bind ${q(token)} "$R"${q(SERVICE_ACCOUNT_DIR)}`, `mount -o remount,bind,ro "$R"${q(SERVICE_ACCOUNT_DIR)}`);
        if (readOnlyRoot) lines.push('mount -o remount,bind,ro "$R"');
        const envArgs = Object.keys(env)
            .sort()
            .map((k) => q(`${k}=${env[k]}`))
            .join(" ");
        lines.push(
            `exec chroot "$R" /usr/bin/setpriv --reuid=${uid} --regid=${gid} --groups=${groups.join(",")} --inh-caps=-all --bounding-set=${bounding}${noNewPrivs ? " --no-new-privs" : ""} /usr/bin/env -i ${envArgs} "$@"`,
        );
        const file = path.join(skel, "launch.sh");
        fs.writeFileSync(file, lines.join("\n") + "\n", { mode: 0o700 });
        return file;
    }

    /** Host command line that runs `argv` in the container's view. */
    private hostArgv(c: any, argv: string[]): string[] {
        const script = this.launchScript(c);
        return ["nsenter", `--net=/run/netns/${this.o.netns}`, "unshare", "--mount", "--pid", "--fork", "--propagation", "private", "--kill-child", "bash", script, ...argv];
    }

    logFile(name: string): string {
        return path.join(this.dir, "containers", name, "container.log");
    }

    /** The container's log (stdout and stderr). */
    logs(name: string): string {
        const f = this.logFile(name);
        return fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "";
    }

    /** For a failed test: the end of every container's log (init containers first, empty ones left out), each under `---- <pod>/<container> ----`. */
    printLogs(chars = 2000): void {
        for (const c of [...(this.spec.initContainers ?? []), ...this.spec.containers]) {
            const l = this.logs(c.name);
            if (l) console.log(`---- ${this.o.name}/${c.name} ----\n${tail(l, chars)}`);
        }
    }

    private spawnContainer(c: any, argv?: string[]): ContainerRun {
        this.prepareVolumes();
        const env = this.env(c);
        const cmd = argv ?? this.argv(c, env);
        const logFile = this.logFile(c.name);
        fs.mkdirSync(path.dirname(logFile), { recursive: true });
        const out = fs.openSync(logFile, "a");
        const proc = spawn("setsid", this.hostArgv(c, cmd), { stdio: ["ignore", out, out] });
        fs.closeSync(out);
        trackProcessGroup(proc, `container ${this.o.name}/${c.name}`);
        return { name: c.name, proc, logFile };
    }

    /** Run the init containers in order, each to completion; a failure throws with its log. */
    async runInitContainers(timeoutMs = 120000): Promise<void> {
        for (const c of this.o.spec.initContainers ?? []) {
            const run = this.spawnContainer(c);
            const code = await exitOf(run.proc, timeoutMs);
            if (code !== 0) throw new Error(`init container ${c.name} of pod ${this.o.name} exited ${code}:\n${tail(this.logs(c.name))}`);
        }
    }

    /** Start every (non-init) container; they keep running until stop(). */
    startContainers(only?: string[]): ContainerRun[] {
        const started: ContainerRun[] = [];
        for (const c of this.o.spec.containers ?? []) {
            if (only && !only.includes(c.name)) continue;
            const run = this.spawnContainer(c);
            this.running.push(run);
            started.push(run);
        }
        return started;
    }

    /** Start one container with the pod's declared view (e.g. a restart). */
    startContainer(name: string): ContainerRun {
        const run = this.spawnContainer(this.container(name));
        this.running.push(run);
        return run;
    }

    /** Whether the container's process is still running. */
    isRunning(name: string): boolean {
        const r = [...this.running].reverse().find((x) => x.name === name);
        return !!r && r.proc.exitCode === null && r.proc.signalCode === null;
    }

    exitCode(name: string): number | null {
        const r = [...this.running].reverse().find((x) => x.name === name);
        return r ? r.proc.exitCode : null;
    }

    /** Where a running container's root is seen from the host (/proc/<its PID 1>/root): what it wrote at start, not a fresh view as exec gives. */
    rootOf(name: string): string {
        const r = [...this.running].reverse().find((x) => x.name === name && x.proc.exitCode === null && x.proc.signalCode === null);
        const pid1 = r?.proc.pid !== undefined ? childOf(r.proc.pid) : undefined;
        if (pid1 === undefined) throw new Error(`container ${name} of pod ${this.o.name} is not running`);
        return `/proc/${pid1}/root`;
    }

    /** Run a command in a container's view (same mounts, env, user), e.g. a probe. */
    exec(name: string, argv: string[], timeoutMs = 60000): { status: number; stdout: string; stderr: string } {
        this.prepareVolumes();
        const r = spawnSync("setsid", this.hostArgv(this.container(name), argv), { encoding: "utf8", timeout: timeoutMs });
        return { status: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
    }

    /** Run the container's declared exec probe (readiness or liveness); true when it passes. */
    probe(name: string, which: "readinessProbe" | "livenessProbe"): boolean {
        const p = this.container(name)[which];
        if (!p?.exec) throw new Error(`container ${name} has no exec ${which}`);
        return this.exec(name, p.exec.command, (p.timeoutSeconds ?? 1) * 1000 + 10000).status === 0;
    }

    /** Run one declared probe (exec in the container's view; httpGet/tcpSocket from the pod's network namespace). */
    runProbe(name: string, p: any): boolean {
        if (p.exec) return this.exec(name, p.exec.command, (p.timeoutSeconds ?? 1) * 1000 + 10000).status === 0;
        // The kubelet probes the pod IP (the node's address with host networking).
        const host = this.o.podIP;
        if (p.httpGet) {
            const scheme = (p.httpGet.scheme ?? "HTTP").toLowerCase();
            // An IPv6 pod IP goes in brackets (the kubelet joins host and port as a URL authority).
            const h: string = p.httpGet.host ?? host;
            const url = `${scheme}://${h.includes(":") ? `[${h}]` : h}:${p.httpGet.port}${p.httpGet.path ?? "/"}`;
            const r = spawnSync("ip", ["netns", "exec", this.o.netns, "curl", "-g", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", String(p.timeoutSeconds ?? 1), url], { encoding: "utf8" });
            const code = Number(r.stdout);
            return code >= 200 && code < 400;
        }
        if (p.tcpSocket) {
            const r = spawnSync("ip", ["netns", "exec", this.o.netns, "bash", "-c", `exec 3<>/dev/tcp/${p.tcpSocket.host ?? host}/${p.tcpSocket.port}`], { timeout: 5000 });
            return r.status === 0;
        }
        throw new Error(`container ${name}: probe kind not supported: ${JSON.stringify(p)}`);
    }

    /**
     * Wait until a started container is ready: its readinessProbe passes (else its livenessProbe,
     * else it is still running after a few seconds). Throws with its log if it exits first.
     */
    async waitReady(name: string, timeoutMs = 120000): Promise<number> {
        const c = this.container(name);
        const probe = c.readinessProbe ?? c.livenessProbe;
        const t0 = Date.now();
        for (;;) {
            if (!this.isRunning(name)) throw new Error(`container ${name} of pod ${this.o.name} exited ${this.exitCode(name)}:\n${tail(this.logs(name))}`);
            if (probe ? this.runProbe(name, probe) : Date.now() - t0 >= 3000) return Date.now() - t0;
            if (Date.now() - t0 > timeoutMs) throw new Error(`container ${name} of pod ${this.o.name} not ready after ${timeoutMs} ms:\n${tail(this.logs(name))}`);
            await new Promise((r) => setTimeout(r, 1000));
        }
    }

    /** Stop one container as the kubelet does (SIGTERM to its PID 1, SIGKILL after the grace period). */
    async stopContainer(name: string, graceMs = 5000): Promise<void> {
        const runs = this.running.filter((r) => r.name === name);
        await Promise.all(runs.map((r) => this.stopRun(r, graceMs)));
        for (const r of runs) this.running.splice(this.running.indexOf(r), 1);
    }

    /** The node is lost: SIGKILL to every container's PID 1 at once, by PID (the pod's volumes stay, as on a node that comes back); the names of the containers that were running. */
    async kill(): Promise<string[]> {
        const names = this.running.filter((r) => r.proc.exitCode === null && r.proc.signalCode === null).map((r) => r.name);
        await Promise.all(this.running.map((r) => this.stopRun(r, 0, "SIGKILL")));
        this.running.length = 0;
        return names;
    }

    /** Stop every container: SIGTERM to its PID 1, SIGKILL after a grace period, by PID. */
    async stop(graceMs = 5000): Promise<void> {
        await Promise.all(this.running.map((r) => this.stopRun(r, graceMs)));
        this.running.length = 0;
    }

    private async stopRun(r: ContainerRun, graceMs: number, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
        if (r.proc.exitCode !== null || r.proc.signalCode !== null) return;
        const done = new Promise<void>((res) => r.proc.once("exit", () => res()));
        const init = childOf(r.proc.pid!);
        try {
            process.kill(init ?? r.proc.pid!, signal);
        } catch {
            /* gone */
        }
        const timer = setTimeout(() => {
            for (const pid of [init, r.proc.pid]) {
                try {
                    if (pid) process.kill(pid, "SIGKILL");
                } catch {
                    /* gone */
                }
            }
        }, graceMs);
        await done;
        clearTimeout(timer);
    }
}

/** `$(VAR)` expansion of the Kubernetes API ($$ escapes; unknown references stay as written). */
export function expand(s: string, env: Record<string, string>): string {
    return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name) => (m === "$$" ? "$" : name in env ? env[name] : m));
}

/** The first child of a process (the PID 1 of the namespace `unshare --fork` made). */
function childOf(pid: number): number | undefined {
    try {
        const kids = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
        return kids[0];
    } catch {
        return undefined;
    }
}

function exitOf(proc: ChildProcess, timeoutMs: number): Promise<number | null> {
    if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
    return new Promise((resolve) => {
        const timer = setTimeout(() => {
            try {
                process.kill(proc.pid!, "SIGKILL");
            } catch {
                /* gone */
            }
        }, timeoutMs);
        proc.once("exit", (code) => {
            clearTimeout(timer);
            resolve(code);
        });
    });
}

export function tail(s: string, n = 3000): string {
    return s.length > n ? "…" + s.slice(-n) : s;
}

/**
 * What Ironic's redfish-virtual-media boot interface does with a boot ISO, run with Ironic's own
 * code (ironic.drivers.modules.image_utils) in the pod's ironic container: publish a file holding
 * `content` under [deploy]http_root/redfish and return the URL Ironic hands the BMC.
 */
export function publishVirtualMedia(pod: PodRunner, content: string): string {
    const script = [
        "import sys, uuid",
        "from ironic.conf import CONF",
        // In the order the conductor loads them: image_utils imported first is a circular import in Ironic 38.
        "from ironic.conductor import utils as _conductor_utils  # noqa: F401",
        "from ironic.drivers.modules import image_utils",
        "CONF(['--config-file', '/conf/ironic/ironic.conf'], project='ironic')",
        "name = 'boot-%s.iso' % uuid.uuid4()",
        "src = '/shared/tmp/' + name",
        "open(src, 'w').write(sys.argv[1])",
        "print(image_utils.ImageHandler('redfish').publish_image(src, name))",
    ].join("\n");
    const r = pod.exec("ironic", ["python3.12", "-c", script, content]);
    if (r.status !== 0) throw new Error(`publishing virtual media in ${pod.o.name} failed: ${r.stderr}`);
    return r.stdout.trim().split("\n").pop()!;
}
