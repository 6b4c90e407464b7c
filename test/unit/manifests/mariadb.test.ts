/** core/manifests/mariadb.ts: the MariaDB StatefulSet, Service and claim, and the schema Jobs. */
import { strict as assert } from "assert";

import { dbJob, mariadbPvc, mariadbSelector, mariadbService, mariadbStatefulSet, schemaJobHint } from "../../../core/manifests/mariadb";
import { restrictedSecurityContext, untraced } from "../../../core/manifests/meta";
import { databaseVolumes } from "../../../core/manifests/volumes";
import { planOf, haRaw, withKeys } from "../plan/support";
import { dev, ha, haExternal, m, plain } from "./support";

type PodTemplate = { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: { containers: Record<string, unknown>[]; volumes: { name: string }[]; [k: string]: unknown } };
const template = (o: { spec?: unknown }) => (o.spec as { template: PodTemplate }).template;

describe("manifests/mariadb", function () {
    it("selects its pod apart from Ironic's", function () {
        assert.deepEqual(mariadbSelector(ha), { "app.kubernetes.io/name": "mariadb", "app.kubernetes.io/instance": "ironic" });
    });

    describe("mariadbStatefulSet", function () {
        it("one replica behind its Service, as the image's mysql user, with the plan's placement", function () {
            const sts = mariadbStatefulSet(ha);
            assert.deepEqual(sts.metadata, { name: "ironic-mariadb", namespace: "metal3", labels: { ...ha.labels, "app.kubernetes.io/name": "mariadb", "app.kubernetes.io/component": "database" } });
            const spec = sts.spec as { replicas: number; serviceName: string; selector: unknown };
            assert.equal(spec.replicas, 1);
            assert.equal(spec.serviceName, "ironic-mariadb");
            assert.deepEqual(spec.selector, { matchLabels: mariadbSelector(ha) });
            const t = template(sts);
            assert.deepEqual(t.spec.securityContext, { runAsUser: 999, runAsGroup: 999, fsGroup: 999, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
            assert.deepEqual(t.spec.tolerations, ha.placement.tolerations);
        });

        it("the container: root password from a file, root only on the local socket, auto-upgrade, healthcheck probes, restricted", function () {
            const c = template(mariadbStatefulSet(ha)).spec.containers[0];
            assert.equal(c.image, "docker.io/library/mariadb:11.4.5");
            assert.deepEqual(c.env, [
                { name: "MARIADB_ROOT_PASSWORD_FILE", value: "/etc/mysql/credentials/root-password" },
                { name: "MARIADB_ROOT_HOST", value: "localhost" },
                { name: "MARIADB_AUTO_UPGRADE", value: "1" },
            ]);
            assert.deepEqual(c.ports, [{ name: "mysql", containerPort: 3306, protocol: "TCP" }]);
            // Through the image's entrypoint to every mariadbd it starts: the current passwords on every start.
            assert.deepEqual(c.args, ["mariadbd", "--init-file=/etc/mysql/passwords/apply-passwords.sql"]);
            assert.deepEqual(c.securityContext, restrictedSecurityContext());
            const probe = (initialDelaySeconds: number, periodSeconds: number) => ({ exec: { command: ["healthcheck.sh", "--connect", "--innodb_initialized"] }, initialDelaySeconds, periodSeconds, timeoutSeconds: 5, failureThreshold: 6 });
            assert.deepEqual(c.readinessProbe, probe(10, 10));
            assert.deepEqual(c.livenessProbe, probe(60, 30));
            assert.deepEqual(m(c.volumeMounts as never), [
                "data:/var/lib/mysql",
                "config:/etc/mysql/conf.d ro",
                "tls:/etc/mysql/tls ro",
                "credentials:/etc/mysql/credentials ro",
                "init:/docker-entrypoint-initdb.d ro",
                "passwords:/etc/mysql/passwords ro",
                "run:/run/mysqld",
                "tmp:/tmp",
            ]);
        });

        it("volumes: its own claim, the config, TLS, root password, first-start and password SQL (0440), and scratch dirs", function () {
            assert.deepEqual(template(mariadbStatefulSet(ha)).spec.volumes, [
                { name: "data", persistentVolumeClaim: { claimName: "ironic-mariadb-data" } },
                { name: "config", configMap: { name: "ironic-mariadb-config" } },
                { name: "tls", secret: { secretName: "ironic-mariadb-tls", defaultMode: 0o440 } },
                { name: "credentials", secret: { secretName: "ironic-mariadb-credentials", items: [{ key: "root-password", path: "root-password" }], defaultMode: 0o440 } },
                // Only the first-start SQL in the entrypoint's init directory; the password SQL apart.
                { name: "init", secret: { secretName: "ironic-mariadb-init", items: [{ key: "10-ironic.sql", path: "10-ironic.sql" }], defaultMode: 0o440 } },
                { name: "passwords", secret: { secretName: "ironic-mariadb-init", items: [{ key: "apply-passwords.sql", path: "apply-passwords.sql" }], defaultMode: 0o440 } },
                { name: "run", emptyDir: {} },
                { name: "tmp", emptyDir: {} },
            ]);
        });

        it("pod annotations are the given ones, sorted", function () {
            assert.deepEqual(Object.keys(template(mariadbStatefulSet(ha, { "z/b": "2", "a/a": "1" })).metadata.annotations!), ["a/a", "z/b"]);
            assert.deepEqual(template(mariadbStatefulSet(ha)).metadata.annotations, {});
        });
    });

    it("mariadbService: ClusterIP on 3306 selecting the MariaDB pod", function () {
        assert.deepEqual(mariadbService(ha).spec, { type: "ClusterIP", selector: mariadbSelector(ha), ports: [{ name: "mysql", port: 3306, targetPort: 3306, protocol: "TCP" }] });
        assert.equal(plain(mariadbService(ha)).metadata.name, "ironic-mariadb");
    });

    it("mariadbPvc: ReadWriteOnce of the configured size; a storage class only when configured", function () {
        assert.deepEqual(mariadbPvc(ha).spec, { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "20Gi" } } });
        const withClass = planOf(withKeys(haRaw, { database: { kind: "mariadb", storageSize: "5Gi", storageClass: "fast" } }));
        assert.deepEqual(mariadbPvc(withClass).spec, { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "5Gi" } }, storageClassName: "fast" });
    });

    describe("dbJob", function () {
        const t0 = (job: ReturnType<typeof dbJob>) => template(job).spec.containers[0];

        it("schemaJobHint: names the Job, its deadline and the kubectl commands to look with", function () {
            assert.equal(
                schemaJobHint(ha, "upgrade"),
                "Job metal3/ironic-dbsync-8df8fcba5e runs ironic-dbsync upgrade; it is stopped after 1200 s (activeDeadlineSeconds; reason DeadlineExceeded) " +
                    "or after 3 retries (BackoffLimitExceeded). If it fails: kubectl logs job/ironic-dbsync-8df8fcba5e -n metal3 and kubectl describe job/ironic-dbsync-8df8fcba5e -n metal3",
            );
            assert.match(schemaJobHint(ha, "migrate"), /job\/ironic-migrate-8df8fcba5e -n metal3/);
        });

        it("upgrade and migrate: named by the image key, their own component label and command", function () {
            const up = dbJob(ha, "upgrade");
            const mig = dbJob(ha, "migrate");
            assert.equal(plain(up).metadata.name, "ironic-dbsync-8df8fcba5e");
            assert.equal(plain(mig).metadata.name, "ironic-migrate-8df8fcba5e");
            assert.equal(plain(up).metadata.labels["app.kubernetes.io/component"], "db-upgrade");
            assert.equal(plain(mig).metadata.labels["app.kubernetes.io/component"], "db-migrate");
            assert.deepEqual(plain(up).metadata.annotations, {
                "metal3-ironic.metal3.io/ironic-image": "quay.io/metal3-io/ironic:v38.0.0",
                "pulumi.com/replaceUnready": "true",
                // The provider waits for the Job's deadline (1200 s) plus a margin, not its own default.
                "pulumi.com/timeoutSeconds": "1320",
            });
            const [cu] = template(up).spec.containers;
            const [cm] = template(mig).spec.containers;
            assert.deepEqual([cu.name, cu.command], ["dbsync-upgrade", untraced(["/bin/rundatabase-upgrade"])]);
            assert.deepEqual([cm.name, cm.command], ["online-data-migrations", untraced(["/bin/runonline-data-migrations"])]);
        });

        it("the pod: OnFailure, 3 retries, the Ironic identity, the pod IP as PROVISIONING_IP, then the database env sorted", function () {
            const job = dbJob(ha, "upgrade");
            assert.equal((job.spec as { backoffLimit: number }).backoffLimit, 3);
            assert.equal((job.spec as { activeDeadlineSeconds: number }).activeDeadlineSeconds, 1200);
            assert.deepEqual(t0(job).resources, { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } });
            const t = template(job);
            assert.equal(t.spec.restartPolicy, "OnFailure");
            assert.deepEqual(t.spec.securityContext, { runAsUser: 997, runAsGroup: 994, fsGroup: 994, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
            const env = t.spec.containers[0].env as { name: string; value?: string; valueFrom?: unknown }[];
            assert.deepEqual(env[0], { name: "PROVISIONING_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } });
            assert.ok(env.some((e) => e.name === "IRONIC_USE_MARIADB"), env.map((e) => e.name).join(","));
            const rest = env.slice(1).map((e) => e.name);
            assert.deepEqual(rest, [...rest].sort());
        });

        it("volumes: scratch dirs plus the database credentials and CA, mounted where the image reads them", function () {
            for (const plan of [ha, haExternal]) {
                const t = template(dbJob(plan, "migrate"));
                const db = databaseVolumes(plan);
                assert.deepEqual(t.spec.volumes, [{ name: "conf", emptyDir: {} }, { name: "data", emptyDir: {} }, { name: "tmp", emptyDir: {} }, { name: "shared", emptyDir: {} }, ...db.volumes]);
                assert.deepEqual(m(t.spec.containers[0].volumeMounts as never), ["conf:/conf", "data:/data", "tmp:/tmp", "shared:/shared", "db-auth:/auth/mariadb ro", "db-ca:/certs/ca/mariadb ro"]);
            }
        });

        it("SQLite has no schema Jobs", function () {
            assert.equal(dev.database.jobs, undefined);
            assert.throws(() => dbJob(dev, "upgrade"));
        });
    });
});
