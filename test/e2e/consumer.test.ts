/**
 * The package as another Pulumi program uses it: this checkout packed by `npm pack` (its prepack
 * build, its `files`), installed from the tarball into examples/consumer (a program of its own, in
 * TypeScript), type-checked against the package's declarations, and deployed by the real Pulumi CLI
 * to the local cluster; then checked through the API, and a second preview must be empty.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { Cluster, ROOT, Workspace } from "./harness";
import { requireToolchain } from "./toolchain";
import { run, tmpDir } from "../helpers/sys";

/** What `npm pack` reads: the package's own files, copied so that the build writes only here. */
const PACKAGE_FILES = ["package.json", "tsconfig.json", "tsconfig.build.json", "index.ts", "components", "core", "tools", "assets", "README.md"];

describe("e2e: a program of its own imports the metal3-ironic package and deploys it with the real Pulumi CLI", function () {
    this.timeout(30 * 60 * 1000);
    let work: string;
    let pkgDir: string;
    let project: string;
    let tarball: string;
    let cluster: Cluster;
    let ws: Workspace;

    before(function () {
        requireToolchain(this);
        // Made here, not while mocha loads the file: a --grep that skips this suite leaves no directory.
        work = tmpDir("e2e-consumer");
        pkgDir = path.join(work, "package");
        project = path.join(work, "consumer");
        cluster = Cluster.up();
    });
    after(function () {
        cluster?.down();
        if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it("npm pack builds the package: JavaScript with declarations and the pod scripts, no sources or tests", function () {
        fs.mkdirSync(pkgDir, { recursive: true });
        for (const f of PACKAGE_FILES) fs.cpSync(path.join(ROOT, f), path.join(pkgDir, f), { recursive: true });
        fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(pkgDir, "node_modules"));
        const r = run("npm", ["pack", "--json", "--pack-destination", work], { cwd: pkgDir, allowFail: true, timeout: 600000 });
        assert.equal(r.status, 0, r.stdout + r.stderr);
        const [packed] = JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
        tarball = path.join(work, packed.filename);
        const files = packed.files.map((f) => f.path);
        for (const f of ["package.json", "dist/components/index.js", "dist/components/index.d.ts", "dist/core/render/assets.js", "assets/conductor-start.sh"]) assert.ok(files.includes(f), `${f} is in the package`);
        const stray = files.filter((f) => /^(test|tools|examples|policy)\//.test(f) || (f.endsWith(".ts") && !f.endsWith(".d.ts")));
        assert.deepEqual(stray, [], "no sources, tools or tests in the package");
    });

    it("installs from the tarball next to the program's own SDK: one @pulumi/pulumi, and the program type-checks against the declarations", function () {
        fs.cpSync(path.join(ROOT, "examples", "consumer"), project, { recursive: true });
        const manifest = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8"));
        manifest.dependencies["metal3-ironic"] = `file:${tarball}`;
        fs.writeFileSync(path.join(project, "package.json"), JSON.stringify(manifest, null, 2));
        const i = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: project, allowFail: true, timeout: 600000 });
        assert.equal(i.status, 0, i.stdout + i.stderr);
        // Two copies of the SDK would split the engine's state (Output and Resource checks, the
        // stack's resource registrations): the package's @pulumi/pulumi is a peer dependency.
        const copies = run("npm", ["ls", "@pulumi/pulumi", "--all", "--parseable"], { cwd: project, allowFail: true })
            .stdout.split("\n")
            .filter((l) => l.endsWith(path.join("node_modules", "@pulumi", "pulumi")));
        assert.deepEqual([...new Set(copies)], [path.join(project, "node_modules", "@pulumi", "pulumi")]);
        const tsc = run(process.execPath, [path.join(project, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", project], { cwd: project, allowFail: true });
        assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    });

    it("pulumi up deploys it, through the component's own Kubernetes provider (default providers are disabled)", function () {
        ws = new Workspace(cluster, "dev", project);
        const settings = [
            ["provisioningIp", "172.22.0.2"],
            ["provisioningCidr", "172.22.0.0/24"],
            // The live readiness check has its own tests (it needs a reachable Ironic, which kwok pods are not).
            ["readiness", "false"],
        ];
        // One CLI run for the three (top-level keys: stored as `pulumi config set` stores them, strings).
        ws.pulumi(["config", "set-all", ...settings.flatMap(([k, v]) => ["--plaintext", `metal3-consumer:${k}=${v}`])]);
        const r = ws.up();
        assert.match(r.stdout, /Resources:\n\s+\+ \d+ created/);
        const state = JSON.parse(ws.pulumi(["stack", "export"]).stdout);
        const resources = state.deployment.resources as { urn: string; type: string; provider?: string }[];
        const provider = resources.find((x) => x.type === "pulumi:providers:kubernetes");
        assert.ok(provider, "a Kubernetes provider");
        assert.match(provider.urn, /::metal3:index:Metal3Ironic\$pulumi:providers:kubernetes::ironic-kubernetes$/);
        const k8sObjects = resources.filter((x) => x.type.startsWith("kubernetes:"));
        assert.ok(k8sObjects.length > 10, `${k8sObjects.length} Kubernetes objects`);
        for (const o of k8sObjects) assert.ok(o.provider?.startsWith(`${provider.urn}::`), `${o.urn} through the component's provider`);
    });

    it("through the API: every workload Ready, the program's config applied; its outputs are the component's", function () {
        for (const d of cluster.get<{ items: any[] }>(["deployments,statefulsets", "-n", "metal3"]).items) {
            assert.equal(d.status.readyReplicas, d.spec.replicas, `${d.kind} ${d.metadata.name} Ready`);
        }
        const db = cluster.get(["pvc", "ironic-mariadb-data", "-n", "metal3"]);
        assert.equal(db.spec.resources.requests.storage, "2Gi", "the database volume as the program sized it");
        const out = ws.outputs();
        assert.equal(out.apiUrl, "https://ironic.metal3.svc:6385");
        assert.equal(out.bmoEndpoint, out.apiUrl);
        assert.equal(out.credentials.username, "bmo");
        const creds = cluster.get(["secret", "-n", "metal3", out.credentialsSecretName]);
        assert.equal(Buffer.from(creds.data.username, "base64").toString(), "bmo");
        assert.equal(out.state.topology, "single");
        assert.equal(out.state.stack, "dev");
    });

    it("a second pulumi preview --expect-no-changes exits 0 (the previous state read back)", function () {
        const r = ws.previewNoChanges();
        assert.equal(r.status, 0, r.stdout + r.stderr);
    });
});
