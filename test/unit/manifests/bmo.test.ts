/**
 * bmo.*: the config (schema, defaults, rule) and core/manifests/bmo.ts on a release laid out like
 * v0.13's `config/` (a few objects of each kind, written here: the real release's objects are
 * rendered in test/integration/bmo-release.test.ts, and run as a pod in test/integration/pods.test.ts).
 */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { bmoConfigMapData } from "../../../core/manifests";
import { bmoObjects, bmoWebhookDnsNames } from "../../../core/manifests/bmo";
import { issues, listing } from "../config/support";
import { configOf, devRaw, haRaw, planOf, withKeys } from "../plan/support";
import { smallRelease } from "../../helpers/bmo-release";

const keyed = (raw: Record<string, unknown>) => listing(issues(raw));
const on = (base: Record<string, unknown>, b: Record<string, unknown> = {}) => withKeys(base, { bmo: { enabled: true, ...b } });

describe("bmo: config", function () {
    it("defaults: off, the pinned release v0.13.2 with its go.sum hash, the public Go module proxy, the image of that release", function () {
        const c = configOf(devRaw);
        assert.deepEqual(c.bmo, { enabled: false, version: "v0.13.2", checksum: "h1:XSkyBv4l1OvCL66b7T0FEUaGeS0zOjQKhot9V8zeZQc=", goproxy: "https://proxy.golang.org" });
        assert.equal(c.images.baremetalOperator, "quay.io/metal3-io/baremetal-operator:v0.13.2");
        // Another release: its image tag follows, its checksum is the user's; a mirror rewrites the image like every other.
        const other = configOf(on(withKeys(devRaw, { images: { registry: "mirror.example:5000" } }), { version: "v0.14.0", checksum: `h1:${"A".repeat(43)}=`, goproxy: "file:///srv/goproxy/" }));
        assert.equal(other.images.baremetalOperator, "mirror.example:5000/metal3-io/baremetal-operator:v0.14.0");
        assert.deepEqual(other.bmo, { enabled: true, version: "v0.14.0", checksum: `h1:${"A".repeat(43)}=`, goproxy: "file:///srv/goproxy" });
    });

    it("refuses settings without bmo.enabled, another release without its checksum, tls.mode cert-manager, a bad version, checksum or proxy, naming key and fix", function () {
        const off = keyed(withKeys(devRaw, { bmo: { version: "v0.13.2" }, images: { baremetalOperator: "quay.io/metal3-io/baremetal-operator:v0.13.2" } }));
        assert.match(off, /bmo\.version: has no effect while bmo\.enabled is false .*set bmo\.enabled: true, or remove it/);
        assert.match(off, /images\.baremetalOperator: has no effect while bmo\.enabled is false/);
        assert.match(keyed(on(devRaw, { version: "v0.14.0" })), /bmo\.checksum: is required with bmo\.version v0\.14\.0 \(only v0\.13\.2's is known\).*"github\.com\/metal3-io\/baremetal-operator v0\.14\.0 h1:…"/);
        assert.match(keyed(on(withKeys(devRaw, { tls: { mode: "cert-manager", issuer: { name: "ca" } } }))), /bmo\.enabled: needs the stack's CA Secret .*tls\.mode cert-manager writes none/);
        assert.match(keyed(on(devRaw, { version: "latest" })), /bmo\.version: must be a release tag of baremetal-operator such as v0\.13\.2/);
        assert.match(keyed(on(devRaw, { checksum: "sha256:abc" })), /bmo\.checksum: must be the module's go\.sum hash/);
        assert.match(keyed(on(devRaw, { goproxy: "ftp://proxy" })), /bmo\.goproxy: must be a Go module proxy URL: https:\/\/, http:\/\/ or file:\/\//);
        assert.match(keyed(on(devRaw, { goproxy: "file://relative/dir" })), /bmo\.goproxy: must be a Go module proxy URL/);
        assert.equal(validateConfig(on(haRaw)).ok, true);
        assert.equal(validateConfig(on(devRaw, { version: "v0.13.1", checksum: `h1:${"b".repeat(43)}=`, goproxy: "http://127.0.0.1:3000" })).ok, true);
    });
});

describe("bmo: the release's objects wired to the stack (core/manifests/bmo.ts)", function () {
    const plan = planOf(on(haRaw));
    const o = bmoObjects({ plan, release: smallRelease(), webhookCaBundle: "Q0E=" });
    const spec = o.deployment.spec.template.spec;
    const manager = spec.containers[0];

    it("the manager reads the stack's <name>-bmo ConfigMap and mounts its CA and credentials exactly where that ConfigMap tells it to look", function () {
        assert.deepEqual(manager.envFrom, [{ configMapRef: { name: "ironic-bmo" } }]);
        const env = bmoConfigMapData(plan);
        const mountOf = (secret: string) => {
            const vol = spec.volumes.find((v: any) => v.secret?.secretName === secret);
            return manager.volumeMounts.find((m: any) => m.name === vol.name).mountPath;
        };
        assert.equal(`${mountOf(plan.names.caSecret)}/tls.crt`, env.IRONIC_CACERT_FILE);
        assert.equal(mountOf(plan.names.credentialsSecret), `${env.METAL3_AUTH_ROOT_DIR}/ironic`);
        assert.equal(mountOf("ironic-bmo-webhook-cert"), "/tmp/k8s-webhook-server/serving-certs");
        assert.equal(manager.image, "quay.io/metal3-io/baremetal-operator:v0.13.2");
        assert.equal(spec.serviceAccountName, "ironic-baremetal-operator");
    });

    it("names: namespaced objects under the stack's name in its namespace; cluster-wide ones also under the namespace; every reference follows", function () {
        const ids = [...o.rbac, o.webhookService, o.webhookConfiguration, o.deployment].map((x) => `${x.kind} ${x.metadata.namespace ?? "-"}/${x.metadata.name}`);
        assert.deepEqual(ids, [
            "ServiceAccount metal3/ironic-baremetal-operator",
            "ClusterRole -/metal3-ironic-bmo-manager-role",
            "ClusterRoleBinding -/metal3-ironic-bmo-manager-rolebinding",
            "Role metal3/ironic-bmo-leader-election-role",
            "RoleBinding metal3/ironic-bmo-leader-election-rolebinding",
            "Service metal3/ironic-bmo-metrics",
            "Service metal3/ironic-bmo-webhook",
            "ValidatingWebhookConfiguration -/metal3-ironic-bmo-validating-webhook-configuration",
            "Deployment metal3/ironic-baremetal-operator",
        ]);
        const [, , crb, , rb] = o.rbac;
        assert.deepEqual([crb.roleRef.name, crb.subjects], ["metal3-ironic-bmo-manager-role", [{ kind: "ServiceAccount", name: "ironic-baremetal-operator", namespace: "metal3" }]]);
        assert.deepEqual([rb.roleRef.name, rb.subjects[0].name], ["ironic-bmo-leader-election-role", "ironic-baremetal-operator"]);
        // Another stack (name or namespace) in the same cluster: no cluster-wide name in common.
        const other = bmoObjects({ plan: planOf(on(withKeys(haRaw, { namespace: "metal3-b" }))), release: smallRelease(), webhookCaBundle: "" });
        assert.notEqual(other.rbac[1].metadata.name, o.rbac[1].metadata.name);
        assert.notEqual(other.webhookConfiguration.metadata.name, o.webhookConfiguration.metadata.name);
        assert.deepEqual(o.crds.map((c) => c.metadata.name), ["baremetalhosts.metal3.io"]);
    });

    it("selects only this stack's BMO pods (the release's kubebuilder label alone matches any operator's); the webhook is its Service, trusted through caBundle, its certificate named for that Service", function () {
        const sel = { "control-plane": "controller-manager", "app.kubernetes.io/name": "baremetal-operator", "app.kubernetes.io/instance": "ironic" };
        assert.deepEqual(o.deployment.spec.selector.matchLabels, sel);
        for (const [k, v] of Object.entries(sel)) assert.equal(o.deployment.spec.template.metadata.labels[k], v);
        assert.deepEqual(o.webhookService.spec.selector, sel);
        assert.deepEqual(o.rbac[5].spec.selector, sel);
        assert.deepEqual(o.webhookConfiguration.webhooks[0].clientConfig, { service: { name: "ironic-bmo-webhook", namespace: "metal3", path: "/validate-metal3-io-v1alpha1-baremetalhost" }, caBundle: "Q0E=" });
        assert.deepEqual(bmoWebhookDnsNames(plan), ["ironic-bmo-webhook.metal3.svc", "ironic-bmo-webhook.metal3.svc.cluster.local"]);
    });

    it("image pull secrets of the stack; a release laid out otherwise fails naming what it lacks", function () {
        const pulled = bmoObjects({ plan: planOf(on(withKeys(haRaw, { imagePullSecrets: ["quay-creds"] }))), release: smallRelease(), webhookCaBundle: "" });
        assert.deepEqual(pulled.deployment.spec.template.spec.imagePullSecrets, [{ name: "quay-creds" }]);
        const without = smallRelease();
        without.delete("components/basic-auth/credentials_patch.yaml");
        assert.throws(() => bmoObjects({ plan, release: without, webhookCaBundle: "" }), /baremetal-operator's release has no config\/components\/basic-auth\/credentials_patch\.yaml/);
        const otherCm = smallRelease();
        otherCm.set("base/manager.yaml", otherCm.get("base/manager.yaml")!.replace("name: ironic", "name: ironic-env"));
        assert.throws(() => bmoObjects({ plan, release: otherCm, webhookCaBundle: "" }), /the manager reads ConfigMap "ironic-env", not "ironic"/);
    });
});
