/**
 * A value set with a nested `--secret` that would reach a container's environment: the workload
 * reads it from <name>-config-secrets (an Ironic option as a config file the ironic container links
 * into IRONIC_CONF_DIR, anything else through secretKeyRef), everything else of it stays in clear,
 * its pods roll when the value changes and only then, and it waits for the Secret
 * (components/config-secrets.ts).
 */
import { strict as assert } from "assert";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, SecretPath } from "../../core/config";
import { SECRET_ENV_HASH_ANNOTATION } from "../../core/manifests/secret-env";
import { stackFileStated } from "../../components/secret-config";
import { statedExcept } from "../helpers/stated";
import { containsSecret, unwrapSecrets } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";

const ROOT = path.join(__dirname, "..", "..");
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
const PASSWORD = "s3cr3t-redfish-pw";
const REDFISH: SecretPath = ["ironic", "config", "redfish.password"];

/** The dev stack with a nested secret beside a plain option under `ironic.config`. */
const withSecret = (base: RawConfig, value = PASSWORD): RawConfig => ({ ...base, ironic: { ...(base.ironic as object), config: { "redfish.password": value, "conductor.deploy_callback_timeout": 1800 } } });

interface Registered {
    r: Rendered;
    deps: Map<string, string[]>;
}

/**
 * Rendered with `ironic` secret at REDFISH only (the stack file states the rest in plain; `stated`
 * {}: no stack file), recording each resource's dependsOn.
 */
async function render(raw: RawConfig, stack: string, paths: SecretPath[] = [REDFISH], secretKeys = ["ironic"], stated = statedExcept(raw, paths)): Promise<Registered> {
    const deps = new Map<string, string[]>();
    const r = await renderOffline(raw, stack, {
        secretKeys,
        stated,
        onRegister: (a) => {
            const d = a.opts.dependsOn;
            const list = (Array.isArray(d) ? d : d ? [d] : []) as pulumi.Resource[];
            deps.set(a.name, list.filter((x) => pulumi.Resource.isInstance(x)).map((x) => (x as unknown as { __name: string }).__name));
        },
    });
    return { r, deps };
}

const workload = (r: Rendered, kind: string) => r.resources.find((x) => x.type === `kubernetes:apps/v1:${kind}` && x.rawInputs?.metadata?.name === "ironic")!;
const envOf = (w: any, container: string) => Object.fromEntries(w.rawInputs.spec.template.spec.containers.find((c: any) => c.name === container).env.map((e: any) => [e.name, e]));
const configSecret = (r: Rendered) => r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs?.metadata?.name === "ironic-config-secrets");

describe("a nested --secret in a container's environment: read from <name>-config-secrets (pulumi mocks)", function () {
    this.timeout(120000);
    let dev: Registered;
    before(async function () {
        dev = await render(withSecret(devRaw), "dev");
    });

    it("the Deployment stays in clear: the secret option is a file of the Secret the ironic container links into its config dir, the plain option beside it keeps its env value", function () {
        const dep = workload(dev.r, "Deployment");
        assert.equal(containsSecret(dep.rawInputs.spec), false);
        const env = envOf(dep, "ironic");
        assert.equal(env.OS_REDFISH__PASSWORD, undefined, "no env entry: the image prints every OS_* variable to its log");
        assert.deepEqual(env.OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT, { name: "OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT", value: "1800" }, "only the secret leaf moves (its path from the stack file)");
        const spec = dep.rawInputs.spec.template.spec;
        assert.deepEqual(spec.volumes.find((v: any) => v.name === "config-secrets"), { name: "config-secrets", secret: { secretName: "ironic-config-secrets", items: [{ key: "ironic.conf", path: "ironic.conf" }] } });
        const ironic = spec.containers.find((c: any) => c.name === "ironic");
        assert.deepEqual(ironic.volumeMounts.find((m: any) => m.name === "config-secrets"), { name: "config-secrets", mountPath: "/etc/metal3-ironic/config-secrets", readOnly: true });
        assert.match(ironic.command.join(" "), /^\/bin\/bash -c mkdir -p \/conf\/ironic && ln -sfn \/etc\/metal3-ironic\/config-secrets\/ironic.conf \/conf\/ironic\/zz-config-secrets.conf && exec "\$@" config-secrets \/bin\/bash -c exec 9>/);
        for (const c of spec.containers.filter((x: any) => x.name !== "ironic")) assert.ok(!(c.volumeMounts ?? []).some((m: any) => m.name === "config-secrets"), `${c.name} does not mount it`);
        assert.ok(!dev.r.files.some((f) => f.content.includes(PASSWORD)));
    });

    it("the value is in the Secret's data only (secret), which the Deployment waits for", function () {
        const secret = configSecret(dev.r)!;
        assert.ok(containsSecret(secret.rawInputs.stringData));
        assert.deepEqual(unwrapSecrets(secret.rawInputs.stringData), { "ironic.conf": `[redfish]\npassword = "${PASSWORD}"\n` });
        const carrying = dev.r.resources.filter((x) => JSON.stringify(unwrapSecrets(x.rawInputs)).includes(PASSWORD));
        assert.deepEqual(carrying.map((x) => x.name), [secret.name]);
        assert.ok(dev.deps.get(workload(dev.r, "Deployment").name)!.includes(secret.name), "the Deployment depends on the Secret");
    });

    it("the pods roll when the value changes, and only then (an HMAC with the state's salt in the pod template)", async function () {
        const hash = (r: Rendered) => workload(r, "Deployment").rawInputs.spec.template.metadata.annotations[SECRET_ENV_HASH_ANNOTATION];
        const first = hash(dev.r);
        assert.match(first, /^[0-9a-f]{64}$/);
        assert.equal(hash((await render(withSecret(devRaw), "dev")).r), first, "same value: same template");
        assert.notEqual(hash((await render(withSecret(devRaw, "an-0ther-password"), "dev")).r), first, "a new value: the pods roll");
    });

    it("multi: the DaemonSet reads it the same way", async function () {
        const { r } = await render(withSecret(haRaw), "ha");
        const ds = workload(r, "DaemonSet");
        assert.equal(envOf(ds, "ironic").OS_REDFISH__PASSWORD, undefined);
        assert.ok(ds.rawInputs.spec.template.spec.volumes.some((v: any) => v.name === "config-secrets"));
        // Linked first, then the conductor wrapper and the image's start, as in the single pod.
        assert.match(ds.rawInputs.spec.template.spec.containers.find((c: any) => c.name === "ironic").command.join(" "), /zz-config-secrets.conf && exec "\$@" config-secrets \/bin\/bash -c exec 9>/);
        assert.equal(containsSecret(ds.rawInputs.spec), false);
    });

    it("without a stack file every string of the key is secret: the plain option moves too", async function () {
        const raw = { ...devRaw, ironic: { ...(devRaw.ironic as object), config: { "redfish.password": PASSWORD, "deploy.default_boot_option": "local-disk" } } };
        const { r } = await render(raw, "dev", [REDFISH], ["ironic"], {});
        const env = envOf(workload(r, "Deployment"), "ironic");
        assert.equal(env.OS_DEPLOY__DEFAULT_BOOT_OPTION, undefined, "moved, safe side");
        // The dev stack's ironic.kernelParams too: every string of the key.
        const data = unwrapSecrets(configSecret(r)!.rawInputs.stringData);
        assert.deepEqual(Object.keys(data).sort(), ["IRONIC_KERNEL_PARAMS", "ironic.conf"]);
        assert.equal(data["ironic.conf"], `[deploy]\ndefault_boot_option = "local-disk"\n\n[redfish]\npassword = "${PASSWORD}"\n`);
    });

    it("a proxy URL set with --secret: every container that gets it reads one key", async function () {
        const proxy = "http://proxy.corp.example:3128";
        const { r } = await render({ ...devRaw, proxy: { httpsProxy: proxy } }, "dev", [["proxy", "httpsProxy"]], ["proxy"]);
        const data = unwrapSecrets(configSecret(r)!.rawInputs.stringData);
        assert.deepEqual(data, { HTTPS_PROXY: proxy, https_proxy: proxy }, "both spellings the downloaders read, one key each");
        const readers = r.resources.filter((x) => JSON.stringify(x.rawInputs).includes('"key":"HTTPS_PROXY"'));
        assert.ok(readers.length >= 1, "a workload reads it");
        for (const x of readers) assert.equal(containsSecret(x.rawInputs.spec), false, `${x.name}: spec in clear`);
    });

    it("no secret config: no Secret, no salt, no annotation (nothing new in a preview)", async function () {
        const r = await renderOffline(devRaw, "dev");
        assert.equal(configSecret(r), undefined);
        assert.ok(!r.resources.some((x) => x.name.endsWith("config-secrets-salt")));
        assert.equal(workload(r, "Deployment").rawInputs.spec.template.metadata.annotations?.[SECRET_ENV_HASH_ANNOTATION], undefined);
    });

    it("the stack file states its plain leaves, each encrypted one null (a nested --secret); nothing without a file", function () {
        const dir = path.join(ROOT, "test", "fixtures", "secret-paths");
        assert.deepEqual(stackFileStated("nested", dir), {
            namespace: "metal3",
            ironic: { apiUsername: "metal3", config: { "conductor.deploy_callback_timeout": 1800, "redfish.password": null } },
            proxy: { httpsProxy: null },
        });
        assert.equal(stackFileStated("absent", dir), undefined);
    });

    it("fails closed: an option of a secret key the stack file does not state in plain (--config-file, the Automation API, a stale file) moves too", async function () {
        const raw = withSecret(devRaw);
        // The file in the project directory knows the nested secret but not the option set elsewhere,
        // and states another value for one it has: both are secret, only what it states stays in clear.
        const stated = statedExcept(raw, [REDFISH]);
        (stated.ironic as any).config = { "redfish.password": null, "conductor.deploy_callback_timeout": 1800 };
        const elsewhere = { ...raw, ironic: { ...(raw.ironic as object), config: { ...(raw.ironic as any).config, "deploy.default_boot_option": "local-disk", "deploy.http_image_subdir": "from-elsewhere" } } };
        (stated.ironic as any).config["deploy.http_image_subdir"] = "stale-value";
        const { r } = await render(elsewhere, "dev", [REDFISH], ["ironic"], stated);
        const env = envOf(workload(r, "Deployment"), "ironic");
        assert.equal(env.OS_DEPLOY__DEFAULT_BOOT_OPTION, undefined, "not in the file: secret");
        assert.equal(env.OS_DEPLOY__HTTP_IMAGE_SUBDIR, undefined, "the file states another value: secret");
        assert.deepEqual(env.OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT, { name: "OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT", value: "1800" }, "stated as is: public");
        const conf = unwrapSecrets(configSecret(r)!.rawInputs.stringData)["ironic.conf"];
        assert.equal(conf, `[deploy]\ndefault_boot_option = "local-disk"\nhttp_image_subdir = "from-elsewhere"\n\n[redfish]\npassword = "${PASSWORD}"\n`);
        assert.ok(!r.files.some((f) => f.content.includes("from-elsewhere") || f.content.includes(PASSWORD)), "neither value in the render");
    });
});
