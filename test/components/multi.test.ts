/** Multi-conductor topology: config validation, template stability, per-node data and certificates (the DHCP slice planner itself: test/unit/plan/slices.test.ts). */
import { strict as assert } from "assert";
import * as path from "path";

import { ConfigIssue, RawConfig, validateConfig } from "../../core/config";
import { listedConductors } from "../../core/plan/read";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { multiOf, planOf } from "../helpers/plan";

const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));

function withConductors(conductors: RawConfig["conductors"]): RawConfig {
    return { ...haRaw, conductors };
}

describe("multi-conductor config validation", function () {
    function issues(raw: RawConfig): ConfigIssue[] {
        const r = validateConfig(raw);
        assert.equal(r.ok, false);
        return (r as { issues: ConfigIssue[] }).issues;
    }
    const has = (list: ConfigIssue[], key: string, re: RegExp) => assert.ok(list.some((i) => i.key === key && re.test(i.message)), `${key} ${re}: ${JSON.stringify(list)}`);

    it("accepts the example ha stack", function () {
        const r = validateConfig(haRaw);
        assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
    });

    it("rejects conductor IPs inside the range or outside the CIDR, and a single-topology provisioning.ip", function () {
        const list = issues({ ...withConductors([{ name: "cp-0", ip: "172.22.0.20" }, { name: "cp-1", ip: "10.0.0.3" }]), provisioning: { ...(haRaw.provisioning as object), ip: "172.22.0.250" } });
        has(list, "conductors[0].ip", /contains the conductor IP 172\.22\.0\.20/);
        has(list, "conductors[1].ip", /not inside provisioning.cidr/);
        has(list, "provisioning.ip", /not used with topology "multi"/);
    });

    it("accepts nodes whose name-hashed slots collided (slots are allocated now), and rejects overrides of the settings multi depends on", function () {
        // master-1 and master-2 landed on one slot when slots were derived from a hash of the name.
        const masters = withConductors([{ name: "master-1", ip: "172.22.0.2" }, { name: "master-2", ip: "172.22.0.3" }]);
        assert.deepEqual(listedConductors(planOf(masters)).map((c) => [c.node, c.slot?.index]), [["master-1", 0], ["master-2", 1]]);
        const list = issues({ ...masters, ironic: { config: { "dhcp.dhcp_provider": "none", "json_rpc.port": 1 } } });
        assert.ok(!list.some((i) => i.key.endsWith(".slot")), JSON.stringify(list));
        has(list, "ironic.config.dhcp.dhcp_provider", /set by this program/);
        has(list, "ironic.config.json_rpc.port", /set by this program/);
    });

    it("existing TLS needs no CA of the user's: without tls.conductorCaSecret the conductors mint from the stack's own root", function () {
        assert.deepEqual(planOf({ ...haRaw, tls: { mode: "existing", existingSecret: "x" } }).conductorCa, { source: "stack-root", jsonRpcCaFile: "/etc/metal3-ironic/conductor-ca-cert/tls.crt" });
    });
});

describe("multi-conductor resources (pulumi mocks)", function () {
    this.timeout(60000);

    async function daemonSetTemplate(raw: RawConfig): Promise<string> {
        const r = await renderOffline(raw, "ha");
        const ds = r.objects.find((o) => o.kind === "DaemonSet")!;
        return JSON.stringify(ds.spec.template);
    }

    it("keeps the DaemonSet pod template byte-identical when nodes are added, removed or replaced", async function () {
        const base = haRaw.conductors as any[];
        // Each variant is the next run of the deployed base (its slot layout remembered).
        const first = await renderOffline(haRaw, "ha");
        const previousOutputs = { state: await new Promise<any>((res) => (first.outputs as any).state.apply(res)) };
        const variants = [
            base,
            [...base, { name: "cp-3", ip: "172.22.0.5", slot: 3 }],
            base.slice(1),
            [{ name: "cp-0-new", ip: "172.22.0.6", slot: 3 }, ...base.slice(1)],
            base.map((c) => (c.name === "cp-1" ? { ...c, ip: "172.22.0.7" } : c)),
        ];
        const templates = [];
        for (const v of variants) templates.push(JSON.stringify((await renderOffline(withConductors(v), "ha", { previousOutputs })).objects.find((o) => o.kind === "DaemonSet")!.spec.template));
        for (const t of templates.slice(1)) assert.equal(t, templates[0]);
        assert.equal(await daemonSetTemplate(haRaw), templates[0], "the first run's template too");
    });

    it("changing one node changes only that node's entries", async function () {
        const a = await renderOffline(haRaw, "ha");
        const b = await renderOffline(withConductors((haRaw.conductors as any[]).map((c) => (c.name === "cp-1" ? { ...c, ip: "172.22.0.7" } : c))), "ha");
        const data = (r: typeof a) => r.objects.find((o) => o.kind === "ConfigMap" && /^ironic-conductors-[0-9a-f]{10}$/.test(o.metadata.name))!.data;
        const changed = Object.keys(data(a)).filter((k) => data(a)[k] !== data(b)[k]);
        assert.deepEqual(changed.sort(), ["cp-1.env"]);
        // No certificate names a node: changing one touches no TLS resource.
        const tlsInputs = (r: typeof a) => r.resources.filter((x) => x.type.startsWith("tls:")).map((x) => [x.name, x.inputs]);
        assert.deepEqual(tlsInputs(a), tlsInputs(b));
    });

    it("issues one conductor CA (signing only) that only the conductor-certs container mounts; no certificate per node", async function () {
        const r = await renderOffline(haRaw, "ha");
        const csrs = r.resources.filter((x) => x.type === "tls:index/certRequest:CertRequest" && x.name.startsWith("ironic-conductors-"));
        assert.deepEqual(csrs.map((x) => [x.name, x.inputs.subject.commonName, x.inputs.ipAddresses, x.inputs.dnsNames]), [["ironic-conductors-conductor-ca-csr", "metal3/ironic conductor CA", undefined, undefined]]);
        const ca = r.resources.find((x) => x.type === "tls:index/locallySignedCert:LocallySignedCert" && x.name === "ironic-conductors-conductor-ca-cert")!.inputs;
        assert.equal(ca.isCaCertificate, true);
        assert.equal(ca.maxPathLength, 0, "it asks for path length 0, which the tls provider does not encode (see docs/topologies.md, Conductor certificates)");
        assert.deepEqual(ca.allowedUses, ["cert_signing", "crl_signing", "digital_signature"]);
        assert.equal(r.resources.filter((x) => x.type === "tls:index/locallySignedCert:LocallySignedCert" && x.name.startsWith("ironic-conductors-")).length, 1);
        const secret = r.objects.find((o) => o.kind === "Secret" && o.metadata.name === "ironic-conductor-ca")!;
        assert.deepEqual(Object.keys(secret.stringData ?? secret.data).sort(), ["tls.crt", "tls.key"]);
        const pod = r.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec;
        const mounting = pod.containers.filter((c: any) => c.volumeMounts.some((m: any) => m.name === "conductor-ca")).map((c: any) => c.name);
        assert.deepEqual(mounting, ["conductor-certs"]);
        assert.deepEqual((pod.initContainers ?? []).filter((c: any) => c.volumeMounts.some((m: any) => m.name === "conductor-ca")), []);
    });

    it("runs on every control-plane node, tolerating its taints, and patches no Node; listed or not, the objects are the same", async function () {
        const r = await renderOffline(haRaw, "ha");
        assert.deepEqual(r.objects.filter((o) => o.kind === "Node"), []);
        const pod = r.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec;
        assert.deepEqual(pod.nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        assert.ok(pod.tolerations.some((t: any) => t.key === "node-role.kubernetes.io/control-plane"));
        // No node listed: the same pod template; the per-node ConfigMap holds only the preferences.
        const bare = await renderOffline({ ...haRaw, conductors: [] }, "ha");
        assert.deepEqual(bare.objects.find((o) => o.kind === "DaemonSet"), r.objects.find((o) => o.kind === "DaemonSet"));
        assert.deepEqual(Object.keys(bare.objects.find((o) => o.kind === "ConfigMap" && /^ironic-conductors-[0-9a-f]{10}$/.test(o.metadata.name))!.data), ["slot-preferences.json"]);
        // placement.nodeSelector places every pod of the stack: the conductors keep the role on
        // top of it, and MariaDB and the image cache get it alone.
        const placed = await renderOffline({ ...haRaw, placement: { nodeSelector: { "kubernetes.io/os": "linux" } } }, "ha");
        assert.deepEqual(placed.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec.nodeSelector, { "kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": "" });
        const others = placed.objects.filter((o) => ["Deployment", "StatefulSet"].includes(o.kind));
        assert.ok(others.length >= 2, others.map((o) => o.metadata.name).join());
        for (const o of others) assert.deepEqual(o.spec.template.spec.nodeSelector, { "kubernetes.io/os": "linux" }, `${o.kind} ${o.metadata.name}`);
        // placement.conductorNodeSelector picks the conductor nodes instead of the role.
        const picked = await renderOffline({ ...haRaw, placement: { nodeSelector: { "kubernetes.io/os": "linux" }, conductorNodeSelector: { "example.com/ironic": "yes" } } }, "ha");
        assert.deepEqual(picked.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec.nodeSelector, { "example.com/ironic": "yes", "kubernetes.io/os": "linux" });
    });

    it("enables JSON-RPC with its own credentials, the dnsmasq provider with the shared dirs, and the shared DB", async function () {
        const r = await renderOffline(haRaw, "ha");
        const pod = r.objects.find((o) => o.kind === "DaemonSet")!.spec.template.spec;
        const ironic = pod.containers.find((c: any) => c.name === "ironic");
        const env = Object.fromEntries(ironic.env.filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value]));
        assert.equal(env.IRONIC_EXPOSE_JSON_RPC, "true");
        assert.equal(env.IRONIC_JSON_RPC_PORT, "6189");
        // JSON-RPC on the node's provisioning address only; httpd (API proxy, boot files) unchanged.
        assert.equal(env.LISTEN_ALL_INTERFACES, "false");
        const httpd = pod.containers.find((c: any) => c.name === "httpd");
        assert.equal(httpd.env.find((e: any) => e.name === "LISTEN_ALL_INTERFACES")?.value, "true");
        assert.equal(env.OS_DHCP__DHCP_PROVIDER, "dnsmasq");
        assert.equal(env.OS_DNSMASQ__DHCP_HOSTSDIR, "/shared/dnsmasq/hostsdir.d");
        assert.equal(env.OS_DNSMASQ__DHCP_OPTSDIR, "/shared/dnsmasq/optsdir.d");
        assert.equal(env.OS_DNSMASQ__DHCP_LEASEFILE, "/shared/dnsmasq/dnsmasq.leases");
        assert.equal(env.IRONIC_USE_MARIADB, "true");
        assert.equal(env.MARIADB_HOST, "ironic-mariadb.metal3.svc");
        assert.equal(env.IRONIC_SKIP_DBSYNC, "true", "schema changes run in the ordered Jobs");
        assert.equal(env.PROVISIONING_IP, undefined, "the node's IP comes from its entry, not the template");
        assert.deepEqual(ironic.command, ["/bin/bash", "-c", "exec 9>/dev/null; export BASH_XTRACEFD=9; exec \"$@\"", "untraced", "/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh", "/bin/runironic"]);
        const mounts = Object.fromEntries(ironic.volumeMounts.map((m: any) => [m.mountPath, m.name]));
        assert.equal(mounts["/auth/ironic-rpc"], "rpc-auth");
        assert.equal(mounts["/auth/mariadb"], "db-auth");
        assert.equal(mounts["/certs/ca/ironic"], "ca");
        const vols = Object.fromEntries(pod.volumes.map((v: any) => [v.name, v]));
        assert.equal(vols["rpc-auth"].secret.secretName, "ironic-rpc-credentials");
        assert.equal(vols.ca.secret.secretName, "ironic-cacert");
        const rpcSecret = r.objects.find((o) => o.kind === "Secret" && o.metadata.name === "ironic-rpc-credentials")!;
        assert.deepEqual(Object.keys(rpcSecret.stringData).sort(), ["htpasswd", "password", "username"]);
        assert.deepEqual(pod.initContainers.map((c: any) => c.name), ["shared-dirs", "ipa-cache-client", "dhcp-dirs"]);
    });

    it("puts the API Service in front of all conductors and reports each slice in the outputs", async function () {
        const r = await renderOffline(haRaw, "ha");
        const svc = r.objects.find((o) => o.kind === "Service")!;
        const ds = r.objects.find((o) => o.kind === "DaemonSet")!;
        assert.deepEqual(svc.spec.selector, ds.spec.selector.matchLabels);
        const topology: any = await new Promise((res) => r.outputs.topology.apply(res));
        assert.deepEqual(topology.conductors, [
            { node: "cp-0", ip: "172.22.0.2", slot: 0, dhcpRange: "172.22.0.10-172.22.0.59 (50 addresses)" },
            { node: "cp-1", ip: "172.22.0.3", slot: 1, dhcpRange: "172.22.0.60-172.22.0.109 (50 addresses)" },
            { node: "cp-2", ip: "172.22.0.4", slot: 2, dhcpRange: "172.22.0.110-172.22.0.159 (50 addresses)" },
        ]);
    });

    it("exports the state its next run reads back, and that run, given it, registers the same objects", async function () {
        const first = await renderOffline(haRaw, "ha");
        const state: any = await new Promise((res) => (first.outputs as any).state.apply(res));
        assert.deepEqual(state, {
            topology: "multi",
            database: { kind: "mariadb", storageClass: "" },
            dhcpSlots: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 4, nodes: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } },
            // The stack that wrote it: npm run plan --previous refuses another stack's outputs.
            stack: "ha",
        });
        const image: string = await new Promise((res) => first.outputs.ironicImage.apply(res));
        const second = await renderOffline(haRaw, "ha", { previousOutputs: { ironicImage: image, state } });
        assert.deepEqual(second.objects, first.objects);
    });

    const conductorData = (r: Rendered) => r.objects.find((o) => o.kind === "ConfigMap" && /^ironic-conductors-[0-9a-f]{10}$/.test(o.metadata.name))!.data as Record<string, string>;
    const stateOf = (r: Rendered) => new Promise<any>((res) => (r.outputs as any).state.apply(res));

    it("the next run keeps every node's slice: a node replaced by a new one leaves the others' entries untouched, the newcomer takes the freed slot", async function () {
        // A previous run whose allocation differs from a first run's (e.g. nodes added one by one).
        const previousOutputs = { state: { topology: "multi", database: { kind: "mariadb", storageClass: "" }, dhcpSlots: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 4, nodes: { "cp-0": 3, "cp-1": 0, "cp-2": 1 } } } };
        const before = await renderOffline(haRaw, "ha", { previousOutputs });
        const prefs = (r: Rendered) => JSON.parse(conductorData(r)["slot-preferences.json"]);
        assert.deepEqual(prefs(before), { pinned: {}, remembered: { "cp-0": 3, "cp-1": 0, "cp-2": 1 } }, "cp-0 keeps slot 3, not the first run's 0");
        const replaced = withConductors((haRaw.conductors as any[]).map((c) => (c.name === "cp-1" ? { name: "cp-9", ip: "172.22.0.9" } : c)));
        const after = await renderOffline(replaced, "ha", { previousOutputs: { state: await stateOf(before) } });
        for (const key of ["cp-0.dnsmasq.conf", "cp-2.dnsmasq.conf", "cp-0.env", "cp-2.env"]) assert.equal(conductorData(after)[key], conductorData(before)[key], key);
        assert.deepEqual(prefs(after), { pinned: {}, remembered: { "cp-0": 3, "cp-2": 1, "cp-9": 0 } }, "the newcomer takes the lowest free slot: cp-1's");
        assert.deepEqual((await stateOf(after)).dhcpSlots.nodes, { "cp-0": 3, "cp-2": 1, "cp-9": 0 });
    });

    it("refuses a changed slot count without provisioning.dhcp.reslice, registering nothing first; with the flag it re-slices", async function () {
        const first = await renderOffline(haRaw, "ha");
        const previousOutputs = { state: await stateOf(first) };
        const prov = haRaw.provisioning as Record<string, any>;
        const eight = (reslice?: boolean): RawConfig => ({ ...haRaw, provisioning: { ...prov, dhcp: { ...prov.dhcp, slots: 8, ...(reslice === undefined ? {} : { reslice }) } } });
        let registered = 0;
        let err: Error | undefined;
        try {
            await renderOffline(eight(), "ha", {
                previousOutputs,
                onRegister: (a) => {
                    if (a.type !== "pulumi:pulumi:StackReference") registered++;
                },
            });
        } catch (e) {
            err = e as Error;
        }
        assert.ok(err, "the re-slice must be refused");
        assert.equal(err!.constructor.name, "RunError", "reported without a stack trace");
        assert.equal(registered, 0, "no managed resource was registered");
        assert.match(err!.message, /- provisioning\.dhcp\.slots: was 4 in the previous run, now 8; re-slicing .* set provisioning\.dhcp\.reslice: true, run pulumi up, then remove the flag/);
        const resliced = await renderOffline(eight(true), "ha", { previousOutputs });
        const scripts = resliced.objects.find((o) => o.kind === "ConfigMap" && /^ironic-scripts-[0-9a-f]{10}$/.test(o.metadata.name))!.data;
        assert.match(scripts["slot-2.dnsmasq.conf"], /^dhcp-range=172\.22\.0\.60,172\.22\.0\.84,/m, "slot 2 of 8 slices of 25");
        assert.ok("slot-7.dnsmasq.conf" in scripts && !("slot-8.dnsmasq.conf" in scripts));
        assert.equal((await stateOf(resliced)).dhcpSlots.slots, 8);
    });

    it("the per-node dnsmasq config answers only known hosts, pointing at the node; the range is the held slot's file", function () {
        const plan = planOf(haRaw);
        const cp1 = { dnsmasqConf: listedConductors(plan).find((c) => c.node === "cp-1")!.resolved!.dnsmasq!.dnsmasqConf };
        assert.doesNotMatch(cp1.dnsmasqConf!, /^dhcp-range=/m);
        assert.match(multiOf(plan).slotDnsmasqConfs["slot-1.dnsmasq.conf"], /^dhcp-range=172\.22\.0\.60,172\.22\.0\.109,255\.255\.255\.0,1h$/m);
        assert.match(cp1.dnsmasqConf!, /^dhcp-ignore=tag:!known$/m);
        assert.match(cp1.dnsmasqConf!, /^dhcp-hostsdir=\/shared\/dnsmasq\/hostsdir\.d$/m);
        assert.match(cp1.dnsmasqConf!, /^dhcp-boot=tag:ipxe,http:\/\/172\.22\.0\.3:6180\/boot\.ipxe$/m);
        assert.match(cp1.dnsmasqConf!, /^dhcp-leasefile=\/shared\/dnsmasq\/dnsmasq\.leases$/m);
    });

    it("the ha stack's relayed subnet is cut into the same 4 slots: slot k's file holds slot k of both ranges, disjoint, covering the relayed range in order", function () {
        const confs = multiOf(planOf(haRaw)).slotDnsmasqConfs;
        const relayed = Object.keys(confs)
            .sort()
            .map((k) => /^dhcp-range=set:relayed-0,([\d.]+),([\d.]+),255\.255\.255\.0,1h$/m.exec(confs[k])!.slice(1));
        assert.deepEqual(relayed, [
            ["172.23.0.10", "172.23.0.59"],
            ["172.23.0.60", "172.23.0.109"],
            ["172.23.0.110", "172.23.0.159"],
            ["172.23.0.160", "172.23.0.209"],
        ]);
        assert.match(confs["slot-1.dnsmasq.conf"], /^# DHCP slot 1 of 4 of metal3\/ironic: 50 addresses, 50 in relayed-0$/m);
    });
});
