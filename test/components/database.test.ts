/** Database: MariaDB component, ordered schema Jobs keyed on the image, no replacement, downgrade guard. */
import { strict as assert } from "assert";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig, validateConfig } from "../../core/config";
import { downgradeError, imageKey, ironicVersion } from "../../core/plan/database";
import { renderInitSql } from "../../core/render/mariadb";
import { containsSecret, unwrapSecrets, valueOf } from "../../tools/offline";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));
const singleMariadb: RawConfig = { ...devRaw, database: { kind: "mariadb" } };
const IMG_A = "quay.io/metal3-io/ironic:release-37.0";
const IMG_B = "quay.io/metal3-io/ironic:v38.0.0";

interface Registration {
    type: string;
    name: string;
    opts: pulumi.ResourceOptions;
}

async function renderWithOptions(raw: RawConfig, previousOutputs?: Record<string, unknown>) {
    const regs: Registration[] = [];
    const byResource = new Map<unknown, string>();
    const r = await renderOffline(raw, "dev", {
        previousOutputs,
        onRegister: (a) => {
            regs.push({ type: a.type, name: a.name, opts: a.opts });
            byResource.set(a.resource, a.name);
        },
    });
    const dependsOn = (name: string): string[] => {
        const reg = regs.find((x) => x.name === name);
        assert.ok(reg, `${name} registered`);
        const deps = reg!.opts.dependsOn;
        const list = Array.isArray(deps) ? deps : deps ? [deps] : [];
        return list.map((d) => byResource.get(d) ?? "?");
    };
    return { r, regs, dependsOn };
}

const jobs = (r: Rendered) => r.objects.filter((o) => o.kind === "Job").map((o) => o.metadata.name);
const objOf = (r: Rendered, kind: string, name: string) => r.objects.find((o) => o.kind === kind && o.metadata.name === name);

describe("database: MariaDB component and schema Jobs (pulumi mocks)", function () {
    this.timeout(60000);

    it("validates the database keys", function () {
        const bad = validateConfig({ ...devRaw, database: { kind: "postgres" } });
        assert.ok(!bad.ok && bad.issues.some((i) => i.key === "database.kind" && /"mariadb"/.test(i.message)));
        const wrongKind = validateConfig({ ...devRaw, database: { kind: "sqlite", storageSize: "10Gi", host: "db" } });
        assert.ok(!wrongKind.ok);
        assert.deepEqual(wrongKind.issues.map((i) => i.key).sort(), ["database.host", "database.storageSize"]);
        const size = validateConfig({ ...devRaw, database: { kind: "mariadb", storageSize: "ten gigs" } });
        assert.ok(!size.ok && size.issues.some((i) => i.key === "database.storageSize" && /quantity/.test(i.message)));
    });

    it("deploys MariaDB with TLS, generated credentials, a kept volume, and points Ironic at it", async function () {
        const { r, regs } = await renderWithOptions(singleMariadb);
        const sts = objOf(r, "StatefulSet", "ironic-mariadb")!;
        assert.equal(sts.spec.replicas, 1);
        assert.equal(sts.spec.volumeClaimTemplates, undefined, "the volume is a separate PVC, not a claim template");
        const vols = Object.fromEntries(sts.spec.template.spec.volumes.map((v: any) => [v.name, v]));
        assert.equal(vols.data.persistentVolumeClaim.claimName, "ironic-mariadb-data");
        const ctr = sts.spec.template.spec.containers[0];
        assert.equal(ctr.image, "docker.io/library/mariadb:11.4.5");
        assert.deepEqual(ctr.securityContext.capabilities, { drop: ["ALL"] });
        assert.equal(sts.spec.template.spec.securityContext.runAsUser, 999);
        assert.deepEqual(ctr.readinessProbe.exec.command, ["healthcheck.sh", "--connect", "--innodb_initialized"]);
        const cnf = objOf(r, "ConfigMap", "ironic-mariadb-config")!.data["metal3-ironic.cnf"];
        assert.match(cnf, /^require_secure_transport = ON$/m);
        assert.match(cnf, /^ssl_cert = \/etc\/mysql\/tls\/tls\.crt$/m);
        const pvc = regs.find((x) => x.type === "kubernetes:core/v1:PersistentVolumeClaim")!;
        assert.equal(pvc.opts.retainOnDelete, true, "kept on pulumi destroy");
        const ns = regs.find((x) => x.type === "kubernetes:core/v1:Namespace")!;
        assert.equal(ns.opts.retainOnDelete, true, "the namespace (which would delete the PVC) is kept too");
        assert.equal(objOf(r, "PersistentVolumeClaim", "ironic-mariadb-data")!.spec.resources.requests.storage, "10Gi");

        const csr = r.resources.find((x) => x.type === "tls:index/certRequest:CertRequest" && x.name.includes("mariadb"))!;
        assert.deepEqual(csr.inputs.dnsNames, ["ironic-mariadb", "ironic-mariadb.metal3", "ironic-mariadb.metal3.svc", "ironic-mariadb.metal3.svc.cluster.local"]);
        const creds = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === "ironic-mariadb-credentials")!;
        assert.ok(containsSecret(creds.rawInputs.stringData));
        assert.deepEqual(Object.keys(unwrapSecrets(creds.rawInputs.stringData)).sort(), ["password", "root-password", "username"]);
        const init = r.resources.find((x) => x.type === "kubernetes:core/v1:Secret" && x.rawInputs.metadata.name === "ironic-mariadb-init")!;
        assert.match(unwrapSecrets(init.rawInputs.stringData)["10-ironic.sql"], /REQUIRE SSL;/);

        const d = objOf(r, "Deployment", "ironic")!;
        const ironic = d.spec.template.spec.containers.find((c: any) => c.name === "ironic");
        const env = Object.fromEntries(ironic.env.map((e: any) => [e.name, e.value]));
        assert.equal(env.IRONIC_USE_MARIADB, "true");
        assert.equal(env.MARIADB_HOST, "ironic-mariadb.metal3.svc");
        assert.equal(env.MARIADB_DATABASE, "ironic");
        assert.equal(env.IRONIC_SKIP_DBSYNC, "true");
        const dvols = Object.fromEntries(d.spec.template.spec.volumes.map((v: any) => [v.name, v]));
        assert.deepEqual(dvols["db-ca"].secret, { secretName: "ironic-mariadb-tls", items: [{ key: "ca.crt", path: "tls.crt" }] }, "only the CA is projected");
        assert.equal(dvols["db-auth"].secret.secretName, "ironic-mariadb-credentials");
    });

    it("orders the Jobs: MariaDB → dbsync upgrade → workload → online data migrations", async function () {
        const { r, dependsOn } = await renderWithOptions(singleMariadb);
        assert.ok(dependsOn("ironic-db-upgrade").includes("ironic-mariadb-statefulset"), "upgrade waits for MariaDB");
        assert.ok(dependsOn("ironic-ironic-deployment").includes("ironic-db-upgrade"), "the Deployment rolls only after the upgrade Job completed");
        assert.ok(dependsOn("ironic-db-migrate").includes("ironic-ironic"), "migrations run after the workload is ready");
        const up = objOf(r, "Job", `ironic-dbsync-${imageKey(IMG_B)}`)!;
        assert.deepEqual(up.spec.template.spec.containers[0].command, ["/bin/bash", "-c", "exec 9>/dev/null; export BASH_XTRACEFD=9; exec \"$@\"", "untraced", "/bin/rundatabase-upgrade"]);
        const mig = objOf(r, "Job", `ironic-migrate-${imageKey(IMG_B)}`)!;
        assert.deepEqual(mig.spec.template.spec.containers[0].command, ["/bin/bash", "-c", "exec 9>/dev/null; export BASH_XTRACEFD=9; exec \"$@\"", "untraced", "/bin/runonline-data-migrations"]);
        assert.equal(up.metadata.annotations["pulumi.com/replaceUnready"], "true");
        const ha = await renderWithOptions(haRaw);
        assert.ok(ha.dependsOn("ironic-conductors-daemonset").includes("ironic-db-upgrade"), "the DaemonSet too");
        assert.ok(ha.dependsOn("ironic-db-migrate").includes("ironic-conductors"));
    });

    it("keys the Jobs on the image reference: new names exactly when the image changes", async function () {
        const a1 = jobs((await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_A } })).r);
        const a2 = jobs((await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_A }, ironic: { kernelParams: "console=ttyS1" } })).r);
        const b = jobs((await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_B } })).r);
        const digest = jobs((await renderWithOptions({ ...singleMariadb, images: { ironic: `${IMG_B}@sha256:${"b".repeat(64)}` } })).r);
        assert.deepEqual(a1, a2, "no Job change without an image change");
        assert.equal(a1.length, 2);
        assert.ok(a1.every((n, i) => n !== b[i]), "a new image gets new Jobs");
        assert.ok(b.every((n, i) => n !== digest[i]), "a new digest under the same tag gets new Jobs too");
        assert.equal(jobs((await renderWithOptions(devRaw)).r).length, 0, "SQLite needs no Job");
    });

    it("keeps the database across a topology switch and an image bump (no replacement)", async function () {
        const single = (await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_A } })).r;
        // The same stack switched to multi (conductors and slices instead of one provisioning IP).
        const switched: RawConfig = { ...singleMariadb, topology: "multi", provisioning: haRaw.provisioning, conductors: haRaw.conductors, images: { ironic: IMG_B } };
        const multi = (await renderWithOptions(switched)).r;
        assert.ok(multi.objects.some((o) => o.kind === "DaemonSet") && !multi.objects.some((o) => o.kind === "Deployment" && o.metadata.name === "ironic"), "really switched");
        for (const [kind, name] of [
            ["StatefulSet", "ironic-mariadb"],
            ["PersistentVolumeClaim", "ironic-mariadb-data"],
            ["Service", "ironic-mariadb"],
        ]) {
            const a = objOf(single, kind, name);
            const b = objOf(multi, kind, name);
            assert.ok(a && b, `${kind}/${name} in both`);
            assert.deepEqual(b, a, `${kind}/${name} unchanged`);
        }
        const key = (r: Rendered) => r.resources.filter((x) => x.name.startsWith("ironic-mariadb")).map((x) => `${x.type}::${x.name}`).sort();
        assert.deepEqual(key(multi), key(single), "same resource identities (URNs): nothing is replaced or re-created");
    });

    it("refuses an older image with a shared database, unless allowed", async function () {
        let err: Error | undefined;
        let registeredBeforeRefusal = -1;
        try {
            registeredBeforeRefusal = 0;
            await renderOffline({ ...singleMariadb, images: { ironic: IMG_A } }, "dev", {
                previousOutputs: { ironicImage: IMG_B },
                onRegister: (a) => {
                    if (a.type !== "pulumi:pulumi:StackReference") registeredBeforeRefusal++;
                },
            });
        } catch (e) {
            err = e as Error;
        }
        assert.ok(err, "the downgrade must fail");
        assert.equal(registeredBeforeRefusal, 0, "no managed resource was registered");
        assert.match(err!.message, /images\.ironic: quay\.io\/metal3-io\/ironic:release-37\.0 is older than the deployed .*v38\.0\.0 \(37\.0 < 38\.0\.0\).*database\.allowDowngrade/);
        assert.equal(err!.constructor.name, "RunError", "reported without a stack trace");
        await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_A }, database: { kind: "mariadb", allowDowngrade: true } }, { ironicImage: IMG_B });
        await renderWithOptions({ ...singleMariadb, images: { ironic: IMG_B } }, { ironicImage: IMG_A });
        await renderWithOptions({ ...devRaw, images: { ironic: IMG_A } }, { ironicImage: IMG_B });
    });

    it("digest pins: tag@digest compares by tag; a bare digest by images.ironicVersion, which the stack keeps in its outputs", async function () {
        const D = `sha256:${"c".repeat(64)}`;
        const bare = `quay.io/metal3-io/ironic@${D}`;
        await assert.rejects(
            renderOffline({ ...singleMariadb, images: { ironic: `${IMG_A}@${D}` } }, "dev", { previousOutputs: { ironicImage: `${IMG_B}@${D}` } }),
            /37\.0 < 38\.0/,
        );
        await assert.rejects(renderOffline({ ...singleMariadb, images: { ironic: bare, ironicVersion: "37.0" } }, "dev", { previousOutputs: { ironicImage: IMG_B } }), /37\.0 < 38\.0/);
        await assert.rejects(
            renderOffline({ ...singleMariadb, images: { ironic: IMG_A } }, "dev", { previousOutputs: { ironicImage: bare, ironicVersion: "38.0" } }),
            /older than the deployed .*@sha256.* \(37\.0 < 38\.0\)/,
        );
        // Without the version, a bare digest is refused by validation, naming the key to set.
        await assert.rejects(renderOffline({ ...singleMariadb, images: { ironic: bare } }, "dev"), /images\.ironicVersion: required with a digest-only images\.ironic/);
        const { r } = await renderWithOptions({ ...singleMariadb, images: { ironic: bare, ironicVersion: "38.0" } }, { ironicImage: IMG_A });
        assert.equal(await valueOf(r.outputs.ironicVersion), "38.0", "kept for the next run's comparison");
        assert.equal(await valueOf(r.outputs.ironicImage), bare);
    });

    it("schema Jobs: a deadline, and the provider waits no longer than it plus a margin", async function () {
        const { r, regs } = await renderWithOptions(singleMariadb);
        for (const reg of regs.filter((x) => x.type === "kubernetes:batch/v1:Job")) {
            assert.deepEqual(reg.opts.customTimeouts, { create: "1320s", update: "1320s" }, reg.name);
        }
        for (const job of r.objects.filter((o) => o.kind === "Job")) {
            assert.equal(job.spec.activeDeadlineSeconds, 1200);
            assert.equal(job.metadata.annotations["pulumi.com/timeoutSeconds"], "1320");
        }
    });

    it("a NetworkPolicy in the MariaDB component guards the database once its host sources are named", async function () {
        const guarded = { ...singleMariadb, database: { kind: "mariadb", networkPolicy: { hostSources: ["10.0.0.0/24"] } } };
        const { r, regs } = await renderWithOptions(guarded);
        const reg = regs.find((x) => x.type === "kubernetes:networking.k8s.io/v1:NetworkPolicy");
        assert.ok(reg, "registered");
        assert.equal(reg!.name, "ironic-mariadb-networkpolicy");
        assert.equal((reg!.opts.parent as any)?.__name, "ironic-mariadb", "child of the MariaDB component");
        assert.deepEqual(r.objects.filter((o) => o.kind === "NetworkPolicy").map((o) => o.metadata.name), ["ironic-mariadb"]);
        const off = await renderWithOptions({ ...singleMariadb, database: { kind: "mariadb", networkPolicy: { enabled: false, hostSources: ["10.0.0.0/24"] } } });
        assert.equal(off.r.objects.filter((o) => o.kind === "NetworkPolicy").length, 0);
        const unnamed = await renderWithOptions(singleMariadb);
        assert.equal(unnamed.r.objects.filter((o) => o.kind === "NetworkPolicy").length, 0, "off by default: a guess at host addresses could cut Ironic off");
        const sqlite = await renderWithOptions(devRaw);
        assert.equal(sqlite.r.objects.filter((o) => o.kind === "NetworkPolicy").length, 0);
    });

    it("protects the claim by default (database.protect), and refuses a storage class change before registering anything", async function () {
        const pvcOpts = async (raw: RawConfig) => (await renderWithOptions(raw)).regs.find((x) => x.type === "kubernetes:core/v1:PersistentVolumeClaim")!.opts;
        assert.equal((await pvcOpts(singleMariadb)).protect, true);
        assert.equal((await pvcOpts({ ...singleMariadb, database: { kind: "mariadb", protect: false } })).protect, false);
        let err: Error | undefined;
        let registered = 0;
        try {
            await renderOffline({ ...singleMariadb, database: { kind: "mariadb", storageClass: "fast-ssd" } }, "dev", {
                previousOutputs: { state: { topology: "single", database: { kind: "mariadb", storageClass: "" } } },
                onRegister: (a) => {
                    if (a.type !== "pulumi:pulumi:StackReference") registered++;
                },
            });
        } catch (e) {
            err = e as Error;
        }
        assert.ok(err, "the class change must fail");
        assert.equal(registered, 0, "no managed resource was registered");
        assert.match(err!.message, /database\.storageClass: the database volume ironic-mariadb-data is on the cluster default class, this run asks for storage class "fast-ssd"/);
        await renderWithOptions({ ...singleMariadb, database: { kind: "mariadb", storageClass: "fast-ssd" } }, { state: { topology: "single", database: { kind: "mariadb", storageClass: "fast-ssd" } } });
    });

    it("compares Ironic versions from tags; latest and digests are not comparable", function () {
        assert.deepEqual(ironicVersion("quay.io/metal3-io/ironic:release-38.0"), [38, 0]);
        assert.deepEqual(ironicVersion("registry:5000/ironic:v26.1.2"), [26, 1, 2]);
        assert.equal(ironicVersion("quay.io/metal3-io/ironic:latest"), undefined);
        assert.equal(ironicVersion(`quay.io/metal3-io/ironic@sha256:${"a".repeat(64)}`), undefined);
        assert.equal(downgradeError("x/ironic:release-38.0", "x/ironic:latest", false), undefined);
        assert.equal(downgradeError("x/ironic:latest", "x/ironic:release-37.0", false), undefined);
        assert.match(String(downgradeError("x/ironic:38.1", "x/ironic:38.0.5", false)), /38\.0\.5 < 38\.1/);
    });

    it("escapes the first-start SQL", function () {
        assert.equal(
            renderInitSql("iro`nic", "u'ser", "p'a\\ss"),
            "CREATE DATABASE IF NOT EXISTS `iro``nic` CHARACTER SET utf8mb3;\n" +
                "CREATE USER IF NOT EXISTS 'u''ser'@'%' IDENTIFIED BY 'p''a\\\\ss' REQUIRE SSL;\n" +
                "GRANT ALL PRIVILEGES ON `iro``nic`.* TO 'u''ser'@'%';\n",
        );
    });
});
