/**
 * The multi stack on a corporate PKI (test/fixtures/Pulumi.tls-existing-ha.yaml: tls.mode
 * existing, tls.conductorCaSecret), started as its pods declare them (test/helpers/pod-runner.ts):
 * three conductor nodes, MariaDB and the schema Job in network namespaces this test creates and
 * deletes. The PKI is made with openssl: a root (the ca.crt of the user's Secret), an issuing CA
 * it signs, and from that the API certificate and the conductor CA (each Secret's tls.crt followed
 * by the issuing CA). Each conductor's ironic container mints its JSON-RPC certificate from the
 * user's conductor CA; the API and JSON-RPC calls between conductors verify against the root only.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig, validateConfig } from "../../core/config";
import { buildPlan, IronicPlan, listedConductors } from "../../core/plan";
import { Rendered, readStackConfig, renderOffline } from "../../tools/render";
import { ImageCacheLab } from "../helpers/image-cache";
import { makeCa, makeIntermediate } from "../helpers/openssl-ca";
import { ClusterData, PodRunner, StandinImage, tail } from "../helpers/pod-runner";
import { clusterData, realProviderState } from "../helpers/real-secrets";
import { prepareImages } from "../helpers/standins";
import { canUseNetns, NetnsLab, requireOrSkip, run, tmpDir, which } from "../helpers/sys";

/** The corporate PKI: a root (what clients trust) and an issuing CA it signs, which signs the rest. */
class CorporatePki {
    readonly root: string;
    private readonly issuing: string;
    private readonly issuingPem: string;
    private serial = 4242;

    constructor(private readonly dir: string) {
        this.root = path.join(makeCa(path.join(dir, "root"), 60), "ca.crt");
        makeIntermediate(path.dirname(this.root), path.join(dir, "issuing"), { days: 50 });
        // makeIntermediate signs with <dir>/ca.crt and ca.key: the issuing CA in that layout.
        this.issuing = path.join(dir, "issuing-ca");
        fs.mkdirSync(this.issuing);
        fs.copyFileSync(path.join(dir, "issuing", "tls.crt"), path.join(this.issuing, "ca.crt"));
        fs.copyFileSync(path.join(dir, "issuing", "tls.key"), path.join(this.issuing, "ca.key"));
        this.issuingPem = fs.readFileSync(path.join(this.issuing, "ca.crt"), "utf8");
    }

    /**
     * A Secret's data as an issuer writes it: tls.crt (the certificate, then the issuing CA),
     * tls.key, and ca.crt (the root). A CA (isCA) or a server and client certificate for `sans`.
     */
    issue(name: string, o: { sans?: string[]; isCA?: boolean; commonName?: string }): Record<string, string> {
        const d = path.join(this.dir, `issued-${name}`);
        if (o.isCA) {
            makeIntermediate(this.issuing, d, { days: 40 });
        } else {
            fs.mkdirSync(d);
            const san = o.sans && o.sans.length > 0 ? `subjectAltName=${o.sans.join(",")}\n` : "";
            fs.writeFileSync(path.join(d, "ext.cnf"), `basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n${san}`);
            run("openssl", ["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(d, "tls.key"), "-out", path.join(d, "csr.pem"), "-subj", `/O=Example Corp/CN=${o.commonName ?? name}`]);
            run("openssl", ["x509", "-req", "-in", path.join(d, "csr.pem"), "-CA", path.join(this.issuing, "ca.crt"), "-CAkey", path.join(this.issuing, "ca.key"), "-set_serial", String(this.serial++), "-days", "30", "-extfile", path.join(d, "ext.cnf"), "-out", path.join(d, "tls.crt")]);
        }
        const read = (f: string) => fs.readFileSync(path.join(d, f), "utf8");
        return { "tls.crt": read("tls.crt") + this.issuingPem, "tls.key": read("tls.key"), "ca.crt": fs.readFileSync(this.root, "utf8") };
    }
}

const firstPem = (bundle: string) => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0].trim();

/** What differs between the two ways of bringing a PKI: which stack, and which Secrets the user (or cert-manager) provides. */
interface Variant {
    mode: "existing" | "cert-manager";
    fixture: string;
    stack: string;
    /** Changes to the fixture for this test. */
    edit?: (raw: RawConfig) => RawConfig;
    /** The user's Secrets (existing), or what cert-manager writes for each rendered Certificate. */
    secrets(pki: CorporatePki, plan: IronicPlan, rendered: Rendered | undefined): Record<string, Record<string, string>>;
    /** The Secrets serving the API and virtual-media ports, and the conductor CA. */
    api: string;
    vmedia: string;
    conductorCa: string;
}

const VARIANTS: Variant[] = [
    {
        mode: "existing",
        fixture: "Pulumi.tls-existing-ha.yaml",
        stack: "tls-existing-ha",
        // Created by the user (kubectl create secret tls ...): the API certificate names the Service and every conductor.
        secrets: (pki, plan) => ({
            [plan.config.tls.existingSecret!]: pki.issue("ironic.metal3.svc", { sans: [...plan.certificate.dnsNames.map((n) => `DNS:${n}`), ...listedConductors(plan).map((c) => `IP:${c.ip}`)] }),
            [plan.config.tls.conductorCaSecret!]: (({ "ca.crt": _, ...ca }) => ca)(pki.issue("conductor CA", { isCA: true })),
        }),
        api: "my-tls",
        vmedia: "my-tls",
        conductorCa: "my-conductor-ca",
    },
    {
        mode: "cert-manager",
        fixture: "Pulumi.cert-manager.yaml",
        stack: "cert-manager",
        // Without DHCP: its slot agents need the cluster's API (test/integration/pods.test.ts runs them); here the certificates.
        edit: (raw) => ({ ...raw, provisioning: (({ dhcp: _, ...p }) => p)(raw.provisioning as Record<string, unknown>) }),
        // cert-manager's part, played here: each rendered Certificate issued as its spec asks, into its secretName.
        secrets: (pki, _plan, rendered) =>
            Object.fromEntries(
                rendered!.objects
                    .filter((o) => o.kind === "Certificate")
                    .map((c) => [c.spec.secretName, pki.issue(c.spec.secretName, { commonName: c.spec.commonName, isCA: c.spec.isCA, sans: [...(c.spec.dnsNames ?? []).map((n: string) => `DNS:${n}`), ...(c.spec.ipAddresses ?? []).map((ip: string) => `IP:${ip}`)] })]),
            ),
        api: "ironic-tls",
        vmedia: "ironic-vmedia-tls",
        conductorCa: "ironic-conductor-ca",
    },
];

for (const v of VARIANTS) {
describe(`pods as declared: multi stack with tls.mode ${v.mode} on a corporate PKI (pod runner)`, function () {
    this.timeout(600000);
    const net = new NetnsLab();
    let work = "";
    let plan: IronicPlan;
    let rendered: Rendered;
    let cluster: ClusterData;
    let images: Record<string, StandinImage>;
    let cache: ImageCacheLab;
    let pki: CorporatePki;
    let sw = "";
    let br = "";
    let adminNs = "";
    const DB_IP = "172.22.0.250";
    const JOB_IP = "172.22.0.251";
    const nodes: { node: string; ip: string; pod: PodRunner; ns: string }[] = [];
    const others: PodRunner[] = [];
    const serviceHosts = (apiIp: string) => ({
        ...Object.fromEntries(plan.serviceDnsNames.map((n) => [n, apiIp])),
        ...Object.fromEntries(plan.database.serviceDnsNames.map((n) => [n, DB_IP])),
        ...cache.hosts,
    });

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["busybox", "setcap", "nsenter", "unshare", "setpriv", "openssl", "curl", "mariadbd", "ironic-conductor"].every((c) => !!which(c)), "busybox, libcap2-bin, util-linux, openssl, curl, mariadb-server, ironic-conductor");
        work = tmpDir(`pods-corp-pki-${v.mode}`);
        const fixture = readStackConfig(path.join(__dirname, "..", "fixtures", v.fixture));
        const raw = v.edit ? v.edit(fixture) : fixture;
        const checked = validateConfig(raw);
        if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
        plan = buildPlan(checked.config);
        const listed = listedConductors(plan);
        pki = new CorporatePki(path.join(work, "pki"));
        // existing: the user's Secrets exist before the stack, and the API Secret's read is answered
        // with it (the conductor CA is never read); cert-manager: nothing is read.
        const user = v.mode === "existing" ? v.secrets(pki, plan, undefined) : {};
        const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
        const existing = (type: string, id: string) =>
            type === "kubernetes:core/v1:Secret" && id === `metal3/${plan.config.tls.existingSecret}`
                ? { apiVersion: "v1", kind: "Secret", metadata: { name: plan.config.tls.existingSecret, namespace: "metal3" }, type: "kubernetes.io/tls", data: Object.fromEntries(Object.entries(user[v.api]).map(([k, val]) => [k, b64(val)])) }
                : undefined;
        rendered = await renderOffline(raw, v.stack, { hook: (type, name, inputs) => realProviderState(type, name, inputs), existing });
        assert.deepEqual(rendered.reads.map((x) => x.id), v.mode === "existing" ? [`metal3/${plan.config.tls.existingSecret}`] : [], "only the user's API Secret is read");
        cluster = clusterData(rendered);
        const provided = v.mode === "existing" ? user : v.secrets(pki, plan, rendered);
        for (const [name, data] of Object.entries(provided)) {
            assert.equal(cluster.secrets[name], undefined, `${name} is not written by the program`);
            cluster.secrets[name] = data;
        }
        if (v.mode === "existing") assert.equal(cluster.secrets[plan.names.caSecret]["tls.crt"], user[v.api]["ca.crt"], "<name>-cacert holds the user's root");
        images = prepareImages(work);
        cache = new ImageCacheLab({ rendered, cluster, images, work });
        sw = net.addNamespace("csw");
        br = net.addBridge(sw, "cbr");
        const ds = rendered.objects.find((o) => o.kind === "DaemonSet")!;
        listed.forEach((c, i) => {
            const ns = net.addNamespace(`c${i}`);
            net.plug(ns, `c${i}`, sw, br, { cidr: `${c.ip}/24`, rename: c.interface });
            const pod = new PodRunner({ name: `ironic-${c.node}`, namespace: plan.namespace, spec: ds.spec.template.spec, cluster, images, work, netns: ns, nodeName: c.node, hostIP: c.ip!, podIP: c.ip!, hosts: serviceHosts(c.ip!) });
            nodes.push({ node: c.node, ip: c.ip!, pod, ns });
        });
        adminNs = net.addNamespace("cad");
        net.plug(adminNs, "cad", sw, br, { cidr: "172.22.0.253/24" });
    });

    afterEach(function () {
        if (this.currentTest?.state !== "failed") return;
        for (const p of [...others, ...nodes.map((n) => n.pod)]) p.printLogs(1500);
    });

    after(async function () {
        for (const { pod } of nodes) await pod.stop();
        for (const p of others.reverse()) await p.stop();
        await cache?.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    function clusterPod(kind: string, podName: string, ip: string, base: string): PodRunner {
        const o = rendered.objects.find((x) => x.kind === kind && (kind !== "Job" || x.metadata.name.includes(podName)))!;
        const ns = net.addNamespace(base);
        net.plug(ns, base, sw, br, { cidr: `${ip}/24` });
        const p = new PodRunner({ name: podName, namespace: plan.namespace, spec: o.spec.template.spec, cluster, images, work, netns: ns, nodeName: "cp-0", hostIP: "172.22.0.2", podIP: ip, hosts: serviceHosts("172.22.0.2") });
        others.push(p);
        return p;
    }

    function api(nodeIp: string, p: string, extra: string[] = []): { code: number; body: string } {
        const creds = cluster.secrets[plan.names.credentialsSecret];
        const r = run("ip", ["netns", "exec", adminNs, "curl", "-s", "--max-time", "30", "--cacert", pki.root, "-u", `${creds.username}:${creds.password}`, "-H", "X-OpenStack-Ironic-API-Version: 1.82", "-w", "\n%{http_code}", ...extra, `https://${nodeIp}:${plan.config.ports.api}${p}`], { allowFail: true, timeout: 40000 });
        const lines = r.stdout.split("\n");
        return { code: Number(lines.pop()), body: lines.join("\n") };
    }

    /** The chain a server presents, verified against the corporate root for `ip`: its certificates (PEM). */
    function served(ip: string, port: number): string[] {
        const r = run("ip", ["netns", "exec", adminNs, "openssl", "s_client", "-connect", `${ip}:${port}`, "-CAfile", pki.root, "-verify_ip", ip, "-verify_return_error", "-showcerts"], { input: "", allowFail: true, timeout: 30000 });
        assert.equal(r.status, 0, `${ip}:${port}: ${r.stdout.slice(-600)} ${r.stderr.slice(-600)}`);
        return r.stdout.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    }

    it(`MariaDB and the schema Job run as declared (MariaDB's certificate from ${v.mode === "existing" ? "the stack CA" : "its Certificate"})`, async function () {
        const db = clusterPod("StatefulSet", "ironic-mariadb-0", DB_IP, "cdb");
        db.startContainers();
        await db.waitReady("mariadb", 180000);
        const job = clusterPod("Job", "dbsync", JOB_IP, "cjb");
        const [run1] = job.startContainers();
        const code = await new Promise<number | null>((res) => (run1.proc.exitCode !== null ? res(run1.proc.exitCode) : run1.proc.once("exit", (c) => res(c))));
        assert.equal(code, 0, `dbsync exited ${code}:\n${tail(job.logs(job.spec.containers[0].name))}`);
    });

    it("every conductor's ironic and httpd start as declared; the three join one hash ring", async function () {
        for (const { pod, ns } of nodes) {
            await cache.serve(ns);
            await pod.runInitContainers();
        }
        for (const { pod } of nodes) pod.startContainers(["ironic", "httpd", "ramdisk-logs"]);
        for (const { pod } of nodes) for (const c of ["ironic", "httpd", "ramdisk-logs"]) await pod.waitReady(c, 240000);
        for (const { node, ip, pod } of nodes) {
            assert.match(pod.logs("ironic"), new RegExp(`conductor-cert: minted /certs/ironic/tls.crt for ${node} \\(IP:${ip.replace(/\./g, "\\.")}, DNS:${node}, `), `${node}'s ironic container minted its JSON-RPC certificate`);
            assert.doesNotMatch(pod.logs("httpd"), /conductor-cert: minted/, "httpd mints nothing: it serves the user's certificate");
        }
        const t0 = Date.now();
        for (;;) {
            const r = api(nodes[0].ip, "/v1/conductors");
            const alive = r.code === 200 ? JSON.parse(r.body).conductors.filter((c: any) => c.alive).map((c: any) => c.hostname).sort() : [];
            if (alive.length === 3) {
                assert.deepEqual(alive, nodes.map((n) => n.ip).sort());
                break;
            }
            if (Date.now() - t0 > 120000) assert.fail(`conductors alive: ${JSON.stringify(alive)} (${r.code} ${r.body})`);
            await new Promise((res) => setTimeout(res, 2000));
        }
    });

    it(`httpd serves the ${v.mode === "existing" ? "user's" : "issued"} API and virtual-media certificates on every conductor, verified against the corporate root for the node's address`, function () {
        for (const { ip } of nodes) {
            for (const [port, secret] of [[plan.config.ports.api, v.api], [plan.config.ports.vmediaTls, v.vmedia]] as const) {
                const chain = served(ip, port);
                assert.equal(chain[0].trim(), firstPem(cluster.secrets[secret]["tls.crt"]), `${ip}:${port} serves the certificate of Secret ${secret}`);
            }
        }
    });

    it(`each conductor's JSON-RPC serves a certificate it minted from the conductor CA (${v.mode === "existing" ? "the user's Secret" : "its Certificate"}): its own address only, chained to the corporate root`, function () {
        const conductorCa = firstPem(cluster.secrets[v.conductorCa]["tls.crt"]);
        for (const { node, ip } of nodes) {
            const chain = served(ip, plan.config.ports.jsonRpc);
            assert.equal(chain.length, 3, `${node}: its certificate, the conductor CA, the issuing CA`);
            assert.equal(chain[1].trim(), conductorCa);
            const text = run("openssl", ["x509", "-noout", "-subject", "-issuer", "-ext", "subjectAltName"], { input: chain[0] + "\n" }).stdout;
            assert.match(text, new RegExp(`subject=.*CN\\s*=\\s*${node}\\b`));
            assert.match(text, /issuer=.*CN\s*=\s*conductor CA/);
            const ips = [...text.matchAll(/IP Address:([0-9.]+)/g)].map((m) => m[1]);
            assert.deepEqual(ips, [ip], `${node} names its own address, no other conductor's`);
        }
    });

    it("API calls reach the owning conductors over JSON-RPC with TLS, each peer verifying the others against the corporate root only", async function () {
        const t0 = Date.now();
        for (;;) {
            const r = api(nodes[0].ip, "/v1/drivers");
            const fake = r.code === 200 ? JSON.parse(r.body).drivers.find((d: any) => d.name === "fake-hardware") : undefined;
            if (fake && fake.hosts.length === 3) break;
            if (Date.now() - t0 > 60000) assert.fail(`fake-hardware registered by: ${JSON.stringify(fake?.hosts)} (${r.code} ${r.body})`);
            await new Promise((res) => setTimeout(res, 1000));
        }
        await new Promise((res) => setTimeout(res, 4000));
        for (let i = 0; i < 6; i++) {
            const r = api(nodes[0].ip, "/v1/nodes", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ name: `corp-${i}`, driver: "fake-hardware" })]);
            assert.equal(r.code, 201, r.body);
        }
        const list = JSON.parse(api(nodes[0].ip, "/v1/nodes?detail=true").body).nodes;
        const owners = new Set(list.map((n: any) => n.conductor));
        assert.ok(owners.size >= 2, `nodes spread over several conductors: ${[...owners].join(", ")}`);
        // From cp-1's API: a call handed to each node's conductor over JSON-RPC (a failed TLS check would be a 500/503).
        for (const n of list) {
            const r = api(nodes[1].ip, `/v1/nodes/${n.uuid}/states/provision`, ["-X", "PUT", "-H", "Content-Type: application/json", "-d", JSON.stringify({ target: "manage" })]);
            assert.equal(r.code, 202, `${n.name} (conductor ${n.conductor}): ${r.body}`);
        }
        const t1 = Date.now();
        for (;;) {
            const states = JSON.parse(api(nodes[2].ip, "/v1/nodes?detail=true").body).nodes.map((n: any) => n.provision_state);
            if (states.every((s: string) => s === "manageable")) break;
            if (Date.now() - t1 > 60000) assert.fail(`provision states: ${states.join(", ")}`);
            await new Promise((res) => setTimeout(res, 1000));
        }
    });
});
}
