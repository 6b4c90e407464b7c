/**
 * baremetal-operator (BMO) for the pod runner: the binary the toolchain builds from the pinned
 * release's module (tools/toolchain/build.sh, target bmo) in an image laid out like the release's,
 * and its validating webhook called the way the API server calls it. What the pod runs (its pod
 * spec, its CRDs, RBAC, the webhook's certificate) is what the stack renders with bmo.enabled
 * (core/manifests/bmo.ts, from the release's own config/): nothing of BMO is kept here.
 * Also sushy-tools, the Redfish BMC its hosts are behind.
 */
import * as fs from "fs";
import * as path from "path";

import { toolchainBin } from "../e2e/toolchain";
import type { StandinImage } from "./pod-runner";
import { Daemon, run } from "./sys";

/** The manager's image reference in the release's config/base/manager.yaml. */
export const BMO_IMAGE = "quay.io/metal3-io/baremetal-operator";
/** The distroless image's user (USER nonroot:nonroot in the release's Dockerfile). */
const NONROOT = 65532;

/** The BMO binary the toolchain built (its manifests come from the release's module zip: core/bmo-release.ts). */
export function bmoRelease(): { binary: string } {
    return { binary: path.join(toolchainBin(), "baremetal-operator") };
}

export function bmoBuilt(): boolean {
    return fs.existsSync(bmoRelease().binary);
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
export function sushyConfig(systems: FakeSystem[], stateDir: string, notifyUrl?: string, verifyMedia = false): string {
    const list = systems.map((s) => ({ uuid: s.uuid, name: s.name, power_state: "Off", external_notifier: !!notifyUrl, nics: [{ mac: s.mac }] }));
    return [
        "SUSHY_EMULATOR_FAKE_DRIVER = True",
        `SUSHY_EMULATOR_STATE_DIR = ${JSON.stringify(stateDir)}`,
        `SUSHY_EMULATOR_FAKE_SYSTEMS = ${JSON.stringify(list, null, 1).replace(/\bfalse\b/g, "False").replace(/\btrue\b/g, "True")}`,
        // Every change of a system (power, boot device, virtual media) is PUT there as JSON (fakedriver.py).
        ...(notifyUrl ? [`EXTERNAL_NOTIFICATION_URL = ${JSON.stringify(notifyUrl)}`] : []),
        // Virtual media downloaded verifying TLS (its default is not to, "de facto standard for Redfish").
        ...(verifyMedia ? ["SUSHY_EMULATOR_VMEDIA_VERIFY_SSL = True"] : []),
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
export async function startSushy(o: { ns: string; ip: string; port: number; conf: string; log: string; uuid: string; env?: NodeJS.ProcessEnv }): Promise<Daemon> {
    const d = new Daemon("ip", ["netns", "exec", o.ns, path.join(SUSHY_VENV, "bin", "sushy-emulator"), "--config", o.conf, "--interface", o.ip, "--port", String(o.port)], o.log, o.env);
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

/**
 * BMO's validating webhook called as the API server calls it, from what the stack renders: its
 * configuration `vwc`, the Service it names and the pod template's labels. The Service must select
 * the pod; an AdmissionReview is POSTed to the BareMetalHost webhook's path at the Service's DNS
 * name, resolved (as the Service's endpoint would be) to the pod's address and the Service's
 * targetPort, TLS verified with the configuration's caBundle alone. A valid host is allowed; one
 * whose BMC address has an unknown scheme is refused with BMO's own reason.
 */
export async function checkWebhook(o: { work: string; vwc: any; services: any[]; podLabels: Record<string, string>; netns: string; podIp: string }): Promise<void> {
    const { work, vwc, netns, podIp } = o;
    const hook = vwc.webhooks.find((w: any) => w.name === "baremetalhost.metal3.io");
    if (!hook) throw new Error(`the webhook configuration has no baremetalhost.metal3.io webhook: ${JSON.stringify(vwc.webhooks.map((w: any) => w.name))}`);
    const svc = hook.clientConfig.service;
    const namespace = svc.namespace;
    const service = o.services.find((x) => x.metadata.name === svc.name && x.metadata.namespace === svc.namespace);
    if (!service) throw new Error(`the webhook names Service ${svc.namespace}/${svc.name}, which the stack does not render`);
    const unmatched = Object.entries(service.spec.selector ?? {}).filter(([k, v]) => o.podLabels[k] !== v);
    if (unmatched.length > 0 || !service.spec.selector) throw new Error(`Service ${svc.name} does not select BMO's pod: ${JSON.stringify(unmatched)} (pod labels ${JSON.stringify(o.podLabels)})`);
    const port = service.spec.ports.find((p: any) => p.port === (svc.port ?? 443));
    if (!port) throw new Error(`Service ${svc.name} has no port ${svc.port ?? 443}: ${JSON.stringify(service.spec.ports)}`);
    const target = port.targetPort ?? port.port;
    const host = `${svc.name}.${svc.namespace}.svc`;
    const ca = path.join(work, "bmo-webhook-ca.pem");
    fs.writeFileSync(ca, Buffer.from(hook.clientConfig.caBundle, "base64"));
    const review = (address: string) => ({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        request: {
            uid: "6f1e4c2a-0000-4000-8000-00000000b0b0",
            kind: { group: "metal3.io", version: "v1alpha1", kind: "BareMetalHost" },
            resource: { group: "metal3.io", version: "v1alpha1", resource: "baremetalhosts" },
            name: "webhook-probe",
            namespace,
            operation: "CREATE",
            userInfo: { username: "system:admin" },
            object: { apiVersion: "metal3.io/v1alpha1", kind: "BareMetalHost", metadata: { name: "webhook-probe", namespace }, spec: { online: false, bootMACAddress: "52:54:00:00:0b:0b", bmc: { address, credentialsName: "webhook-probe-bmc" } } },
        },
    });
    const call = (address: string) => {
        const file = path.join(work, "bmo-webhook-review.json");
        fs.writeFileSync(file, JSON.stringify(review(address)));
        const r = run("ip", ["netns", "exec", netns, "curl", "-sS", "--max-time", "20", "--cacert", ca, "--resolve", `${host}:${target}:${podIp}`, "-H", "Content-Type: application/json", "--data-binary", `@${file}`, `https://${host}:${target}${svc.path}`], { allowFail: true });
        if (r.status !== 0) throw new Error(`BMO's webhook at https://${host}:${target}${svc.path} (caBundle of the webhook configuration): curl exited ${r.status}: ${r.stderr}`);
        return JSON.parse(r.stdout).response;
    };
    const ok = call("redfish+http://192.0.2.1:8000/redfish/v1/Systems/1");
    if (ok?.allowed !== true) throw new Error(`BMO's webhook refused a valid host: ${JSON.stringify(ok)}`);
    const bad = call("bogus://192.0.2.1");
    if (bad?.allowed !== false || !/Unknown BMC type 'bogus'/.test(bad.status?.message ?? "")) throw new Error(`BMO's webhook allowed or misjudged a host with an unknown BMC type: ${JSON.stringify(bad)}`);
}
