/**
 * The end-to-end harness: the local cluster (tools/cluster.sh: etcd, kube-apiserver, controller
 * manager, scheduler, kwok) and the real Pulumi CLI on a file backend, driven as a user drives
 * them. Each suite gets its own cluster directory, ports, workspace and stack state, so two suites
 * run side by side. Nothing here emulates the engine or the API server.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { PROJECT } from "../../core/config";
import { onInterrupt, run, tmpDir } from "../helpers/sys";

export const ROOT = path.join(__dirname, "..", "..");

export type Result = ReturnType<typeof run>;

/** `cluster.sh down DIR` (stops the PIDs it recorded) and the suite's directory around DIR removed. */
function clusterDown(dir: string): void {
    run("bash", [path.join(ROOT, "tools", "cluster.sh"), "down", dir], { allowFail: true, timeout: 120000 });
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
}

/** A running local cluster and the environment its `up` printed. */
export class Cluster {
    readonly dir: string;
    readonly env: NodeJS.ProcessEnv;
    private untrack: (() => void) | undefined;

    private constructor(dir: string, env: NodeJS.ProcessEnv, untrack: () => void) {
        this.dir = dir;
        this.env = env;
        this.untrack = untrack;
    }

    /**
     * `npm run -s cluster -- up DIR`, with the printed exports applied. Builds the toolchain when the
     * cache lacks it. Stopped by `down`, or, if the test process is killed first, by sys.ts's onInterrupt.
     */
    static up(): Cluster {
        const dir = path.join(tmpDir("e2e"), "cluster");
        const untrack = onInterrupt(`local cluster ${dir}`, () => clusterDown(dir));
        const r = run("bash", [path.join(ROOT, "tools", "cluster.sh"), "up", dir], { allowFail: true, timeout: 60 * 60 * 1000 });
        if (r.status !== 0) {
            // cluster.sh stopped what it had started; its logs stay in DIR/logs.
            untrack();
            throw new Error(`cluster up failed (${r.status}):\n${r.stderr.slice(-4000)}`);
        }
        const env: NodeJS.ProcessEnv = { ...process.env };
        for (const line of r.stdout.trim().split("\n")) {
            const m = /^export ([A-Z_]+)=(.*)$/.exec(line);
            if (!m) {
                untrack();
                clusterDown(dir);
                throw new Error(`cluster up printed a line that is not an export: ${JSON.stringify(line)}`);
            }
            env[m[1]] = m[2].replace(/\$PATH$/, process.env.PATH ?? "");
        }
        return new Cluster(dir, env, untrack);
    }

    /** Stops every process of the cluster by its PID and removes its directory; once (a second call does nothing). */
    down(): void {
        if (!this.untrack) return;
        this.untrack();
        this.untrack = undefined;
        clusterDown(this.dir);
    }

    kubectl(args: string[], opts: { allowFail?: boolean; input?: string } = {}): Result {
        return run("kubectl", args, { env: this.env, timeout: 120000, ...opts });
    }

    /** `kubectl get -o json`: the object, or its items for a list. */
    get<T = any>(args: string[]): T {
        return JSON.parse(this.kubectl(["get", ...args, "-o", "json", "--show-managed-fields"]).stdout) as T;
    }

    /** Pods of a namespace matching a label selector. */
    pods(namespace: string, selector: string): any[] {
        return this.get<{ items: any[] }>(["pods", "-n", namespace, "-l", selector]).items;
    }
}

/**
 * What a current Node.js language host hands the program from Pulumi.yaml's runtime options: it
 * sets PULUMI_NODEJS_TSCONFIG_PATH from `tsconfig` (pulumi-language-nodejs, RunRequest.info.options).
 * The toolchain's host (sdk v3.68.0, the newest the module proxy serves) reads options only from
 * command-line flags, which the CLI no longer passes: without this, the e2e tier would run the
 * program as no user's host does (type-checked on every run).
 */
export function runtimeOptionsEnv(projectDir: string): NodeJS.ProcessEnv {
    const file = path.join(projectDir, "Pulumi.yaml");
    if (!fs.existsSync(file)) return {};
    const tsconfig = YAML.parse(fs.readFileSync(file, "utf8"))?.runtime?.options?.tsconfig;
    return typeof tsconfig === "string" ? { PULUMI_NODEJS_TSCONFIG_PATH: tsconfig } : {};
}

/** Files of the project a Pulumi workspace needs; linked, so the workspace runs this checkout. */
export const PROJECT_FILES = ["index.ts", "components", "core", "assets", "node_modules", "package.json", "tsconfig.json", "tsconfig.pulumi.json"];

/**
 * A Pulumi project directory of its own (the checkout's program, linked) holding one stack, so
 * the stack file the CLI writes never lands in the checkout and parallel suites never share one.
 */
export class Workspace {
    readonly dir: string;
    readonly stack: string;
    readonly cluster: Cluster;
    /** What the language host passes from this project's Pulumi.yaml (read once: the file does not change). */
    private runtimeEnv: NodeJS.ProcessEnv = {};
    /** Successful `pulumi up` runs in this workspace. */
    updates = 0;

    /** `project`: a project directory of its own (e.g. a program that imports the package), used as it is. */
    constructor(cluster: Cluster, stack: string, project?: string) {
        this.cluster = cluster;
        this.stack = stack;
        this.dir = project ?? path.join(path.dirname(cluster.dir), `ws-${stack}`);
        fs.mkdirSync(this.dir, { recursive: true });
        fs.mkdirSync(this.tmp, { recursive: true });
        if (!project) {
            fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(this.dir, "Pulumi.yaml"));
            for (const f of PROJECT_FILES) {
                const link = path.join(this.dir, f);
                if (!fs.existsSync(link)) fs.symlinkSync(path.join(ROOT, f), link);
            }
        }
        this.runtimeEnv = runtimeOptionsEnv(this.dir);
        this.pulumi(["stack", "init"]);
    }

    get tmp(): string {
        return path.join(path.dirname(this.cluster.dir), "tmp");
    }

    get stackFile(): string {
        return path.join(this.dir, `Pulumi.${this.stack}.yaml`);
    }

    pulumi(args: string[], opts: { allowFail?: boolean; timeout?: number; env?: NodeJS.ProcessEnv } = {}): Result {
        // The Kubernetes provider leaves a temporary kubeconfig per run in TMPDIR: keep them in the suite's directory.
        const env = { ...this.cluster.env, TMPDIR: this.tmp, ...this.runtimeEnv, ...(opts.env ?? {}) };
        const r = run("pulumi", [...args, "--non-interactive", "--stack", this.stack], { env, cwd: this.dir, timeout: opts.timeout ?? 900000, allowFail: true });
        if (!opts.allowFail && r.status !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.status}:\n${(r.stdout + r.stderr).slice(-6000)}`);
        return r;
    }

    /**
     * An example stack file's config through the CLI, plus `extra` settings (`--secret` ones).
     * Those values are plaintext in the file, so `--plaintext`: the CLI refuses a value it guesses
     * is a secret from the key name and the value's entropy (the Secret name of
     * `keepalived.passwordSecret.name`) unless told.
     *  - "set-all": one `pulumi config set-all --path` for every value (setAllArgs): the CLI stores
     *    each as `pulumi config set` does, in one run instead of one per key.
     *  - "per-key": one `pulumi config set` per value as a user types it (setArgs). One example
     *    stack is configured so, and checks that set-all writes the same config (examples.test.ts).
     */
    configure(exampleFile: string, extra: ConfigSetting[] = [], how: "set-all" | "per-key" = "set-all"): void {
        const settings = [...configSettings(fs.readFileSync(exampleFile, "utf8")), ...extra];
        if (how === "per-key") for (const s of settings) this.pulumi(setArgs(s));
        else this.pulumi(setAllArgs(settings));
    }

    /** The stack's config as the CLI reads it back, secrets in clear (`pulumi config --json --show-secrets`). */
    config(): Record<string, unknown> {
        return JSON.parse(this.pulumi(["config", "--json", "--show-secrets"]).stdout);
    }

    up(extra: string[] = []): Result {
        const r = this.pulumi(["up", "--yes", "--skip-preview", ...extra]);
        this.updates++;
        return r;
    }

    /** `pulumi preview --expect-no-changes`: exit 0 only when nothing would change. */
    previewNoChanges(): Result {
        return this.pulumi(["preview", "--expect-no-changes", "--diff"], { allowFail: true });
    }

    outputs(): Record<string, any> {
        return JSON.parse(this.pulumi(["stack", "output", "--json", "--show-secrets"]).stdout);
    }
}

/** `a.b["c.d"][0]`: a --path key, quoting segments that are not plain words. */
function pathOf(key: string, segs: (string | number)[]): string {
    let out = `${PROJECT}:${key}`;
    for (const s of segs) out += typeof s === "number" ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
    return out;
}

/**
 * One config value as the CLI takes it: `path` with --path (a leaf of an object), `secret` with
 * --secret (else --plaintext).
 */
export interface ConfigSetting {
    key: string;
    value: string;
    path: boolean;
    secret?: boolean;
}

/** The live readiness check has its own tests (it needs a reachable Ironic, which kwok pods are not). */
export const READINESS_OFF: ConfigSetting = { key: `${PROJECT}:readiness.enabled`, value: "false", path: true };

/**
 * The settings that reproduce an example stack file: top-level scalars without --path (the CLI
 * stores them as strings), every leaf of an object with --path (the CLI turns digits into integers
 * and true/false into booleans). What the CLI writes is what the program and `npm run plan` are
 * tested with.
 */
export function configSettings(yamlText: string): ConfigSetting[] {
    const config = (YAML.parse(yamlText)?.config ?? {}) as Record<string, unknown>;
    const settings: ConfigSetting[] = [];
    for (const [full, value] of Object.entries(config)) {
        if (!full.startsWith(`${PROJECT}:`)) continue;
        const key = full.slice(PROJECT.length + 1);
        if (value === null || typeof value !== "object") {
            settings.push({ key: `${PROJECT}:${key}`, value: String(value), path: false });
            continue;
        }
        const walk = (v: unknown, segs: (string | number)[]) => {
            if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...segs, i]));
            else if (v !== null && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...segs, k]);
            else settings.push({ key: pathOf(key, segs), value: String(v), path: true });
        };
        walk(value, []);
    }
    return settings;
}

/** `pulumi config set [--path] --secret|--plaintext KEY VALUE`: one value, as a user types it. */
export function setArgs(s: ConfigSetting): string[] {
    return ["config", "set", ...(s.path ? ["--path"] : []), s.secret ? "--secret" : "--plaintext", s.key, s.value];
}

/**
 * `pulumi config set-all --path --plaintext KEY=VALUE ... --secret KEY=VALUE ...`: every value in
 * one run. With --path a top-level key is a path of one segment, which the CLI stores as
 * `pulumi config set` without --path does (a string); the CLI splits each pair at its first `=`.
 */
export function setAllArgs(settings: ConfigSetting[]): string[] {
    const args = ["config", "set-all", "--path"];
    for (const s of settings) {
        if (s.key.includes("=")) throw new Error(`config set-all cannot take a key with "=": ${s.key}`);
        args.push(s.secret ? "--secret" : "--plaintext", `${s.key}=${s.value}`);
    }
    return args;
}
