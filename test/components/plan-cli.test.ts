/** `npm run plan` as a newcomer runs it: offline, deterministic, secrets redacted, clear errors. */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { readRenderTree } from "../../tools/diff";
import { buildPlanCliFirst, planCli } from "../helpers/plan-cli";
import { run, tmpDir } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");

/** `npm run plan -- ARGS`: the build, through tools/launch.js. */
const plan = (args: string[]) => planCli(args);

/** The same tool run from its sources (ts-node), what the build is compared with. */
function planFromSources(args: string[]) {
    return run(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", path.join(ROOT, "tools", "plan.ts"), ...args], { cwd: ROOT, allowFail: true, timeout: 120000 });
}

const readTree = readRenderTree;

describe("npm run plan", function () {
    this.timeout(180000);
    let work: string;
    before(() => (work = tmpDir("plan")));
    after(() => fs.rmSync(work, { recursive: true, force: true }));
    buildPlanCliFirst();

    it("npm run plan runs the build (tools/launch.js): the same render and summary as the sources, without loading the SDK's closure serializer, gRPC or unused Kubernetes API groups", function () {
        // The launcher rebuilds dist/ first when a source is newer (buildPlanCliFirst made this run's build).
        const built = run("npm", ["run", "-s", "plan", "--", "--stack", "ha", "--out", path.join(work, "built")], { cwd: ROOT, allowFail: true, timeout: 600000 });
        const source = planFromSources(["--stack", "ha", "--out", path.join(work, "source")]);
        assert.equal(built.status, 0, built.stdout + built.stderr);
        assert.equal(source.status, 0, source.stderr);
        assert.deepEqual(readTree(path.join(work, "built")), readTree(path.join(work, "source")));
        const summary = (out: string) => out.replace(/^wrote (\d+) objects to .*$/m, "wrote $1 objects");
        assert.equal(summary(built.stdout), summary(source.stdout));
        // Which modules the built tool loaded: TypeScript, Arborist and gRPC stay unloaded until used.
        const probe = path.join(work, "loaded.js");
        fs.writeFileSync(probe, `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(path.join(work, "loaded.json"))}, JSON.stringify(Object.keys(require.cache))));\n`);
        const traced = run(process.execPath, ["-r", probe, path.join(ROOT, "tools", "launch.js"), "plan", "--stack", "dev", "--out", path.join(work, "traced")], { cwd: ROOT, allowFail: true, timeout: 600000 });
        assert.equal(traced.status, 0, traced.stderr);
        const loaded = JSON.parse(fs.readFileSync(path.join(work, "loaded.json"), "utf8")) as string[];
        assert.ok(loaded.some((f) => f.includes(`${path.sep}@pulumi${path.sep}pulumi${path.sep}`)), "the SDK is loaded");
        assert.deepEqual(loaded.filter((f) => /node_modules\/(typescript|@npmcli\/arborist|@grpc\/grpc-js)\/|_grpc_pb\.js$/.test(f)), [], "TypeScript, Arborist, gRPC and the engine protocol's clients are not");
        const unused = /node_modules\/(@opentelemetry\/api|glob|@pulumi\/pulumi\/(automation|dynamic|provider)|@pulumi\/kubernetes\/(admissionregistration|yaml|kustomize))\//;
        assert.deepEqual(loaded.filter((f) => unused.test(f)), [], "nor OpenTelemetry, the automation API, nor unused Kubernetes API groups and its YAML support");
        assert.ok(loaded.some((f) => f.includes("/@pulumi/kubernetes/core/v1/secret.js")), "the API groups the program uses are loaded");
        assert.deepEqual(loaded.filter((f) => /\/zod\/v4\/locales\//.test(f)).map((f) => path.basename(f)), ["en.cjs"], "zod's messages in English only");
        const bad = run(process.execPath, [path.join(ROOT, "tools", "launch.js"), "nosuchtool"], { allowFail: true });
        assert.equal(bad.status, 2);
        assert.match(bad.stderr, /usage: node tools\/launch\.js TOOL/);
    });

    it("renders the dev stack offline, byte-identical on a second run, with a summary", function () {
        const a = plan(["--stack", "dev", "--out", path.join(work, "a")]);
        const b = plan(["--stack", "dev", "--out", path.join(work, "b")]);
        assert.equal(a.status, 0, a.stderr);
        assert.equal(b.status, 0, b.stderr);
        const ta = readTree(path.join(work, "a"));
        const tb = readTree(path.join(work, "b"));
        assert.deepEqual(Object.keys(ta), [
            "configmap/metal3/ironic-bmo.yaml",
            "configmap/metal3/ironic-dnsmasq.yaml",
            "configmap/metal3/ironic-ipa-cache-client.yaml",
            "configmap/metal3/ironic-ipa-cache-scripts.yaml",
            "deployment/metal3/ironic-ipa-cache.yaml",
            "deployment/metal3/ironic.yaml",
            "namespace/metal3.yaml",
            "persistentvolumeclaim/metal3/ironic-ipa-cache-data.yaml",
            "secret/metal3/ironic-cacert.yaml",
            "secret/metal3/ironic-credentials.yaml",
            "secret/metal3/ironic-ipa-cache-ca.yaml",
            "secret/metal3/ironic-ipa-cache-tls.yaml",
            "secret/metal3/ironic-tls.yaml",
            "service/metal3/ironic-ipa-cache.yaml",
            "service/metal3/ironic.yaml",
        ]);
        assert.deepEqual(ta, tb, "two runs produce byte-identical files");
        const summary = (out: string) => out.replace(/^wrote (\d+) objects to .*$/m, "wrote $1 objects");
        assert.equal(summary(a.stdout), summary(b.stdout), "same summary apart from the output directory");
        assert.match(a.stdout, /^wrote 15 objects to /m);
        assert.match(a.stdout, /Deployment\s+2/);
        assert.match(a.stdout, /API \(in cluster, for BMO\)\s+https:\/\/ironic\.metal3\.svc:6385/);
        assert.match(a.stdout, /httpd listens on\s+every address of the node \(provisioning\.bindInterface: false\)/);
        assert.match(a.stdout, /172\.22\.0\.10-172\.22\.0\.100 \(91 addresses\)/);
    });

    it("prints and writes no secret value: Secret values are redacted, keys stay visible", function () {
        const files = readTree(path.join(work, "a"));
        const tls = files["secret/metal3/ironic-tls.yaml"];
        assert.match(tls, /tls\.key: "<redacted: secret>"/);
        assert.match(tls, /tls\.crt: "<redacted: secret>"/);
        const all = Object.values(files).join("\n");
        assert.ok(!/PRIVATE KEY/.test(all), "no private key material");
        assert.ok(!/\$2[aby]\$/.test(all), "no htpasswd hash");
        assert.ok(!/generated at deploy time\)/.test(files["secret/metal3/ironic-credentials.yaml"]));
    });

    it("exits non-zero on a broken stack file and lists every problem with its key", function () {
        const r = plan(["--file", path.join(__dirname, "..", "fixtures", "Pulumi.broken.yaml"), "--out", path.join(work, "broken")]);
        assert.equal(r.status, 1);
        for (const pattern of [
            /- topology: must be "single"/,
            /- namepsace: unknown key "namepsace": did you mean "namespace"\?/,
            /- provisioning\.dhcp: range is reversed/,
            /- ports\.api: must be between 1 and 65535/,
            /- images\.ironic: not a valid image reference/,
        ]) {
            assert.match(r.stderr, pattern);
        }
        assert.match(r.stderr, /5 problems/);
        assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
        assert.ok(!fs.existsSync(path.join(work, "broken")), "nothing written");
    });

    it("with tls.mode existing says which existing object it reads, and renders it as nothing this program creates", function () {
        const dev = plan(["--stack", "dev", "--out", path.join(work, "dev-reads")]);
        assert.equal(dev.status, 0, dev.stderr);
        assert.ok(!/^reads:/m.test(dev.stdout), "the dev stack reads nothing");
        const r = plan(["--file", path.join(__dirname, "..", "fixtures", "Pulumi.tls-existing.yaml"), "--out", path.join(work, "existing")]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^reads: Secret metal3\/my-tls \(existing\)$/m);
        // createNamespace false: what the namespace made elsewhere must admit.
        assert.match(r.stdout, /^note: namespace metal3 is not created by this stack \(createNamespace: false\): it must admit privileged pods/m);
        assert.doesNotMatch(dev.stdout, /^note: namespace/m, "the dev stack creates its namespace");
        const files = readTree(path.join(work, "existing"));
        assert.ok(!Object.keys(files).some((f) => f.includes("my-tls")), `no file for the user's Secret: ${Object.keys(files).join(", ")}`);
        assert.ok(!Object.values(files).some((t) => /^\s+name: my-tls$/m.test(t) && /^kind: Secret$/m.test(t)), "no Secret object named my-tls");
        const cacert = Object.keys(files).find((f) => /^secret\/metal3\/ironic-cacert\.yaml$/.test(f));
        assert.ok(cacert, "BMO's CA Secret is created");
        assert.match(files[cacert!], /tls\.crt: "<redacted: secret>"/);
        assert.ok(!Object.keys(files).some((f) => /^secret\/metal3\/ironic-tls\.yaml$/.test(f)), "no API certificate Secret of our own");
        assert.ok(Object.keys(files).some((f) => /^secret\/metal3\/ironic-mariadb-tls\.yaml$/.test(f)), "MariaDB's own certificate");
        assert.ok(!/PRIVATE KEY/.test(Object.values(files).join("\n") + r.stdout), "no key material");
    });

    it("--previous renders the next run of a deployed stack from its outputs (pulumi stack output --json): kept slots, and the refusals", function () {
        // What `pulumi stack output --json` prints for an ha stack whose nodes were added one by one.
        const outputs = {
            apiUrl: "https://ironic.metal3.svc:6385",
            credentials: "[secret]",
            ironicImage: "quay.io/metal3-io/ironic:release-38.0",
            state: { topology: "multi", database: { kind: "mariadb", storageClass: "" }, dhcpSlots: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 4, nodes: { "cp-0": 3, "cp-2": 0, "old-node": 1 } } },
        };
        const file = path.join(work, "outputs.json");
        fs.writeFileSync(file, JSON.stringify(outputs, null, 2));
        const r = plan(["--stack", "ha", "--previous", file, "--out", path.join(work, "next")]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^previous run: outputs\.json \(quay\.io\/metal3-io\/ironic:release-38\.0; DHCP 172\.22\.0\.10-172\.22\.0\.209 in 4 slots, 3 node\(s\) remembered\)$/m);
        assert.match(r.stdout, /^ {2}cp-0 +172\.22\.0\.2 +3 \(kept\) +172\.22\.0\.160-172\.22\.0\.209 \(50 addresses\)$/m);
        assert.match(r.stdout, /^ {2}cp-1 +172\.22\.0\.3 +1 \(new\) +172\.22\.0\.60-172\.22\.0\.109 \(50 addresses\)$/m, "old-node's slot is free again");
        assert.match(r.stdout, /^ {2}cp-2 +172\.22\.0\.4 +0 \(kept\) +172\.22\.0\.10-172\.22\.0\.59 \(50 addresses\)$/m);
        assert.match(r.stdout, /4 slots \(kept from the previous run\) of 50 addresses in 172\.22\.0\.10-172\.22\.0\.209; free slots: 2$/m);
        // The plan's slots are preferences; it says who decides, and in what order.
        assert.match(r.stdout, /Holders are decided in the cluster: .*\(a pin only; else the slot its node held last, whatever is preferred here; else its preferred one when free; else the lowest free one\)/);
        const next = readTree(path.join(work, "next"));
        const cm = next[Object.keys(next).find((f) => /^configmap\/metal3\/ironic-conductors-[0-9a-f]{10}\.yaml$/.test(f))!];
        assert.match(cm ?? "", /"cp-0": 3,/, "the slot agents' preferences follow the kept slots");

        const moved = { ...outputs, state: { ...outputs.state, dhcpSlots: { ...outputs.state.dhcpSlots, rangeEnd: "172.22.0.200" } } };
        fs.writeFileSync(file, JSON.stringify(moved));
        const refused = plan(["--stack", "ha", "--previous", file, "--out", path.join(work, "refused")]);
        assert.equal(refused.status, 1, refused.stdout);
        assert.match(refused.stderr, /- provisioning\.dhcp\.rangeEnd: was 172\.22\.0\.200 in the previous run, now 172\.22\.0\.209; re-slicing .*provisioning\.dhcp\.reslice: true/);
        assert.ok(!fs.existsSync(path.join(work, "refused")), "nothing written");

        const missing = plan(["--stack", "ha", "--previous", path.join(work, "nope.json")]);
        assert.equal(missing.status, 2);
        assert.match(missing.stderr, /--previous .*nope\.json: no such file/);
    });

    it("a pull request's base is rendered as deployed (tools/render-base.sh, pull-request.yml): the stack's outputs as --previous, else a first run with a note", function () {
        const dir = path.join(work, "pr");
        const bin = path.join(work, "pr-bin");
        fs.mkdirSync(bin, { recursive: true });
        // What is deployed of ha: a run that had a fourth node, so the stack remembers 5 DHCP slots
        // (a first run of today's three nodes cuts 4). Its outputs as `pulumi stack output --json` prints them.
        const deployedFile = path.join(work, "Pulumi.ha.yaml");
        const ha = fs.readFileSync(path.join(ROOT, "Pulumi.ha.yaml"), "utf8");
        fs.writeFileSync(deployedFile, ha.replace("        ip: 10.20.0.14\n", "        ip: 10.20.0.14\n    - name: cp-3\n      ip: 172.22.0.5\n"));
        const deployedOutputs = path.join(work, "deployed-ha-outputs.json");
        const d = plan(["--file", deployedFile, "--out", path.join(work, "deployed"), "--write-outputs", deployedOutputs]);
        assert.equal(d.status, 0, d.stderr);
        assert.equal(JSON.parse(fs.readFileSync(deployedOutputs, "utf8")).state.dhcpSlots.slots, 5);
        // The Pulumi CLI as the workflow calls it: ha is deployed, dev never was.
        fs.writeFileSync(
            path.join(bin, "pulumi"),
            `#!/bin/bash\n[ "$*" = "stack output --json --non-interactive --stack ha" ] && exec cat ${JSON.stringify(deployedOutputs)}\n` +
                `[ "$*" = "stack output --json --non-interactive --stack dev" ] && { echo "error: no stack named 'dev' found" >&2; exit 255; }\necho "unexpected: $*" >&2; exit 2\n`,
            { mode: 0o755 },
        );
        const script = (mode: string, env: NodeJS.ProcessEnv) => run("bash", [path.join(ROOT, "tools", "render-base.sh"), mode, dir], { cwd: ROOT, env, allowFail: true, timeout: 300000 });
        const withCli = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
        const o = script("outputs", withCli);
        assert.equal(o.status, 0, o.stderr);
        const r = script("render", withCli);
        assert.equal(r.status, 0, r.stderr);
        const note = (stack: string) => fs.readFileSync(path.join(dir, `base-${stack}.note`), "utf8").trim();
        assert.equal(note("ha"), "base rendered as deployed: the outputs of stack ha (pulumi stack output --json) as --previous");
        assert.match(note("dev"), /^base rendered as a first run: pulumi stack output --stack dev: error: no stack named 'dev' found/);
        const slotFiles = (render: string) =>
            Object.entries(readTree(render))
                .filter(([f]) => f.startsWith("configmap/"))
                .flatMap(([, text]) => Object.keys(YAML.parse(text).data ?? {}))
                .filter((k) => /^slot-\d+\.dnsmasq\.conf$/.test(k)).length;
        assert.equal(slotFiles(path.join(dir, "base", "ha")), 5, "the deployed 5 slots, not a first run's 4");
        assert.ok(fs.existsSync(path.join(dir, "base", "dev", "deployment", "metal3", "ironic.yaml")), "dev rendered too, as a first run");
        // A pull request that pins what is deployed (slots: 5) changes nothing; compared with a
        // first-run base (the workflow before) it is refused as a re-slice.
        const pinned = path.join(work, "pinned", "Pulumi.ha.yaml");
        fs.mkdirSync(path.dirname(pinned), { recursive: true });
        fs.writeFileSync(pinned, ha.replace("      leaseTime: 1h\n", "      leaseTime: 1h\n      slots: 5\n"));
        const head = plan(["--file", pinned, "--out", path.join(work, "head"), "--previous", path.join(dir, "base-ha.json"), "--diff", path.join(dir, "base", "ha")]);
        assert.equal(head.status, 0, head.stderr);
        assert.match(head.stdout, /diff against .*: 0 changed, 0 added, 0 removed\nrestart report:\n {2}- no pod restarts and no Job runs/);
        const firstRunBase = path.join(work, "first-run-base.json");
        assert.equal(plan(["--stack", "ha", "--out", path.join(work, "frb"), "--write-outputs", firstRunBase]).status, 0);
        const old = plan(["--file", pinned, "--out", path.join(work, "head-old"), "--previous", firstRunBase, "--diff", path.join(work, "frb")]);
        assert.notEqual(old.status, 0);
        assert.match(old.stderr, /provisioning\.dhcp\.slots: was 4 in the previous run, now 5/);
        // No Pulumi CLI (a fork's pull request, no token): every stack is a first run, and says why.
        const noCli = { ...process.env, PATH: (process.env.PATH ?? "").split(":").filter((p) => !fs.existsSync(path.join(p, "pulumi"))).join(":") };
        assert.equal(script("outputs", noCli).status, 0);
        assert.match(note("ha"), /^base rendered as a first run: no Pulumi CLI to read the deployed outputs/);
        assert.ok(!fs.existsSync(path.join(dir, "deployed-ha.json")), "no outputs of an earlier run are left to be used");
    });

    it("reads a stack file as the Pulumi CLI writes it: top-level \"false\", --path integers, nested {secure}", function () {
        // What `pulumi config set metal3-ironic:createNamespace false`, `... --path
        // metal3-ironic:provisioning.dhcp.leaseTime 3600` and `... --path --secret
        // 'metal3-ironic:ironic.config["redfish.password"]' ...` leave in Pulumi.<stack>.yaml (the e2e
        // tests render the files the real CLI wrote; this one pins the shape).
        const ciphertext = "v1:Zm9vYmFyYmF6cXV4:c2VjcmV0LWNpcGhlcnRleHQtbm90LXRvLXByaW50";
        const plain = fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8")
            .replace("      leaseTime: 1h\n", "      leaseTime: 3600\n")
            .replace("  metal3-ironic:topology: single\n", `  metal3-ironic:topology: single\n  metal3-ironic:createNamespace: "false"\n`);
        const file = path.join(work, "Pulumi.cli.yaml");
        fs.writeFileSync(file, plain);
        const r = plan(["--file", file, "--out", path.join(work, "cli")]);
        assert.equal(r.status, 0, r.stderr);
        const files = readTree(path.join(work, "cli"));
        assert.ok(!("namespace/metal3.yaml" in files), "createNamespace \"false\" means no Namespace object");
        assert.match(files["configmap/metal3/ironic-dnsmasq.yaml"], /dhcp-range=172\.22\.0\.10,172\.22\.0\.100,255\.255\.255\.0,3600\n/, "the lease time 3600 reaches dnsmasq");

        fs.writeFileSync(file, plain.replace("      agent.deploy_logs_collect: on_failure\n", `      agent.deploy_logs_collect: on_failure\n      redfish.password:\n        secure: ${ciphertext}\n`));
        const s = plan(["--file", file, "--out", path.join(work, "cli-secret")]);
        assert.equal(s.status, 0, s.stderr);
        assert.match(s.stdout, /encrypted config: 1 value\(s\) set with --secret.*keys treated as secret: ironic/);
        const written = readTree(path.join(work, "cli-secret"));
        const everything = s.stdout + s.stderr + Object.values(written).join("\n");
        assert.ok(!everything.includes(ciphertext) && !everything.includes("Zm9vYmFy"), "the ciphertext is never printed or written");
        // Only the encrypted leaf is secret: the Deployment is shown in clear, reading it from its Secret,
        // whose data alone is redacted; the plain options beside it keep their values.
        const dep = written["deployment/metal3/ironic.yaml"];
        assert.doesNotMatch(dep, /<redacted: secret>/);
        assert.doesNotMatch(dep, /OS_REDFISH__PASSWORD/);
        assert.match(dep, /secretName: ironic-config-secrets/);
        assert.match(dep, /- name: OS_AGENT__DEPLOY_LOGS_COLLECT\n\s+value: on_failure\n/);
        assert.match(written["secret/metal3/ironic-config-secrets.yaml"], /ironic.conf: "<redacted: secret>"/);
    });

    it("skips, and names, a check that needs an encrypted value's plaintext; checks the rest", function () {
        const dev = fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8")
            .replace("      leaseTime: 1h\n", "      leaseTime:\n        secure: v1:AAAA:BBBB\n")
            .replace("  metal3-ironic:name: ironic\n", "  metal3-ironic:name: Ironic_Bad\n");
        const file = path.join(work, "Pulumi.skip.yaml");
        fs.writeFileSync(file, dev);
        const bad = plan(["--file", file, "--out", path.join(work, "skip")]);
        assert.equal(bad.status, 1, "the readable values are still checked");
        assert.match(bad.stderr, /- name: must be a DNS label/);
        assert.doesNotMatch(bad.stderr, /leaseTime/, "the encrypted lease time is not reported as wrong");
        fs.writeFileSync(file, dev.replace("metal3-ironic:name: Ironic_Bad", "metal3-ironic:name: ironic"));
        const r = plan(["--file", file, "--out", path.join(work, "skip")]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /checks skipped \(pulumi preview checks the plaintext\): provisioning\.dhcp\.leaseTime/);
    });

    it("--file renders under the stack its name says (Pulumi.<stack>.yaml) unless --stack names it", function () {
        const file = path.join(work, "Pulumi.rack.yaml");
        fs.copyFileSync(path.join(ROOT, "Pulumi.ha.yaml"), file);
        const r = plan(["--file", file, "--out", path.join(work, "rack")]);
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stdout, /^stack rack: topology multi/m, "the file's stack, not dev");
        const named = plan(["--file", file, "--stack", "ha", "--out", path.join(work, "rack-ha")]);
        assert.equal(named.status, 0, named.stderr);
        assert.match(named.stdout, /^stack ha: topology multi/m, "an explicit --stack wins (an edited copy of a stack's file)");
        const odd = path.join(work, "stack-config.yaml");
        fs.copyFileSync(path.join(ROOT, "Pulumi.dev.yaml"), odd);
        assert.match(plan(["--file", odd]).stderr, /cannot tell its stack from the name \(expected Pulumi\.<stack>\.yaml\); pass --stack NAME too/);
        assert.equal(plan(["--file", odd, "--stack", "dev", "--out", path.join(work, "odd")]).status, 0);
    });

    it("refuses a key of this program under another prefix instead of rendering the default in its place", function () {
        const file = path.join(work, "Pulumi.prefix.yaml");
        fs.writeFileSync(file, fs.readFileSync(path.join(ROOT, "Pulumi.dev.yaml"), "utf8").replace("metal3-ironic:namespace: metal3", "metal3:namespace: bmo-system"));
        const r = plan(["--file", file, "--out", path.join(work, "prefix")]);
        assert.equal(r.status, 1);
        assert.match(r.stderr, /- metal3:namespace: is under the prefix "metal3", but this project is metal3-ironic/);
    });

    it("--previous: a file that is not this program's outputs, is malformed, or is another stack's is refused, naming what is wrong; another name or namespace is noted", function () {
        const outputs = path.join(work, "ha-outputs.json");
        assert.equal(plan(["--stack", "ha", "--out", path.join(work, "ha-w"), "--write-outputs", outputs]).status, 0);
        assert.equal(JSON.parse(fs.readFileSync(outputs, "utf8")).state.stack, "ha", "the state names the stack that wrote it");
        const prev = (name: string, content: unknown) => {
            const f = path.join(work, name);
            fs.writeFileSync(f, JSON.stringify(content));
            return f;
        };
        const cases: [string, unknown, RegExp][] = [
            ["empty.json", {}, /holds none of this program's outputs \(apiUrl, ironicImage, state\)/],
            ["state-number.json", { state: 5 }, /state must be an object/],
            // Once "plan: Invalid array length" (the slot count went straight into an array).
            ["huge.json", { state: { topology: "multi", database: { kind: "mariadb" }, dhcpSlots: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 1e12, nodes: {} } } }, /state\.dhcpSlots must have rangeStart and rangeEnd \(IP addresses\), slots \(1-64\)/],
        ];
        for (const [name, content, expected] of cases) {
            const r = plan(["--stack", "ha", "--out", path.join(work, "ha-p"), "--previous", prev(name, content)]);
            assert.equal(r.status, 2, `${name}: ${r.stdout}`);
            assert.match(r.stderr, expected, name);
        }
        const other = plan(["--stack", "dev", "--out", path.join(work, "dev-p"), "--previous", outputs]);
        assert.equal(other.status, 2);
        assert.match(other.stderr, /is the outputs of stack "ha" \(state\.stack\), not of "dev"/);
        const own = plan(["--stack", "ha", "--out", path.join(work, "ha-p"), "--previous", outputs]);
        assert.equal(own.status, 0, own.stderr);
        assert.doesNotMatch(own.stdout, /^note: --previous/m);
        // Another name or namespace: rendered (a pull request may rename the stack's objects), with a note.
        const renamed = plan(["--stack", "ha", "--out", path.join(work, "ha-r"), "--previous", prev("other-ns.json", { ...JSON.parse(fs.readFileSync(outputs, "utf8")), apiUrl: "https://ironic.other.svc:6385" })]);
        assert.equal(renamed.status, 0, renamed.stderr);
        assert.match(renamed.stdout, /^note: --previous other-ns\.json: its apiUrl names ironic\.other\.svc, this stack's API is ironic\.metal3\.svc .*creates every object anew$/m);
    });

    it("outside the dev stack, warns of every image the policy pack's images-pinned rule would refuse (the downloader's default latest), once each", function () {
        const ha = plan(["--stack", "ha", "--out", path.join(work, "ha-pin")]);
        assert.equal(ha.status, 0, ha.stderr);
        const warnings = ha.stdout.split("\n").filter((l) => l.startsWith("warning: image"));
        assert.deepEqual(warnings, [
            "warning: image quay.io/metal3-io/ironic-ipa-downloader:latest (stack ha) is not pinned: quay.io/metal3-io/ironic-ipa-downloader publishes no release tags, pin it by digest (config images.ipaDownloader): quay.io/metal3-io/ironic-ipa-downloader@sha256:<digest>; the policy pack's images-pinned rule refuses it outside its devStacks (default: dev)",
        ]);
        const dev = plan(["--stack", "dev", "--out", path.join(work, "dev-pin")]);
        assert.doesNotMatch(dev.stdout, /^warning: image/m, "dev may float");
    });

    it("explains a missing stack file", function () {
        const r = plan(["--stack", "nosuchstack"]);
        assert.equal(r.status, 2);
        assert.match(r.stderr, /Pulumi\.nosuchstack\.yaml does not exist/);
    });
});
