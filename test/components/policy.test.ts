/**
 * The policy pack (policy/): every rule run on every resource the program registers for the
 * example stacks (offline mocks), and on violating variants, with the arguments @pulumi/policy
 * passes a resource validation; and the pack loaded the way `pulumi preview --policy-pack policy`
 * loads it, answering the analyzer's gRPC calls.
 */
import { strict as assert } from "assert";
import { ChildProcess, spawn, spawnSync } from "child_process";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { policies } from "../../policy/policies";
import { RuleArgs } from "../../policy/rules";
import { RecordedResource, unwrapSecrets } from "../../tools/offline";
import { renderOffline, readStackConfig } from "../../tools/render";
import { EXAMPLE_STACKS, ROOT } from "../../tools/golden";

interface Violation {
    policy: string;
    resource: string;
    message: string;
}

/** What @pulumi/policy hands validateResource: type, props (inputs, secrets unwrapped), urn, name, config. */
function argsFor(type: string, name: string, props: Record<string, any>, stack: string, config: Record<string, object> = {}, policy = ""): RuleArgs {
    return { type, name, props, urn: `urn:pulumi:${stack}::metal3-ironic::${type}::${name}`, getConfig: <T extends object>() => (config[policy] ?? {}) as T };
}

/** Every policy's validateResource on every resource, collecting reportViolation calls. */
function runPack(resources: { type: string; name: string; props: Record<string, any> }[], stack: string, config: Record<string, object> = {}): Violation[] {
    const out: Violation[] = [];
    for (const p of policies) {
        const validations = Array.isArray(p.validateResource) ? p.validateResource : [p.validateResource!];
        for (const r of resources) {
            const args = argsFor(r.type, r.name, r.props, stack, config, p.name);
            for (const v of validations) v(args as any, (message) => out.push({ policy: p.name, resource: `${r.type.split(":")[2]}/${r.props.metadata?.name ?? r.name}`, message }));
        }
    }
    return out;
}

const asPolicyResources = (rs: RecordedResource[]) => rs.map((r) => ({ type: r.type, name: r.name, props: unwrapSecrets(r.rawInputs) }));

async function registered(raw: RawConfig, stack: string) {
    return asPolicyResources((await renderOffline(raw, stack)).resources);
}

const exampleRaw = (stack: string) => readStackConfig(path.join(ROOT, EXAMPLE_STACKS.find((e) => e.stack === stack)!.file));

/** policy: "Kind/name container" of each violation (the container named in the message). */
const summary = (vs: Violation[]) => [...new Set(vs.map((v) => `${v.policy}: ${v.resource}${/container ([a-z0-9-]+)/.exec(v.message)?.[0].replace("container", "") ?? ""}`))].sort();

/**
 * resource-limits fires on main until the resources work (memory limits on every container) is
 * merged: then this list empties and the assertion below flips to "none".
 */
const FIRING_UNTIL_RESOURCES_MERGE: string[] = [];

/**
 * What fires on each example stack besides those: the non-dev examples keep the upstream default
 * `latest` of ipa-downloader and keepalived, which publish no release tags; only a digest pins
 * them, and a real digest cannot be written here offline. A production stack sets images.* .
 */
const EXPECTED_ON_EXAMPLES: Record<string, string[]> = {
    dev: [],
    // The downloader runs only in the IPA cache's pod (imageCache.mode "deploy", the default).
    ha: ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    "ha-galera": ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    vmedia: ["images-pinned: Deployment/ironic keepalived", "images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    "tls-existing": ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    "tls-existing-ha": ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    "cert-manager": ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    v6: ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    "v6-vip": ["images-pinned: Deployment/ironic keepalived", "images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
    dualstack: ["images-pinned: Deployment/ironic-ipa-cache ipa-downloader-x86-64"],
};

/** A deep copy of the resource of a kind named `name` (the Ironic workload by default), changed. */
function variantOf(rs: ReturnType<typeof asPolicyResources>, kind: string, change: (props: any) => void, name = "ironic") {
    const r = structuredClone(rs.find((x) => x.type.endsWith(`:${kind}`) && x.props?.metadata?.name === name)!);
    change(r.props);
    return r;
}

const containerIn = (props: any, name: string) => [...(props.spec.template.spec.initContainers ?? []), ...props.spec.template.spec.containers].find((c: any) => c.name === name);

describe("Policy pack (policy/)", function () {
    this.timeout(120000);

    it("has the nine policies, each with a validateResource", function () {
        assert.deepEqual(policies.map((p) => p.name), ["images-pinned", "tls-enabled", "database-client-tls", "resource-limits", "no-host-path", "capabilities-restricted", "api-socket-private", "exporter-bound", "tls-protocols"]);
        for (const p of policies) assert.equal(typeof p.validateResource, "function", p.name);
    });

    for (const { stack } of EXAMPLE_STACKS) {
        it(`example stack ${stack}: nothing fires but the listed`, async function () {
            const vs = runPack(await registered(exampleRaw(stack), stack), stack);
            assert.deepEqual(summary(vs.filter((v) => !FIRING_UNTIL_RESOURCES_MERGE.includes(v.policy))), EXPECTED_ON_EXAMPLES[stack]);
            // Until the merge: resource-limits names containers; afterwards it names none.
            for (const p of FIRING_UNTIL_RESOURCES_MERGE) assert.ok(vs.some((v) => v.policy === p), `${p} no longer fires on ${stack}: remove it from FIRING_UNTIL_RESOURCES_MERGE`);
        });
    }

    it("images-pinned: latest in a stack named prod fires, with the config key; dev stacks may float; digests and release tags pass", async function () {
        const raw = { ...exampleRaw("dev"), images: { ironic: "quay.io/metal3-io/ironic:latest" } };
        const prod = runPack(await registered(raw, "prod"), "prod").filter((v) => v.policy === "images-pinned");
        assert.ok(prod.some((v) => /container ironic: image quay.io\/metal3-io\/ironic:latest in stack "prod" is not pinned.*images\.ironic/.test(v.message)), prod.map((v) => v.message).join("\n"));
        assert.ok(prod.some((v) => /container ipa-downloader-x86-64: .*publishes no release tags, pin it by digest \(config images\.ipaDownloader\)/.test(v.message)));
        assert.deepEqual(runPack(await registered(raw, "dev"), "dev").filter((v) => v.policy === "images-pinned"), []);
        // Policy config: more stacks where images may float.
        assert.deepEqual(runPack(await registered(raw, "lab"), "lab", { "images-pinned": { devStacks: ["lab"] } }).filter((v) => v.policy === "images-pinned"), []);
        const pinned = { ...raw, images: { ironic: "quay.io/metal3-io/ironic:v38.0.0", ipaDownloader: `quay.io/metal3-io/ironic-ipa-downloader@sha256:${"a".repeat(64)}` } };
        assert.deepEqual(runPack(await registered(pinned, "prod"), "prod").filter((v) => v.policy === "images-pinned"), []);
        // A branch tag moves with its branch: refused like latest, with the version tag to use instead; with a digest it is pinned.
        const branch = runPack(await registered({ ...pinned, images: { ...pinned.images, ironic: "quay.io/metal3-io/ironic:release-38.0" } }, "prod"), "prod").filter((v) => v.policy === "images-pinned");
        assert.ok(branch.some((v) => /container ironic: image quay.io\/metal3-io\/ironic:release-38.0 in stack "prod" is not pinned: release-38.0 is a branch tag, rebuilt on every push to its branch; use a version tag \(e.g. v38.0.0\) or release-38.0@sha256:<digest> \(config images.ironic\)/.test(v.message)), branch.map((v) => v.message).join("\n"));
        const branchDigest = { ...pinned, images: { ...pinned.images, ironic: `quay.io/metal3-io/ironic:release-38.0@sha256:${"b".repeat(64)}` } };
        assert.deepEqual(runPack(await registered(branchDigest, "prod"), "prod").filter((v) => v.policy === "images-pinned"), []);
    });

    it("tls-enabled: JSON-RPC with use_ssl off, an API container without its certificate, a MariaDB config without require_secure_transport", async function () {
        const ha = exampleRaw("ha");
        const rs = await registered(ha, "ha");
        // The config refuses json_rpc.* in multi; the rule holds for the objects whatever renders them.
        await assert.rejects(registered({ ...ha, ironic: { config: { "json_rpc.use_ssl": false } } }, "ha"), /ironic\.config\.json_rpc\.use_ssl: set by this program/);
        const rpcOff = variantOf(rs, "DaemonSet", (p) => containerIn(p, "ironic").env.push({ name: "OS_JSON_RPC__USE_SSL", value: "False" }));
        const fired = runPack([rpcOff], "ha").filter((v) => v.policy === "tls-enabled");
        assert.deepEqual(fired.map((v) => v.message), ["DaemonSet ironic, container ironic: OS_JSON_RPC__USE_SSL=False turns TLS off for JSON-RPC (remove json_rpc.use_ssl from ironic.config)"]);
        const noCert = variantOf(rs, "DaemonSet", (p) => {
            const httpd = containerIn(p, "httpd");
            httpd.volumeMounts = httpd.volumeMounts.filter((m: any) => m.mountPath !== "/certs/ironic");
        });
        assert.deepEqual(summary(runPack([noCert], "ha").filter((v) => v.policy === "tls-enabled")), ["tls-enabled: DaemonSet/ironic httpd"]);
        const cnf = structuredClone(rs.find((r) => r.type.endsWith(":ConfigMap") && r.props.data?.["metal3-ironic.cnf"])!);
        assert.deepEqual(runPack([cnf], "ha"), []);
        cnf.props.data["metal3-ironic.cnf"] = cnf.props.data["metal3-ironic.cnf"].replace(/require_secure_transport = ON\n/, "");
        assert.match(runPack([cnf], "ha").map((v) => v.message).join("\n"), /does not set require_secure_transport = ON/);
    });

    it("database-client-tls: an external database without its CA mounted fires; with database.caSecret it passes", async function () {
        const external = { ...exampleRaw("dev"), database: { kind: "external", host: "db.example.com", credentialsSecret: "ironic-db", caSecret: "ironic-db-ca" } };
        const rs = await registered(external, "dev");
        assert.deepEqual(runPack(rs, "dev").filter((v) => v.policy === "database-client-tls"), []);
        // What the program renders for an external database without a CA: no /certs/ca/mariadb mount.
        const noCa = variantOf(rs, "Deployment", (p) => {
            for (const c of p.spec.template.spec.containers) c.volumeMounts = (c.volumeMounts ?? []).filter((m: any) => m.mountPath !== "/certs/ca/mariadb");
        });
        const fired = runPack([noCa], "dev").filter((v) => v.policy === "database-client-tls");
        assert.deepEqual(summary(fired), ["database-client-tls: Deployment/ironic ironic"]);
        assert.match(fired[0].message, /db\.example\.com .*set database\.caSecret/);
    });

    it("resource-limits: with a memory limit on every container nothing fires; one container without fires; CPU only if configured", async function () {
        const rs = await registered(exampleRaw("ha"), "ha");
        const limited = variantOf(rs, "DaemonSet", (p) => {
            for (const c of [...p.spec.template.spec.initContainers, ...p.spec.template.spec.containers]) c.resources = { ...c.resources, limits: { memory: "256Mi" } };
        });
        assert.deepEqual(runPack([limited], "ha").filter((v) => v.policy === "resource-limits"), []);
        delete containerIn(limited.props, "dnsmasq").resources.limits;
        assert.deepEqual(summary(runPack([limited], "ha").filter((v) => v.policy === "resource-limits")), ["resource-limits: DaemonSet/ironic dnsmasq"]);
        const cpu = runPack([limited], "ha", { "resource-limits": { requireCpuLimit: true } }).filter((v) => v.policy === "resource-limits");
        const pod = limited.props.spec.template.spec;
        assert.equal(cpu.length, pod.initContainers.length + pod.containers.length, cpu.map((v) => v.message).join("\n"));
        assert.ok(cpu.every((v) => /no (memory or )?cpu limit/.test(v.message)));
    });

    it("no-host-path: a pod volume or a PersistentVolume from the node's filesystem fires", async function () {
        const rs = await registered(exampleRaw("dev"), "dev");
        const host = variantOf(rs, "Deployment", (p) => p.spec.template.spec.volumes.push({ name: "host", hostPath: { path: "/var/lib/ironic" } }));
        const pv = { type: "kubernetes:core/v1:PersistentVolume", name: "pv", props: { metadata: { name: "pv" }, spec: { hostPath: { path: "/srv" }, capacity: { storage: "1Gi" } } } };
        assert.deepEqual(runPack([host, pv], "dev").filter((v) => v.policy === "no-host-path").map((v) => v.message), [
            "Deployment ironic: volume host mounts the node's /var/lib/ironic (hostPath)",
            "PersistentVolume pv: backed by the node's /srv (hostPath)",
        ]);
        // Multi's own: its DHCP files on the node, under /var/lib/metal3-ironic/ only.
        const ha = await registered(exampleRaw("ha"), "ha");
        assert.deepEqual(runPack(ha, "ha").filter((v) => v.policy === "no-host-path" || v.policy === "capabilities-restricted"), []);
        const moved = variantOf(ha, "DaemonSet", (p) => (p.spec.template.spec.volumes.find((v: any) => v.name === "dhcp-files").hostPath.path = "/var/lib/metal3-ironic/../../etc"));
        assert.deepEqual(runPack([moved], "ha").filter((v) => v.policy === "no-host-path").map((v) => v.message), ["DaemonSet ironic: volume dhcp-files mounts the node's /var/lib/metal3-ironic/../../etc (hostPath)"]);
    });

    it("tls-protocols: the vmedia stack's tls.minVersion passes; an httpd override enabling TLS 1.1 (or ALL) fires, naming the variable and the key", async function () {
        const rs = await registered(exampleRaw("vmedia"), "vmedia");
        assert.deepEqual(runPack(rs, "vmedia").filter((x) => x.policy === "tls-protocols"), []);
        const v = variantOf(rs, "Deployment", (props) => {
            const httpd = containerIn(props, "httpd");
            httpd.env = httpd.env.map((e: any) => (e.name === "IRONIC_VMEDIA_SSL_PROTOCOL" ? { ...e, value: "ALL -SSLv3" } : e.name === "IRONIC_SSL_PROTOCOL" ? { ...e, value: "-ALL +TLSv1.1 +TLSv1.2" } : e));
        });
        const fired = runPack([v], "vmedia").filter((x) => x.policy === "tls-protocols");
        assert.equal(fired.length, 2, JSON.stringify(fired));
        assert.match(fired[0].message, /httpd: IRONIC_SSL_PROTOCOL="-ALL \+TLSv1\.1 \+TLSv1\.2" enables TLSv1\.1 .*tls\.minVersion/);
        assert.match(fired[1].message, /IRONIC_VMEDIA_SSL_PROTOCOL="ALL -SSLv3" enables TLSv1, TLSv1\.1/);
    });

    it("capabilities-restricted: NET_ADMIN on a container other than dnsmasq, SYS_ADMIN on dnsmasq, or privileged fires", async function () {
        const rs = await registered(exampleRaw("dev"), "dev");
        const v = variantOf(rs, "Deployment", (p) => {
            containerIn(p, "ironic").securityContext.capabilities.add = ["NET_ADMIN"];
            containerIn(p, "dnsmasq").securityContext.capabilities.add.push("SYS_ADMIN");
            containerIn(p, "httpd").securityContext.privileged = true;
        });
        const fired = runPack([v], "dev").filter((x) => x.policy === "capabilities-restricted");
        assert.deepEqual(summary(fired), ["capabilities-restricted: Deployment/ironic dnsmasq", "capabilities-restricted: Deployment/ironic httpd", "capabilities-restricted: Deployment/ironic ironic"]);
        assert.ok(fired.some((x) => /container dnsmasq: adds SYS_ADMIN:/.test(x.message)));
    });

    it("api-socket-private: a container of an Ironic pod other than ironic, httpd and shared-dirs mounting all of the shared volume (Ironic's unauthenticated socket) fires; MariaDB's own shared volume does not", async function () {
        const rs = await registered(exampleRaw("ha"), "ha");
        assert.deepEqual(runPack(rs, "ha").filter((x) => x.policy === "api-socket-private"), [], "as rendered (MariaDB's pod mounts a volume of that name too)");
        const whole = variantOf(rs, "DaemonSet", (p) => {
            const d = containerIn(p, "dnsmasq");
            d.volumeMounts = d.volumeMounts.map((m: any) => (m.name === "shared" ? { name: "shared", mountPath: "/shared" } : m));
        });
        const fired = runPack([whole], "ha").filter((x) => x.policy === "api-socket-private").map((x) => x.message);
        assert.deepEqual(fired, ["DaemonSet ironic, container dnsmasq: mounts all of the shared volume at /shared, which holds Ironic's unauthenticated API socket (/shared/ironic.sock); only ironic, httpd, shared-dirs may: mount the parts it uses (subPath)"]);
    });

    it("exporter-bound: the exporter on the host network listening on every interface (0.0.0.0, unset) fires; the pod IP passes", async function () {
        const rs = await registered(exampleRaw("ha"), "ha");
        assert.deepEqual(runPack(rs, "ha").filter((x) => x.policy === "exporter-bound"), []);
        const everywhere = variantOf(rs, "DaemonSet", (p) => (containerIn(p, "ironic-prometheus-exporter").env[0] = { name: "FLASK_RUN_HOST", value: "0.0.0.0" }));
        const unset = variantOf(rs, "DaemonSet", (p) => containerIn(p, "ironic-prometheus-exporter").env.splice(0, 1));
        const one = variantOf(rs, "DaemonSet", (p) => (containerIn(p, "ironic-prometheus-exporter").env[0] = { name: "FLASK_RUN_HOST", value: "172.22.0.2" }));
        const fired = runPack([everywhere, unset, one], "ha").filter((x) => x.policy === "exporter-bound").map((x) => x.message);
        assert.equal(fired.length, 2, fired.join("\n"));
        assert.match(fired[0], /DaemonSet ironic, container ironic-prometheus-exporter: FLASK_RUN_HOST is "0\.0\.0\.0": .*bind it to the pod IP/);
        assert.match(fired[1], /is unset \(the image binds 0\.0\.0\.0\)/);
    });

    describe("loaded as `pulumi preview --policy-pack policy` loads it", function () {
        let child: ChildProcess | undefined;
        after(() => {
            if (child?.pid && child.exitCode === null) process.kill(child.pid, "SIGKILL");
        });

        it("the analyzer plugin's command starts the pack from policy/ (ts-node, type-checked) and it answers GetAnalyzerInfo and Analyze", async function () {
            const cwd = path.join(ROOT, "policy");
            // What pulumi-analyzer-policy does: resolve run-policy-pack from the pack's directory, run it with <engine> <dir>.
            const resolved = spawnSync(process.execPath, ["-e", "console.log(require.resolve('@pulumi/pulumi/cmd/run-policy-pack'))"], { cwd, encoding: "utf8" });
            assert.equal(resolved.status, 0, resolved.stderr);
            child = spawn(process.execPath, [resolved.stdout.trim(), "127.0.0.1:1", "."], { cwd, stdio: ["ignore", "pipe", "pipe"] });
            let stderr = "";
            child.stderr!.on("data", (d) => (stderr += d));
            const port = await new Promise<number>((resolve, reject) => {
                let out = "";
                child!.stdout!.on("data", (d) => {
                    out += d;
                    const m = /^(\d+)\s*$/m.exec(out);
                    if (m) resolve(Number(m[1]));
                });
                child!.on("exit", (code) => reject(new Error(`policy pack exited with ${code}:\n${stderr}`)));
            });
            // The SDK's own gRPC client and stubs, as the engine speaks to the analyzer.
            const sdk = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
            const load = (m: string) => require(require.resolve(m, { paths: [sdk] }));
            const grpc = load("@grpc/grpc-js");
            const rpc = load("@pulumi/pulumi/proto/analyzer_grpc_pb.js");
            const pb = load("@pulumi/pulumi/proto/analyzer_pb.js");
            const { Empty } = load("google-protobuf/google/protobuf/empty_pb.js");
            const { Struct } = load("google-protobuf/google/protobuf/struct_pb.js");
            const client = new rpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
            const call = <T>(method: string, req: unknown) => new Promise<T>((res, rej) => client[method](req, (e: Error | null, r: T) => (e ? rej(e) : res(r))));
            try {
                const info: any = await call("getAnalyzerInfo", new Empty());
                assert.equal(info.getName(), "metal3-ironic");
                assert.deepEqual(info.getPoliciesList().map((p: any) => p.getName()), policies.map((p) => p.name));
                const type = "kubernetes:apps/v1:Deployment";
                const req = new pb.AnalyzeRequest();
                req.setType(type);
                req.setName("bad");
                req.setUrn(`urn:pulumi:prod::metal3-ironic::${type}::bad`);
                const opts = new pb.AnalyzerResourceOptions();
                opts.setCustomtimeouts(new pb.AnalyzerResourceOptions.CustomTimeouts());
                req.setOptions(opts);
                req.setProperties(Struct.fromJavaScript({ metadata: { name: "bad" }, spec: { template: { spec: { containers: [{ name: "x", image: "busybox" }], volumes: [{ name: "h", hostPath: { path: "/" } }] } } } }));
                const res: any = await call("analyze", req);
                const fired = res.getDiagnosticsList().map((d: any) => d.getPolicyname()).sort();
                assert.deepEqual(fired, ["images-pinned", "no-host-path", "resource-limits"]);
            } finally {
                client.close();
            }
        });
    });
});
