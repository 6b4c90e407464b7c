/**
 * The resource graph under pulumi.runtime mocks: concrete values of the rendered objects,
 * certificates, secret flow, provider wiring and component structure.
 */
import { strict as assert } from "assert";
import * as bcrypt from "bcryptjs";
import { createHash } from "crypto";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig } from "../../core/config";
import { PATHS } from "../../core/contract";
import { htpasswdLine } from "../../core/render/htpasswd";
import { containsSecret, unwrapSecrets, valueOf } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { requireOrSkip, run, tmpDir } from "../helpers/sys";
import { IMAGE_VENV, IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import * as fs from "fs";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const FIXED_PASSWORD = "s3cretPassw0rdFromTheMock";

/** Computes what the random provider would: a real bcrypt hash of the password (Go writes $2a$). */
function realBcrypt(type: string, name: string, inputs: Record<string, any>) {
    if (type !== "random:index/randomPassword:RandomPassword") return undefined;
    assert.equal(inputs.length, 32);
    const bcryptHash = bcrypt.hashSync(FIXED_PASSWORD, 4).replace(/^\$2b\$/, "$2a$");
    bcryptHashes.set(name, bcryptHash);
    return { result: FIXED_PASSWORD, bcryptHash };
}
/** The bcrypt hash the mock gave each RandomPassword, by resource name. */
const bcryptHashes = new Map<string, string>();

function obj(r: Rendered, kind: string, name: string) {
    const o = r.objects.find((x) => x.kind === kind && x.metadata?.name === name);
    assert.ok(o, `${kind}/${name} not rendered; have ${r.objects.map((x) => `${x.kind}/${x.metadata?.name}`).join(", ")}`);
    return o;
}

function container(r: Rendered, name: string) {
    const d = obj(r, "Deployment", "ironic");
    return [...d.spec.template.spec.initContainers, ...d.spec.template.spec.containers].find((c: any) => c.name === name);
}

function envOf(c: any): Record<string, string> {
    return Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e.value]));
}

function mounts(c: any): Record<string, string> {
    return Object.fromEntries(c.volumeMounts.map((m: any) => [m.mountPath, m.name]));
}

describe("resource graph (pulumi mocks)", function () {
    this.timeout(30000);
    let r: Rendered;
    const registrations: pulumi.ResourceTransformationArgs[] = [];

    before(async function () {
        r = await renderOffline(devRaw, "dev", { hook: realBcrypt, onRegister: (a) => registrations.push(a) });
    });

    it("registers the expected objects", function () {
        assert.deepEqual(
            r.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`),
            [
                "Namespace//metal3",
                "Secret/metal3/ironic-cacert",
                "Secret/metal3/ironic-credentials",
                "Secret/metal3/ironic-ipa-cache-ca",
                "Secret/metal3/ironic-ipa-cache-tls",
                "Secret/metal3/ironic-tls",
                "ConfigMap/metal3/ironic-bmo",
                "ConfigMap/metal3/ironic-dnsmasq",
                "ConfigMap/metal3/ironic-ipa-cache-client",
                "ConfigMap/metal3/ironic-ipa-cache-scripts",
                "PersistentVolumeClaim/metal3/ironic-ipa-cache-data",
                "Service/metal3/ironic",
                "Service/metal3/ironic-ipa-cache",
                "Deployment/metal3/ironic",
                "Deployment/metal3/ironic-ipa-cache",
            ],
        );
    });

    it("runs one Ironic replica on the host network with Recreate", function () {
        const d = obj(r, "Deployment", "ironic");
        assert.equal(d.spec.replicas, 1);
        assert.equal(d.spec.strategy.type, "Recreate");
        const pod = d.spec.template.spec;
        assert.equal(pod.hostNetwork, true);
        assert.equal(pod.dnsPolicy, "ClusterFirstWithHostNet");
        assert.deepEqual(pod.containers.map((c: any) => c.name), ["ironic", "httpd", "dnsmasq", "ramdisk-logs"]);
        assert.deepEqual(pod.initContainers.map((c: any) => c.name), ["provisioning-ip", "shared-dirs", "ipa-cache-client"], "no IPA download in the Ironic pod: it reads the image cache (after checking the node holds provisioning.ip)");
        assert.deepEqual(d.spec.selector.matchLabels, { "app.kubernetes.io/instance": "ironic", "app.kubernetes.io/name": "ironic" });
        for (const [k, v] of Object.entries(d.spec.selector.matchLabels)) assert.equal(pod === undefined ? "" : d.spec.template.metadata.labels[k], v);
        assert.deepEqual(pod.nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        assert.ok(pod.tolerations.some((t: any) => t.key === "node-role.kubernetes.io/control-plane" && t.operator === "Exists"));
        assert.deepEqual(pod.securityContext, { fsGroup: 994, runAsGroup: 994, runAsNonRoot: true, runAsUser: 997, seccompProfile: { type: "RuntimeDefault" } });
    });

    it("gives the ironic container the image contract's environment", function () {
        const env = envOf(container(r, "ironic"));
        assert.equal(env.PROVISIONING_IP, "172.22.0.2");
        assert.equal(env.PROVISIONING_INTERFACE, "eth1");
        assert.equal(env.HTTP_PORT, "6180");
        assert.equal(env.IRONIC_LISTEN_PORT, "6385");
        assert.equal(env.IRONIC_ACCESS_PORT, "6385");
        assert.equal(env.IRONIC_REVERSE_PROXY_SETUP, "true");
        assert.equal(env.IRONIC_PRIVATE_PORT, "unix");
        assert.equal(env.VMEDIA_TLS_PORT, "6183");
        assert.equal(env.IRONIC_USE_MARIADB, "false");
        assert.equal(env.IRONIC_KERNEL_PARAMS, "console=ttyS0");
        assert.equal(env.OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT, "3600");
        assert.equal(container(r, "ironic").image, "quay.io/metal3-io/ironic:v38.0.0");
        assert.deepEqual(container(r, "ironic").command, ["/bin/bash", "-c", "exec 9>/dev/null; export BASH_XTRACEFD=9; exec \"$@\"", "untraced", "/bin/runironic"], "the image's start script, its shell trace discarded");
        const names = container(r, "ironic").env.map((e: any) => e.name);
        assert.deepEqual(names, [...names].sort(), "env is sorted: stable previews");
    });

    it("gives httpd the API, image and virtual-media ports, and the variables it does not default", function () {
        const httpd = container(r, "httpd");
        assert.deepEqual(
            httpd.ports.map((p: any) => [p.name, p.containerPort, p.hostPort]),
            [
                ["ironic-api", 6385, 6385],
                ["image-svc", 6180, 6180],
                ["image-svc-tls", 6183, 6183],
            ],
        );
        assert.equal(envOf(httpd).IRONIC_ENABLE_VLAN_INTERFACES, "all");
        assert.equal(envOf(httpd).VMEDIA_TLS_PORT, "6183");
        assert.equal(httpd.readinessProbe.httpGet.port, 6180);
    });

    it("mounts certificates, CA and htpasswd at the image's fixed paths", function () {
        for (const name of ["ironic", "httpd"]) {
            const m = mounts(container(r, name));
            assert.equal(m[PATHS.shared], "shared");
            assert.equal(m[PATHS.certsIronic], "tls");
            assert.equal(m[PATHS.certsIronicCa], "ca");
            assert.equal(m[PATHS.authIronic], "htpasswd");
        }
        assert.equal(mounts(container(r, "httpd"))[PATHS.certsVmedia], "tls");
        const vols = Object.fromEntries(obj(r, "Deployment", "ironic").spec.template.spec.volumes.map((v: any) => [v.name, v]));
        assert.deepEqual(vols.tls.secret, { secretName: "ironic-tls", items: [{ key: "tls.crt", path: "tls.crt" }, { key: "tls.key", path: "tls.key" }] });
        assert.deepEqual(vols.ca.secret, { secretName: "ironic-tls", items: [{ key: "ca.crt", path: "tls.crt" }] });
        assert.deepEqual(vols.htpasswd.secret, { secretName: "ironic-credentials", items: [{ key: "htpasswd", path: "htpasswd" }] });
        assert.deepEqual(vols.shared, { name: "shared", emptyDir: {} });
    });

    it("runs dnsmasq on the rendered config from the ConfigMap, with only the capabilities it needs", function () {
        const c = container(r, "dnsmasq");
        assert.deepEqual(c.command, ["/bin/bash", "/etc/metal3-ironic/dnsmasq/start-dnsmasq.sh"]);
        assert.deepEqual(c.securityContext.capabilities, { drop: ["ALL"], add: ["NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"] });
        assert.equal(c.securityContext.allowPrivilegeEscalation, true);
        const cm = obj(r, "ConfigMap", "ironic-dnsmasq");
        assert.match(cm.data["dnsmasq.conf"], /^dhcp-range=172\.22\.0\.10,172\.22\.0\.100,255\.255\.255\.0,1h$/m);
        assert.match(cm.data["dnsmasq.conf"], /^interface=eth1$/m);
        assert.match(cm.data["dnsmasq.conf"], /^dhcp-boot=tag:ipxe,http:\/\/172\.22\.0\.2:6180\/boot\.ipxe$/m);
        assert.match(cm.data["start-dnsmasq.sh"], /^conf=\/etc\/metal3-ironic\/dnsmasq\/dnsmasq\.conf$/m);
        assert.match(cm.data["start-dnsmasq.sh"], /^slot_conf=""$/m);
        assert.match(cm.data["start-dnsmasq.sh"], /^exec \/usr\/sbin\/dnsmasq --keep-in-foreground --log-facility=- "\$\{confs\[@\]\}"$/m);
        const ann = obj(r, "Deployment", "ironic").spec.template.metadata.annotations;
        assert.match(ann["metal3-ironic.metal3.io/dnsmasq-config-hash"], /^[0-9a-f]{64}$/);
        assert.match(ann["metal3-ironic.metal3.io/tls-cert-hash"], /^[0-9a-f]{64}$/);
        // The image writes its htpasswd files at start only: a new API password rolls the pod.
        const htpasswd = htpasswdLine("metal3", bcryptHashes.get("ironic-credentials-password")!);
        assert.equal(ann["metal3-ironic.metal3.io/credentials-hash"], createHash("sha256").update(htpasswd).digest("hex"));
        for (const name of ["ironic", "httpd", "ramdisk-logs", "ipa-cache-client"]) {
            const sc = container(r, name).securityContext;
            assert.deepEqual(sc.capabilities, { drop: ["ALL"] }, name);
            assert.equal(sc.allowPrivilegeEscalation, false, name);
        }
    });

    it("issues the API certificate for the Service names and the provisioning IP, signed by a protected stack CA", function () {
        const csr = r.resources.find((x) => x.type === "tls:index/certRequest:CertRequest")!;
        assert.deepEqual(csr.inputs.dnsNames, ["ironic", "ironic.metal3", "ironic.metal3.svc", "ironic.metal3.svc.cluster.local"]);
        assert.deepEqual(csr.inputs.ipAddresses, ["172.22.0.2"]);
        const ca = r.resources.find((x) => x.type === "tls:index/selfSignedCert:SelfSignedCert")!;
        assert.equal(ca.inputs.isCaCertificate, true);
        assert.equal(ca.inputs.validityPeriodHours, 3650 * 24);
        const leaf = r.resources.find((x) => x.type === "tls:index/locallySignedCert:LocallySignedCert")!;
        assert.equal(leaf.inputs.validityPeriodHours, 365 * 24);
        assert.equal(leaf.inputs.earlyRenewalHours, 30 * 24);
        assert.ok(leaf.inputs.allowedUses.includes("server_auth"));
        const caKey = registrations.find((a) => a.type === "tls:index/privateKey:PrivateKey" && a.name.endsWith("-ca-key"))!;
        assert.equal(caKey.opts.protect, true);
    });

    it("adds extra SANs from tls.extraDnsNames / tls.extraIps, sorted and deduplicated", async function () {
        const r2 = await renderOffline({ ...devRaw, tls: { extraDnsNames: ["ironic.example.com"], extraIps: ["172.22.0.3", "172.22.0.2"] } });
        const csr = r2.resources.find((x) => x.type === "tls:index/certRequest:CertRequest")!;
        assert.deepEqual(csr.inputs.ipAddresses, ["172.22.0.2", "172.22.0.3"]);
        assert.ok(csr.inputs.dnsNames.includes("ironic.example.com"));
    });

    it("keeps every credential and key secret, and out of ConfigMaps and the Deployment", async function () {
        for (const name of ["ironic-credentials", "ironic-tls"]) {
            const s = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === name)!;
            assert.ok(containsSecret(s.rawInputs.stringData), `${name} stringData is a secret`);
        }
        // The readiness check (test/components/readiness.test.ts) gets the password as secret environment.
        const check = r.resources.find((x) => x.type === "command:local:Command")!;
        assert.ok(containsSecret(check.rawInputs.environment), "the readiness check gets it in secret environment");
        assert.equal(unwrapSecrets(check.rawInputs.environment).READINESS_PASSWORD, FIXED_PASSWORD);
        const all = JSON.stringify(r.resources.filter((x) => x.type !== "kubernetes:core/v1:Secret" && x !== check).map((x) => unwrapSecrets(x.rawInputs)));
        assert.ok(!all.includes(FIXED_PASSWORD), "the password appears only in the Secret (and the readiness check's secret environment)");
        assert.ok(!all.includes("$2a$04$"), "the htpasswd hash appears only in the Secret");
        assert.equal(await pulumi.isSecret(r.outputs.credentials), true);
        assert.equal(await pulumi.isSecret(r.outputs.caCertificate), false, "the CA certificate is public");
        const creds = await valueOf(r.outputs.credentials);
        assert.deepEqual(creds, { username: "metal3", password: FIXED_PASSWORD });
    });

    it("writes the credentials Secret in the layout Ironic and BMO read", function () {
        const s = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === "ironic-credentials")!;
        const data = unwrapSecrets(s.rawInputs.stringData);
        assert.equal(s.rawInputs.type, "kubernetes.io/basic-auth");
        assert.equal(data.username, "metal3");
        assert.equal(data.password, FIXED_PASSWORD);
        assert.match(data.htpasswd, /^metal3:\$2a\$04\$[./A-Za-z0-9]{53}\n$/);
    });

    it("the htpasswd is accepted by Ironic's own basic-auth code with the password, and refuses a wrong one", function () {
        // Ironic 38's own code (ironic-lib is merged into Ironic since 2025: ironic.common.auth_basic).
        const py = path.join(IMAGE_VENV, "bin", "python");
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        const s = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === "ironic-credentials")!;
        const dir = tmpDir("htpasswd");
        const file = path.join(dir, "htpasswd");
        fs.writeFileSync(file, unwrapSecrets(s.rawInputs.stringData).htpasswd);
        const check = (user: string, pw: string) =>
            run(py, ["-c", "import sys, ironic.common.auth_basic as a; a.authenticate(sys.argv[1], sys.argv[2], sys.argv[3].encode()); print('ok')", file, user, pw], { allowFail: true });
        try {
            assert.equal(check("metal3", FIXED_PASSWORD).stdout.trim(), "ok");
            const bad = check("metal3", "wrong");
            assert.notEqual(bad.status, 0);
            assert.match(bad.stderr, /Incorrect username or password|Unauthorized/);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("tells BMO the in-cluster endpoint and where its CA and credentials are mounted", function () {
        const cm = obj(r, "ConfigMap", "ironic-bmo");
        assert.deepEqual(cm.data, {
            IRONIC_CACERT_FILE: "/opt/metal3/certs/ca/tls.crt",
            IRONIC_ENDPOINT: "https://ironic.metal3.svc:6385/v1/",
            METAL3_AUTH_ROOT_DIR: "/opt/metal3/auth",
            DEPLOY_KERNEL_URL: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.kernel",
            DEPLOY_KERNEL_URL_X86_64: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.kernel",
            DEPLOY_RAMDISK_URL: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.initramfs",
            DEPLOY_RAMDISK_URL_X86_64: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.initramfs",
        });
        const svc = obj(r, "Service", "ironic");
        assert.deepEqual(svc.spec.ports, [{ name: "ironic-api", port: 6385, protocol: "TCP", targetPort: 6385 }]);
    });

    it("deploys every Kubernetes object through the explicit provider, never a default one", function () {
        const k8sObjects = r.resources.filter((x) => x.custom && x.type.startsWith("kubernetes:") && !x.type.startsWith("pulumi:"));
        assert.ok(k8sObjects.length >= 8);
        for (const x of k8sObjects) assert.match(x.provider, /pulumi:providers:kubernetes::kubernetes::/, `${x.type} ${x.name}`);
    });

    it("uses stable component type tokens and parents every resource under the stack component", function () {
        const types = registrations.map((a) => a.type);
        for (const t of ["metal3:index:Metal3Ironic", "metal3:tls:StackPki", "metal3:auth:Credentials", "metal3:ironic:Ironic", "metal3:ops:Readiness"]) assert.ok(types.includes(t), t);
        for (const a of registrations) {
            // The provider and the read of this stack's own previous outputs sit beside the component.
            if (a.type === "metal3:index:Metal3Ironic" || a.type === "pulumi:providers:kubernetes" || a.type === "pulumi:pulumi:StackReference") continue;
            assert.ok(a.opts.parent, `${a.type} ${a.name} has a parent`);
        }
    });

    it("on invalid config registers no resource and throws one clean error listing every problem", async function () {
        const bad: RawConfig = { ...devRaw, topology: "triple", ports: { api: 0 } };
        let err: any;
        let registered = -1;
        try {
            await renderOffline(bad, "dev", { onRegister: () => (registered = Math.max(registered, 0) + 1) });
        } catch (e) {
            err = e;
        }
        assert.ok(err, "rendering must fail");
        assert.equal(err.name === "RunError" || err.constructor?.name === "RunError", true, `a RunError (no stack trace), got ${err.name}`);
        assert.match(err.message, /topology: must be "single"/);
        assert.match(err.message, /ports\.api: must be between 1 and 65535/);
        assert.equal(registered, -1, "no resource was registered");
    });

    it("without DHCP (virtual media only) renders no dnsmasq container or ConfigMap", async function () {
        const prov = { ...(devRaw.provisioning as Record<string, unknown>) };
        delete prov.dhcp;
        const r2 = await renderOffline({ ...devRaw, provisioning: prov });
        assert.ok(!r2.objects.some((o) => o.kind === "ConfigMap" && o.metadata.name === "ironic-dnsmasq"));
        const d = obj(r2, "Deployment", "ironic");
        assert.deepEqual(d.spec.template.spec.containers.map((c: any) => c.name), ["ironic", "httpd", "ramdisk-logs"]);
    });

    it("with keepalived adds the VIP container with the interface and prefix", async function () {
        const r2 = await renderOffline({ ...devRaw, provisioning: { ...(devRaw.provisioning as object), keepalived: true } });
        const d = obj(r2, "Deployment", "ironic");
        const k = d.spec.template.spec.containers.find((c: any) => c.name === "keepalived");
        assert.deepEqual(k.env, [{ name: "KEEPALIVED_VIRTUAL_IPS", value: "172.22.0.2,eth1,24" }]);
    });

    it("a preview registers exactly the resources an update registers (nothing hidden inside apply)", async function () {
        const preview = await renderOffline(devRaw, "dev", { preview: true });
        const key = (x: { type: string; name: string }) => `${x.type}::${x.name}`;
        assert.deepEqual(preview.resources.map(key).sort(), r.resources.map(key).sort());
    });

    it("with an existing TLS Secret generates no certificate and mounts that Secret", async function () {
        // With the user's own IPA URLs (no image cache, whose server certificate the stack CA would sign).
        const own = { mode: "none", kernelUrl: { x86_64: "http://images.example/ipa.kernel" }, ramdiskUrl: { x86_64: "http://images.example/ipa.initramfs" } };
        const r2 = await renderOffline({ ...devRaw, tls: { mode: "existing", existingSecret: "my-ironic-tls" }, imageCache: own });
        assert.ok(!r2.resources.some((x) => x.type.startsWith("tls:")));
        const d = obj(r2, "Deployment", "ironic");
        const vols = Object.fromEntries(d.spec.template.spec.volumes.map((v: any) => [v.name, v]));
        assert.equal(vols.tls.secret.secretName, "my-ironic-tls");
        // Read, not managed: BMO's CA Secret is still created, from the ca.crt of the user's Secret.
        assert.deepEqual(r2.reads.map((x) => `${x.type} ${x.id}`), ["kubernetes:core/v1:Secret metal3/my-ironic-tls"]);
        assert.deepEqual(
            r2.objects.filter((o) => o.kind === "Secret").map((o) => o.metadata.name),
            ["ironic-cacert", "ironic-credentials"],
        );
        assert.match(await valueOf(r2.outputs.caCertificate), /^-----BEGIN CERTIFICATE-----\n\(metal3\/my-ironic-tls ca\.crt: read from the cluster at deploy time\)/);
    });
});
