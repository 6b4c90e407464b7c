/**
 * A three-member Galera cluster from Debian's mariadb-server and galera-4 on loopback addresses,
 * behind Debian's haproxy as a single writer: what database.kind mariadb-operator gives Ironic
 * (the operator's Galera members behind its `<name>-primary` Service), with real programs.
 *
 * Each member listens on its own 127.0.x.y address; the SQL, Galera (gcomm), IST and SST ports are
 * reserved per run (two runs may share the machine), the cluster name is the run's own. Every
 * process is started with setsid and stopped by its PID.
 *
 * The proxy: haproxy in TCP mode sends every connection to one member (`stick on dst` with a
 * one-entry table: the first healthy member is the writer until it fails; no fail-back), checks
 * each member every second with an external check that asks Galera itself (`wsrep_local_state` 4,
 * Synced, in the `Primary` component), marks a member down after two failed checks and closes the
 * sessions it held (`on-marked-down shutdown-sessions`), so clients reconnect to the next writer.
 * The operator differs in how, not what: its agent beside each member answers the readiness
 * probe from the same Galera status, and on the primary's failure it repoints the `-primary`
 * Service's selector at another Ready member (kube-proxy then sends new connections there).
 */
import * as fs from "fs";
import * as path from "path";

import { reservePort, releasePort, until } from "./ironic-lab";
import { Daemon, run } from "./sys";

export interface GaleraMember {
    name: string;
    addr: string;
    dir: string;
    sock: string;
    conf: string;
    log: string;
    daemon?: Daemon;
    /** Killed on purpose: not expected to run. */
    killed?: boolean;
}

/** The SQL user the proxy's health check logs in as (no privileges: SHOW GLOBAL STATUS needs none). */
const CHECK_USER = "wsrep_check";
const CHECK_PASSWORD = "checkpw";
const START_TIMEOUT = 180000;

export class GaleraLab {
    readonly members: GaleraMember[];
    readonly proxyAddr: string;
    private ports = { sql: 0, gcomm: 0, ist: 0, sst: 0, proxy: 0 };
    private proxy?: Daemon;
    private readonly reserved: number[] = [];
    private readonly clusterName: string;

    constructor(private readonly work: string, addrs: string[], proxyAddr: string) {
        fs.mkdirSync(work, { recursive: true });
        fs.chmodSync(work, 0o755);
        this.proxyAddr = proxyAddr;
        this.clusterName = `m3i-${process.pid}-${path.basename(work)}`.slice(0, 60);
        this.members = addrs.map((addr, i) => {
            const dir = path.join(work, `db-${i}`);
            return { name: `db-${i}`, addr, dir, sock: path.join(dir, "run", "mysqld.sock"), conf: path.join(dir, "my.cnf"), log: path.join(work, `db-${i}.log`) };
        });
    }

    get proxyPort(): number {
        return this.ports.proxy;
    }

    /** The SQL port every member listens on (at its own address). */
    get sqlPort(): number {
        return this.ports.sql;
    }

    private async reserve(hosts: string[]): Promise<number> {
        const p = await reservePort(hosts);
        this.reserved.push(p);
        return p;
    }

    private config(m: GaleraMember): string {
        const { sql, gcomm, ist, sst } = this.ports;
        const peers = this.members.map((x) => `${x.addr}:${gcomm}`).join(",");
        return [
            "[mariadbd]",
            `datadir = ${path.join(m.dir, "data")}`,
            `socket = ${m.sock}`,
            `pid-file = ${path.join(m.dir, "run", "mysqld.pid")}`,
            `tmpdir = ${path.join(m.dir, "tmp")}`,
            `bind-address = ${m.addr}`,
            `port = ${sql}`,
            "user = mysql",
            "skip-name-resolve",
            "innodb_buffer_pool_size = 64M",
            "max_connections = 256",
            // What Galera requires of a member.
            "binlog_format = ROW",
            "default_storage_engine = InnoDB",
            "innodb_autoinc_lock_mode = 2",
            "wsrep_on = ON",
            "wsrep_provider = /usr/lib/galera/libgalera_smm.so",
            `wsrep_cluster_name = ${this.clusterName}`,
            `wsrep_cluster_address = gcomm://${peers}`,
            `wsrep_node_name = ${m.name}`,
            `wsrep_node_address = ${m.addr}`,
            `wsrep_provider_options = "gmcast.listen_addr=tcp://${m.addr}:${gcomm};ist.recv_addr=${m.addr}:${ist};gcache.size=64M"`,
            "wsrep_sst_method = rsync",
            `wsrep_sst_receive_address = ${m.addr}:${sst}`,
            "",
        ].join("\n");
    }

    /** Reserve the ports, write each member's configuration and initialise its data directory. */
    async prepare(): Promise<void> {
        const addrs = this.members.map((m) => m.addr);
        this.ports.sql = await this.reserve(addrs);
        this.ports.gcomm = await this.reserve(addrs);
        this.ports.ist = await this.reserve(addrs);
        this.ports.sst = await this.reserve(addrs);
        this.ports.proxy = await this.reserve([this.proxyAddr]);
        for (const m of this.members) {
            for (const d of ["data", "run", "tmp"]) fs.mkdirSync(path.join(m.dir, d), { recursive: true });
            fs.writeFileSync(m.conf, this.config(m));
            run("chown", ["-R", "mysql:mysql", m.dir]);
            run("mariadb-install-db", [`--defaults-file=${m.conf}`, "--auth-root-authentication-method=normal", "--skip-test-db"], { timeout: START_TIMEOUT });
        }
    }

    /** Start a member (the first one of a new cluster with --wsrep-new-cluster). */
    start(m: GaleraMember, bootstrap = false): void {
        m.daemon = new Daemon("mariadbd", [`--defaults-file=${m.conf}`, ...(bootstrap ? ["--wsrep-new-cluster"] : [])], m.log);
    }

    /** `SHOW GLOBAL STATUS` values of a member, over its local socket (undefined while it does not answer). */
    status(m: GaleraMember): Record<string, string> | undefined {
        const r = run("mariadb", ["--no-defaults", "-S", m.sock, "-uroot", "-N", "-B", "-e", "SHOW GLOBAL STATUS LIKE 'wsrep_%'"], { allowFail: true, timeout: 10000 });
        if (r.status !== 0) return undefined;
        return Object.fromEntries(r.stdout.trim().split("\n").map((l) => l.split("\t") as [string, string]));
    }

    /** Synced (wsrep_local_state 4) in a Primary component of `size` members. */
    synced(m: GaleraMember, size: number): boolean {
        const s = this.status(m);
        return !!s && s.wsrep_local_state === "4" && s.wsrep_cluster_status === "Primary" && s.wsrep_cluster_size === String(size);
    }

    private alive(): void {
        for (const m of this.members) {
            if (m.daemon && !m.daemon.running && !m.killed) throw new Error(`${m.name} exited (${m.daemon.proc.exitCode ?? m.daemon.proc.signalCode}):\n${tailOf(m.log)}`);
        }
    }

    /** Bootstrap the first member, join the others one by one (SST), then create the Ironic database and users. */
    async startCluster(ironicPassword: string): Promise<void> {
        const [first, ...rest] = this.members;
        this.start(first, true);
        await until(() => this.synced(first, 1), START_TIMEOUT, `${first.name} bootstrapped`, 500, () => this.alive());
        for (const [i, m] of rest.entries()) {
            this.start(m);
            await until(() => this.synced(m, i + 2), START_TIMEOUT, `${m.name} joined`, 500, () => this.alive());
        }
        run("mariadb", ["--no-defaults", "-S", first.sock, "-uroot"], {
            input:
                "CREATE DATABASE ironic CHARACTER SET utf8mb3; " +
                `CREATE USER 'ironic'@'127.%' IDENTIFIED BY '${ironicPassword}'; GRANT ALL ON ironic.* TO 'ironic'@'127.%'; ` +
                `CREATE USER '${CHECK_USER}'@'127.%' IDENTIFIED BY '${CHECK_PASSWORD}';`,
        });
    }

    /** Kill a member without grace (SIGKILL by its PID), as a lost node. */
    async kill(m: GaleraMember): Promise<void> {
        m.killed = true;
        await m.daemon!.kill();
    }

    /** Start a killed member again: it rejoins with the cluster's state (IST or SST). */
    restart(m: GaleraMember): void {
        m.killed = false;
        this.start(m);
    }

    /** The haproxy single writer, on the proxy address (see the head of this file). */
    startProxy(): void {
        const check = path.join(this.work, "wsrep-check.sh");
        fs.writeFileSync(
            check,
            [
                "#!/bin/sh",
                "# haproxy external check: $3 $4 are the member's address and port. Healthy = Synced in the Primary component.",
                `out=$(mariadb --no-defaults -h "$3" -P "$4" -u ${CHECK_USER} -p${CHECK_PASSWORD} --connect-timeout=1 -N -B -e "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_state', 'wsrep_cluster_status')") || exit 1`,
                'printf "%s\\n" "$out" | grep -q "^wsrep_cluster_status\tPrimary$" || exit 1',
                'printf "%s\\n" "$out" | grep -q "^wsrep_local_state\t4$"',
                "",
            ].join("\n"),
            { mode: 0o755 },
        );
        const cfg = path.join(this.work, "haproxy.cfg");
        fs.writeFileSync(
            cfg,
            [
                "global",
                "    external-check",
                "    insecure-fork-wanted",
                `    stats socket ${path.join(this.work, "haproxy.sock")} mode 600 level admin`,
                "defaults",
                "    mode tcp",
                "    timeout connect 2s",
                "    timeout client 30m",
                "    timeout server 30m",
                "    timeout check 2s",
                "listen galera-writer",
                `    bind ${this.proxyAddr}:${this.proxyPort}`,
                "    option external-check",
                '    external-check path "/usr/bin:/bin"',
                `    external-check command ${check}`,
                "    stick-table type ip size 1",
                "    stick on dst",
                "    option redispatch",
                "    default-server check inter 1s fall 2 rise 2 on-marked-down shutdown-sessions",
                ...this.members.map((m) => `    server ${m.name} ${m.addr}:${this.sqlPort}`),
                "",
            ].join("\n"),
        );
        run("haproxy", ["-c", "-f", cfg]);
        this.proxy = new Daemon("haproxy", ["-db", "-f", cfg], path.join(this.work, "haproxy.log"));
    }

    /** Which member the proxy sends a new connection to (its wsrep_node_name), or undefined when none answers. */
    writer(user: string, password: string): string | undefined {
        const r = run("mariadb", ["--no-defaults", "-h", this.proxyAddr, "-P", String(this.proxyPort), "-u", user, `-p${password}`, "--connect-timeout=2", "-N", "-B", "-e", "SELECT @@wsrep_node_name"], {
            allowFail: true,
            timeout: 10000,
        });
        return r.status === 0 ? r.stdout.trim() : undefined;
    }

    logFiles(): string[] {
        return [...this.members.map((m) => m.log), path.join(this.work, "haproxy.log")];
    }

    async stop(): Promise<void> {
        await this.proxy?.stop();
        for (const m of this.members) await m.daemon?.stop();
        for (const p of this.reserved.splice(0)) releasePort(p);
    }
}

function tailOf(file: string): string {
    try {
        return fs.readFileSync(file, "utf8").split("\n").slice(-30).join("\n");
    } catch {
        return "(no log)";
    }
}
