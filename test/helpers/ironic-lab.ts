/**
 * Real multi-conductor Ironic from Debian's packages for integration tests (facts:
 * ../shared/reference/ironic-on-debian.md): MariaDB on loopback, an API and N conductors on
 * loopback aliases with one JSON-RPC port, every process started with setsid and stopped by PID.
 */
import * as bcrypt from "bcryptjs";
import * as fs from "fs";
import * as path from "path";

import { htpasswdLine } from "../../components/credentials";
import { Daemon, run } from "./sys";

export interface LabConductor {
    /** [DEFAULT]host: the conductor's hash-ring name and JSON-RPC address. */
    host: string;
    dir: string;
    /** Environment of this conductor (the program's OS_* settings, paths remapped). */
    env: Record<string, string>;
    /** Extra per-conductor ini settings, [section] → key → value. */
    ini: Record<string, Record<string, string>>;
    daemon?: Daemon;
}

export interface LabOptions {
    work: string;
    jsonRpcPort: number;
    api: { username: string; password: string };
    rpc: { username: string; password: string };
    /** OS_* settings for the API process. */
    apiEnv: Record<string, string>;
}

const DB_PORT = 3307;
const API = "http://127.0.0.1:6385";

function ini(sections: Record<string, Record<string, string>>): string {
    return (
        Object.entries(sections)
            .map(([s, kv]) => `[${s}]\n` + Object.entries(kv).map(([k, v]) => `${k} = ${v}`).join("\n"))
            .join("\n\n") + "\n"
    );
}

export class IronicLab {
    readonly conductors: LabConductor[] = [];
    private mariadb?: Daemon;
    private apiDaemon?: Daemon;
    private readonly etc: string;
    private readonly logs: string;

    constructor(private readonly o: LabOptions) {
        this.etc = path.join(o.work, "etc");
        this.logs = path.join(o.work, "logs");
        for (const d of [this.etc, this.logs, path.join(o.work, "images"), path.join(o.work, "run"), path.join(o.work, "db")]) fs.mkdirSync(d, { recursive: true });
    }

    addConductor(host: string, env: Record<string, string>, extraIni: Record<string, Record<string, string>>): LabConductor {
        const dir = path.join(this.o.work, `c-${host}`);
        fs.mkdirSync(dir, { recursive: true });
        const c: LabConductor = { host, dir, env, ini: extraIni };
        this.conductors.push(c);
        return c;
    }

    async startDatabase(): Promise<void> {
        fs.chmodSync(this.o.work, 0o755);
        run("chown", ["mysql:mysql", path.join(this.o.work, "db"), path.join(this.o.work, "run")]);
        run("mariadb-install-db", ["--no-defaults", "--user=mysql", `--datadir=${path.join(this.o.work, "db")}`, "--auth-root-authentication-method=normal", "--skip-test-db"]);
        const sock = path.join(this.o.work, "run", "mysql.sock");
        this.mariadb = new Daemon(
            "mariadbd",
            ["--no-defaults", "--user=mysql", `--datadir=${path.join(this.o.work, "db")}`, "--bind-address=127.0.0.1", `--port=${DB_PORT}`, `--socket=${sock}`, `--pid-file=${path.join(this.o.work, "run", "mysql.pid")}`, "--skip-name-resolve", "--innodb-buffer-pool-size=64M"],
            path.join(this.logs, "mariadb.log"),
        );
        await until(() => run("mariadb-admin", ["--no-defaults", "-S", sock, "-uroot", "ping"], { allowFail: true }).status === 0, 30000, "mariadb up");
        run("mariadb", ["--no-defaults", "-S", sock, "-uroot"], {
            input: "CREATE DATABASE ironic CHARACTER SET utf8mb3; CREATE USER 'ironic'@'127.0.0.1' IDENTIFIED BY 'ironicpw'; GRANT ALL ON ironic.* TO 'ironic'@'127.0.0.1';",
        });
    }

    /** Shared configuration: fake hardware, pxe/ipxe boot, ramdisk deploy, dnsmasq DHCP provider, JSON-RPC with basic auth. */
    writeConfig(): void {
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
                database: { connection: `mysql+pymysql://ironic:ironicpw@127.0.0.1:${DB_PORT}/ironic?charset=utf8` },
                api: { host_ip: "127.0.0.1", port: "6385" },
                conductor: { automated_clean: "false", file_url_allowed_paths: images },
                service_catalog: { endpoint_override: API },
                json_rpc: {
                    auth_strategy: "http_basic",
                    http_basic_auth_user_file: path.join(this.etc, "htpasswd-rpc"),
                    auth_type: "http_basic",
                    username: this.o.rpc.username,
                    password: this.o.rpc.password,
                    port: String(this.o.jsonRpcPort),
                },
            }),
        );
        fs.writeFileSync(path.join(this.etc, "api.conf"), ini({ DEFAULT: { host: "api", log_file: path.join(this.logs, "api.log") }, oslo_concurrency: { lock_path: path.join(this.o.work, "api-locks") } }));
        for (const c of this.conductors) {
            for (const d of ["tmp", "tftp", "tftp/master_images", "images", "instance_master", "http", "locks"]) fs.mkdirSync(path.join(c.dir, d), { recursive: true });
            const sections: Record<string, Record<string, string>> = {
                DEFAULT: { host: c.host, log_file: path.join(this.logs, `conductor-${c.host}.log`), tempdir: path.join(c.dir, "tmp") },
                json_rpc: { host_ip: c.host },
                pxe: { tftp_root: path.join(c.dir, "tftp"), tftp_master_path: path.join(c.dir, "tftp", "master_images"), images_path: path.join(c.dir, "images"), instance_master_path: path.join(c.dir, "instance_master") },
                deploy: { http_root: path.join(c.dir, "http") },
                oslo_concurrency: { lock_path: path.join(c.dir, "locks") },
            };
            for (const [s, kv] of Object.entries(c.ini)) sections[s] = { ...(sections[s] ?? {}), ...kv };
            fs.writeFileSync(path.join(c.dir, "conductor.conf"), ini(sections));
        }
    }

    dbsync(): void {
        const conf = ["--config-file", path.join(this.etc, "common.conf")];
        run("ironic-dbsync", [...conf, "upgrade"], { env: cleanEnv({}), timeout: 180000 });
        run("ironic-dbsync", [...conf, "online_data_migrations"], { env: cleanEnv({}), timeout: 180000 });
    }

    startApi(): void {
        this.apiDaemon = new Daemon(
            "ironic-api",
            ["--config-file", path.join(this.etc, "common.conf"), "--config-file", path.join(this.etc, "api.conf")],
            path.join(this.logs, "api.out"),
            cleanEnv(this.o.apiEnv),
        );
    }

    startConductor(c: LabConductor): void {
        c.daemon = new Daemon(
            "ironic-conductor",
            ["--config-file", path.join(this.etc, "common.conf"), "--config-file", path.join(c.dir, "conductor.conf")],
            path.join(this.logs, `conductor-${c.host}.out`),
            cleanEnv(c.env),
        );
    }

    async api(method: string, p: string, body?: unknown): Promise<any> {
        const auth = Buffer.from(`${this.o.api.username}:${this.o.api.password}`).toString("base64");
        const res = await fetch(API + p, {
            method,
            headers: { "X-OpenStack-Ironic-API-Version": "1.82", "Content-Type": "application/json", Authorization: `Basic ${auth}` },
            body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status} ${text}`);
        return text ? JSON.parse(text) : undefined;
    }

    async aliveConductors(): Promise<string[]> {
        const r = await this.api("GET", "/v1/conductors");
        return r.conductors.filter((c: any) => c.alive).map((c: any) => c.hostname).sort();
    }

    async nodes(): Promise<any[]> {
        return (await this.api("GET", "/v1/nodes?detail=true")).nodes;
    }

    async stop(): Promise<void> {
        await this.apiDaemon?.stop();
        for (const c of this.conductors) await c.daemon?.stop();
        await this.mariadb?.stop();
    }

    logTail(name: string, chars = 3000): string {
        const f = path.join(this.logs, name);
        return fs.existsSync(f) ? fs.readFileSync(f, "utf8").slice(-chars) : "";
    }
}

/** Only PATH and the given variables: a stray OS_* in the runner's environment would beat the files. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
    return { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", ...extra };
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, intervalMs = 250): Promise<number> {
    const t0 = Date.now();
    for (;;) {
        let ok = false;
        try {
            ok = await check();
        } catch {
            ok = false;
        }
        if (ok) return Date.now() - t0;
        if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, intervalMs));
    }
}
