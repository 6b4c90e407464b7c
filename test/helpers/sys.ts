/**
 * Helpers for tests that run real programs: process handling by PID, network namespaces the
 * test creates and deletes itself, and prerequisites. In CI (CI set, not "false") a missing prerequisite is
 * a failure, not a skip.
 */
import { strict as assert } from "assert";
import { ChildProcess, execFileSync, spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** Where `cmd` is on `path` (default: this process's PATH), or undefined. */
export function which(cmd: string, path?: string): string | undefined {
    const r = spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8", env: path === undefined ? process.env : { ...process.env, PATH: path } });
    return r.status === 0 ? r.stdout.trim() : undefined;
}

export function isRoot(): boolean {
    return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Whether this is a CI run: CI set to anything but "false" (CI systems say "true", "1", "yes"...). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
    return env.CI !== undefined && env.CI !== "" && env.CI.toLowerCase() !== "false";
}

/** Skip (locally) or fail (in CI: see inCi) when a prerequisite is missing. */
export function requireOrSkip(ctx: Mocha.Context, ok: boolean, what: string): void {
    if (ok) return;
    if (inCi()) throw new Error(`prerequisite missing in CI: ${what} (.ci/run must install it)`);
    ctx.skip();
}

export function tmpDir(prefix: string): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), `m3i-${prefix}-`));
}

export function run(cmd: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; allowFail?: boolean; timeout?: number } = {}) {
    const r = spawnSync(cmd, args, { encoding: "utf8", input: opts.input, env: opts.env ?? process.env, cwd: opts.cwd, timeout: opts.timeout ?? 60000, maxBuffer: 64 * 1024 * 1024 });
    if (!opts.allowFail && r.status !== 0) {
        throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}: ${r.stderr || r.stdout}`);
    }
    return { status: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

/**
 * What this test process started that must not outlive it when it is killed (SIGTERM from npm
 * test's runner or CI's time limit, SIGINT from a terminal, SIGHUP): process groups of daemons,
 * containers and VMs, network namespaces, local clusters. Each is registered when made, and
 * unregistered when its owner stops or deletes it; on such a signal, what is still registered is
 * undone, newest first, and the process exits (mocha's after hooks never run then).
 */
const leftovers = new Map<number, { what: string; undo: () => void }>();
let leftoverId = 0;
let interruptHandlers = false;

export function onInterrupt(what: string, undo: () => void): () => void {
    if (!interruptHandlers) {
        interruptHandlers = true;
        for (const [sig, n] of [["SIGTERM", 15], ["SIGINT", 2], ["SIGHUP", 1]] as const) {
            process.on(sig, () => {
                for (const l of [...leftovers.values()].reverse()) {
                    try {
                        l.undo();
                    } catch (e) {
                        process.stderr.write(`could not undo ${l.what}: ${e}\n`);
                    }
                }
                process.exit(128 + n);
            });
        }
    }
    const id = leftoverId++;
    leftovers.set(id, { what, undo });
    return () => leftovers.delete(id);
}

/** Kill a started process's group (it leads one: setsid, or spawned detached) if the test process is killed first. */
export function trackProcessGroup(proc: ChildProcess, what: string): void {
    const pid = proc.pid;
    if (pid === undefined) return;
    const untrack = onInterrupt(`${what} (pid ${pid})`, () => {
        try {
            process.kill(-pid, "SIGKILL");
        } catch {
            process.kill(pid, "SIGKILL");
        }
    });
    proc.once("exit", untrack);
}

/** A daemon started in its own session (setsid), stopped by its PID. */
export class Daemon {
    readonly proc: ChildProcess;
    constructor(cmd: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv) {
        const out = fs.openSync(logFile, "a");
        this.proc = spawn("setsid", [cmd, ...args], { stdio: ["ignore", out, out], detached: false, env: env ?? process.env });
        fs.closeSync(out);
        trackProcessGroup(this.proc, cmd);
    }
    get pid(): number {
        return this.proc.pid!;
    }
    /** Whether the process is still running. */
    get running(): boolean {
        return this.proc.exitCode === null && this.proc.signalCode === null;
    }

    /** Kill without grace (crash simulation); resolves once it is gone. */
    async kill(): Promise<void> {
        if (!this.running) return;
        const done = new Promise<void>((r) => this.proc.once("exit", () => r()));
        process.kill(this.pid, "SIGKILL");
        await done;
    }

    async stop(): Promise<void> {
        if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
        const done = new Promise<void>((r) => this.proc.once("exit", () => r()));
        try {
            process.kill(this.pid, "SIGTERM");
        } catch {
            return;
        }
        const timer = setTimeout(() => {
            try {
                process.kill(this.pid, "SIGKILL");
            } catch {
                /* gone */
            }
        }, 5000);
        await done;
        clearTimeout(timer);
    }
}

/** Network namespaces and links created by one test, deleted by `destroy`. */
export class NetnsLab {
    private readonly namespaces: { ns: string; untrack: () => void }[] = [];
    private readonly links: string[] = [];
    private readonly tag = `${process.pid % 100000}`;

    /** A unique name with this lab's tag (Linux interface names: max 15 characters). */
    name(base: string): string {
        const n = `${base}${this.tag}`;
        if (n.length > 15) throw new Error(`name too long: ${n}`);
        return n;
    }

    addNamespace(base: string): string {
        const ns = `m3i-${this.name(base)}`;
        execFileSync("ip", ["netns", "add", ns]);
        this.namespaces.push({ ns, untrack: onInterrupt(`network namespace ${ns}`, () => spawnSync("ip", ["netns", "del", ns])) });
        execFileSync("ip", ["-n", ns, "link", "set", "lo", "up"]);
        return ns;
    }

    /**
     * IPv6 in namespace `ns`, before its links are plugged: enabled, and without duplicate address
     * detection (the link-local addresses DHCPv6 clients and servers bind to are usable at once).
     */
    enableIpv6(ns: string): void {
        for (const k of ["all", "default"]) {
            execFileSync("ip", ["netns", "exec", ns, "sysctl", "-qw", `net.ipv6.conf.${k}.disable_ipv6=0`, `net.ipv6.conf.${k}.accept_dad=0`]);
        }
    }

    /** A bridge in namespace `ns` (the "switch" of the provisioning network). */
    addBridge(ns: string, base: string): string {
        const br = this.name(base);
        execFileSync("ip", ["-n", ns, "link", "add", br, "type", "bridge"]);
        execFileSync("ip", ["-n", ns, "link", "set", br, "up"]);
        return br;
    }

    /**
     * A veth pair: one end `inside` in namespace `ns` (optionally with an address and MAC), the
     * other end attached to `bridge` in `bridgeNs`.
     */
    plug(ns: string, inside: string, bridgeNs: string, bridge: string, opts: { cidr?: string; mac?: string; rename?: string } = {}): string {
        let ifname = this.name(inside);
        const peer = this.name(`${inside.slice(0, 3)}p`);
        execFileSync("ip", ["link", "add", ifname, "netns", ns, "type", "veth", "peer", "name", peer, "netns", bridgeNs]);
        if (opts.rename) {
            // Names are per namespace: inside its own namespace the end may carry the name the
            // stack config uses (e.g. eth1) without touching the host's interfaces.
            execFileSync("ip", ["-n", ns, "link", "set", ifname, "name", opts.rename]);
            ifname = opts.rename;
        }
        if (opts.mac) execFileSync("ip", ["-n", ns, "link", "set", ifname, "address", opts.mac]);
        // IPv6: no duplicate address detection, so the address serves at once (a tentative address cannot be bound).
        if (opts.cidr) execFileSync("ip", ["-n", ns, "addr", "add", opts.cidr, "dev", ifname, ...(opts.cidr.includes(":") ? ["nodad"] : [])]);
        execFileSync("ip", ["-n", ns, "link", "set", ifname, "up"]);
        execFileSync("ip", ["-n", bridgeNs, "link", "set", peer, "master", bridge]);
        execFileSync("ip", ["-n", bridgeNs, "link", "set", peer, "up"]);
        return ifname;
    }

    /** An extra address on an interface inside `ns` (e.g. a ClusterIP the namespace answers for). */
    addAddress(ns: string, ifname: string, cidr: string): void {
        execFileSync("ip", ["-n", ns, "addr", "add", cidr, "dev", ifname]);
    }

    /** A host route inside `ns`: `dest` is reached on the link `ifname` (answered by ARP on the bridge). */
    routeOnLink(ns: string, dest: string, ifname: string): void {
        execFileSync("ip", ["-n", ns, "route", "add", dest, "dev", ifname]);
    }

    destroy(): void {
        for (const { ns, untrack } of this.namespaces.reverse()) {
            spawnSync("ip", ["netns", "del", ns]);
            untrack();
        }
        this.namespaces.length = 0;
        this.links.length = 0;
    }
}

/**
 * A rack's router that relays DHCP, as a switch's `ip helper-address` does: a namespace with a leg
 * on the provisioning bridge and one on the rack's bridge, forwarding between them, running real
 * dnsmasq in relay mode (no DHCP server of its own) that forwards every request from the rack to
 * each of `servers`, stamped with its rack address as giaddr. Stopped by PID.
 */
export class DhcpRelay {
    readonly ns: string;
    /** The rack's bridge (in the switch namespace): plug hosts of the relayed subnet here. */
    readonly rackBridge: string;
    private readonly daemon: Daemon;

    constructor(lab: NetnsLab, o: { switchNs: string; provBridge: string; provCidr: string; rackCidr: string; servers: string[]; work: string }) {
        this.ns = lab.addNamespace("rt");
        this.rackBridge = lab.addBridge(o.switchNs, "rk");
        lab.plug(this.ns, "rtp", o.switchNs, o.provBridge, { cidr: o.provCidr });
        lab.plug(this.ns, "rtr", o.switchNs, this.rackBridge, { cidr: o.rackCidr });
        execFileSync("ip", ["netns", "exec", this.ns, "sysctl", "-qw", "net.ipv4.ip_forward=1"]);
        const rackAddr = o.rackCidr.split("/")[0];
        const log = path.join(o.work, `relay-${this.ns}.log`);
        this.daemon = new Daemon(
            "ip",
            ["netns", "exec", this.ns, "dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--port=0", "--log-dhcp", `--log-facility=${log}`, `--pid-file=${path.join(o.work, `relay-${this.ns}.pid`)}`, ...o.servers.map((s) => `--dhcp-relay=${rackAddr},${s}`)],
            `${log}.out`,
        );
    }

    /** The route a node on the provisioning network takes to the rack's subnet: through this router. */
    static routeVia(ns: string, rackSubnet: string, routerProvAddr: string): void {
        execFileSync("ip", ["-n", ns, "route", "replace", rackSubnet, "via", routerProvAddr]);
    }

    async stop(): Promise<void> {
        await this.daemon.stop();
    }
}

export function canUseNetns(): boolean {
    if (!isRoot() || !which("ip")) return false;
    const probe = `m3i-probe${process.pid}`;
    const r = spawnSync("ip", ["netns", "add", probe]);
    if (r.status !== 0) return false;
    spawnSync("ip", ["netns", "del", probe]);
    return true;
}

/** Whether process `pid` exists (signal 0). */
export function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

/**
 * Run ISC dhclient -6 (stateful DHCPv6) once in `ns` on `ifname`, asking for the boot file URL
 * (option 59) and, with `userClass`, sending it as a DHCPv6 user class (option 15, as iPXE sends
 * "iPXE"); `clientArch` sends option 61; `duid` replaces the client's DUID. Returns what its script saw on binding: `ip6_address`,
 * `server_id` (the server's DUID), `bootfile_url`; an empty object when no server answered in
 * `timeout` seconds.
 */
export function dhcp6Client(ns: string, ifname: string, workdir: string, opts: { userClass?: string; clientArch?: number; timeout?: number; duid?: string } = {}): Record<string, string> {
    const id = `${ns}-${ifname}-${opts.userClass ?? ""}-${opts.clientArch ?? ""}-${opts.duid ? "duid" : ""}`;
    const file = (ext: string) => path.join(workdir, `dhclient6-${id}.${ext}`);
    for (const ext of ["leases", "out", "pid"]) fs.rmSync(file(ext), { force: true });
    // dhclient forks into the background once bound: its script writes what it saw to a file.
    fs.writeFileSync(file("sh"), `#!/bin/sh\ncase "$reason" in BOUND6|REBOOT6) { echo "ip6_address=$new_ip6_address"; echo "server_id=$new_dhcp6_server_id"; echo "bootfile_url=$new_dhcp6_bootfile_url"; } > ${file("out")};; esac\nexit 0\n`, { mode: 0o755 });
    const lines = [`timeout ${opts.timeout ?? 10};`, "option dhcp6.bootfile-url code 59 = string;", "option dhcp6.client-arch code 61 = unsigned integer 16;", "also request dhcp6.bootfile-url;"];
    if (opts.userClass) {
        // RFC 8415 user class: a 2-byte length, then the bytes.
        const hex = [0, opts.userClass.length, ...Buffer.from(opts.userClass)].map((b) => b.toString(16).padStart(2, "0")).join(":");
        lines.push("option dhcp6.user-class-raw code 15 = string;", `send dhcp6.user-class-raw ${hex};`);
    }
    if (opts.clientArch !== undefined) lines.push(`send dhcp6.client-arch ${opts.clientArch};`);
    // A DUID of the client's choice (hex bytes), e.g. a DUID-EN that carries no MAC address.
    if (opts.duid) lines.push(`send dhcp6.client-id ${opts.duid};`);
    fs.writeFileSync(file("conf"), lines.join("\n") + "\n");
    const args = ["netns", "exec", ns, "dhclient", "-6", "-1", "-v", "-cf", file("conf"), "-lf", file("leases"), "-pf", file("pid"), "-sf", file("sh"), ifname];
    const r = spawnSync("ip", args, { encoding: "utf8", timeout: ((opts.timeout ?? 10) + 20) * 1000 });
    // Bound, it forks into the background and writes its pid file from there, possibly after this
    // returned (two suites at once left such clients running): wait (3 s) for a live pid, stop it.
    if (fs.existsSync(file("out"))) {
        const end = Date.now() + 3000;
        for (;;) {
            const pid = fs.existsSync(file("pid")) ? Number(fs.readFileSync(file("pid"), "utf8").trim()) : 0;
            if (pid > 0 && alive(pid)) {
                process.kill(pid, "SIGTERM");
                break;
            }
            if (Date.now() > end) break;
            spawnSync("sleep", ["0.05"]);
        }
    }
    const out: Record<string, string> = {};
    for (const line of (fs.existsSync(file("out")) ? fs.readFileSync(file("out"), "utf8") : "").split("\n")) {
        const m = /^([a-z_0-9]+)=(.*)$/.exec(line);
        if (m && m[2] !== "") out[m[1]] = m[2];
    }
    Object.defineProperty(out, "log", { value: `${r.stdout ?? ""}${r.stderr ?? ""}`, enumerable: false });
    return out;
}

/**
 * Run busybox udhcpc once in `ns` on `ifname`; returns the lease variables the client's script
 * saw (empty object when no lease was offered).
 */
export function dhcpClient(ns: string, ifname: string, workdir: string, sendOptions: string[] = []): Record<string, string> {
    const script = path.join(workdir, "udhcpc-script.sh");
    if (!fs.existsSync(script)) {
        fs.writeFileSync(script, '#!/bin/sh\nif [ "$1" = bound ]; then env | grep -E "^(ip|subnet|router|dns|siaddr|boot_file|serverid|lease|bootfile|sname|mask|tftp)=" ; fi\n', { mode: 0o755 });
    }
    const args = ["netns", "exec", ns, "busybox", "udhcpc", "-i", ifname, "-f", "-q", "-n", "-t", "3", "-T", "2", "-s", script, "-O", "66", "-O", "67"];
    for (const x of sendOptions) args.push("-x", x);
    const r = spawnSync("ip", args, { encoding: "utf8", timeout: 30000 });
    const lease: Record<string, string> = {};
    for (const line of (r.stdout ?? "").split("\n")) {
        const m = /^([a-z_0-9]+)=(.*)$/.exec(line);
        if (m) lease[m[1]] = m[2];
    }
    return lease;
}

/**
 * The local cluster's API as pods on a test network reach it: a listener at `ip:port` inside
 * network namespace `ns`, each connection carried by socat (entering this process's network
 * namespace through nsenter) to the API server on this machine's loopback. Use 10.96.0.1:443:
 * that address is in the local cluster's serving certificate, as KUBERNETES_SERVICE_HOST's
 * ClusterIP is in a real one. Stopped by its process group.
 */
export class ApiBridge {
    private readonly daemon: Daemon;

    constructor(ns: string, ip: string, port: number, apiPort: number, logFile: string) {
        // socat splits its own address arguments on ':' and ',': the upstream command lives in a script.
        const upstream = `${logFile}.upstream.sh`;
        fs.writeFileSync(upstream, `#!/bin/sh\nexec nsenter --net=/proc/${process.pid}/ns/net socat STDIO TCP:127.0.0.1:${apiPort}\n`, { mode: 0o755 });
        this.daemon = new Daemon("ip", ["netns", "exec", ns, "socat", `TCP-LISTEN:${port},bind=${ip},reuseaddr,fork`, `EXEC:${upstream}`], logFile);
    }

    async stop(): Promise<void> {
        try {
            process.kill(-this.daemon.pid, "SIGTERM");
        } catch {
            /* gone */
        }
        await this.daemon.stop();
    }
}

/** The local addresses listening on TCP `port` in namespace `ns` (`ss`), sorted: `ip:port`, `[ipv6]:port`, or `*:port` for a wildcard. */
export function tcpListeners(ns: string, port: number): string[] {
    const out = run("ip", ["netns", "exec", ns, "ss", "-ltnH", `sport = :${port}`], { allowFail: true }).stdout;
    return out.split("\n").filter((l) => l.trim()).map((l) => l.trim().split(/\s+/)[3]).sort();
}

/** A listener of tcpListeners bound to every address (`*`, `[::]` or `0.0.0.0`). */
export const onEveryAddress = (listener: string): boolean => /^(\*|\[::\]|0\.0\.0\.0):/.test(listener);

/** Asserts that a TCP connection from inside `ns` to `ip`:`port` is refused (nothing listens on that address). */
export function assertRefused(ns: string, ip: string, port: number, label: string): void {
    const r = run("ip", ["netns", "exec", ns, "timeout", "10", "bash", "-c", `exec 3<>/dev/tcp/${ip}/${port}`], { allowFail: true });
    assert.notEqual(r.status, 0, `${label}: ${ip}:${port} accepted a connection`);
    assert.match(r.stderr, /Connection refused/, `${label}: ${ip}:${port} refused (${r.stderr.trim()})`);
}
