/**
 * Multi-conductor DHCP end to end with real Ironic (Debian's ironic-api/ironic-conductor on
 * MariaDB): 3 conductors and the API run with the program's own OS_* settings (failover timing,
 * dnsmasq DHCP provider, iPXE firmware names) and JSON-RPC over TLS with basic auth, each
 * conductor holding its own certificate with the SANs the program issues; one real dnsmasq per
 * conductor runs the program's rendered per-node config in a network namespace; the program's
 * pruner runs beside each, reading the API over TLS; DHCP clients ask for every MAC. Ironic runs
 * on loopback aliases with per-run ports (two runs may share the machine); DHCP stays inside the
 * namespaces this test creates and deletes. On a failure the daemons' log tails are printed;
 * KEEP_WORK=1 keeps the work directory.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { nodeCertificateSans } from "../../core/plan/certificates";
import { readAsset } from "../../core/render/assets";
import { IPXE_FILES, PATHS } from "../../core/contract";
import { DnsmasqOptions, renderDnsmasqConf } from "../../core/render/dnsmasq";
import { ipToNumber } from "../../core/ip";
import { buildPlan, dhcpSlotsOf, ListedConductor, listedConductors } from "../../core/plan";
import { slotConfKey } from "../../core/names";
import { PRUNER_ENV } from "../../core/contract";
import { renderPrunerScript } from "../../core/render/pruner";
import { renderOffline, readStackConfig } from "../../tools/render";
import { conductorName, IronicLab, LabConductor, LabTls, peerSans, printLogTails, request, TestCa, until } from "../helpers/ironic-lab";
import { canUseNetns, Daemon, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";
import { IMAGE_VENV, IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { SCRIPT_FILES } from "../../core/scripts";
import { configOf, multiOf } from "../helpers/plan";

const NODES = 12;
const macOf = (i: number) => `52:54:00:00:01:${String(i).padStart(2, "0")}`;
/**
 * Node i's UUID, try `attempt`: the same node index in the last group, the attempt in the fourth.
 * Ironic 38 registers a conductor as host:port when [json_rpc]port is not 8089, and this suite's
 * port is reserved per run, so the ring (and which conductor owns a fixed UUID) changes from run to
 * run: fixed UUIDs once left a conductor without any of 15 nodes (CI, 6/9/0). Node i is enrolled
 * under the first UUID the API hashes to conductor (i - 1) mod 3 (`enrollOwnedBy`).
 */
const uuidOf = (i: number, attempt: number) => `6c7b3a10-5e1d-4f00-${(0x8000 + attempt).toString(16)}-0000000000${String(i).padStart(2, "0")}`;
/**
 * Nodes after the first NODES, with an architecture and a boot mode, and the firmware a PXE ROM
 * must be pointed at: a file the TFTP root really holds. Ironic 21.4 looks up cpu_arch in
 * [pxe]ipxe_bootfile_name_by_arch first, then takes the UEFI or BIOS name by boot mode
 * (properties/capabilities boot_mode; default uefi).
 */
const FIRMWARE_NODES: { properties: Record<string, string>; firmware: string }[] = [
    { properties: { cpu_arch: "x86_64", capabilities: "boot_mode:uefi" }, firmware: IPXE_FILES.efiX86_64 },
    { properties: { cpu_arch: "aarch64", capabilities: "boot_mode:uefi" }, firmware: IPXE_FILES.efiArm64 },
    { properties: { cpu_arch: "x86_64", capabilities: "boot_mode:bios" }, firmware: IPXE_FILES.bios },
];
/** The host's loopback alias standing in for conductor i's node IP: its [DEFAULT]host, which peers dial. */
const hostOf = (i: number) => `127.0.0.${11 + i}`;

interface Member {
    conductor: LabConductor;
    plan: ListedConductor;
    ns: string;
    dnsmasq?: Daemon;
    pruner?: Daemon;
    log: string;
    /** Stopped for good (a replaced node): its conductor, dnsmasq and pruner are gone. */
    retired?: boolean;
}

/**
 * Three hosts to join one after another, replacing oldHosts[0..2] in turn, such that at each join
 * Ironic's ring gives the joining host at least one of `uuids`: the hash ring Ironic builds (tooz's
 * HashRing over the registered names `<host>:<port>`, md5 as [DEFAULT]hash_ring_algorithm's default
 * for this lab, 2^5 partitions), run in the image's Python environment. Candidates: loopback aliases
 * 127.0.0.14-127.0.0.60 not used by the lab.
 */
function pickJoiningHosts(oldHosts: string[], uuids: string[], port: number): string[] {
    const script = [
        "import json, sys",
        "from tooz import hashring",
        "old, uuids, port = json.loads(sys.argv[1])",
        "name = lambda h: '%s:%d' % (h, port)",
        "owner = lambda hosts, u: hashring.HashRing({name(h) for h in hosts}, partitions=2 ** 5, hash_function='md5').get_nodes(u.encode()).pop()",
        "live, picked = list(old), []",
        "for i in range(3):",
        "    for n in range(14, 61):",
        "        c = '127.0.0.%d' % n",
        "        if c in old or c in picked: continue",
        "        if any(owner(live + [c], u) == name(c) for u in uuids): break",
        "    else: sys.exit('no candidate host gets an active node at step %d' % (i + 1))",
        "    picked.append(c); live = [h for h in live + [c] if h != old[i]]",
        "print(json.dumps(picked))",
    ].join("\n");
    const r = run(path.join(IMAGE_VENV, "bin", "python"), ["-c", script, JSON.stringify([oldHosts, uuids, port])]);
    return JSON.parse(r.stdout);
}

describe("multi-conductor DHCP with real Ironic: owner-only answers, failover, pruning", function () {
    this.timeout(900000);
    const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));
    const config = configOf(haRaw);
    const plan = buildPlan(config);
    const net = new NetnsLab();
    let work = "";
    let lab: IronicLab;
    let ca: TestCa;
    const members: Member[] = [];
    let clientNs = "";
    let clientIf = "";
    const nodeUuid: Record<string, string> = {}; // mac -> uuid
    let prunerEnv: Record<string, string> = {};
    /** What every conductor is made from (set up in before(), reused for conductors added later). */
    const made = { osEnv: {} as Record<string, string>, certSans: [] as string[], minter: "", conductorCaDir: "" };
    /** The provisioning network's switch: its namespace, bridge and prefix length. */
    const provisioningNet = { sw: "", br: "", prefix: "" };
    const t0 = Date.now();
    const stamp = (msg: string) => console.log(`      [${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${msg}`);
    /** Generous waits for start-up: a second suite on the same 2 cores doubles the load. */
    const START = 240000;

    /** The program's container paths (/shared, /certs), moved into a process's own directory. */
    const remap = (value: string, dir: string) => {
        for (const root of ["/shared/", "/certs/"]) if (value.startsWith(root)) return path.join(dir, root.slice(1), value.slice(root.length));
        return value;
    };
    /** Server certificate and CA where the image reads them, under `dir` (the pod mounts them there). */
    const tlsFilesIn = (dir: string): LabTls => ({
        certFile: remap(`${PATHS.certsIronic}/tls.crt`, dir),
        keyFile: remap(`${PATHS.certsIronic}/tls.key`, dir),
        caFile: remap(`${PATHS.certsIronicCa}/tls.crt`, dir),
    });
    const logFiles = () => [
        ...(lab?.logFiles() ?? []),
        ...members.flatMap((m) => [m.log, path.join(m.conductor.dir, "dnsmasq.out"), path.join(m.conductor.dir, "pruner.log")]),
    ];
    const postMortem = (what: string) => {
        printLogTails(what, logFiles(), 40);
        console.error(work && process.env.KEEP_WORK === "1" ? `work directory kept: ${work}` : `work directory ${work} is removed after the suite; KEEP_WORK=1 keeps it`);
    };

    before(async function () {
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        requireOrSkip(this, !!which("mariadbd") && !!which("dnsmasq") && !!which("busybox") && !!which("openssl"), "mariadb-server, dnsmasq, busybox, openssl");
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        work = tmpDir("ironic-ha");
        try {
            await setUp();
        } catch (e) {
            postMortem(`set-up failed (${(e as Error).message.split("\n")[0]})`);
            throw e;
        }
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") postMortem(`"${this.currentTest.title}" failed`);
    });

    async function setUp() {
        // The program's own settings, from the rendered DaemonSet.
        const rendered = await renderOffline(haRaw, "ha");
        const pod = rendered.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec;
        const envOf = (name: string) => Object.fromEntries(pod.containers.find((c: any) => c.name === name).env.filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value])) as Record<string, string>;
        const ironicEnv = envOf("ironic");
        const osEnv = Object.fromEntries(Object.entries(ironicEnv).filter(([k]) => k.startsWith("OS_")));
        prunerEnv = envOf("dhcp-pruner");
        assert.equal(osEnv.OS_DHCP__DHCP_PROVIDER, "dnsmasq");
        assert.ok(osEnv.OS_CONDUCTOR__HEARTBEAT_TIMEOUT, "failover timing comes from the program");
        assert.equal(ironicEnv.IRONIC_EXPOSE_JSON_RPC, "true");

        // JSON-RPC over TLS as the pod runs it: a stack CA (here a test CA made with openssl), the
        // conductor CA it signs, one certificate per node minted from it by conductor-cert.py with
        // the SANs the rendered pod passes (CONDUCTOR_CERT_SANS), written where the image
        // reads them (/certs/ironic/tls.{crt,key} → [ssl]cert_file/key_file; /certs/ca/ironic/tls.crt
        // → [json_rpc]cafile; [json_rpc]use_ssl). The node's IP is played by its loopback alias.
        ca = new TestCa(path.join(work, "ca"));
        const conductorCaDir = path.join(work, "conductor-ca");
        ca.intermediate(conductorCaDir);
        const minter = path.join(work, SCRIPT_FILES.certMinter);
        fs.writeFileSync(minter, readAsset(SCRIPT_FILES.certMinter));
        Object.assign(made, { osEnv, certSans: ironicEnv.CONDUCTOR_CERT_SANS.split(" "), minter, conductorCaDir });
        const apiDir = path.join(work, "api");
        const apiTls = tlsFilesIn(apiDir);
        ca.issue("ironic-api", { dnsNames: [], ipAddresses: ["127.0.0.1"] }, apiTls.certFile, apiTls.keyFile);
        fs.mkdirSync(path.dirname(apiTls.caFile), { recursive: true });
        fs.copyFileSync(ca.certFile, apiTls.caFile);

        lab = new IronicLab({
            work,
            api: { username: "metal3", password: "api-password-from-the-test" },
            rpc: { username: "ironic-rpc", password: "rpc-password-from-the-test" },
            apiEnv: Object.fromEntries(Object.entries(osEnv).map(([k, v]) => [k, remap(v, apiDir)])),
            apiTls,
        });
        const authDir = path.join(work, "etc", "api-auth");
        fs.mkdirSync(authDir, { recursive: true });
        fs.writeFileSync(path.join(authDir, "username"), "metal3");
        fs.writeFileSync(path.join(authDir, "password"), "api-password-from-the-test");

        // Conductor N ↔ the plan's node N: hash-ring host on a loopback alias; DHCP/HTTP address = the plan's IP.
        listedConductors(plan).forEach((c, i) => {
            const p = prepareConductor(c, hostOf(i));
            const conductor = lab.addConductor(hostOf(i), p.env, p.ini, p.tls);
            members.push({ conductor, plan: c, ns: "", log: path.join(p.dir, "dnsmasq.log") });
        });

        await lab.startDatabase();
        await lab.writeConfig();
        lab.dbsync();
        stamp(`schema created (MariaDB on port ${lab.dbPort}; API ${lab.apiUrl}; JSON-RPC port ${lab.jsonRpcPort})`);
        lab.startApi();
        for (const m of members) lab.startConductor(m.conductor);
        await lab.untilRunning(async () => (await lab.aliveConductors()).length === 3, START, "API and 3 conductors alive", 500);
        stamp(`API and conductors alive: ${(await lab.aliveConductors()).join(", ")}`);
        // A conductor registers its hardware types after it is alive, and the API hashes nodes with
        // a ring it caches for hash_ring_reset_interval: enrolled before all three registered
        // fake-hardware, or while an older ring is in use, every node maps to two of them, and
        // enrollOwnedBy below would find no UUID for the third. Wait for the registrations, then for
        // any older ring to expire.
        let fakeHosts: string[] = [];
        await until(async () => (fakeHosts = (await lab.api("GET", "/v1/drivers")).drivers.find((d: any) => d.name === "fake-hardware")?.hosts ?? []).length === 3, START, "fake-hardware registered by all 3 conductors", 500);
        await new Promise((r) => setTimeout(r, (Number(made.osEnv.OS_DEFAULT__HASH_RING_RESET_INTERVAL) + 1) * 1000));
        stamp(`fake-hardware on ${fakeHosts.map(conductorName).sort().join(", ")}; hash_ring_reset_interval (${made.osEnv.OS_DEFAULT__HASH_RING_RESET_INTERVAL} s) passed since`);

        // Nodes with pxe-enabled ports, deployed with ipxe boot + ramdisk deploy (writes DHCP files).
        const img = (f: string) => `file://${path.join(work, "images", f)}`;
        for (let i = 1; i <= NODES + FIRMWARE_NODES.length; i++) {
            const node = await enrollOwnedBy(members[(i - 1) % members.length].conductor.host, (attempt) => ({
                uuid: uuidOf(i, attempt),
                name: `node-${String(i).padStart(2, "0")}`,
                driver: "fake-hardware",
                boot_interface: "ipxe",
                deploy_interface: "ramdisk",
                driver_info: { deploy_kernel: img("kernel"), deploy_ramdisk: img("ramdisk") },
                instance_info: { kernel: img("kernel"), ramdisk: img("ramdisk") },
                ...(i > NODES ? { properties: FIRMWARE_NODES[i - NODES - 1].properties } : {}),
            }));
            await lab.api("POST", "/v1/ports", { node_uuid: node.uuid, address: macOf(i), pxe_enabled: true });
            nodeUuid[macOf(i)] = node.uuid;
        }
        await moveAll("manage", "manageable");
        await moveAll("provide", "available");
        await moveAll("active", "active");
        stamp(`${Object.keys(nodeUuid).length} nodes active; owners: ${JSON.stringify(await ownerCounts())}`);

        // The provisioning network: one bridge, one namespace per conductor, one for the host.
        provisioningNet.sw = net.addNamespace("sw");
        provisioningNet.br = net.addBridge(provisioningNet.sw, "br");
        provisioningNet.prefix = plan.provisioning.cidr.split("/")[1];
        const { sw, br } = provisioningNet;
        members.forEach((m, i) => startDnsmasq(m, i));
        clientNs = net.addNamespace("bm");
        clientIf = net.plug(clientNs, "bm", sw, br, { mac: macOf(1) });
        for (const m of members) await untilListening(m);
        fs.writeFileSync(path.join(work, "pruner.py"), renderPrunerScript());
    }

    /**
     * A conductor's files as the pod has them: its directory, the program's OS_* settings with
     * paths moved into it, its certificate minted as the pod's wrapper mints it (conductor-cert.py,
     * from the conductor CA, for its node and address), its per-node ini, the DHCP provider's dirs.
     */
    function prepareConductor(c: ListedConductor, host: string) {
        const dir = path.join(work, `c-${host}`);
        const env = Object.fromEntries(Object.entries(made.osEnv).map(([k, v]) => [k, remap(v, dir)]));
        const files = tlsFilesIn(dir);
        // The shared SANs, then the node's own (its conductors[].external hosts), as the wrapper passes them.
        const own = nodeCertificateSans(plan, c.node, host);
        const ownWords = [...own.dnsNames.map((d) => `DNS:${d}`), ...own.ipAddresses.map((ip) => `IP:${ip}`)].filter((w) => w !== `DNS:${c.node}` && w !== `IP:${host}` && !made.certSans.includes(w));
        run("/usr/bin/python3", [made.minter, made.conductorCaDir, path.dirname(files.certFile), c.node, host, ...made.certSans, ...ownWords]);
        fs.mkdirSync(path.dirname(files.caFile), { recursive: true });
        fs.copyFileSync(ca.certFile, files.caFile);
        for (const k of ["OS_DNSMASQ__DHCP_HOSTSDIR", "OS_DNSMASQ__DHCP_OPTSDIR"]) fs.mkdirSync(env[k], { recursive: true });
        const ini = { pxe: { tftp_server: c.ip! }, deploy: { http_url: `http://${c.ip}:${plan.ports.http}` } };
        return { dir, env, ini, tls: files };
    }

    /** Member i's namespace on the provisioning switch and its dnsmasq (the rendered per-node config, the file of the slot it holds). */
    function startDnsmasq(m: Member, i: number) {
        const { sw, br, prefix } = provisioningNet;
        m.ns = net.addNamespace(`i${i}`);
        net.plug(m.ns, `d${i}`, sw, br, { cidr: `${m.plan.ip}/${prefix}`, rename: m.plan.interface });
        const dir = m.conductor.dir;
        const o = m.plan.resolved!.dnsmasq!.dnsmasqOptions as DnsmasqOptions;
        const conf = renderDnsmasqConf({
            ...o,
            tftpRoot: path.join(dir, "tftp"),
            leaseFile: remap(o.leaseFile!, dir),
            knownHostsOnly: { hostsDir: remap(o.knownHostsOnly!.hostsDir, dir), optsDir: remap(o.knownHostsOnly!.optsDir, dir) },
        });
        fs.writeFileSync(path.join(dir, "dnsmasq.conf"), conf);
        // The range: the file of the slot the conductor holds (its preferred one, as on a first run; a joining node's is the free one).
        fs.writeFileSync(path.join(dir, "slot.conf"), multiOf(plan).slotDnsmasqConfs[slotConfKey(m.plan.slot!.index)]);
        m.dnsmasq = new Daemon("ip", ["netns", "exec", m.ns, "dnsmasq", "--keep-in-foreground", `--conf-file=${path.join(dir, "dnsmasq.conf")}`, `--conf-file=${path.join(dir, "slot.conf")}`, "--user=root", "--no-ping", `--pid-file=${path.join(dir, "dnsmasq.pid")}`, `--log-facility=${m.log}`], path.join(dir, "dnsmasq.out"));
    }

    async function untilListening(m: Member) {
        await until(() => /:67\b/.test(run("ip", ["netns", "exec", m.ns, "ss", "-lun"], { allowFail: true }).stdout), 60000, "dnsmasq listening", 250, () => {
            if (!m.dnsmasq!.running) throw new Error(`dnsmasq of ${m.conductor.host} exited`);
        });
    }

    after(async function () {
        for (const m of members) {
            await m.pruner?.stop();
            await m.dnsmasq?.stop();
        }
        if (lab) await lab.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    /**
     * Enrolls a node under the first UUID the API hashes to `host` (its `conductor` field, the ring
     * the API routes with); a node created under another UUID is deleted before the next try. Each
     * try lands on `host` with its share of the ring, so 200 tries leave a miss only to a broken ring.
     */
    async function enrollOwnedBy(host: string, body: (attempt: number) => Record<string, unknown>): Promise<any> {
        const seen: string[] = [];
        for (let attempt = 0; attempt < 200; attempt++) {
            const node = await lab.api("POST", "/v1/nodes", body(attempt));
            if (conductorName(node.conductor) === host) return node;
            seen.push(conductorName(node.conductor));
            await lab.api("DELETE", `/v1/nodes/${node.uuid}`);
        }
        throw new Error(`no UUID of 200 hashed to ${host}; the API chose ${[...new Set(seen)].join(", ")}`);
    }

    async function moveAll(target: string, state: string) {
        const nodes = await lab.nodes();
        for (const n of nodes) await lab.api("PUT", `/v1/nodes/${n.uuid}/states/provision`, { target });
        await lab.untilRunning(async () => (await lab.nodes()).every((n) => n.provision_state === state), START, `all nodes ${state}`, 500);
    }

    async function owners(): Promise<Record<string, string>> {
        const byUuid = Object.fromEntries((await lab.nodes()).map((n) => [n.uuid, n]));
        return Object.fromEntries(Object.entries(nodeUuid).map(([mac, uuid]) => [mac, conductorName(byUuid[uuid].conductor)]));
    }
    async function ownerCounts(): Promise<Record<string, number>> {
        const counts: Record<string, number> = {};
        for (const o of Object.values(await owners())) counts[o] = (counts[o] ?? 0) + 1;
        return counts;
    }
    const member = (host: string) => members.find((m) => m.conductor.host === host)!;

    function startPruners() {
        for (const m of members) startPruner(m);
    }
    function startPruner(m: Member) {
        const env: Record<string, string> = {
            PATH: "/usr/sbin:/usr/bin:/sbin:/bin",
            ...Object.fromEntries(Object.entries(prunerEnv).filter(([k]) => k.startsWith("PRUNER_")).map(([k, v]) => [k, remap(v, m.conductor.dir)])),
            // The pod's pruner dials the Service URL; here the API's loopback address, over TLS
            // verified with the CA at the pod's path (remapped above).
            [PRUNER_ENV.apiUrl]: lab.apiUrl,
            [PRUNER_ENV.authDir]: path.join(work, "etc", "api-auth"),
            [PRUNER_ENV.conductorHost]: m.conductor.host,
        };
        assert.ok(env[PRUNER_ENV.apiUrl].startsWith("https://") && env[PRUNER_ENV.caFile] === m.conductor.tls!.caFile, "the pruner verifies the API with the CA the pod mounts");
        m.pruner = new Daemon("/usr/bin/python3", [path.join(work, "pruner.py")], path.join(m.conductor.dir, "pruner.log"), env);
    }

    /** Active host entries per MAC across the hostsdirs of all conductors (`of`: the members still in service). */
    function activeEntries(of: Member[] = members.filter((m) => !m.retired)): Record<string, string[]> {
        const out: Record<string, string[]> = {};
        for (const m of of) {
            const dir = m.conductor.env.OS_DNSMASQ__DHCP_HOSTSDIR;
            for (const f of fs.readdirSync(dir)) {
                if (!f.startsWith("ironic-")) continue;
                const line = fs.readFileSync(path.join(dir, f), "utf8").trim();
                const [mac, second] = line.split(",");
                if (second && second !== "ignore") (out[mac.toLowerCase()] ??= []).push(m.conductor.host);
            }
        }
        return out;
    }

    /** One DHCP exchange for `mac` (as iPXE); which conductors offered, and the lease taken. */
    async function probe(mac: string, tries = 2): Promise<{ offeredBy: string[]; lease: Record<string, string> }> {
        const sizes = members.map((m) => (fs.existsSync(m.log) ? fs.statSync(m.log).size : 0));
        run("ip", ["-n", clientNs, "link", "set", clientIf, "down"]);
        run("ip", ["-n", clientNs, "link", "set", clientIf, "address", mac]);
        run("ip", ["-n", clientNs, "link", "set", clientIf, "up"]);
        const script = path.join(work, "udhcpc.sh");
        if (!fs.existsSync(script)) fs.writeFileSync(script, '#!/bin/sh\n[ "$1" = bound ] && env | grep -E "^(ip|serverid|siaddr|bootfile|boot_file|tftp)="\nexit 0\n', { mode: 0o755 });
        const res = run("ip", ["netns", "exec", clientNs, "busybox", "udhcpc", "-i", clientIf, "-f", "-q", "-n", "-t", String(tries), "-T", "1", "-s", script, "-O", "66", "-O", "67", "-x", "0xaf:01"], { allowFail: true, timeout: 30000 });
        // The window under test, not a synchronisation: the client left with the first OFFER; any
        // other server that answers the same DISCOVER has logged its OFFER within it.
        await new Promise((r) => setTimeout(r, 400));
        const lease: Record<string, string> = {};
        for (const line of res.stdout.split("\n")) {
            const mm = /^([a-z_]+)=(.*)$/.exec(line);
            if (mm) lease[mm[1]] = mm[2];
        }
        const offeredBy = members
            .filter((m, i) => {
                const fd = fs.openSync(m.log, "r");
                const len = fs.statSync(m.log).size - sizes[i];
                const buf = Buffer.alloc(Math.max(0, len));
                fs.readSync(fd, buf, 0, buf.length, sizes[i]);
                fs.closeSync(fd);
                return new RegExp(`DHCPOFFER\\(\\S+\\) \\S+ ${mac}`, "i").test(buf.toString());
            })
            .map((m) => m.conductor.host);
        return { offeredBy, lease };
    }

    /** A MAC answered by exactly its owner, from the owner's slice, with boot options (boot file, next-server, TFTP server) at the owner. */
    async function answeredByOwnerOnly(mac: string, owner: string): Promise<string | undefined> {
        const p = await probe(mac);
        if (p.offeredBy.length !== 1 || p.offeredBy[0] !== owner) return `offers from [${p.offeredBy.join(", ")}], owner ${owner}`;
        const o = member(owner).plan;
        if (p.lease.serverid !== o.ip) return `lease from ${p.lease.serverid}`;
        const n = ipToNumber(p.lease.ip);
        if (n < ipToNumber(o.slot!.range.start) || n > ipToNumber(o.slot!.range.end)) return `${p.lease.ip} outside ${o.slot!.range.start}-${o.slot!.range.end}`;
        if (p.lease.bootfile !== `http://${o.ip}:${plan.ports.http}/boot.ipxe`) return `bootfile ${p.lease.bootfile}`;
        if (p.lease.siaddr !== o.ip || p.lease.tftp !== o.ip) return `next-server ${p.lease.siaddr}, TFTP server (option 66) ${p.lease.tftp}`;
        return undefined;
    }

    async function allAnsweredByOwnerOnly(macs: string[]): Promise<string[]> {
        const own = await owners();
        const problems: string[] = [];
        for (const mac of macs) {
            const p = await answeredByOwnerOnly(mac, own[mac]);
            if (p) problems.push(`${mac}: ${p}`);
        }
        return problems;
    }

    /** A plain-HTTP request to a TLS port gets no HTTP answer at all (the server wants a handshake). */
    async function notHttp(p: Promise<{ status: number; text: string }>, what: string) {
        const outcome = await p.then(
            (res) => `HTTP ${res.status}`,
            (e: Error) => `error: ${e.message}`,
        );
        assert.match(outcome, /^error: /, `${what} must fail, got ${outcome}`);
    }

    it("JSON-RPC and the API are TLS only: each conductor presents the certificate it minted (the program's SANs for its address) with the conductor CA, verified with the stack CA", async function () {
        const other = new TestCa(path.join(work, "other-ca"), "some other CA");
        for (const m of members) {
            const host = m.conductor.host;
            const url = `https://${host}:${lab.jsonRpcPort}/`;
            const want = nodeCertificateSans(plan, m.plan.node, host);
            const sans = await peerSans(host, lab.jsonRpcPort, ca.certFile);
            assert.deepEqual(sans.sort(), [...want.dnsNames.map((d) => `DNS:${d}`), ...want.ipAddresses.map((ip) => `IP:${ip}`)].sort(), `${host} serves ${m.plan.node}'s certificate`);
            assert.ok(!sans.some((x) => members.some((o) => o !== m && (x === `DNS:${o.plan.node}` || x === `IP:${o.conductor.host}`))), "no other node's name or address");
            const noAuth = await request(url, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" }, caFile: ca.certFile });
            assert.equal(noAuth.status, 401, `${url} without credentials: ${noAuth.text}`);
            await notHttp(request(`http://${host}:${lab.jsonRpcPort}/`, { method: "POST", body: "{}", timeoutMs: 10000 }), `plain HTTP to ${host}'s JSON-RPC port`);
            await assert.rejects(request(url, { method: "POST", body: "{}", caFile: other.certFile }), /certificate/i, "a certificate from another CA is not trusted");
        }
        await notHttp(request(lab.apiUrl.replace("https:", "http:") + "/v1/conductors", { timeoutMs: 10000 }), "plain HTTP to the API port");
        assert.ok(lab.apiUrl.startsWith("https://"));
        // The API reaches every conductor over TLS: a node's state change is an RPC to its owner.
        const counts = await ownerCounts();
        assert.equal(Object.keys(counts).length, 3, `every conductor owns nodes, so each served RPCs: ${JSON.stringify(counts)}`);
        stamp(`TLS: JSON-RPC on port ${lab.jsonRpcPort} and the API at ${lab.apiUrl} refuse plain HTTP; each conductor presents its own node certificate`);
    });

    it("every node's PXE-ROM firmware is a file the TFTP root holds: by architecture, then boot mode", async function () {
        const byUuid = Object.fromEntries((await lab.nodes()).map((n) => [n.uuid, n]));
        const firmwareOf = (uuid: string): string => {
            const owner = conductorName(byUuid[uuid].conductor);
            const file = path.join(member(owner).conductor.env.OS_DNSMASQ__DHCP_OPTSDIR, `ironic-${uuid}.conf`);
            const line = fs.readFileSync(file, "utf8").split("\n").find((l) => /^tag:[^,]+,tag:!ipxe,67,/.test(l));
            assert.ok(line, `${file} has the tag:!ipxe option 67 line`);
            return line!.split(",").slice(3).join(",");
        };
        const seen: Record<string, string> = {};
        for (let i = 1; i <= NODES + FIRMWARE_NODES.length; i++) seen[`node-${String(i).padStart(2, "0")}`] = firmwareOf(nodeUuid[macOf(i)]);
        assert.deepEqual(
            FIRMWARE_NODES.map((n, k) => `${JSON.stringify(n.properties)} → ${seen[`node-${NODES + k + 1}`]}`),
            FIRMWARE_NODES.map((n) => `${JSON.stringify(n.properties)} → ${n.firmware}`),
        );
        const files: string[] = Object.values(IPXE_FILES);
        assert.deepEqual(Object.entries(seen).filter(([, f]) => !files.includes(f)), [], `every firmware name is one of the TFTP root's files (${files.join(", ")})`);
        stamp(`firmware by node: ${FIRMWARE_NODES.map((n, k) => `${n.properties.cpu_arch}/${n.properties.capabilities} → ${seen[`node-${NODES + k + 1}`]}`).join("; ")}; the ${NODES} others (Ironic's default boot mode) → ${[...new Set(Object.values(seen).slice(0, NODES))].join(", ")}`);
    });

    it("before any failure every MAC gets exactly one answer, from its owner, in the owner's slice, pointing at the owner", async function () {
        const counts = await ownerCounts();
        assert.equal(Object.keys(counts).length, 3, `every conductor owns nodes: ${JSON.stringify(counts)}`);
        const problems = await allAnsweredByOwnerOnly(Object.keys(nodeUuid));
        assert.deepEqual(problems, []);
        // A healthy cluster does not flap with the program's timing: nothing moves over more than a
        // heartbeat timeout (the window under test, not a synchronisation).
        const before = await owners();
        await new Promise((r) => setTimeout(r, 12000));
        assert.deepEqual(await owners(), before, "no ownership change in a healthy cluster");
        assert.deepEqual(await lab.aliveConductors(), ["127.0.0.11", "127.0.0.12", "127.0.0.13"]);
        stamp("every MAC answered once, by its owner");
    });

    it("without the pruner, a killed conductor's entries make two dnsmasq servers answer (the hazard is real)", async function () {
        const own = await owners();
        const victim = Object.entries(await ownerCounts()).sort((a, b) => b[1] - a[1])[0][0];
        const macs = Object.keys(own).filter((m) => own[m] === victim);
        await member(victim).conductor.daemon!.kill();
        stamp(`SIGKILL conductor ${victim} (owned ${macs.length} nodes), pruners off`);
        const took = await until(() => macs.every((m) => (activeEntries()[m] ?? []).some((h) => h !== victim)), 300000, "survivors to take over", 500);
        stamp(`survivors rewrote DHCP files after ${(took / 1000).toFixed(1)}s`);
        const doubles: string[] = [];
        for (const mac of macs) {
            const p = await probe(mac);
            if (p.offeredBy.length > 1) doubles.push(mac);
        }
        stamp(`without pruning, ${doubles.length} of ${macs.length} MACs were answered by two conductors`);
        assert.ok(doubles.length > 0, "the dead conductor's dnsmasq still answers next to the new owner");

        startPruners();
        const fixed = await until(async () => (await allAnsweredByOwnerOnly(macs)).length === 0, 30000, "pruners to remove the stale entries", 500);
        stamp(`pruners started: exactly one answer per MAC after ${(fixed / 1000).toFixed(1)}s`);
        // The victim comes back under the same host; its nodes move back to it.
        lab.startConductor(member(victim).conductor);
        await until(async () => (await lab.aliveConductors()).includes(victim), START, "restarted conductor alive", 500);
        await until(async () => {
            const now = await owners();
            return macs.every((m) => now[m] === victim && (activeEntries()[m] ?? []).includes(victim));
        }, 120000, "nodes taken back by the restarted conductor", 500);
        stamp(`${victim} restarted and took its nodes back`);
    });

    it("SIGKILL one conductor with the pruners on: every MAC of its active nodes is answered by exactly one survivor within 30 s", async function () {
        const own = await owners();
        const counts = await ownerCounts();
        const victim = Object.entries(counts)
            .filter(([h]) => h !== "127.0.0.11" || Object.keys(counts).length === 1)
            .sort((a, b) => b[1] - a[1])[0][0];
        const macs = Object.keys(own).filter((m) => own[m] === victim);
        assert.ok(macs.length > 0);
        // Steady state first: the moves back have converged (the pruners of the conductors that gave
        // nodes back wait the rebalance delay), and the files have aged as a dead conductor's would.
        const settle = await until(async () => (await allAnsweredByOwnerOnly(Object.keys(nodeUuid))).length === 0, 90000, "steady state before the failure", 1000);
        stamp(`steady state (exactly one answer per MAC) ${(settle / 1000).toFixed(1)}s after the rebalance`);
        const killedAt = Date.now();
        await member(victim).conductor.daemon!.kill();
        stamp(`SIGKILL conductor ${victim} (owned ${macs.length} active nodes), pruners on`);
        await until(
            async () => {
                const now = await owners();
                if (macs.some((m) => now[m] === victim || !now[m])) return false;
                return (await allAnsweredByOwnerOnly(macs)).length === 0;
            },
            60000,
            "every MAC of the dead conductor answered by exactly one survivor",
            500,
        );
        const seconds = (Date.now() - killedAt) / 1000;
        console.log(`      measured failover: every MAC of ${victim}'s ${macs.length} active nodes answered by exactly one survivor after ${seconds.toFixed(1)} s`);
        assert.ok(seconds <= 30, `failover took ${seconds.toFixed(1)} s (limit 30 s)`);
        lab.startConductor(member(victim).conductor);
        await until(async () => (await lab.aliveConductors()).length === 3, START, "all conductors alive again", 500);
    });

    it("after nodes moved back and forth and some were undeployed: no MAC is active in two conductors' directories and DHCP agrees", async function () {
        const undeploy = Object.keys(nodeUuid).slice(0, 3);
        // The restart moved nodes back; undeploy while that rebalance may still be converging.
        await until(async () => {
            const now = await owners();
            return Object.keys(nodeUuid).every((m) => (activeEntries()[m] ?? []).includes(now[m]));
        }, 120000, "every active node's files at its current owner", 500);
        const undeployedAt = Date.now();
        for (const mac of undeploy) await lab.api("PUT", `/v1/nodes/${nodeUuid[mac]}/states/provision`, { target: "deleted" });
        await until(async () => (await lab.nodes()).filter((n) => undeploy.some((m) => nodeUuid[m] === n.uuid)).every((n) => n.provision_state === "available"), 120000, "undeployed nodes available", 500);
        await until(
            () => {
                const e = activeEntries();
                return Object.values(e).every((hosts) => hosts.length <= 1) && undeploy.every((m) => e[m] === undefined);
            },
            60000,
            "no MAC active in two conductors' directories, none for undeployed nodes",
            500,
        );
        const entries = activeEntries();
        assert.deepEqual(Object.entries(entries).filter(([, h]) => h.length > 1), []);
        for (const mac of undeploy) assert.equal(entries[mac], undefined, `${mac} was undeployed`);
        const active = Object.keys(nodeUuid).filter((m) => !undeploy.includes(m));
        await until(async () => (await allAnsweredByOwnerOnly(active)).length === 0 && Object.values(activeEntries()).every((h) => h.length <= 1), 90000, "DHCP answers agree with ownership", 1000);
        stamp(`converged ${((Date.now() - undeployedAt) / 1000).toFixed(1)}s after the undeploys`);
        assert.deepEqual(Object.entries(activeEntries()).filter(([, h]) => h.length > 1), [], "0 MACs active in two conductors' directories");
        assert.deepEqual(await allAnsweredByOwnerOnly(active), []);
        for (const mac of undeploy) {
            const p = await probe(mac, 1);
            assert.deepEqual(p.offeredBy, [], `${mac} is answered by nobody after undeploy`);
        }
        const pruned = members.map((m) => fs.readFileSync(path.join(m.conductor.dir, "pruner.log"), "utf8").split("\n").filter((l) => / set to ignore/.test(l)).length);
        stamp(`final: ${active.length} active MACs answered once each, ${undeploy.length} undeployed unanswered; entries pruned per conductor: ${pruned.join("/")}`);
        assert.ok(pruned.reduce((a, b) => a + b, 0) > 0, "the pruners did the pruning");
    });

    it("rolling replacement as Cluster API does it: cp-0..cp-2 replaced one at a time by nodes with new hosts and addresses; after every join and every drain each active MAC is answered once, by its owner", async function () {
        const sp = dhcpSlotsOf(plan)!;
        const live = () => members.filter((m) => !m.retired);
        // Earlier tests undeployed some nodes: only the active ones have DHCP entries to move.
        const byUuid = Object.fromEntries((await lab.nodes()).map((n) => [n.uuid, n]));
        const macs = Object.keys(nodeUuid).filter((m) => byUuid[nodeUuid[m]].provision_state === "active");
        const inactive = Object.keys(nodeUuid).filter((m) => !macs.includes(m));
        assert.ok(macs.length >= 9, `active nodes: ${macs.length}`);
        // New hash-ring hosts chosen so that each join takes over active nodes. Ironic 38 puts a
        // conductor on its ring under the name it registered, `<host>:<JSON-RPC port>`, and the
        // port is this run's own, so which hosts get nodes differs from run to run: the choice is
        // made with Ironic's own ring (tooz's HashRing, md5, 2^5 partitions) over those names.
        const oldHosts = [hostOf(0), hostOf(1), hostOf(2)];
        const picked = pickJoiningHosts(oldHosts, macs.map((mac) => nodeUuid[mac]), lab.jsonRpcPort);
        const replacements = [
            { node: "cp-3", ip: "172.22.0.5", host: picked[0] },
            { node: "cp-4", ip: "172.22.0.6", host: picked[1] },
            { node: "cp-5", ip: "172.22.0.7", host: picked[2] },
        ];
        const gateway = plan.provisioning.dhcp!.gateway;
        for (const n of replacements) {
            const x = ipToNumber(n.ip);
            assert.ok(x < ipToNumber(sp.rangeStart) || x > ipToNumber(sp.rangeEnd), `${n.ip} is outside the DHCP range`);
            assert.ok(!members.some((m) => m.plan.ip === n.ip || m.conductor.host === n.host) && n.ip !== gateway, `${n.ip} / ${n.host} are unused`);
        }
        assert.deepEqual(live().map((m) => m.conductor.host).sort(), oldHosts, "the rollout starts from cp-0..cp-2");
        assert.deepEqual(await lab.aliveConductors(), oldHosts);
        for (const m of live()) if (!m.pruner?.running) startPruner(m); // the test runs alone (--grep)
        let last: string[] = [];
        /** Until every active MAC is answered once, by its owner (allAnsweredByOwnerOnly in one sweep); the last problems on a timeout. */
        const untilOwnerOnly = (ms: number, what: string) =>
            until(async () => (last = await allAnsweredByOwnerOnly(macs)).length === 0, ms, what, 500).catch((e: Error) => {
                throw new Error(`${e.message}: ${last.join("; ")}`);
            });
        const settle = await untilOwnerOnly(120000, "steady state before the rollout");
        stamp(`rollout: ${macs.length} active MACs answered once by their owners (${(settle / 1000).toFixed(1)}s to steady state); owners ${JSON.stringify(await ownerCounts())}`);

        // GET /v1/conductors all along: conductors it reports alive whose process still runs (a
        // cleanly stopped one stays `alive` until its heartbeat ages past the timeout).
        const liveness = { min: Infinity, samples: 0, low: "" };
        let sampling = true;
        const sampler = (async () => {
            while (sampling) {
                try {
                    const alive = await lab.aliveConductors();
                    const running = alive.filter((h) => members.find((m) => m.conductor.host === h)?.conductor.daemon?.running);
                    liveness.samples++;
                    if (running.length < liveness.min) Object.assign(liveness, { min: running.length, low: `${running.join(", ")} at ${((Date.now() - t0) / 1000).toFixed(1)}s` });
                } catch {
                    /* the API is busy: the next sample counts */
                }
                await new Promise((r) => setTimeout(r, 1000));
            }
        })();

        /** The checks after every sub-step: DHCP from every active MAC's owner only, at least two conductors alive, no MAC active twice. */
        const checkStep = async (what: string) => {
            await untilOwnerOnly(120000, `${what}: every active MAC answered once, by its owner`);
            const alive = await lab.aliveConductors();
            const running = alive.filter((h) => members.find((m) => m.conductor.host === h)?.conductor.daemon?.running);
            assert.ok(running.length >= 2, `${what}: alive conductors ${alive.join(", ")} (running: ${running.join(", ")})`);
            assert.deepEqual(Object.entries(activeEntries()).filter(([, h]) => h.length > 1), [], `${what}: no MAC active in two conductors' hostsdirs`);
        };
        const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
        const measured: string[] = [];
        try {
            for (let i = 0; i < replacements.length; i++) {
                const { node, ip, host } = replacements[i];
                const old = member(oldHosts[i]);

                // (1) The new node joins: the program's plan for it (the nodes that stay keep their
                // slots, it gets the one slot no live conductor serves), its conductor, dnsmasq, pruner.
                const stay = live();
                const held = new Set(stay.map((m) => m.plan.slot!.index));
                const free = [...Array(sp.slots).keys()].filter((k) => !held.has(k));
                assert.equal(free.length, 1, `slots held: ${[...held].join(", ")} of ${sp.slots}`);
                const next = buildPlan(
                    { ...config, conductors: [...stay.map((m) => ({ name: m.plan.node, ip: m.plan.ip! })), { name: node, ip }] },
                    { dhcpSlots: { rangeStart: sp.rangeStart, rangeEnd: sp.rangeEnd, slots: sp.slots, nodes: Object.fromEntries(stay.map((m) => [m.plan.node, m.plan.slot!.index])) } },
                );
                assert.deepEqual(dhcpSlotsOf(next)!.issues, []);
                const listed = listedConductors(next);
                stay.forEach((m, k) => assert.equal(listed[k].slot!.index, m.plan.slot!.index, `${m.plan.node} keeps its slot`));
                const joining = listed[listed.length - 1];
                assert.equal(joining.slot!.index, free[0], `${node} gets the free slot`);
                const files = prepareConductor(joining, host);
                const m: Member = { conductor: await lab.joinConductor(host, files.env, files.ini, files.tls), plan: joining, ns: "", log: path.join(files.dir, "dnsmasq.log") };
                members.push(m);
                startDnsmasq(m, members.length - 1);
                await untilListening(m);
                startPruner(m);
                const joinedAt = Date.now();
                const since = (t: number) => secs(Date.now() - t);
                lab.startConductor(m.conductor);
                await lab.untilRunning(async () => (await lab.aliveConductors()).includes(host), START, `${host} alive`, 500);
                const aliveAfter = since(joinedAt);
                // Its nodes: the API's ring maps some active nodes to it (the hosts were picked with
                // Ironic's ring for this run's names, pickJoiningHosts); it takes them over, writing its own DHCP files. Each API
                // worker refreshes its own ring, so an answer may still show the old ring (none of
                // them): the set is the first non-empty answer, and it only grows.
                let mine: string[] = [];
                const mapped = async () => {
                    const own = await owners();
                    mine = [...new Set([...mine, ...macs.filter((mac) => own[mac] === host)])];
                    return mine.length > 0;
                };
                await until(mapped, 60000, `active nodes mapped to ${host} (none: the ring gives this host no active node; see the choice of hosts above)`, 250);
                const mappedAfter = since(joinedAt);
                await until(async () => (await mapped()) && mine.every((mac) => (activeEntries([m])[mac] ?? []).includes(host)), 60000, `${host} to take over its nodes`, 250);
                const tookAfter = since(joinedAt);
                await checkStep(`${host} (${node}) joined`);
                console.log(
                    `      measured join of ${host} (${node}, ${ip}, slot ${joining.slot!.index}): alive after ${aliveAfter}, ${mine.length} active nodes mapped to it after ${mappedAfter}, taken over (its own DHCP files) after ${tookAfter}, every active MAC answered once by its owner after ${since(joinedAt)}`,
                );
                measured.push(`${node} took over ${mine.length} nodes ${tookAfter} after start (DHCP owner-only after ${since(joinedAt)})`);

                // (2) The old node is drained: its pod's containers get SIGTERM together.
                const ownBefore = await owners();
                const leaving = macs.filter((mac) => ownBefore[mac] === old.conductor.host);
                old.retired = true;
                const drainedAt = Date.now();
                const [stopped] = await Promise.all([lab.retireConductor(old.conductor), old.dnsmasq!.stop(), old.pruner?.stop()]);
                assert.notEqual(stopped.ended, "SIGKILL", `${old.conductor.host} stopped on SIGTERM within the grace period (took ${stopped.ms} ms)`);
                await until(async () => Object.values(await owners()).every((o) => o && o !== old.conductor.host), 60000, `no node mapped to ${old.conductor.host}`, 250);
                const remappedAfter = since(drainedAt);
                let own: Record<string, string> = {};
                await until(async () => {
                    own = await owners();
                    return leaving.every((mac) => (activeEntries()[mac] ?? []).includes(own[mac]));
                }, 60000, `survivors to take over ${old.conductor.host}'s nodes`, 250);
                const takenAfter = since(drainedAt);
                await checkStep(`${old.conductor.host} (${old.plan.node}) drained`);
                const to: Record<string, number> = {};
                for (const mac of leaving) to[own[mac]] = (to[own[mac]] ?? 0) + 1;
                console.log(
                    `      measured drain of ${old.conductor.host} (${old.plan.node}): exited on SIGTERM (${stopped.ended}) after ${secs(stopped.ms)}, its ${leaving.length} active nodes mapped elsewhere after ${remappedAfter}, taken over by the survivors ${JSON.stringify(to)} after ${takenAfter}, every active MAC answered once by its owner after ${since(drainedAt)}`,
                );
                measured.push(`${old.plan.node}'s ${leaving.length} nodes taken over ${takenAfter} after SIGTERM (DHCP owner-only after ${since(drainedAt)})`);
                stamp(`step ${i + 1}/3: ${node} replaced ${old.plan.node}; owners ${JSON.stringify(await ownerCounts())}`);
            }
        } finally {
            sampling = false;
            await sampler;
        }

        // The end: only the new nodes' conductors, owning every node; no MAC active twice; the
        // undeployed nodes answered by nobody.
        const newHosts = replacements.map((n) => n.host).sort();
        const gone = await until(async () => JSON.stringify(await lab.aliveConductors()) === JSON.stringify(newHosts), 60000, "only the new conductors alive", 500);
        assert.deepEqual(await lab.aliveConductors(), newHosts);
        assert.ok(oldHosts.every((h) => !member(h).conductor.daemon!.running && !member(h).dnsmasq!.running), "cp-0..cp-2's conductors and dnsmasq are gone");
        const finalOwners = await owners();
        assert.deepEqual(Object.entries(finalOwners).filter(([, o]) => !newHosts.includes(o)), [], "every node is owned by a new conductor");
        const entries = activeEntries();
        assert.deepEqual(Object.entries(entries).filter(([, h]) => h.length > 1), [], "no MAC active in two conductors' hostsdirs");
        assert.deepEqual(macs.filter((mac) => JSON.stringify(entries[mac]) !== JSON.stringify([finalOwners[mac]])), [], "each active MAC is active exactly at its owner");
        for (const mac of inactive) assert.deepEqual((await probe(mac, 1)).offeredBy, [], `${mac} (not deployed) is answered by nobody`);
        assert.ok(liveness.samples > 10 && liveness.min >= 2, `at least two conductors alive in GET /v1/conductors all along: min ${liveness.min} (${liveness.low}) over ${liveness.samples} samples`);
        const stale = Object.keys(activeEntries(members.filter((x) => x.retired))).length;
        stamp(
            `rollout done: ${macs.length} active MACs owned by ${JSON.stringify(await ownerCounts())}; conductors alive ≥ ${liveness.min} in ${liveness.samples} samples (lowest: ${liveness.low}); GET /v1/conductors lists only the new ones as alive (waited ${secs(gone)} after the last drain's checks); ${stale} stale entries left in the removed nodes' dirs (no dnsmasq reads them)`,
        );
        console.log(`      measured rollout: ${measured.join("; ")}`);
    });
});
