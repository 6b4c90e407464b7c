/**
 * The multi stack on a corporate PKI (test/fixtures/Pulumi.tls-existing-ha.yaml: tls.mode
 * existing), started as its pods declare them (test/helpers/pod-runner.ts): three conductor nodes,
 * MariaDB and the schema Job in network namespaces this test creates and deletes. The PKI is made
 * with openssl: a root (the ca.crt of the user's Secret), an issuing CA it signs, and from that the
 * API certificate and, where the user brings one, the conductor CA (each Secret's tls.crt followed
 * by the issuing CA). Each conductor's ironic container mints its JSON-RPC certificate: from the
 * user's conductor CA (tls.conductorCaSecret), the peers verifying against the corporate root only;
 * or, with the user's certificate alone, from the stack's conductor root, which the peers alone
 * trust and the API's clients refuse. cert-manager: the issuer's Certificates.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { IronicPlan, listedConductors } from "../../core/plan";
import { Rendered, readStackConfig, renderOffline } from "../../tools/render";
import { HaPodLab } from "../helpers/ha-pod-lab";
import { conductorName, fixedNodeUuid, until } from "../helpers/ironic-lab";
import { makeCa, makeIntermediate } from "../helpers/openssl-ca";
import { ClusterData } from "../helpers/pod-runner";
import { clusterData, realProviderState } from "../helpers/real-secrets";
import { canUseNetns, requireOrSkip, run, which } from "../helpers/sys";
import { IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { planOf } from "../helpers/plan";

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
    /** What the JSON-RPC peers verify with: the corporate root, or the stack's conductor root alone. */
    rpcTrust: "corporate root" | "conductor root";
    /** Who issued the conductor CA: its subject's common name. */
    conductorCaName: string;
}

/** The user's API Secret: its certificate names the Service and every conductor. */
const userApiSecret = (pki: CorporatePki, plan: IronicPlan) => ({
    [plan.names.tlsSecret]: pki.issue("ironic.metal3.svc", { sans: [...plan.certificate.dnsNames.map((n) => `DNS:${n}`), ...listedConductors(plan).map((c) => `IP:${c.ip}`)] }),
});

const VARIANTS: Variant[] = [
    {
        mode: "existing",
        fixture: "Pulumi.tls-existing-ha.yaml",
        stack: "tls-existing-ha",
        // Created by the user (kubectl create secret tls ...): the API certificate alone.
        secrets: (pki, plan) => userApiSecret(pki, plan),
        api: "my-tls",
        vmedia: "my-tls",
        conductorCa: "ironic-conductor-ca",
        rpcTrust: "conductor root",
        conductorCaName: "metal3/ironic conductor CA",
    },
    {
        mode: "existing",
        fixture: "Pulumi.tls-existing-ha.yaml",
        stack: "tls-existing-ha",
        edit: (raw) => ({ ...raw, tls: { ...(raw.tls as object), conductorCaSecret: "my-conductor-ca" } }),
        // And a CA of the user's PKI for the conductors.
        secrets: (pki, plan) => ({
            ...userApiSecret(pki, plan),
            [plan.names.conductorCaSecret]: (({ "ca.crt": _, ...ca }) => ca)(pki.issue("conductor CA", { isCA: true })),
        }),
        api: "my-tls",
        vmedia: "my-tls",
        conductorCa: "my-conductor-ca",
        rpcTrust: "corporate root",
        conductorCaName: "conductor CA",
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
        rpcTrust: "corporate root",
        conductorCaName: "conductor CA",
    },
];

for (const v of VARIANTS) {
const own = v.mode === "existing" ? (v.rpcTrust === "conductor root" ? "the stack's conductor root" : "the user's conductor CA") : "its Certificate";
describe(`pods as declared: multi stack with tls.mode ${v.mode} on a corporate PKI, JSON-RPC from ${own} (pod runner)`, function () {
    this.timeout(600000);
    /** The namespaces, the conductor pods, MariaDB and the Job (test/helpers/ha-pod-lab.ts). */
    const lab = new HaPodLab<{ node: string; ip: string; interface: string }>();
    const nodes = lab.pods;
    let plan: IronicPlan;
    let rendered: Rendered;
    let cluster: ClusterData;
    let pki: CorporatePki;
    const JOB_IP = "172.22.0.251";

    before(async function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        requireOrSkip(this, ["busybox", "setcap", "nsenter", "unshare", "setpriv", "openssl", "curl", "mariadbd"].every((c) => !!which(c)), "busybox, libcap2-bin, util-linux, openssl, curl, mariadb-server");
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
        const work = lab.makeWork(`pods-corp-pki-${v.mode}-${v.conductorCa}`);
        const fixture = readStackConfig(path.join(__dirname, "..", "fixtures", v.fixture));
        const raw = v.edit ? v.edit(fixture) : fixture;
        plan = planOf(raw);
        const listed = listedConductors(plan);
        pki = new CorporatePki(path.join(work, "pki"));
        // existing: the user's Secrets exist before the stack, and the API Secret's read is answered
        // with it (the conductor CA is never read); cert-manager: nothing is read.
        const user = v.mode === "existing" ? v.secrets(pki, plan, undefined) : {};
        const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
        const existing = (type: string, id: string) =>
            v.mode === "existing" && type === "kubernetes:core/v1:Secret" && id === `metal3/${plan.names.tlsSecret}`
                ? { apiVersion: "v1", kind: "Secret", metadata: { name: plan.names.tlsSecret, namespace: "metal3" }, type: "kubernetes.io/tls", data: Object.fromEntries(Object.entries(user[v.api]).map(([k, val]) => [k, b64(val)])) }
                : undefined;
        rendered = await renderOffline(raw, v.stack, { hook: (type, name, inputs) => realProviderState(type, name, inputs), existing });
        assert.deepEqual(rendered.reads.map((x) => x.id), v.mode === "existing" ? [`metal3/${plan.names.tlsSecret}`] : [], "only the user's API Secret is read");
        cluster = clusterData(rendered);
        const provided = v.mode === "existing" ? user : v.secrets(pki, plan, rendered);
        for (const [name, data] of Object.entries(provided)) {
            assert.equal(cluster.secrets[name], undefined, `${name} is not written by the program`);
            cluster.secrets[name] = data;
        }
        if (v.mode === "existing") assert.equal(cluster.secrets[plan.names.caSecret]["tls.crt"], user[v.api]["ca.crt"], "<name>-cacert holds the user's root");
        // The conductor nodes on one provisioning network, which carries cluster traffic too (no
        // slot agents here: the DHCP side is in test/integration/pods.test.ts); API, httpd and
        // MariaDB clients trust the corporate root only.
        const nodesOf = listed.map((c) => ({ node: c.node, ip: c.ip!, interface: c.interface }));
        await lab.setUp({ tag: "c", plan, rendered, cluster, nodes: nodesOf, caFile: pki.root, adminIp: "172.22.0.253", dbIp: "172.22.0.250" });
    });

    afterEach(function () {
        if (this.currentTest?.state === "failed") lab.printLogs(1500);
    });

    after(async function () {
        await lab.tearDown();
    });

    const api = (nodeIp: string, p: string, extra: string[] = []) => lab.api(nodeIp, p, extra);
    /** The chain a server presents, verified against the corporate root for `ip`: its certificates (PEM). */
    const served = (ip: string, port: number, label?: string, o?: { caFile?: string; expect?: "verified" | "refused" }) => lab.served(ip, port, label, o);

    it(`MariaDB and the schema Job run as declared (MariaDB's certificate from ${v.mode === "existing" ? "the stack CA" : "its Certificate"})`, async function () {
        await lab.startDatabase();
        await lab.runJob(lab.clusterPod("Job", "dbsync", JOB_IP, "jb"));
    });

    it("every conductor's ironic and httpd start as declared; the three join one hash ring", async function () {
        for (const { pod, ns } of nodes) {
            await lab.cache.serve(ns);
            await pod.runInitContainers();
        }
        await lab.startIronic();
        for (const { node: { node, ip }, pod } of nodes) {
            // conductor-certs mints (it alone mounts the conductor CA); the ironic container copies the pair for its JSON-RPC.
            assert.match(pod.logs("conductor-certs"), new RegExp(`conductor-cert: minted /etc/metal3-ironic/minted/tls.crt for ${node} \\(IP:${ip.replace(/\./g, "\\.")}, DNS:${node}, `), `${node}'s conductor-certs container minted the JSON-RPC certificate`);
            assert.match(pod.logs("ironic"), new RegExp(`certificate for ${node} IP:${ip.replace(/\./g, "\\.")} .* from the conductor-certs container`), `${node}'s ironic container copied it`);
            assert.doesNotMatch(pod.logs("httpd"), /conductor-cert: minted|from the conductor-certs container/, "httpd takes nothing minted: it serves the user's certificate");
        }
        const alive = await lab.aliveConductors();
        assert.deepEqual(alive, nodes.map((n) => n.node.ip).sort());
    });

    it(`httpd serves the ${v.mode === "existing" ? "user's" : "issued"} API and virtual-media certificates on every conductor, verified against the corporate root for the node's address`, function () {
        for (const { node: { ip } } of nodes) {
            for (const [port, secret] of [[plan.ports.api, v.api], [plan.ports.vmediaTls, v.vmedia]] as const) {
                const chain = served(ip, port);
                assert.equal(chain[0].trim(), firstPem(cluster.secrets[secret]["tls.crt"]), `${ip}:${port} serves the certificate of Secret ${secret}`);
            }
        }
    });

    it(`each conductor's JSON-RPC serves a certificate it minted from ${own}: its own address only, verified against the ${v.rpcTrust}${v.rpcTrust === "conductor root" ? ", refused by the API's clients" : ""}`, function () {
        const conductorCa = firstPem(cluster.secrets[v.conductorCa]["tls.crt"]);
        // The stack's root: the file the peers verify with ([json_rpc]cafile), as the pod mounts it.
        const rootFile = path.join(lab.work, "conductor-root.crt");
        if (v.rpcTrust === "conductor root") fs.writeFileSync(rootFile, cluster.secrets[v.conductorCa]["tls.crt"]);
        for (const { node: { node, ip } } of nodes) {
            const chain = served(ip, plan.ports.jsonRpc, node, v.rpcTrust === "conductor root" ? { caFile: rootFile } : {});
            assert.equal(chain.length, v.rpcTrust === "conductor root" ? 2 : 3, `${node}: its certificate, the conductor CA${v.rpcTrust === "conductor root" ? " (a root)" : ", the issuing CA"}`);
            assert.equal(chain[1].trim(), conductorCa);
            const text = run("openssl", ["x509", "-noout", "-subject", "-issuer", "-ext", "subjectAltName"], { input: chain[0] + "\n" }).stdout;
            assert.match(text, new RegExp(`subject=.*CN\\s*=\\s*${node}\\b`));
            assert.match(text, new RegExp(`issuer=.*CN\\s*=\\s*${v.conductorCaName.replace("/", "\\/")}`));
            const ips = [...text.matchAll(/IP Address:([0-9.]+)/g)].map((m) => m[1]);
            assert.deepEqual(ips, [ip], `${node} names its own address, no other conductor's`);
            // What baremetal-operator and IPA trust (the corporate root) does not accept the stack's root.
            if (v.rpcTrust === "conductor root") served(ip, plan.ports.jsonRpc, node, { expect: "refused" });
        }
    });

    it(`API calls reach the owning conductors over JSON-RPC with TLS, each peer verifying the others against the ${v.rpcTrust} only`, async function () {
        // All three registered fake-hardware, and no hash ring cached before that still in use.
        await lab.fakeHardwareOnAll();
        for (let i = 0; i < 6; i++) {
            const r = api(nodes[0].node.ip, "/v1/nodes", ["-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ name: `corp-${i}`, uuid: fixedNodeUuid(`corp-${i}`), driver: "fake-hardware" })]);
            assert.equal(r.code, 201, r.body);
        }
        const list = JSON.parse(api(nodes[0].node.ip, "/v1/nodes?detail=true").body).nodes;
        // Fixed UUIDs: on the full ring of three, these six hash to every conductor (a ring cached
        // with fewer would leave one out).
        const owners = new Set(list.map((n: any) => conductorName(n.conductor)));
        assert.deepEqual([...owners].sort(), nodes.map((n) => n.node.ip).sort(), "every conductor owns some of the nodes");
        // From cp-1's API: a call handed to each node's conductor over JSON-RPC (a failed TLS check would be a 500/503).
        for (const n of list) {
            const r = api(nodes[1].node.ip, `/v1/nodes/${n.uuid}/states/provision`, ["-X", "PUT", "-H", "Content-Type: application/json", "-d", JSON.stringify({ target: "manage" })]);
            assert.equal(r.code, 202, `${n.name} (conductor ${n.conductor}): ${r.body}`);
        }
        let states: string[] = [];
        await until(
            () => (states = JSON.parse(api(nodes[2].node.ip, "/v1/nodes?detail=true").body).nodes.map((n: any) => n.provision_state)).every((s: string) => s === "manageable"),
            60000,
            "every node manageable",
            1000,
        ).catch((e) => assert.fail(`${e.message}: provision states: ${states.join(", ")}`));
    });
});
}
