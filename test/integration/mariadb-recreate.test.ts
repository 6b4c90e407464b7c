/**
 * A stack re-created against a kept database volume opens it (pod runner, Debian's mariadbd behind
 * the stand-in of the upstream image's entrypoint): stack A initialises the volume and Ironic's
 * user writes a row with A's generated password; the pod goes; stack B (the same config rendered
 * anew: new generated passwords, a new CA) starts its MariaDB pod on the same volume. The
 * `--init-file` SQL from B's Secret gives the ironic user and root B's passwords on start, so
 * Ironic's user reads the row with B's password and A's no longer works. Everything runs in a
 * network namespace this test creates and deletes, on a work directory of its own.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { Rendered, readStackConfig } from "../../tools/render";
import { ClusterData, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { renderWithRealSecrets } from "../helpers/real-secrets";
import { prepareImages } from "../helpers/standins";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

const dev = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const RAW: RawConfig = { ...dev, database: { kind: "mariadb" } };
const CREDENTIALS = "ironic-mariadb-credentials";
const SOCKET = "/run/mysqld/mysqld.sock";

interface Stack {
    rendered: Rendered;
    cluster: ClusterData;
    password: string;
    rootPassword: string;
    caFile: string;
}

describe("MariaDB: a stack re-created against a kept volume opens it with its own passwords (pod runner, Debian mariadbd)", function () {
    this.timeout(300000);
    const lab = new NetnsLab();
    let work = "";
    let ns = "";
    let images: Record<string, StandinImage>;
    const pods: PodRunner[] = [];
    let a: Stack;
    let b: Stack;

    async function render(seed: string): Promise<Stack> {
        const { rendered, cluster } = await renderWithRealSecrets(RAW, "dev", seed);
        const caFile = path.join(work, `ca-${seed}.crt`);
        fs.writeFileSync(caFile, cluster.secrets["ironic-mariadb-tls"]["ca.crt"]);
        return { rendered, cluster, password: cluster.secrets[CREDENTIALS].password, rootPassword: cluster.secrets[CREDENTIALS]["root-password"], caFile };
    }

    function startPod(s: Stack, name: string): PodRunner {
        const sts = s.rendered.objects.find((o) => o.kind === "StatefulSet")!;
        // The same work directory: the claim ironic-mariadb-data is the same directory (work/pv/...).
        const p = new PodRunner({ name, namespace: "metal3", spec: sts.spec.template.spec, cluster: s.cluster, images, work, netns: ns, nodeName: "cp-0", hostIP: "127.0.0.1", podIP: "127.0.0.1" });
        pods.push(p);
        p.startContainers();
        return p;
    }

    /** Ironic's user over TCP with TLS (the user REQUIRE SSL), verified with the stack's CA. */
    function asIronic(s: Stack, password: string, sql: string) {
        return run("ip", ["netns", "exec", ns, "mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", "3306", "-u", "ironic", "--ssl", `--ssl-ca=${s.caFile}`, "-N", "-e", sql, "ironic"], {
            allowFail: true,
            env: { ...process.env, MYSQL_PWD: password },
        });
    }

    /** root, which exists only on the local socket, from inside the container. */
    function asRoot(p: PodRunner, password: string) {
        return p.exec("mariadb", ["/bin/bash", "-c", `MYSQL_PWD="$1" mariadb --no-defaults -S ${SOCKET} -uroot -N -e 'SELECT CURRENT_USER()'`, "root", password]);
    }

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        const tools = ["mariadbd", "mariadb-install-db", "mariadb", "openssl", "nsenter", "unshare", "setpriv", "setcap"];
        requireOrSkip(this, tools.every((t) => !!which(t)), `${tools.join(", ")} (bash .ci/run installs them)`);
        work = tmpDir("mariadb-recreate");
        fs.chmodSync(work, 0o755);
        images = prepareImages(work);
        ns = lab.addNamespace("mdb");
        a = await render("stack-a");
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") for (const p of pods) console.log(`---- ${p.o.name}/mariadb ----\n${tail(p.logs("mariadb"), 3000)}`);
    });

    after(async function () {
        for (const p of [...pods].reverse()) await p.stop();
        lab.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("stack A initialises the empty volume (the password SQL does nothing on the entrypoint's temporary server) and Ironic's user writes a row", async function () {
        const p = startPod(a, "ironic-mariadb-0-a");
        await p.waitReady("mariadb", 180000);
        const log = p.logs("mariadb");
        assert.match(log, /running \/docker-entrypoint-initdb\.d\/10-ironic\.sql/);
        assert.doesNotMatch(log, /initdb\.d\/apply-passwords/, "the password SQL is not a first-start script");
        assert.equal(asRoot(p, a.rootPassword).status, 0, "root on the socket with A's root password");
        const w = asIronic(a, a.password, "CREATE TABLE kept (v VARCHAR(64)); INSERT INTO kept VALUES ('written by stack A'); SELECT v FROM kept");
        assert.equal(w.status, 0, w.stderr);
        assert.equal(w.stdout.trim(), "written by stack A");
        await p.stop();
    });

    it("stack B, re-created with new passwords, starts on the kept volume: its ironic user reads A's row, A's passwords are refused", async function () {
        b = await render("stack-b");
        assert.notEqual(b.password, a.password);
        assert.notEqual(b.rootPassword, a.rootPassword);
        const p = startPod(b, "ironic-mariadb-0-b");
        await p.waitReady("mariadb", 180000);
        const log = p.logs("mariadb");
        assert.match(log, /is initialized: skipping initialization/);
        assert.doesNotMatch(log, /running \/docker-entrypoint-initdb\.d/);

        const r = asIronic(b, b.password, "SELECT v FROM kept");
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim(), "written by stack A");
        const old = asIronic(b, a.password, "SELECT 1");
        assert.notEqual(old.status, 0);
        assert.match(old.stderr, /Access denied for user 'ironic'/);
        assert.equal(asRoot(p, b.rootPassword).status, 0, "root has B's root password");
        assert.notEqual(asRoot(p, a.rootPassword).status, 0, "and no longer A's");
        // TLS is still required of the ironic user after its password changed.
        const plain = run("ip", ["netns", "exec", ns, "mariadb", "--no-defaults", "-h", "127.0.0.1", "-u", "ironic", "--skip-ssl", "-N", "-e", "SELECT 1"], { allowFail: true, env: { ...process.env, MYSQL_PWD: b.password } });
        assert.notEqual(plain.status, 0);

        // The passwords reach mariadbd only through the mounted Secret: not in its arguments, env or log.
        const spec = JSON.stringify(b.rendered.objects.find((o) => o.kind === "StatefulSet")!.spec.template.spec.containers);
        for (const secret of [b.password, b.rootPassword]) {
            assert.ok(!spec.includes(secret), "no password in the container spec");
            assert.ok(!log.includes(secret), "no password in the log");
        }
        for (const cm of Object.values(b.cluster.configMaps)) assert.ok(!JSON.stringify(cm).includes(b.password), "no password in a ConfigMap");
    });

    it("a restart of stack B's container keeps B's passwords (the SQL runs again, harmlessly)", async function () {
        const p = pods[pods.length - 1];
        await p.stop();
        p.startContainer("mariadb");
        await p.waitReady("mariadb", 180000);
        const r = asIronic(b, b.password, "SELECT COUNT(*) FROM kept");
        assert.equal(r.status, 0, r.stderr);
        assert.equal(r.stdout.trim(), "1");
    });
});
