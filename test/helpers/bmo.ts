/**
 * baremetal-operator (BMO) as its pinned release ships it, for the pod runner: the binary the
 * toolchain builds from the release's module (tools/toolchain/build.sh, target bmo) and the release's
 * own config/ copied beside it (its CRDs, the manager Deployment, RBAC and kustomize components).
 * Nothing of BMO is kept in this repository: its manifests are read from that copy and put together
 * the way its kustomization does (namePrefix, namespace, the webhook patch), then wired to a stack
 * with the release's own tls and basic-auth components, their Secret names replaced by the stack's,
 * and its `ironic` ConfigMap replaced by the stack's `<name>-bmo`: what README.md tells users to do.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { toolchainBin } from "../e2e/toolchain";
import type { StandinImage } from "./pod-runner";
import { Daemon, run } from "./sys";

/** The manager's image reference in the release's config/base/manager.yaml. */
export const BMO_IMAGE = "quay.io/metal3-io/baremetal-operator";
/** config/base/kustomization.yaml: namePrefix of every object of the release. */
const NAME_PREFIX = "baremetal-operator-";
/** The distroless image's user (USER nonroot:nonroot in the release's Dockerfile). */
const NONROOT = 65532;

export function bmoRelease(): { binary: string; config: string } {
    const bin = toolchainBin();
    return { binary: path.join(bin, "baremetal-operator"), config: path.join(path.dirname(bin), "bmo-config") };
}

export function bmoBuilt(): boolean {
    const r = bmoRelease();
    return fs.existsSync(r.binary) && fs.existsSync(path.join(r.config, "base", "manager.yaml"));
}

function docs(file: string): any[] {
    return YAML.parseAllDocuments(fs.readFileSync(file, "utf8"))
        .map((d) => d.toJS())
        .filter((o) => o && typeof o === "object");
}

/** The release's CRDs (config/base/crds/bases), for `kubectl apply`. */
export function bmoCrds(): any[] {
    const dir = path.join(bmoRelease().config, "base", "crds", "bases");
    return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith(".yaml"))
        .sort()
        .flatMap((f) => docs(path.join(dir, f)));
}

const CLUSTER_SCOPED = new Set(["ClusterRole", "ClusterRoleBinding"]);

/**
 * The manager's ServiceAccount, its ClusterRole and binding, its leader-election Role and binding
 * and the metrics endpoint's, from config/base/rbac as kustomize renders them into `namespace`.
 */
export function bmoRbac(namespace: string): any[] {
    const dir = path.join(bmoRelease().config, "base", "rbac");
    // Every resource of the release's rbac kustomization (also the metrics Service and its auth roles).
    const files: string[] = docs(path.join(dir, "kustomization.yaml"))[0].resources;
    return files.flatMap((f) => docs(path.join(dir, f))).map((o) => {
        o.metadata.name = NAME_PREFIX + o.metadata.name;
        if (CLUSTER_SCOPED.has(o.kind)) delete o.metadata.namespace;
        else o.metadata.namespace = namespace;
        if (o.roleRef) o.roleRef.name = NAME_PREFIX + o.roleRef.name;
        for (const s of o.subjects ?? []) Object.assign(s, { name: NAME_PREFIX + s.name, namespace });
        return o;
    });
}

/** The manager's ServiceAccount name as the release renders it. */
export const BMO_SERVICE_ACCOUNT = `${NAME_PREFIX}controller-manager`;

/** A strategic merge of a Deployment patch's pod template into `spec`, as far as the release's patches need it. */
function mergePod(spec: any, patch: any): any {
    const p = patch.spec.template.spec;
    for (const pc of p.containers ?? []) {
        const c = spec.containers.find((x: any) => x.name === pc.name);
        if (!c) throw new Error(`patch names container ${pc.name}, which the manager Deployment does not have`);
        for (const list of ["ports", "volumeMounts", "envFrom", "env"]) if (pc[list]) c[list] = [...(c[list] ?? []), ...pc[list]];
    }
    if (p.volumes) spec.volumes = [...(spec.volumes ?? []), ...p.volumes];
    return spec;
}

export interface BmoWiring {
    /** The stack's `<name>-bmo` ConfigMap, in place of the release's generated `ironic` ConfigMap. */
    configMap: string;
    /** The stack's `<name>-cacert` Secret, in place of `ironic-cacert` (the release's tls component). */
    caSecret: string;
    /** The stack's `<name>-credentials` Secret, in place of `ironic-credentials` (its basic-auth component). */
    credentialsSecret: string;
}

/**
 * The manager Deployment's pod spec: config/base/manager.yaml with the base's webhook patch, the
 * namePrefix applied to what it names (ServiceAccount, ConfigMap), and the release's tls and
 * basic-auth components, wired to the stack as README.md says ("Wiring baremetal-operator").
 * Returns the spec and the name of the webhook's serving-certificate Secret it mounts.
 */
export function bmoPodSpec(w: BmoWiring): { spec: any; webhookSecret: string } {
    const config = bmoRelease().config;
    const [dep] = docs(path.join(config, "base", "manager.yaml"));
    const spec = dep.spec.template.spec;
    mergePod(spec, docs(path.join(config, "base", "manager_webhook_patch.yaml"))[0]);
    spec.serviceAccountName = NAME_PREFIX + spec.serviceAccountName;
    const manager = spec.containers.find((c: any) => c.name === "manager");
    const ironicCm = (manager.envFrom ?? []).find((e: any) => e.configMapRef);
    if (ironicCm?.configMapRef.name !== "ironic") throw new Error(`the release's manager reads ConfigMap ${JSON.stringify(ironicCm)}, not "ironic"`);
    ironicCm.configMapRef.name = w.configMap;
    const renamed: Record<string, string> = { "ironic-cacert": w.caSecret, "ironic-credentials": w.credentialsSecret };
    for (const component of ["tls/tls_ca_patch.yaml", "basic-auth/credentials_patch.yaml"]) {
        const patch = docs(path.join(config, "components", component))[0];
        for (const v of patch.spec.template.spec.volumes ?? []) {
            if (!v.secret || !(v.secret.secretName in renamed)) throw new Error(`${component}: unexpected volume ${JSON.stringify(v)}`);
            v.secret.secretName = renamed[v.secret.secretName];
        }
        mergePod(spec, patch);
    }
    const webhook = spec.volumes.find((v: any) => v.name === "cert")?.secret?.secretName;
    if (!webhook) throw new Error("the release's webhook patch mounts no serving certificate Secret");
    return { spec, webhookSecret: webhook };
}

/** The image as its Dockerfile makes it: distroless (no shell), the binary at /baremetal-operator, user nonroot. */
export function bmoImage(work: string): Record<string, StandinImage> {
    const layer = path.join(work, "images", "baremetal-operator");
    fs.rmSync(layer, { recursive: true, force: true });
    fs.mkdirSync(path.join(layer, "usr"), { recursive: true });
    fs.mkdirSync(path.join(layer, "etc"), { recursive: true });
    fs.writeFileSync(path.join(layer, "etc", "passwd"), `root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:${NONROOT}:${NONROOT}:nonroot:/home/nonroot:/sbin/nologin\n`);
    fs.writeFileSync(path.join(layer, "etc", "group"), `root:x:0:\nnonroot:x:${NONROOT}:\n`);
    fs.copyFileSync(bmoRelease().binary, path.join(layer, "baremetal-operator"));
    fs.chmodSync(path.join(layer, "baremetal-operator"), 0o755);
    return { [BMO_IMAGE]: { layer, entrypoint: ["/baremetal-operator"] } };
}

/**
 * sushy-tools (PyPI, pinned in .ci/run), the Redfish BMC emulator Metal3's own test setups use,
 * in a venv outside the checkout. Its fake driver (`--fake`) keeps each system's power state and
 * boot settings in memory: a BMC that Ironic's redfish driver manages, with no machine behind it.
 */
export const SUSHY_VENV = "/var/cache/metal3-ironic-pypi/sushy-tools-2.2.0";
export const SUSHY_VERSION = "2.2.0";

export function sushyReady(): boolean {
    return fs.existsSync(path.join(SUSHY_VENV, "bin", "sushy-emulator"));
}

export interface FakeSystem {
    uuid: string;
    name: string;
    mac: string;
}

/**
 * The emulator's configuration file (Python): the fake systems, powered off, and the directory of
 * its state (default /tmp/sushy-emulator, which would outlive the test and be shared with another suite);
 * with `notifyUrl`, its external notifier tells that URL every change of a system (test/helpers/redfish-hosts.ts).
 */
export function sushyConfig(systems: FakeSystem[], stateDir: string, notifyUrl?: string): string {
    const list = systems.map((s) => ({ uuid: s.uuid, name: s.name, power_state: "Off", external_notifier: !!notifyUrl, nics: [{ mac: s.mac }] }));
    return [
        "SUSHY_EMULATOR_FAKE_DRIVER = True",
        `SUSHY_EMULATOR_STATE_DIR = ${JSON.stringify(stateDir)}`,
        `SUSHY_EMULATOR_FAKE_SYSTEMS = ${JSON.stringify(list, null, 1).replace(/\bfalse\b/g, "False").replace(/\btrue\b/g, "True")}`,
        // Every change of a system (power, boot device, virtual media) is PUT there as JSON (fakedriver.py).
        ...(notifyUrl ? [`EXTERNAL_NOTIFICATION_URL = ${JSON.stringify(notifyUrl)}`] : []),
        "",
    ].join("\n");
}

/**
 * The lines of BMO's log (JSON, no --dev) that say it could not use Ironic: every failure to reach
 * it (TLS, credentials, API version) is logged as "error caught while checking endpoint" or
 * "provisioner is not ready", with the cause.
 */
export function bmoLogProblems(log: string): string[] {
    return log.split("\n").filter((l) => /"msg":"(error caught while checking endpoint|provisioner is not ready)/.test(l) || /x509:|tls: |but got 40[16] instead|API 1\.89 or newer|Unauthorized/.test(l));
}

/**
 * Starts sushy-tools' emulator in namespace `ns` on ip:port with configuration file `conf` (log:
 * `log`) and waits (30 s) until it answers for system `uuid`; fails with the end of its log.
 */
export async function startSushy(o: { ns: string; ip: string; port: number; conf: string; log: string; uuid: string }): Promise<Daemon> {
    const d = new Daemon("ip", ["netns", "exec", o.ns, path.join(SUSHY_VENV, "bin", "sushy-emulator"), "--config", o.conf, "--interface", o.ip, "--port", String(o.port)], o.log);
    const end = Date.now() + 30000;
    while (run("ip", ["netns", "exec", o.ns, "curl", "-sf", "-o", "/dev/null", `http://${o.ip}:${o.port}/redfish/v1/Systems/${o.uuid}`], { allowFail: true }).status !== 0) {
        if (Date.now() > end) {
            await d.stop();
            throw new Error(`sushy-emulator not answering at ${o.ip}:${o.port} within 30 s:\n${fs.readFileSync(o.log, "utf8").slice(-2000)}`);
        }
        await new Promise((r) => setTimeout(r, 300));
    }
    return d;
}
