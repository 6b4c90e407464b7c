/**
 * database.kind mariadb-operator under mocks: the operator's objects of the multi fixture
 * (test/fixtures/Pulumi.ha-galera.yaml) validated against the CRDs of the pinned operator
 * release (its Go module, test/helpers/operator-crds.ts), wired to the stack's own Secrets, with
 * Ironic on the operator's primary Service; protect/retainOnDelete, ordering, the NetworkPolicy,
 * the operator install only when asked, and the refused switch from the single-pod kind.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { RawConfig, validateConfig } from "../../core/config";
import { unwrapSecrets } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { OPERATOR_KINDS, crdErrors, operatorCrds } from "../helpers/operator-crds";

const ROOT = path.join(__dirname, "..", "..");
const galeraRaw = readStackConfig(path.join(ROOT, "test", "fixtures", "Pulumi.ha-galera.yaml"));
const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));

const operatorObjects = (r: Rendered) => r.objects.filter((o) => o.apiVersion.startsWith("k8s.mariadb.com/"));
const objOf = (r: Rendered, kind: string, name: string) => r.objects.find((o) => o.kind === kind && o.metadata.name === name);

describe("database.kind mariadb-operator (pulumi mocks, the operator's CRDs)", function () {
    this.timeout(300000);
    let r: Rendered;
    const regs: { type: string; name: string; opts: any; resource: unknown }[] = [];

    before(async function () {
        // Fails (never skips) when the CRDs cannot be fetched, naming why.
        operatorCrds();
        r = await renderOffline(galeraRaw, "ha-galera", { onRegister: (a) => regs.push({ type: a.type, name: a.name, opts: a.opts, resource: a.resource }) });
    });

    it("renders a MariaDB, Database, User and Grant, each valid against the operator's CRD", function () {
        const objs = operatorObjects(r);
        assert.deepEqual(objs.map((o) => o.kind).sort(), Object.keys(OPERATOR_KINDS).sort());
        const errors = objs.flatMap((o) => crdErrors(o));
        assert.deepEqual(errors, []);
    });

    it("the CRD check can fail: a misspelt field, a wrong type, a missing required field, an unknown enum value", function () {
        const copy = (kind: string) => JSON.parse(JSON.stringify(operatorObjects(r).find((o) => o.kind === kind)));
        const m = copy("MariaDB");
        m.spec.galera.enabeld = true;
        assert.match(crdErrors(m).join("\n"), /must NOT have additional properties \(enabeld\)/);
        const m2 = copy("MariaDB");
        m2.spec.replicas = "3";
        assert.match(crdErrors(m2).join("\n"), /spec\/replicas must be integer/);
        const g = copy("Grant");
        delete g.spec.privileges;
        assert.match(crdErrors(g).join("\n"), /privileges/);
        const d = copy("Database");
        d.spec.cleanupPolicy = "Keep";
        assert.match(crdErrors(d).join("\n"), /cleanupPolicy must be equal to one of the allowed values/);
        assert.match(crdErrors({ ...copy("User"), apiVersion: "k8s.mariadb.com/v1" }).join("\n"), /version v1 is not served/);
    });

    it("a Galera cluster of three members, one per node, TLS required, on the stack's Secrets", function () {
        const m = objOf(r, "MariaDB", "ironic-mariadb")!;
        assert.equal(m.spec.replicas, 3);
        assert.equal(m.spec.galera.enabled, true);
        assert.equal(m.spec.affinity.antiAffinityEnabled, true);
        assert.deepEqual(m.spec.tls, { enabled: true, required: true, serverCASecretRef: { name: "ironic-mariadb-tls" }, serverCertSecretRef: { name: "ironic-mariadb-tls" } });
        assert.deepEqual(m.spec.storage, { size: "20Gi" });
        assert.deepEqual(m.spec.rootPasswordSecretKeyRef, { name: "ironic-mariadb-credentials", key: "root-password", generate: false });
        assert.doesNotMatch(m.spec.myCnf, /ssl_|require_secure_transport/, "the operator writes the TLS settings");
        // Every Secret key the operator reads is rendered by the stack.
        const keysOf = (name: string) => Object.keys(unwrapSecrets(r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === name)!.rawInputs.stringData)).sort();
        assert.deepEqual(keysOf("ironic-mariadb-credentials"), ["password", "root-password", "username"]);
        assert.deepEqual(keysOf("ironic-mariadb-tls"), ["ca.crt", "tls.crt", "tls.key"]);
        const user = objOf(r, "User", "ironic-mariadb-ironic")!;
        assert.deepEqual(user.spec.passwordSecretKeyRef, { name: "ironic-mariadb-credentials", key: "password" });
        assert.deepEqual(user.spec.require, { ssl: true });
        const grant = objOf(r, "Grant", "ironic-mariadb-ironic-all")!;
        assert.deepEqual([grant.spec.username, grant.spec.database, grant.spec.table, grant.spec.privileges], ["ironic", "ironic", "*", ["ALL PRIVILEGES"]]);
        for (const o of operatorObjects(r)) {
            if (o.kind !== "MariaDB") assert.equal(o.spec.cleanupPolicy, "Skip", `${o.kind} never drops data when it goes`);
            assert.equal(o.metadata.annotations["pulumi.com/waitFor"], "condition=Ready");
        }
    });

    it("points Ironic and the schema Jobs at the operator's primary Service, over TLS with the stack CA", function () {
        // The operator names it `<MariaDB name>-primary` (PrimaryServiceKey in its api/v1alpha1/mariadb_keys.go).
        const host = "ironic-mariadb-primary.metal3.svc";
        const envOf = (spec: any, name: string) => Object.fromEntries(spec.containers.find((c: any) => c.name === name).env.map((e: any) => [e.name, e.value]));
        const ds = objOf(r, "DaemonSet", "ironic")!;
        assert.equal(envOf(ds.spec.template.spec, "ironic").MARIADB_HOST, host);
        for (const job of r.objects.filter((o) => o.kind === "Job")) assert.equal(envOf(job.spec.template.spec, job.spec.template.spec.containers[0].name).MARIADB_HOST, host);
        const vols = Object.fromEntries(ds.spec.template.spec.volumes.map((v: any) => [v.name, v]));
        assert.deepEqual(vols["db-ca"].secret, { secretName: "ironic-mariadb-tls", items: [{ key: "ca.crt", path: "tls.crt" }] });
        const csr = r.resources.find((x) => x.type === "tls:index/certRequest:CertRequest" && x.name.includes("galera"))!;
        assert.equal(csr.inputs.dnsNames[2], host);
        assert.ok(csr.inputs.dnsNames.includes("*.ironic-mariadb-internal.metal3.svc.cluster.local"), "the members' names under the operator's headless Service");
        assert.equal(r.objects.filter((o) => o.kind === "StatefulSet").length, 0, "no single-pod MariaDB");
    });

    it("protects the MariaDB and keeps it and the namespace on destroy; the schema Job waits for the SQL objects", function () {
        const reg = (type: string, suffix: string) => regs.find((x) => x.type === type && x.name.endsWith(suffix))!;
        const m = reg("kubernetes:k8s.mariadb.com/v1alpha1:MariaDB", "-galera-mariadb");
        assert.equal(m.opts.protect, true);
        assert.equal(m.opts.retainOnDelete, true);
        assert.equal(reg("kubernetes:core/v1:Namespace", "-namespace").opts.retainOnDelete, true);
        const sqlObjs = regs.filter((x) => /k8s\.mariadb\.com\/v1alpha1:(Database|User|Grant)$/.test(x.type));
        assert.equal(sqlObjs.length, 3);
        const upgrade = regs.find((x) => x.type === "kubernetes:batch/v1:Job" && x.name.endsWith("-db-upgrade"))!;
        const deps = upgrade.opts.dependsOn as unknown[];
        for (const s of sqlObjs) assert.ok(deps.includes(s.resource), `the upgrade Job waits for ${s.type}`);
        assert.equal(regs.filter((x) => x.type === "kubernetes:helm.sh/v3:Release").length, 0, "the operator is a prerequisite unless database.operator.install");
    });

    it("NetworkPolicy: SQL from Ironic, the Jobs, the host sources and the operator; Galera among members; the agent from the operator", function () {
        const np = objOf(r, "NetworkPolicy", "ironic-mariadb")!;
        assert.deepEqual(np.spec.podSelector.matchLabels, { "app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": "ironic-mariadb" });
        const ports = np.spec.ingress.map((i: any) => i.ports.map((p: any) => p.port));
        assert.deepEqual(ports, [[3306], [4567, 4568, 4444], [5555, 5566]]);
        assert.ok(np.spec.ingress[0].from.some((f: any) => f.ipBlock?.cidr === "172.22.0.0/24"));
        assert.ok(np.spec.ingress[2].from[0].namespaceSelector.matchLabels["kubernetes.io/metadata.name"] === "mariadb-operator");
    });

    it("installs the operator's charts at the pinned release only when database.operator.install", async function () {
        const raw: RawConfig = { ...galeraRaw, database: { ...(galeraRaw.database as object), operator: { install: true, namespace: "dbops" } } };
        const rr = await renderOffline(raw, "ha-galera");
        const releases = rr.resources.filter((x) => x.type === "kubernetes:helm.sh/v3:Release");
        assert.deepEqual(releases.map((x) => [x.inputs.chart, x.inputs.version, x.inputs.namespace]).sort(), [["mariadb-operator", "0.38.1", "dbops"], ["mariadb-operator-crds", "0.38.1", "dbops"]]);
    });

    it("refuses the switch from the single-pod mariadb without database.allowKindChange, naming the key and the fix", async function () {
        const previousOutputs = { state: { topology: "multi", database: { kind: "mariadb", storageClass: "" } } };
        await assert.rejects(renderOffline(galeraRaw, "ha-galera", { previousOutputs }), (e: Error) => {
            assert.match(e.message, /database\.kind: the stack runs database\.kind "mariadb" \(its data on the volume ironic-mariadb-data\); "mariadb-operator" starts a new, empty Galera cluster/);
            assert.match(e.message, /set database\.allowKindChange to true/);
            return true;
        });
        const allowed: RawConfig = { ...galeraRaw, database: { ...(galeraRaw.database as object), allowKindChange: true } };
        await renderOffline(allowed, "ha-galera", { previousOutputs });
        await renderOffline(galeraRaw, "ha-galera", { previousOutputs: { state: { topology: "multi", database: { kind: "mariadb-operator" } } } });
    });

    it("the downgrade guard holds on the replicated database, and the live readiness check runs after the workload", async function () {
        const older = { ...galeraRaw, images: { ironic: "quay.io/metal3-io/ironic:release-37.0" } };
        await assert.rejects(renderOffline(older, "ha-galera", { previousOutputs: { ironicImage: "quay.io/metal3-io/ironic:release-38.0" } }), /images\.ironic: .*37\.0 < 38\.0/);
        const allowed: RawConfig = { ...older, database: { ...(galeraRaw.database as object), allowDowngrade: true } };
        await renderOffline(allowed, "ha-galera", { previousOutputs: { ironicImage: "quay.io/metal3-io/ironic:release-38.0" } });
        assert.equal(regs.filter((x) => x.type === "command:local:Command").length, 1, "one readiness Command");
        assert.ok(regs.some((x) => x.type === "metal3:ops:Readiness"));
    });

    it("validates its keys: odd replicas of at least 3, operator keys only with this kind", function () {
        const issues = (db: Record<string, unknown>, base: RawConfig = galeraRaw) => {
            const v = validateConfig({ ...base, database: db });
            return v.ok ? [] : v.issues.map((i) => `${i.key}: ${i.message}`);
        };
        assert.match(issues({ kind: "mariadb-operator", replicas: 4 }).join("\n"), /database\.replicas: must be odd/);
        assert.match(issues({ kind: "mariadb-operator", replicas: 1 }).join("\n"), /database\.replicas: must be at least 3/);
        assert.deepEqual(
            issues({ kind: "mariadb", replicas: 3, operator: { install: true }, allowKindChange: true }).map((s) => s.split(":")[0]).sort(),
            ["database.allowKindChange", "database.operator", "database.replicas"],
        );
        assert.match(issues({ kind: "sqlite" }).join("\n"), /database\.kind: topology "multi" needs a shared database.*"mariadb-operator"/);
        assert.deepEqual(issues({ kind: "mariadb-operator" }, devRaw), []);
    });
});
