/**
 * The kustomize overlay docs/getting-started.md gives for wiring baremetal-operator, rendered by the
 * real kustomize (the toolchain's kubectl) over BMO's release config, wires BMO exactly as the
 * provisioning test deploys it (test/helpers/bmo.ts bmoPodSpec, in test/integration/pods.test.ts),
 * with the names the dev example stack renders: so the documented overlay is the tested wiring.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { parseAllDocuments } from "yaml";

import { validateConfig } from "../../core/config";
import { buildPlan } from "../../core/plan";
import { readStackConfig } from "../../tools/render";
import { bmoBuilt, bmoPodSpec, bmoRelease } from "../helpers/bmo";
import { requireOrSkip, run, tmpDir } from "../helpers/sys";
import { requireToolchain, toolchainBin } from "../e2e/toolchain";

const ROOT = path.join(__dirname, "..", "..");

describe("the documented BMO overlay (docs/getting-started.md) is the wiring the provisioning test deploys", function () {
    this.timeout(60000);
    let work = "";

    before(function () {
        requireToolchain(this, "cluster");
        requireOrSkip(this, bmoBuilt(), `baremetal-operator's release config in the toolchain (${bmoRelease().config}): tools/toolchain/build.sh bmo`);
        work = tmpDir("bmo-kustomize");
    });
    after(function () {
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });

    it("kubectl kustomize renders the manager with the stack's ConfigMap and Secrets at BMO's paths, as bmoPodSpec does", function () {
        const doc = fs.readFileSync(path.join(ROOT, "docs", "getting-started.md"), "utf8");
        const m = /```yaml\n(# kustomization\.yaml[^\n]*\n[\s\S]*?)```/.exec(doc);
        assert.ok(m, "docs/getting-started.md has the kustomization.yaml block");
        fs.cpSync(bmoRelease().config, path.join(work, "config"), { recursive: true });
        fs.writeFileSync(path.join(work, "kustomization.yaml"), m[1]);
        const out = run(path.join(toolchainBin(), "kubectl"), ["kustomize", work]).stdout;
        const dep = parseAllDocuments(out)
            .map((d) => d.toJS())
            .find((d) => d?.kind === "Deployment");
        const spec = dep.spec.template.spec;
        const manager = spec.containers.find((c: any) => c.name === "manager");

        // The names the dev example renders (the block's comment says: stack name "ironic").
        const v = validateConfig(readStackConfig(path.join(ROOT, "Pulumi.dev.yaml")));
        assert.ok(v.ok, JSON.stringify(!v.ok && v.issues));
        const names = buildPlan(v.config).names;
        const want = bmoPodSpec({ configMap: names.bmoConfigMap, caSecret: names.caSecret, credentialsSecret: names.credentialsSecret }).spec;
        const wantManager = want.containers.find((c: any) => c.name === "manager");

        assert.deepEqual(manager.envFrom, wantManager.envFrom);
        const secretsAt = (s: any, c: any) =>
            Object.fromEntries(c.volumeMounts.map((vm: any) => [vm.mountPath, s.volumes.find((x: any) => x.name === vm.name)?.secret?.secretName]));
        const got = secretsAt(spec, manager);
        const expected = secretsAt(want, wantManager);
        for (const p of ["/opt/metal3/certs/ca", "/opt/metal3/auth/ironic"]) assert.equal(got[p], expected[p], `${p}: ${JSON.stringify(got)}`);
        assert.deepEqual([got["/opt/metal3/certs/ca"], got["/opt/metal3/auth/ironic"], manager.envFrom[0].configMapRef.name], [names.caSecret, names.credentialsSecret, names.bmoConfigMap]);
    });
});
