/**
 * Every example stack deployed with the real Pulumi CLI to the local cluster (tools/cluster.sh),
 * configured by the real CLI: `pulumi up` to completion with the provider's own awaits, assertions
 * through the API, the offline render of the stack file the CLI wrote equal to what was deployed,
 * and a second `pulumi preview --expect-no-changes`. The dev stack is configured by one
 * `pulumi config set` per key as a user types them (top-level values, `--path` numbers and
 * booleans, a top-level boolean, a nested `--secret`) and checks that `pulumi config set-all`
 * writes the same config; the others are configured by that one set-all.
 * One cluster per stack (each its own ports and state), so the stacks never meet. The ha stack's
 * deployment goes on with the day-2 and the conductor scenarios after its checks (ha-stack.ts).
 */
import { strict as assert } from "assert";
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { readRender } from "../../tools/diff";
import { selectExamples, selectsTheRest } from "../../tools/test-results";
import { compareStack } from "./compare";
import { describeConductorScenarios } from "./conductors";
import { HA_FILE, haStack } from "./ha-stack";
import { Cluster, ConfigSetting, READINESS_OFF, ROOT, Workspace } from "./harness";
import { describeLifecycleScenarios } from "./lifecycle";
import { requireToolchain, toolchainGoProxy } from "./toolchain";
import { planCli } from "../helpers/plan-cli";
import { run, tmpDir, trackProcessGroup } from "../helpers/sys";
import { certManagerCrd } from "../helpers/cert-manager";
import { OPERATOR_KINDS, operatorCrds } from "../helpers/operator-crds";

interface Example {
    stack: string;
    file: string;
    /** What to create before `pulumi up` (objects the stack only reads); may return what stops what it started. */
    prepare?: (c: Cluster, work: string) => void | (() => void);
    extra?: ConfigSetting[];
    /** One `pulumi config set` per key instead of one set-all (Workspace.configure). */
    perKey?: boolean;
    /** A stack deployed once for several suites (its cluster, configured as `file` says), instead of one of this suite's own. */
    shared?: () => { cluster: Cluster; ws: Workspace };
    /** Suites registered right after this one, which go on with its shared deployment. */
    followedBy?: (() => void)[];
    /** A change a user makes later, checked after the first deployment's checks with the same deployment. */
    then?: { title: string; run: (c: Cluster, ws: Workspace, work: string) => void };
}

/** tls.mode existing: the user's namespace and Secret (a real certificate from openssl). */
function userTlsSecret(c: Cluster, work: string): void {
    const key = path.join(work, "user.key");
    const crt = path.join(work, "user.crt");
    run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=ironic.metal3.svc", "-addext", "subjectAltName=DNS:ironic.metal3.svc,IP:172.22.0.2", "-keyout", key, "-out", crt]);
    c.kubectl(["create", "namespace", "metal3"]);
    c.kubectl(["-n", "metal3", "create", "secret", "generic", "my-tls", `--from-file=tls.crt=${crt}`, `--from-file=tls.key=${key}`, `--from-file=ca.crt=${crt}`]);
}

/**
 * tls.mode existing in multi, later with a CA of the user's PKI for the conductors: the Secret
 * made with openssl, tls.conductorCaSecret set, pulumi up. The DaemonSet mounts the user's CA
 * (never read) instead of the stack's root, which is deleted; the user's Secrets are not touched.
 */
function userConductorCa(c: Cluster, ws: Workspace, work: string): void {
    const key = path.join(work, "conductor-ca.key");
    const crt = path.join(work, "conductor-ca.crt");
    run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=conductor CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", key, "-out", crt]);
    c.kubectl(["-n", "metal3", "create", "secret", "tls", "my-conductor-ca", `--cert=${crt}`, `--key=${key}`]);
    const before = (name: string) => c.get(["secret", "-n", "metal3", name]).metadata.resourceVersion;
    const versions = { "my-tls": before("my-tls"), "my-conductor-ca": before("my-conductor-ca") };
    assert.equal(c.get(["secret", "-n", "metal3", "ironic-conductor-ca"]).type, "kubernetes.io/tls", "the stack's conductor root, before");
    ws.pulumi(["config", "set", "--path", "metal3-ironic:tls.conductorCaSecret", "my-conductor-ca"]);
    const r = ws.up();
    assert.match(r.stdout, /- \d+ deleted/, "the stack's root and its Secret go");
    const ds = c.get(["daemonset", "-n", "metal3", "ironic"]).spec.template.spec;
    assert.equal(ds.volumes.find((v: any) => v.name === "conductor-ca").secret.secretName, "my-conductor-ca");
    const envOf = (name: string) => Object.fromEntries(ds.containers.find((x: any) => x.name === name).env.map((e: any) => [e.name, e.value]));
    assert.equal(envOf("ironic").OS_JSON_RPC__CAFILE, undefined, "the peers verify against ca.crt of my-tls again");
    // The minter (the only container that mounts the CA) checks that the user's CA chains to it.
    assert.equal(envOf("conductor-certs").CONDUCTOR_CA_TRUST, "/certs/ca/ironic/tls.crt");
    assert.equal(c.kubectl(["get", "secret", "-n", "metal3", "ironic-conductor-ca"], { allowFail: true }).status, 1, "the stack's conductor root Secret is deleted");
    for (const [name, v] of Object.entries(versions)) assert.equal(before(name), v, `${name} (the user's) is not written`);
    // The offline render of the stack file the CLI now holds equals what was deployed, both ways (the root's Secret is gone from both).
    const out = path.join(work, "render-user-ca");
    assert.equal(plan(ws.stackFile, out).status, 0);
    assert.deepEqual(compareStack(renderedObjects(out), (args) => c.get(args)), []);
    assert.equal(ws.previewNoChanges().status, 0, "and a second preview is quiet");
}

/**
 * provisioning.bindInterface switched off and on again on the deployed (bound) stack, as a pull
 * request's preview shows it: the Service and the Deployment are updated in place, the
 * EndpointSlice goes and comes back, nothing is replaced; each time render = deployed.
 */
function switchBind(c: Cluster, ws: Workspace, work: string): void {
    const changes = () => {
        const steps: { op: string; urn: string }[] = JSON.parse(ws.pulumi(["preview", "--json"]).stdout).steps ?? [];
        // What the diff changes (not what the preview only reads or refreshes).
        return steps.filter((st) => !["same", "read", "refresh"].includes(st.op)).map((st) => `${st.op} ${st.urn.split("::").pop()}`).sort();
    };
    for (const [bound, expected] of [
        [false, ["delete ironic-ironic-endpoints", "update ironic-ironic-deployment", "update ironic-ironic-service"]],
        [true, ["create ironic-ironic-endpoints", "update ironic-ironic-deployment", "update ironic-ironic-service"]],
    ] as const) {
        ws.pulumi(["config", "set", "--path", "metal3-ironic:provisioning.bindInterface", String(bound)]);
        assert.deepEqual(changes(), expected, `bindInterface ${bound}: the preview`);
        ws.up();
        const service = c.get(["service", "-n", "metal3", "ironic"]);
        assert.equal(service.spec.selector !== undefined, !bound, `bindInterface ${bound}: the Service ${bound ? "selects nothing" : "selects the pod"}`);
        const slice = c.kubectl(["get", "endpointslice", "-n", "metal3", "ironic-provisioning", "-o", "json"], { allowFail: true });
        assert.equal(slice.status === 0, bound, `bindInterface ${bound}: the EndpointSlice ${bound ? "exists" : "is gone"}`);
        const out = path.join(work, `render-bind-${bound}`);
        assert.equal(plan(ws.stackFile, out).status, 0);
        assert.deepEqual(compareStack(renderedObjects(out), (args) => c.get(args)), []);
        assert.equal(ws.previewNoChanges().status, 0, `bindInterface ${bound}: a second preview is quiet`);
    }
}

/**
 * database.kind mariadb-operator: the operator's CRDs (its Go module, as mariadb-operator.test.ts
 * installs them) and a stand-in for its status. No operator runs on the local cluster (kwok runs
 * no pod), and `pulumi up` waits for each operator object's Ready condition
 * (pulumi.com/waitFor): a loop (started with setsid, stopped by its PID) sets that condition on
 * every MariaDB, Database, User and Grant once it exists, as the operator reports a member set up.
 */
function mariadbOperatorStandIn(c: Cluster, work: string): () => void {
    const crds = operatorCrds();
    for (const crd of Object.values(crds)) c.kubectl(["apply", "--server-side", "-f", crd.file]);
    c.kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...Object.values(crds).map((x) => `crd/${x.doc.metadata.name}`)]);
    const kinds = Object.values(OPERATOR_KINDS).map((plural) => `${plural}.k8s.mariadb.com`);
    const ready = '{"status":{"conditions":[{"type":"Ready","status":"True","reason":"StandIn","message":"set by the e2e tier: no MariaDB operator runs on this cluster","lastTransitionTime":"%s"}]}}';
    const script = [
        "while true; do",
        `  for kind in ${kinds.join(" ")}; do`,
        `    kubectl get "$kind" -A -o jsonpath='{range .items[*]}{.metadata.namespace}{" "}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}' 2>/dev/null |`,
        '      while read -r ns name status; do',
        '        [ "$status" = True ] && continue',
        `        kubectl patch "$kind" "$name" -n "$ns" --subresource=status --type=merge -p "$(printf '${ready}' "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" >/dev/null && echo "Ready: $kind $ns/$name"`,
        "      done",
        "  done",
        "  sleep 1",
        "done",
    ].join("\n");
    const log = fs.openSync(path.join(work, "mariadb-operator-standin.log"), "a");
    // setsid (not a process group leader here, so it runs bash in its own PID): bash leads a new session, stopped as a group.
    const child = spawn("setsid", ["bash", "-c", script], { env: c.env, stdio: ["ignore", log, log] });
    fs.closeSync(log);
    const pid = child.pid!;
    // Killed with its group if the suite is interrupted (SIGINT, SIGTERM), not left running.
    trackProcessGroup(child, "the MariaDB operator's stand-in loop");
    child.unref();
    return () => {
        try {
            process.kill(-pid, "SIGTERM");
        } catch {
            // already gone
        }
    };
}

/** tls.mode cert-manager: cert-manager's CRDs (from its Go module), as its installation creates them. */
function certManagerCrds(c: Cluster): void {
    const crds = ["cert-manager.io_certificates.yaml", "cert-manager.io_issuers.yaml", "cert-manager.io_clusterissuers.yaml"].map((f) => certManagerCrd(f).crd);
    c.kubectl(["apply", "--server-side", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: crds }) });
    for (const crd of crds) c.kubectl(["wait", "--for=condition=Established", "--timeout=120s", `crd/${crd.metadata.name}`]);
}

export const EXAMPLES: Example[] = [
    {
        stack: "dev",
        file: path.join(ROOT, "Pulumi.dev.yaml"),
        // A nested secret, as docs/security.md recommends setting one, and a top-level boolean (its default value).
        extra: [
            { key: 'metal3-ironic:ironic.config["redfish.password"]', value: "s3cr3t-redfish-pw", path: true, secret: true },
            { key: "metal3-ironic:createNamespace", value: "true", path: false },
            // baremetal-operator from the stack, its release from the toolchain's Go module cache (as an air-gapped user would point it).
            { key: "metal3-ironic:bmo.enabled", value: "true", path: true },
            { key: "metal3-ironic:bmo.goproxy", value: toolchainGoProxy(), path: true },
        ],
        perKey: true,
    },
    // Deployed once: the day-2 and the conductor scenarios go on with it after these checks (ha-stack.ts).
    { stack: "ha", file: HA_FILE, shared: haStack, followedBy: [describeLifecycleScenarios, describeConductorScenarios] },
    { stack: "vmedia", file: path.join(ROOT, "test", "fixtures", "Pulumi.vmedia.yaml") },
    {
        stack: "tls-existing",
        file: path.join(ROOT, "test", "fixtures", "Pulumi.tls-existing.yaml"),
        prepare: userTlsSecret,
        then: { title: "provisioning.bindInterface off, then on again: the Service and Deployment updated in place, the EndpointSlice deleted and created, nothing replaced; render = deployed and a quiet preview each time", run: switchBind },
    },
    // The user's certificate alone (JSON-RPC on the stack's own root), then a CA of the user's for the conductors.
    {
        stack: "tls-existing-ha",
        file: path.join(ROOT, "test", "fixtures", "Pulumi.tls-existing-ha.yaml"),
        prepare: userTlsSecret,
        then: { title: "later, a CA of the user's for the conductors (tls.conductorCaSecret): the DaemonSet mounts it, the stack's root goes, render = deployed", run: userConductorCa },
    },
    // No cert-manager controller runs on the local cluster: the Certificates are created and stay unissued (kwok's pods need no Secret).
    { stack: "cert-manager", file: path.join(ROOT, "test", "fixtures", "Pulumi.cert-manager.yaml"), prepare: certManagerCrds },
    // Provisioning over IPv6 only, and dual-stack (IPv4 primary, DHCPv6 and IPv6 boot URLs next to it): three conductors each.
    { stack: "v6", file: path.join(ROOT, "test", "fixtures", "Pulumi.v6.yaml") },
    { stack: "dualstack", file: path.join(ROOT, "test", "fixtures", "Pulumi.dualstack.yaml") },
    // An IPv6 VIP held by keepalived (VRRPv3).
    { stack: "v6-vip", file: path.join(ROOT, "test", "fixtures", "Pulumi.v6-vip.yaml") },
    // A Galera cluster of the MariaDB operator (its CRDs, and a stand-in for its Ready status).
    { stack: "ha-galera", file: path.join(ROOT, "test", "fixtures", "Pulumi.ha-galera.yaml"), prepare: mariadbOperatorStandIn },
];

/**
 * Stack files this suite does not deploy, each with why: the coverage check below names them, so
 * none is left out silently. Pulumi.broken.yaml is no example (a file of deliberate mistakes for
 * the validation tests).
 */
const NOT_DEPLOYED: Record<string, string> = {
    "Pulumi.broken.yaml": "no example: deliberate mistakes for the validation tests",
};
const NOT_EXAMPLES = Object.keys(NOT_DEPLOYED);

// Registered in the process that deploys the stacks no selection names (the check needs no cluster), so it runs once per `npm test`.
if (selectsTheRest(process.env.E2E_EXAMPLES)) describe("e2e: every example stack file is deployed by this suite", function () {
    it("each Pulumi.<stack>.yaml of the checkout and of test/fixtures is in EXAMPLES (a new example cannot be left out)", function () {
        const files = [ROOT, path.join(ROOT, "test", "fixtures")].flatMap((dir) => fs.readdirSync(dir).filter((f) => /^Pulumi\.[^.]+\.yaml$/.test(f) && !NOT_EXAMPLES.includes(f)).map((f) => path.join(dir, f)));
        const missing = files.filter((f) => !EXAMPLES.some((ex) => ex.file === f)).map((f) => path.relative(ROOT, f));
        assert.deepEqual(missing, [], "example stack files no e2e suite deploys: add each to EXAMPLES");
        assert.ok(files.length >= 9, files.join(" "));
        // The exceptions name files that exist (a renamed example cannot keep its exception).
        for (const f of NOT_EXAMPLES) assert.ok([ROOT, path.join(ROOT, "test", "fixtures")].some((d) => fs.existsSync(path.join(d, f))), `${f} (NOT_DEPLOYED) exists`);
    });
});

/**
 * Every secret value of a deployed stack: the values set with --secret, and in each Secret the stack
 * wrote (label app.kubernetes.io/managed-by) the keys that are no public data (passwords, htpasswd
 * hashes, private keys), each at least 8 characters.
 */
function stackSecretValues(c: Cluster, extra: ConfigSetting[]): { what: string; value: string }[] {
    const out = extra.filter((s) => s.secret).map((s) => ({ what: `--secret ${s.key}`, value: s.value }));
    const secrets = c.get<{ items: any[] }>(["secrets", "-A", "-l", "app.kubernetes.io/managed-by=metal3-ironic"]).items;
    for (const s of secrets) {
        for (const [key, b64] of Object.entries<string>(s.data ?? {})) {
            if (/^(tls\.crt|ca\.crt|username)$/.test(key)) continue;
            const value = Buffer.from(b64, "base64").toString().trim();
            const what = `${s.metadata.namespace}/${s.metadata.name}/${key}`;
            if (/htpasswd/.test(key)) for (const line of value.split("\n")) out.push({ what: `${what} hash`, value: line.slice(line.indexOf(":") + 1) });
            else if (/PRIVATE KEY/.test(value)) out.push({ what, value: value.split("\n")[1] });
            // A multi-line value (first-start SQL, the secret config file) holds values looked for on their own.
            else if (!value.includes("\n")) out.push({ what, value });
        }
    }
    return out.filter((v) => v.value.length >= 8);
}

/** `npm run plan` of a stack file, into `out`. */
function plan(file: string, out: string, previous?: string) {
    return planCli(["--file", file, "--out", out, ...(previous ? ["--previous", previous] : [])], { timeout: 180000 });
}

const renderedObjects = (dir: string) => [...readRender(dir).values()] as Record<string, any>[];

/** A stack file's `config`, each encrypted value (its ciphertext differs per stack) as "[secure]". */
function writtenConfig(stackFile: string): unknown {
    const mask = (v: unknown): unknown => {
        if (Array.isArray(v)) return v.map(mask);
        if (v !== null && typeof v === "object") {
            const o = v as Record<string, unknown>;
            if (Object.keys(o).length === 1 && typeof o.secure === "string") return "[secure]";
            return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, mask(x)]));
        }
        return v;
    };
    return mask(YAML.parse(fs.readFileSync(stackFile, "utf8")).config);
}

// The stacks this process deploys: all, or the part its unit of `npm test` names (tools/test-results.ts planUnits).
for (const ex of selectExamples(EXAMPLES, process.env.E2E_EXAMPLES)) {
    describe(`e2e: example stack ${ex.stack} with the real Pulumi CLI on the local cluster`, function () {
        this.timeout(30 * 60 * 1000);
        let cluster: Cluster;
        let stopPrepared: (() => void) | undefined;
        /** What the CLI printed to the user so far (preview --diff, up), scanned for secret values. */
        const printed: string[] = [];
        let ws: Workspace;
        let work: string;

        before(function () {
            requireToolchain(this);
            // Made here, not while mocha loads the file: a --grep that skips this suite leaves no directory.
            work = tmpDir(`e2e-${ex.stack}`);
            if (ex.shared) {
                ({ cluster, ws } = ex.shared());
                return;
            }
            cluster = Cluster.up();
            stopPrepared = ex.prepare?.(cluster, work) ?? undefined;
            ws = new Workspace(cluster, ex.stack);
            ws.configure(ex.file, [READINESS_OFF, ...(ex.extra ?? [])], ex.perKey ? "per-key" : "set-all");
        });
        after(function () {
            stopPrepared?.();
            // A shared deployment's cluster is stopped by the last suite that uses it.
            if (!ex.shared) cluster?.down();
            if (work) fs.rmSync(work, { recursive: true, force: true });
        });

        if (ex.perKey) {
            it("pulumi config set-all writes the config these per-key commands wrote (the other example stacks are configured by it)", function () {
                const settings = [READINESS_OFF, ...(ex.extra ?? [])];
                const setAll = new Workspace(cluster, `${ex.stack}-set-all`, ws.dir);
                setAll.configure(ex.file, settings, "set-all");
                // In the file: the same keys, nesting and types (numbers, booleans, strings), secrets as secrets.
                assert.deepEqual(writtenConfig(setAll.stackFile), writtenConfig(ws.stackFile));
                // Read back by the CLI: the same values, the secrets' own included.
                assert.deepEqual(setAll.config(), ws.config());
            });
        }

        it("npm run plan accepts the stack file the CLI wrote, and prints no secret", function () {
            const r = plan(ws.stackFile, path.join(work, "render"));
            assert.equal(r.status, 0, r.stderr);
            const written = fs.readFileSync(ws.stackFile, "utf8");
            const everything = r.stdout + r.stderr + renderedObjects(path.join(work, "render")).map((o) => JSON.stringify(o)).join("\n");
            for (const secure of written.match(/secure: (\S+)/g) ?? []) assert.ok(!everything.includes(secure.slice(8)), "no ciphertext in the render");
            assert.ok(!everything.includes("s3cr3t-redfish-pw"), "no plaintext secret in the render");
        });

        const secrets = (ex.extra ?? []).filter((s) => s.secret);
        if (secrets.length > 0) {
            it("pulumi preview --diff shows the workload in clear, reading the secret option from its Secret, the value nowhere", function () {
                const r = ws.pulumi(["preview", "--diff"]);
                const out = r.stdout + r.stderr;
                printed.push(out);
                for (const s of secrets) assert.ok(!out.includes(s.value), `${s.key}'s value is not printed`);
                // The Deployment's fields are shown (not [secret]): the volume of the Secret's config file, the image.
                assert.match(out, /kubernetes:apps\/v1:Deployment/);
                assert.match(out, /name\s*:\s*"config-secrets"\s+secret\s*:\s*\{\s+items\s*:\s*\[\s+\[0\]: \{\s+key\s*:\s*"ironic.conf"\s+path\s*:\s*"ironic.conf"\s+\}\s+\]\s+secretName\s*:\s*"ironic-config-secrets"/);
                assert.match(out, /image\s*:\s*"quay\.io\/metal3-io\/ironic:/, "the image is readable");
                assert.doesNotMatch(out, /OS_REDFISH__PASSWORD/, "no env entry for it");
            });
        }

        it("pulumi up succeeds, with the provider's own awaits", function () {
            const r = ws.up();
            printed.push(r.stdout + r.stderr);
            assert.match(r.stdout, /Resources:\n\s+\+ \d+ created/);
        });

        it("no secret value the stack holds or generates is in what the CLI prints: preview --diff, up, stack output, stack export (without --show-secrets)", function () {
            const values = stackSecretValues(cluster, ex.extra ?? []);
            assert.ok(values.some((v) => v.what.endsWith("/password")), `the generated passwords are looked for: ${values.map((v) => v.what).join(", ")}`);
            const outputs = ws.pulumi(["stack", "output", "--json"]).stdout;
            const exported = ws.pulumi(["stack", "export"]).stdout;
            const texts: [string, string][] = [...printed.map((t, i) => [`CLI run ${i + 1}`, t] as [string, string]), ["pulumi stack output", outputs], ["pulumi stack export", exported]];
            const leaks = texts.flatMap(([where, text]) => values.filter((v) => text.includes(v.value)).map((v) => `${where}: ${v.what}`));
            assert.deepEqual(leaks, []);
            // The export does hold them, encrypted; and shown on purpose they are found: the scan has teeth.
            assert.match(exported, /"ciphertext"/);
            const shown = ws.pulumi(["stack", "output", "--json", "--show-secrets"]).stdout;
            assert.ok(values.some((v) => v.what.endsWith("-credentials/password") && shown.includes(v.value)), "--show-secrets prints the API password, which the scan finds");
        });

        it("through the API: every workload Ready, the schema upgrade done before the Ironic pods started, the outputs real", function () {
            const ns = "metal3";
            for (const d of cluster.get<{ items: any[] }>(["deployments,statefulsets", "-n", ns]).items) {
                assert.equal(d.status.readyReplicas, d.spec.replicas, `${d.kind} ${d.metadata.name} Ready`);
            }
            for (const d of cluster.get<{ items: any[] }>(["daemonsets", "-n", ns]).items) {
                assert.ok(d.status.desiredNumberScheduled > 0 && d.status.numberReady === d.status.desiredNumberScheduled, `DaemonSet ${d.metadata.name} Ready on every node it selects`);
            }
            const upgrade = cluster.get<{ items: any[] }>(["jobs", "-n", ns]).items.find((j) => j.metadata.name.startsWith("ironic-dbsync-"));
            const ironicPods = cluster
                .get<{ items: any[] }>(["pods", "-n", ns])
                .items.filter((p) => p.spec.containers.some((c: any) => c.name === "ironic") && !(p.metadata.ownerReferences ?? []).some((o: any) => o.kind === "Job"));
            assert.ok(ironicPods.length > 0);
            if (upgrade) {
                for (const p of ironicPods) assert.ok(Date.parse(p.metadata.creationTimestamp) >= Date.parse(upgrade.status.completionTime), `${p.metadata.name} started after ${upgrade.metadata.name} completed`);
            }
            const out = ws.outputs();
            assert.equal(out.apiUrl, "https://ironic.metal3.svc:6385");
            if (ex.stack === "dev") {
                // bmo.enabled: baremetal-operator's CRDs established, its manager wired to the stack, its webhook's CA in caBundle.
                for (const crd of ["baremetalhosts.metal3.io", "hardwaredata.metal3.io", "preprovisioningimages.metal3.io"]) {
                    const c = cluster.get(["crd", crd]);
                    assert.ok(c.status.conditions.some((x: any) => x.type === "Established" && x.status === "True"), `${crd} Established`);
                }
                const bmo = cluster.get(["deployment", "-n", ns, "ironic-baremetal-operator"]);
                assert.deepEqual(bmo.spec.template.spec.containers[0].envFrom, [{ configMapRef: { name: "ironic-bmo" } }]);
                const vwc = cluster.get(["validatingwebhookconfiguration", "metal3-ironic-bmo-validating-webhook-configuration"]);
                const cert = cluster.get(["secret", "-n", ns, "ironic-bmo-webhook-cert"]);
                for (const w of vwc.webhooks) assert.equal(w.clientConfig.caBundle, cert.data["ca.crt"], `${w.name}: caBundle is the CA of the webhook's certificate`);
            }
            if (secrets.length > 0) {
                // The secret value: in the Secret <name>-config-secrets only (an Ironic option: its config file), which the ironic container mounts.
                const cfg = cluster.get(["secret", "-n", ns, "ironic-config-secrets"]);
                assert.deepEqual(Object.fromEntries(Object.entries(cfg.data).map(([k, v]) => [k, Buffer.from(String(v), "base64").toString()])), { "ironic.conf": '[redfish]\npassword = "s3cr3t-redfish-pw"\n' });
                const plain = JSON.stringify(cluster.get(["deployments,daemonsets,statefulsets,jobs,configmaps", "-n", ns]));
                assert.ok(!plain.includes("s3cr3t-redfish-pw"), "no workload or ConfigMap holds the value");
                const pod = cluster.get(["deployment", "-n", ns, "ironic"]).spec.template.spec;
                assert.deepEqual(pod.volumes.find((v: any) => v.name === "config-secrets").secret.secretName, "ironic-config-secrets");
                assert.ok(!pod.containers.find((x: any) => x.name === "ironic").env.some((e: any) => e.name === "OS_REDFISH__PASSWORD"));
            }
            const creds = cluster.get(["secret", "-n", ns, out.credentialsSecretName]);
            assert.equal(Buffer.from(creds.data.username, "base64").toString(), out.credentials.username);
            // With cert-manager the CA is the issuer's (ca.crt of the Secrets it writes): the output is empty.
            if (ex.stack === "cert-manager") assert.equal(out.caCertificate, "");
            else assert.match(out.caCertificate, /^-----BEGIN CERTIFICATE-----/);
        });

        it("the offline render equals the deployed objects, both ways (every field, and no object deployed that the render lacks)", function () {
            assert.deepEqual(compareStack(renderedObjects(path.join(work, "render")), (args) => cluster.get(args)), []);
        });

        it("a second pulumi preview --expect-no-changes exits 0", function () {
            const r = ws.previewNoChanges();
            assert.equal(r.status, 0, r.stdout + r.stderr);
        });

        if (ex.then) {
            const then = ex.then;
            it(then.title, function () {
                then.run(cluster, ws, work);
            });
        }
    });
    for (const next of ex.followedBy ?? []) next();
}
