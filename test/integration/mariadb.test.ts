/**
 * The database artifacts with real programs: Debian's mariadbd runs the program's server
 * configuration with a certificate for the SANs the program requests; the ironic user is created
 * by the program's first-start SQL; TLS with the CA succeeds and plain TCP is refused; Debian's
 * ironic-dbsync runs `upgrade` and `online_data_migrations` with the connection the ironic image
 * builds from the settings the program gives it. The server runs in a network namespace this test
 * creates, where the Service name resolves to the namespace's loopback.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { MARIADB } from "../../core/mariadb";
import { renderInitSql, renderMariadbConf } from "../../core/render/mariadb";
import { IRONIC_DB_USER } from "../../components/mariadb";
import { databaseEnv } from "../../core/plan";
import { renderOffline, readStackConfig } from "../../tools/render";
import { canUseNetns, Daemon, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { IRONIC_BIN } from "../helpers/ironic-lab";
import { planOf } from "../helpers/plan";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const raw = { ...devRaw, database: { kind: "mariadb" } };
const PASSWORD = "Xr7dbPw0rdFromTheTest2026abcdefg";

describe("MariaDB with the program's configuration (Debian mariadbd, ironic-dbsync)", function () {
    this.timeout(240000);
    const lab = new NetnsLab();
    let work = "";
    let ns = "";
    let hostsDir = "";
    let createdNetnsEtc = false;
    let daemon: Daemon | undefined;
    let dbHost = "";
    let dbName = "";
    let sans: string[] = [];

    const inNs = (cmd: string, args: string[], opts: { allowFail?: boolean; input?: string } = {}) => run("ip", ["netns", "exec", ns, cmd, ...args], { ...opts, timeout: 180000 });
    const client = (args: string[], sql: string) =>
        inNs("mariadb", ["--no-defaults", "-h", dbHost.split(":")[0], "-P", String(MARIADB.port), "-u", IRONIC_DB_USER, `-p${PASSWORD}`, ...args, "-N", "-e", sql], { allowFail: true });

    before(async function () {
        requireOrSkip(this, !!which("mariadbd") && !!which("mariadb-install-db") && !!which("openssl"), "mariadb-server and openssl");
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");

        // What the program asks for: the Service name Ironic is given and the certificate's SANs.
        const plan = planOf(raw);
        const env = databaseEnv(plan.database);
        dbHost = env.MARIADB_HOST;
        dbName = env.MARIADB_DATABASE;
        const rendered = await renderOffline(raw);
        const csr = rendered.resources.find((x) => x.type === "tls:index/certRequest:CertRequest" && x.name.includes("mariadb"))!;
        sans = csr.inputs.dnsNames;
        assert.ok(sans.includes(dbHost), `the certificate covers ${dbHost}`);

        work = tmpDir("mariadb");
        fs.chmodSync(work, 0o755);
        const tls = path.join(work, "tls");
        fs.mkdirSync(tls);
        // A CA and a server certificate for exactly the requested SANs (@pulumi/tls makes them in a real run).
        const o = (args: string[]) => run("openssl", args);
        o(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(work, "ca.key"), "-out", path.join(tls, "ca.crt"), "-days", "2", "-subj", "/CN=test CA"]);
        o(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(tls, "tls.key"), "-out", path.join(work, "server.csr"), "-subj", `/CN=${sans[2]}`, "-addext", `subjectAltName=${sans.map((s) => `DNS:${s}`).join(",")}`]);
        o(["x509", "-req", "-in", path.join(work, "server.csr"), "-CA", path.join(tls, "ca.crt"), "-CAkey", path.join(work, "ca.key"), "-CAcreateserial", "-days", "1", "-copy_extensions", "copy", "-out", path.join(tls, "tls.crt")]);
        o(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(work, "other.key"), "-out", path.join(work, "other-ca.crt"), "-days", "2", "-subj", "/CN=some other CA"]);
        run("chown", ["-R", "mysql:mysql", tls]);
        fs.chmodSync(path.join(tls, "tls.key"), 0o600);

        // The program's server configuration, pointed at this test's TLS directory.
        fs.writeFileSync(path.join(work, "server.cnf"), renderMariadbConf({ tlsDir: tls, bufferPool: "64M" }));
        // Its own tmpdir too: the default /tmp is shared with every other run (and their temporary tables).
        for (const d of ["db", "run", "tmp"]) {
            fs.mkdirSync(path.join(work, d));
            run("chown", ["mysql:mysql", path.join(work, d)]);
        }
        run("mariadb-install-db", ["--no-defaults", "--user=mysql", `--datadir=${path.join(work, "db")}`, "--auth-root-authentication-method=normal", "--skip-test-db", `--tmpdir=${path.join(work, "tmp")}`], { timeout: 180000 });

        // Name resolution inside the namespace only: ip netns exec bind-mounts /etc/netns/<ns>/hosts.
        ns = lab.addNamespace("db");
        hostsDir = path.join("/etc/netns", ns);
        createdNetnsEtc = !fs.existsSync("/etc/netns");
        fs.mkdirSync(hostsDir, { recursive: true });
        fs.writeFileSync(path.join(hostsDir, "hosts"), `127.0.0.1 localhost ${sans.join(" ")}\n`);

        const sock = path.join(work, "run", "mysqld.sock");
        daemon = new Daemon(
            "ip",
            ["netns", "exec", ns, "mariadbd", `--defaults-file=${path.join(work, "server.cnf")}`, "--user=mysql", `--datadir=${path.join(work, "db")}`, "--bind-address=127.0.0.1", `--port=${MARIADB.port}`, `--socket=${sock}`, `--pid-file=${path.join(work, "run", "mysqld.pid")}`, `--tmpdir=${path.join(work, "tmp")}`],
            path.join(work, "mariadbd.log"),
        );
        // Generous: another suite on the same cores may be starting its own daemons.
        const upBy = Date.now() + 120000;
        while (run("mariadb-admin", ["--no-defaults", "-S", sock, "-uroot", "ping"], { allowFail: true }).status !== 0) {
            if (!daemon.running || Date.now() > upBy) {
                const log = fs.existsSync(path.join(work, "mariadbd.log")) ? fs.readFileSync(path.join(work, "mariadbd.log"), "utf8").slice(-3000) : "";
                throw new Error(`mariadbd did not come up (${daemon.running ? "timed out" : "exited"}):\n${log}`);
            }
            await new Promise((res) => setTimeout(res, 200));
        }
        // The program's first-start SQL, as the image's entrypoint runs it (over the local socket).
        run("mariadb", ["--no-defaults", "-S", sock, "-uroot"], { input: renderInitSql(dbName, IRONIC_DB_USER, PASSWORD) });
    });

    after(async function () {
        await daemon?.stop();
        lab.destroy();
        if (hostsDir) fs.rmSync(hostsDir, { recursive: true, force: true });
        // Another run may be using /etc/netns meanwhile (its own <ns> entry): remove it only while empty.
        if (createdNetnsEtc) {
            try {
                fs.rmdirSync("/etc/netns");
            } catch {
                /* not empty (another run's namespace) or already gone */
            }
        }
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it("accepts a TLS connection from the ironic user to the Service name, verified with the CA", function () {
        const r = client(["--ssl", `--ssl-ca=${path.join(work, "tls", "ca.crt")}`, "--ssl-verify-server-cert"], "SELECT CURRENT_USER(), DATABASE() IS NULL; SHOW SESSION STATUS LIKE 'Ssl_version';");
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /ironic@%/);
        assert.match(r.stdout, /Ssl_version\s+TLSv1\.[23]/);
    });

    it("refuses plain TCP", function () {
        const r = client(["--skip-ssl"], "SELECT 1");
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /insecure transport|Access denied|SSL is required/i);
    });

    it("refuses a server certificate from another CA (the CA matters)", function () {
        const r = client(["--ssl", `--ssl-ca=${path.join(work, "other-ca.crt")}`, "--ssl-verify-server-cert"], "SELECT 1");
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /certificate|SSL|TLS/i);
    });

    it("runs ironic-dbsync upgrade and online_data_migrations with the connection the ironic image builds", function () {
        // configure-ironic.sh: mysql+pymysql://<user>:<password>@<MARIADB_HOST>/<MARIADB_DATABASE>?charset=utf8
        // plus &ssl=on&ssl_ca=/certs/ca/mariadb/tls.crt when the CA file is mounted (here: the test's copy).
        const url = `mysql+pymysql://${IRONIC_DB_USER}:${PASSWORD}@${dbHost}/${dbName}?charset=utf8&ssl=on&ssl_ca=${path.join(work, "tls", "ca.crt")}`;
        const conf = path.join(work, "ironic.conf");
        fs.writeFileSync(conf, `[database]\nconnection = ${url}\n`);
        const up = inNs(IRONIC_BIN("ironic-dbsync"), ["--config-file", conf, "upgrade"], { allowFail: true });
        assert.equal(up.status, 0, up.stderr.slice(-2000));
        const mig = inNs(IRONIC_BIN("ironic-dbsync"), ["--config-file", conf, "online_data_migrations"], { allowFail: true });
        assert.equal(mig.status, 0, mig.stderr.slice(-2000));
        const version = inNs(IRONIC_BIN("ironic-dbsync"), ["--config-file", conf, "version"], { allowFail: true });
        assert.match(version.stdout + version.stderr, /[0-9a-f]{12}/, "a schema revision is recorded");
        const tables = client(["--ssl", `--ssl-ca=${path.join(work, "tls", "ca.crt")}`, "--ssl-verify-server-cert", dbName], "SHOW TABLES LIKE 'nodes'");
        assert.match(tables.stdout, /^nodes$/m);
    });
});
