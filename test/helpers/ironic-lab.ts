/**
 * Real multi-conductor Ironic for integration tests: the image's release, Ironic 38 from PyPI
 * (IMAGE_VENV: ironic-api, ironic-conductor and ironic-dbsync from the venv .ci/run creates; facts:
 * docs/development.md, "Real Ironic in the tests"), and Debian's MariaDB on loopback, an API and N conductors on
 * loopback aliases with one JSON-RPC port, every process started with setsid and stopped by PID.
 *
 * Several runs may share the machine (two `npm test` at once): every TCP port is reserved per
 * run (see reservePort), everything else lives in the run's own work directory. The conductor
 * addresses (loopback aliases) may repeat between runs: each run's API dials its own JSON-RPC port.
 */
import * as bcrypt from "bcryptjs";
import * as crypto from "crypto";
import * as fs from "fs";
import * as http from "http";
import * as https from "https";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import * as tls from "tls";

import { htpasswdLine } from "../../core/render/htpasswd";
import { IMAGE_VENV } from "./standins";
import { Daemon, run } from "./sys";

/** TLS material of one process, as the ironic image mounts it (server certificate, CA for its clients). */
export interface LabTls {
    certFile: string;
    keyFile: string;
    caFile: string;
}

export interface LabConductor {
    /** [DEFAULT]host: the conductor's hash-ring name and JSON-RPC address. */
    host: string;
    dir: string;
    /** Environment of this conductor (the program's OS_* settings, paths remapped). */
    env: Record<string, string>;
    /** Extra per-conductor ini settings, [section] → key → value. */
    ini: Record<string, Record<string, string>>;
    /** JSON-RPC over TLS: this conductor's certificate and the CA it verifies peers with. */
    tls?: LabTls;
    daemon?: Daemon;
    /** Stopped for good (retireConductor): no longer expected to run. */
    retired?: boolean;
}

export interface LabOptions {
    work: string;
    api: { username: string; password: string };
    rpc: { username: string; password: string };
    /** OS_* settings for the API process. */
    apiEnv: Record<string, string>;
    /** API over TLS (certificate for the API address) and its JSON-RPC client verifying the conductors with the CA. */
    apiTls?: LabTls;
    /** [database]connection of a database the test runs itself (then startDatabase is not called). */
    database?: string;
}

/**
 * The [DEFAULT]host a conductor was configured with, from the name the API reports: Ironic 38
 * registers a conductor whose JSON-RPC port is not 8089 as `<host>:<port>` (`[v6]:<port>`), as the
 * program's pruner and readiness check read it (assets/dhcp-pruner.py conductor_name).
 */
export function conductorName(registered: string | null | undefined): string {
    const name = String(registered ?? "");
    const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(name);
    if (v6) return v6[1];
    const m = /^([^:]+):\d+$/.exec(name);
    return m ? m[1] : name;
}

/**
 * A node UUID fixed by its name (sha256, version 4 bits): the hash ring places a node by its UUID,
 * so a test that needs nodes on several conductors gets the same placement on every run, instead
 * of random UUIDs putting six nodes on one of three conductors once in 243 runs. Which names reach
 * which conductor: tooz's HashRing(hosts, partitions=2**5, hash_function="sha256") of Ironic's
 * venv, with the registered hostnames (`172.22.0.2:6189`), get_nodes(uuid)[0].
 */
export function fixedNodeUuid(name: string): string {
    const h = crypto.createHash("sha256").update(`metal3-ironic test node ${name}`).digest("hex");
    const variant = (8 | (parseInt(h[16], 16) & 3)).toString(16);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A program of the image's Ironic (ironic-api, ironic-conductor, ironic-dbsync). */
export const IRONIC_BIN = (name: string): string => path.join(IMAGE_VENV, "bin", name);

/** The API listens here; the conductors on their own loopback aliases. */
const API_HOST = "127.0.0.1";
/** Generous: a second suite on the same 2 cores doubles the load. */
const START_TIMEOUT = 180000;

function ini(sections: Record<string, Record<string, string>>): string {
    return (
        Object.entries(sections)
            .map(([s, kv]) => `[${s}]\n` + Object.entries(kv).map(([k, v]) => `${k} = ${v}`).join("\n"))
            .join("\n\n") + "\n"
    );
}

/** ini settings that put a process's JSON-RPC (and, for the API, its API) on TLS, as the image does. */
function tlsSections(t: LabTls): Record<string, Record<string, string>> {
    // [ssl]: the server certificate (oslo.service). No [ssl]ca_file: that would demand client certificates.
    // [json_rpc]use_ssl: the server wraps its socket and the client dials https; cafile: the keystoneauth session verifies with it.
    return { ssl: { cert_file: t.certFile, key_file: t.keyFile }, json_rpc: { use_ssl: "true", cafile: t.caFile } };
}

function merge(into: Record<string, Record<string, string>>, extra: Record<string, Record<string, string>>) {
    for (const [s, kv] of Object.entries(extra)) into[s] = { ...(into[s] ?? {}), ...kv };
}

export class IronicLab {
    readonly conductors: LabConductor[] = [];
    private mariadb?: Daemon;
    private apiDaemon?: Daemon;
    private readonly etc: string;
    private readonly logs: string;
    private readonly ports: number[] = [];
    private dbPortValue = 0;
    private apiPortValue = 0;
    private rpcPortValue = 0;

    constructor(private readonly o: LabOptions) {
        this.etc = path.join(o.work, "etc");
        this.logs = path.join(o.work, "logs");
        for (const d of [this.etc, this.logs, path.join(o.work, "images"), path.join(o.work, "run"), path.join(o.work, "db")]) fs.mkdirSync(d, { recursive: true });
    }

    get dbPort(): number {
        return this.need(this.dbPortValue, "database port");
    }
    get apiPort(): number {
        return this.need(this.apiPortValue, "API port");
    }
    /** One port for every conductor and the API's client (Ironic's client dials its own [json_rpc]port). */
    get jsonRpcPort(): number {
        return this.need(this.rpcPortValue, "JSON-RPC port");
    }
    get apiUrl(): string {
        return `${this.o.apiTls ? "https" : "http"}://${API_HOST}:${this.apiPort}`;
    }
    /** The CA the API's certificate is verified with (undefined: plain HTTP). */
    get caFile(): string | undefined {
        return this.o.apiTls?.caFile;
    }

    private need(v: number, what: string): number {
        if (!v) throw new Error(`${what} not reserved yet (startDatabase / writeConfig)`);
        return v;
    }

    private async reserve(hosts: string[]): Promise<number> {
        const p = await reservePort(hosts);
        this.ports.push(p);
        return p;
    }

    addConductor(host: string, env: Record<string, string>, extraIni: Record<string, Record<string, string>>, tlsFiles?: LabTls): LabConductor {
        const dir = path.join(this.o.work, `c-${host}`);
        fs.mkdirSync(dir, { recursive: true });
        const c: LabConductor = { host, dir, env, ini: extraIni, tls: tlsFiles };
        this.conductors.push(c);
        return c;
    }

    async startDatabase(): Promise<void> {
        this.dbPortValue = await this.reserve(["127.0.0.1"]);
        fs.chmodSync(this.o.work, 0o755);
        // Its own tmpdir too: the default /tmp is shared with every other run (and their temporary tables).
        const tmp = path.join(this.o.work, "run", "tmp");
        fs.mkdirSync(tmp, { recursive: true });
        run("chown", ["mysql:mysql", path.join(this.o.work, "db"), path.join(this.o.work, "run"), tmp]);
        run("mariadb-install-db", ["--no-defaults", "--user=mysql", `--datadir=${path.join(this.o.work, "db")}`, "--auth-root-authentication-method=normal", "--skip-test-db", `--tmpdir=${tmp}`], { timeout: START_TIMEOUT });
        const sock = path.join(this.o.work, "run", "mysql.sock");
        this.mariadb = new Daemon(
            "mariadbd",
            ["--no-defaults", "--user=mysql", `--datadir=${path.join(this.o.work, "db")}`, "--bind-address=127.0.0.1", `--port=${this.dbPort}`, `--socket=${sock}`, `--pid-file=${path.join(this.o.work, "run", "mysql.pid")}`, `--tmpdir=${tmp}`, "--skip-name-resolve", "--innodb-buffer-pool-size=64M"],
            path.join(this.logs, "mariadb.log"),
        );
        await this.untilRunning(() => run("mariadb-admin", ["--no-defaults", "-S", sock, "-uroot", "ping"], { allowFail: true }).status === 0, START_TIMEOUT, "mariadb up");
        run("mariadb", ["--no-defaults", "-S", sock, "-uroot"], {
            input: "CREATE DATABASE ironic CHARACTER SET utf8mb3; CREATE USER 'ironic'@'127.0.0.1' IDENTIFIED BY 'ironicpw'; GRANT ALL ON ironic.* TO 'ironic'@'127.0.0.1';",
        });
    }

    /**
     * Shared configuration: fake hardware, pxe/ipxe boot, ramdisk deploy, dnsmasq DHCP provider,
     * JSON-RPC with basic auth (and TLS where the process has certificates). Reserves the API and
     * JSON-RPC ports, so every conductor must have been added.
     */
    async writeConfig(): Promise<void> {
        if (!this.apiPortValue) this.apiPortValue = await this.reserve([API_HOST]);
        if (!this.rpcPortValue) this.rpcPortValue = await this.reserve(this.conductors.map((c) => c.host));
        const hash = (pw: string) => bcrypt.hashSync(pw, 4);
        fs.writeFileSync(path.join(this.etc, "htpasswd-api"), htpasswdLine(this.o.api.username, hash(this.o.api.password)));
        fs.writeFileSync(path.join(this.etc, "htpasswd-rpc"), htpasswdLine(this.o.rpc.username, hash(this.o.rpc.password)));
        const images = path.join(this.o.work, "images");
        for (const f of ["kernel", "ramdisk"]) fs.writeFileSync(path.join(images, f), "not really a " + f);
        fs.writeFileSync(
            path.join(this.etc, "common.conf"),
            ini({
                DEFAULT: {
                    auth_strategy: "http_basic",
                    http_basic_auth_user_file: path.join(this.etc, "htpasswd-api"),
                    rpc_transport: "json-rpc",
                    enabled_hardware_types: "fake-hardware",
                    enabled_boot_interfaces: "fake,pxe,ipxe",
                    enabled_deploy_interfaces: "fake,ramdisk",
                    enabled_management_interfaces: "fake",
                    enabled_power_interfaces: "fake",
                    enabled_inspect_interfaces: "fake,no-inspect",
                    enabled_network_interfaces: "noop",
                    enabled_console_interfaces: "fake,no-console",
                    enabled_raid_interfaces: "fake,no-raid",
                    enabled_rescue_interfaces: "fake,no-rescue",
                    enabled_storage_interfaces: "fake,noop",
                    enabled_vendor_interfaces: "fake,no-vendor",
                    enabled_bios_interfaces: "fake,no-bios",
                    default_boot_interface: "fake",
                    default_deploy_interface: "fake",
                    default_network_interface: "noop",
                },
                database: { connection: this.o.database ?? `mysql+pymysql://ironic:ironicpw@127.0.0.1:${this.dbPort}/ironic?charset=utf8` },
                // One API worker: Ironic 38's threading service starts api_workers processes (default:
                // one per CPU), each binding the port itself, so the second fails to bind and restarts.
                api: { host_ip: API_HOST, port: String(this.apiPort), api_workers: "1" },
                conductor: { automated_clean: "false", file_url_allowed_paths: images },
                service_catalog: { endpoint_override: this.apiUrl },
                json_rpc: {
                    auth_strategy: "http_basic",
                    http_basic_auth_user_file: path.join(this.etc, "htpasswd-rpc"),
                    auth_type: "http_basic",
                    username: this.o.rpc.username,
                    password: this.o.rpc.password,
                    port: String(this.jsonRpcPort),
                },
            }),
        );
        const api: Record<string, Record<string, string>> = { DEFAULT: { host: "api", log_file: path.join(this.logs, "api.log") }, oslo_concurrency: { lock_path: path.join(this.o.work, "api-locks") } };
        if (this.o.apiTls) merge(api, { ...tlsSections(this.o.apiTls), api: { enable_ssl_api: "true" } });
        fs.writeFileSync(path.join(this.etc, "api.conf"), ini(api));
        for (const c of this.conductors) this.writeConductorConfig(c);
    }

    private writeConductorConfig(c: LabConductor): void {
        for (const d of ["tmp", "tftp", "tftp/master_images", "images", "instance_master", "http", "locks"]) fs.mkdirSync(path.join(c.dir, d), { recursive: true });
        const sections: Record<string, Record<string, string>> = {
            DEFAULT: { host: c.host, log_file: path.join(this.logs, `conductor-${c.host}.log`), tempdir: path.join(c.dir, "tmp") },
            json_rpc: { host_ip: c.host },
            pxe: { tftp_root: path.join(c.dir, "tftp"), tftp_master_path: path.join(c.dir, "tftp", "master_images"), images_path: path.join(c.dir, "images"), instance_master_path: path.join(c.dir, "instance_master") },
            deploy: { http_root: path.join(c.dir, "http") },
            oslo_concurrency: { lock_path: path.join(c.dir, "locks") },
        };
        if (c.tls) merge(sections, tlsSections(c.tls));
        merge(sections, c.ini);
        fs.writeFileSync(path.join(c.dir, "conductor.conf"), ini(sections));
    }

    /**
     * A conductor added after the lab is configured (a node joining a running cluster): its
     * configuration is written at once; start it with startConductor. Its address must be free
     * on the run's JSON-RPC port (reserved for the first conductors' addresses only).
     */
    async joinConductor(host: string, env: Record<string, string>, extraIni: Record<string, Record<string, string>>, tlsFiles?: LabTls): Promise<LabConductor> {
        const port = this.jsonRpcPort;
        if (this.conductors.some((c) => c.host === host)) throw new Error(`conductor ${host} exists already`);
        if (!(await bindable([host], port))) throw new Error(`JSON-RPC port ${port} is taken on ${host}`);
        const c = this.addConductor(host, env, extraIni, tlsFiles);
        this.writeConductorConfig(c);
        return c;
    }

    /**
     * Stop a conductor for good as a drained pod stops: SIGTERM, then up to `graceMs` for Ironic's
     * graceful shutdown (which marks it offline) before SIGKILL. Returns how long it took and how
     * it ended (`exit 0`, `SIGTERM`, ... or `SIGKILL` when the grace ran out).
     */
    async retireConductor(c: LabConductor, graceMs = 60000): Promise<{ ms: number; ended: string }> {
        c.retired = true;
        const d = c.daemon;
        const t0 = Date.now();
        if (!d || !d.running) return { ms: 0, ended: "not running" };
        const done = new Promise<void>((r) => d.proc.once("exit", () => r()));
        process.kill(d.pid, "SIGTERM");
        const timer = setTimeout(() => {
            try {
                process.kill(d.pid, "SIGKILL");
            } catch {
                /* gone */
            }
        }, graceMs);
        await done;
        clearTimeout(timer);
        return { ms: Date.now() - t0, ended: d.proc.signalCode ?? `exit ${d.proc.exitCode}` };
    }

    dbsync(): void {
        const conf = ["--config-file", path.join(this.etc, "common.conf")];
        run(IRONIC_BIN("ironic-dbsync"), [...conf, "upgrade"], { env: cleanEnv({}), timeout: 300000 });
        run(IRONIC_BIN("ironic-dbsync"), [...conf, "online_data_migrations"], { env: cleanEnv({}), timeout: 300000 });
    }

    startApi(): void {
        this.apiDaemon = new Daemon(
            IRONIC_BIN("ironic-api"),
            ["--config-file", path.join(this.etc, "common.conf"), "--config-file", path.join(this.etc, "api.conf")],
            path.join(this.logs, "api.out"),
            cleanEnv(this.o.apiEnv),
        );
    }

    startConductor(c: LabConductor): void {
        c.daemon = new Daemon(
            IRONIC_BIN("ironic-conductor"),
            ["--config-file", path.join(this.etc, "common.conf"), "--config-file", path.join(c.dir, "conductor.conf")],
            path.join(this.logs, `conductor-${c.host}.out`),
            cleanEnv(c.env),
        );
    }

    /** Throws (with the log's tail) when a daemon this lab started has exited: for start-up, before anything is stopped on purpose. */
    checkRunning(): void {
        const all: [string, Daemon | undefined, string][] = [
            ["mariadbd", this.mariadb, "mariadb.log"],
            ["ironic-api", this.apiDaemon, "api.log"],
            ...this.conductors.filter((c) => !c.retired).map((c): [string, Daemon | undefined, string] => [`conductor ${c.host}`, c.daemon, `conductor-${c.host}.log`]),
        ];
        for (const [name, d, log] of all) {
            if (d && !d.running) throw new Error(`${name} exited (${d.proc.exitCode ?? d.proc.signalCode}):\n${tail(path.join(this.logs, log), 40)}`);
        }
    }

    /** `until`, but gives up at once when a daemon died. */
    async untilRunning(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, intervalMs = 250): Promise<number> {
        return until(check, timeoutMs, what, intervalMs, () => this.checkRunning());
    }

    async api(method: string, p: string, body?: unknown): Promise<any> {
        const auth = Buffer.from(`${this.o.api.username}:${this.o.api.password}`).toString("base64");
        const res = await request(this.apiUrl + p, {
            method,
            headers: { "X-OpenStack-Ironic-API-Version": "1.82", "Content-Type": "application/json", Authorization: `Basic ${auth}` },
            body: body === undefined ? undefined : JSON.stringify(body),
            caFile: this.caFile,
        });
        if (res.status < 200 || res.status > 299) throw new Error(`${method} ${p}: HTTP ${res.status} ${res.text}`);
        return res.text ? JSON.parse(res.text) : undefined;
    }

    async aliveConductors(): Promise<string[]> {
        const r = await this.api("GET", "/v1/conductors");
        return r.conductors.filter((c: any) => c.alive).map((c: any) => conductorName(c.hostname)).sort();
    }

    async nodes(): Promise<any[]> {
        return (await this.api("GET", "/v1/nodes?detail=true")).nodes;
    }

    async stop(): Promise<void> {
        await this.apiDaemon?.stop();
        for (const c of this.conductors) await c.daemon?.stop();
        await this.mariadb?.stop();
        for (const p of this.ports.splice(0)) releasePort(p);
    }

    /** Every log this lab's daemons write (for a post-mortem). */
    logFiles(): string[] {
        return [
            path.join(this.logs, "mariadb.log"),
            path.join(this.logs, "api.log"),
            path.join(this.logs, "api.out"),
            ...this.conductors.flatMap((c) => [path.join(this.logs, `conductor-${c.host}.log`), path.join(this.logs, `conductor-${c.host}.out`)]),
        ];
    }

    logTail(name: string, chars = 3000): string {
        const f = path.join(this.logs, name);
        return fs.existsSync(f) ? fs.readFileSync(f, "utf8").slice(-chars) : "";
    }
}

/** The last `lines` lines of a file ("" when it does not exist). */
export function tail(file: string, lines = 30): string {
    if (!fs.existsSync(file)) return "";
    const size = fs.statSync(file).size;
    const len = Math.min(size, 64 * 1024);
    const fd = fs.openSync(file, "r");
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    fs.closeSync(fd);
    return buf.toString("utf8").split("\n").slice(-lines - 1).join("\n");
}

/** Print the tail of each log (those that exist) to stderr. */
export function printLogTails(title: string, files: string[], lines = 30): void {
    const out: string[] = [`\n===== ${title}: tails of the daemons' logs =====`];
    for (const f of files) {
        if (!fs.existsSync(f)) continue;
        out.push(`----- ${f} (last ${lines} lines) -----`, tail(f, lines));
    }
    console.error(out.join("\n"));
}

/** Only PATH and the given variables: a stray OS_* in the runner's environment would beat the files. */
/** Only what a process is given: Ironic's programs from the image's Python environment first on PATH. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    return { PATH: `${path.join(IMAGE_VENV, "bin")}:/usr/sbin:/usr/bin:/sbin:/bin`, ...extra };
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, intervalMs = 250, abort?: () => void): Promise<number> {
    const t0 = Date.now();
    for (;;) {
        let ok = false;
        try {
            ok = await check();
        } catch {
            ok = false;
        }
        if (ok) return Date.now() - t0;
        abort?.();
        if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, intervalMs));
    }
}

/** One HTTP(S) request; with `caFile`, the server certificate must chain to it and match the host. */
export function request(url: string, o: { method?: string; headers?: Record<string, string>; body?: string; caFile?: string; timeoutMs?: number } = {}): Promise<{ status: number; text: string }> {
    const u = new URL(url);
    const mod = u.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
        const req = mod.request(
            u,
            {
                method: o.method ?? "GET",
                headers: { ...(o.headers ?? {}), ...(o.body !== undefined ? { "Content-Length": String(Buffer.byteLength(o.body)) } : {}) },
                ca: u.protocol === "https:" && o.caFile ? fs.readFileSync(o.caFile) : undefined,
                timeout: o.timeoutMs ?? 60000,
                agent: false,
            },
            (res) => {
                const chunks: Buffer[] = [];
                res.on("data", (c: Buffer) => chunks.push(c));
                res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
                res.on("error", reject);
            },
        );
        req.on("timeout", () => req.destroy(new Error(`timeout: ${url}`)));
        req.on("error", reject);
        if (o.body !== undefined) req.write(o.body);
        req.end();
    });
}

/** The SANs of the certificate a TLS server presents (verified against `caFile`), as `DNS:x` / `IP:y`. */
export function peerSans(host: string, port: number, caFile: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
        const s = tls.connect({ host, port, ca: fs.readFileSync(caFile) }, () => {
            const alt = s.getPeerCertificate().subjectaltname ?? "";
            s.end();
            resolve(alt.split(", ").filter(Boolean).map((x) => x.replace(/^IP Address:/, "IP:")));
        });
        s.on("error", reject);
    });
}

/**
 * A test CA made with openssl (the program makes its CA and certificates with @pulumi/tls in a
 * real run). EC P-256 keys: quick to make.
 */
export class TestCa {
    readonly certFile: string;
    private readonly keyFile: string;

    constructor(private readonly dir: string, name = "metal3-ironic test CA") {
        fs.mkdirSync(dir, { recursive: true });
        this.certFile = path.join(dir, "ca.crt");
        this.keyFile = path.join(dir, "ca.key");
        run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", this.keyFile, "-out", this.certFile, "-days", "2", "-subj", `/CN=${name}`, "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]);
    }

    /** The conductor CA as the program issues it (no path length: the tls provider does not encode 0), signed by this CA: `dir`/tls.crt, tls.key. */
    intermediate(dir: string): void {
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, "ext.cnf"), "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign,digitalSignature\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n");
        run("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", path.join(dir, "tls.key"), "-out", path.join(dir, "csr.pem"), "-subj", "/CN=conductor CA"]);
        run("openssl", ["x509", "-req", "-in", path.join(dir, "csr.pem"), "-CA", this.certFile, "-CAkey", this.keyFile, "-CAcreateserial", "-days", "1", "-extfile", path.join(dir, "ext.cnf"), "-out", path.join(dir, "tls.crt")]);
    }

    /** A server (and client) certificate for exactly these SANs, written to `certFile` / `keyFile`. */
    issue(commonName: string, sans: { dnsNames: string[]; ipAddresses: string[] }, certFile: string, keyFile: string): void {
        for (const f of [certFile, keyFile]) fs.mkdirSync(path.dirname(f), { recursive: true });
        const base = path.join(this.dir, commonName.replace(/[^A-Za-z0-9.-]/g, "_"));
        const san = [...sans.dnsNames.map((d) => `DNS:${d}`), ...sans.ipAddresses.map((ip) => `IP:${ip}`)].join(",");
        fs.writeFileSync(`${base}.ext`, `subjectAltName=${san}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n`);
        run("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", `${base}.csr`, "-subj", `/CN=${commonName}`]);
        run("openssl", ["x509", "-req", "-in", `${base}.csr`, "-CA", this.certFile, "-CAkey", this.keyFile, "-CAcreateserial", "-days", "1", "-extfile", `${base}.ext`, "-out", certFile]);
        fs.chmodSync(keyFile, 0o600);
    }
}

/**
 * Per-run TCP ports. Two runs on one machine must never pick the same port, and nothing else may
 * hold it: a port is claimed with a file created exclusively under PORT_DIR (holding the PID; a
 * dead PID's claim is taken over) and checked by binding it on every address that will listen on
 * it. The range lies below the kernel's ephemeral range (32768-60999 on Linux), so no outgoing
 * connection is given a reserved port between the check and the daemon's bind. Each run starts
 * at a PID-derived offset, so parallel runs rarely even look at the same ports.
 */
const PORT_DIR = path.join(os.tmpdir(), "m3i-ports");
const PORT_LOW = 20000;
const PORT_HIGH = 32000;

export async function reservePort(hosts: string[]): Promise<number> {
    fs.mkdirSync(PORT_DIR, { recursive: true, mode: 0o1777 });
    const span = PORT_HIGH - PORT_LOW;
    const start = (process.pid * 7919) % span;
    for (let i = 0; i < span; i++) {
        const port = PORT_LOW + ((start + i) % span);
        if (!claimPort(port)) continue;
        if (await bindable(hosts, port)) return port;
        releasePort(port);
    }
    throw new Error(`no free port in ${PORT_LOW}-${PORT_HIGH} on ${hosts.join(", ")}`);
}

export function releasePort(port: number): void {
    const f = path.join(PORT_DIR, String(port));
    try {
        if (fs.readFileSync(f, "utf8").trim() === String(process.pid)) fs.unlinkSync(f);
    } catch {
        /* already gone */
    }
}

function claimPort(port: number): boolean {
    const f = path.join(PORT_DIR, String(port));
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            fs.writeFileSync(f, `${process.pid}\n`, { flag: "wx" });
            return true;
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        }
        let owner = NaN;
        try {
            owner = Number(fs.readFileSync(f, "utf8").trim());
        } catch {
            continue; // released meanwhile: try again
        }
        if (owner === process.pid || pidAlive(owner)) return false;
        try {
            fs.unlinkSync(f); // a claim of a run that died without cleaning up
        } catch {
            /* someone else took it over first */
        }
    }
    return false;
}

function pidAlive(pid: number): boolean {
    if (!Number.isInteger(pid) || pid <= 0) return false;
    try {
        process.kill(pid, 0);
        return true;
    } catch (e) {
        return (e as NodeJS.ErrnoException).code === "EPERM";
    }
}

function bindable(hosts: string[], port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const servers: net.Server[] = [];
        const done = (ok: boolean) => {
            let open = servers.length;
            if (open === 0) return resolve(ok);
            for (const s of servers) s.close(() => --open === 0 && resolve(ok));
        };
        const next = (i: number) => {
            if (i === hosts.length) return done(true);
            const s = net.createServer();
            s.once("error", () => done(false));
            s.listen({ port, host: hosts[i], exclusive: true }, () => {
                servers.push(s);
                next(i + 1);
            });
        };
        next(0);
    });
}
