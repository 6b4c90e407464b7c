/**
 * Every container of every example stack, as the program renders it, against the rows of
 * core/scripts.ts of the scripts it runs (found from its command: a script's path, or its text
 * given to `bash -c`): the container sets every variable the script cannot do without (or a
 * script before it in the same command exports it), and sets none of our scripts' variables that
 * no script it runs reads (a variable renamed on one side, or set in the wrong container). The
 * readiness Command, which runs where `pulumi up` runs, is held to its row the same way. Together
 * the example stacks run every script (the minter and the address finder through the wrapper).
 */
import { strict as assert } from "assert";
import * as path from "path";

import { ENV } from "../../core/contract";
import { readinessPlan } from "../../core/plan/readiness";
import { readAsset } from "../../core/render/assets";
import { KUBERNETES_ENV, SCRIPT_FILES, SCRIPTS, type ScriptRole } from "../../core/scripts";
import { EXAMPLE_STACKS } from "../../tools/golden";
import { Rendered, renderOffline, readStackConfig } from "../../tools/render";
import { planOf } from "../helpers/plan";
import { containersOf, podSpecs } from "../helpers/pod-specs";

const ROOT = path.join(__dirname, "..", "..");
const ROLES = Object.keys(SCRIPTS) as ScriptRole[];

/** Our scripts' own variables: what some row reads, less the ironic image's and Kubernetes'. */
const OURS = new Set(ROLES.flatMap((r) => SCRIPTS[r].reads).filter((n) => !(Object.values(ENV) as string[]).includes(n) && !(Object.values(KUBERNETES_ENV) as string[]).includes(n)));

/** Every container of every pod spec in an object, wherever the spec sits. */
const containers = (o: any, at: string): { where: string; c: any }[] => podSpecs(o, at).flatMap(({ where, spec }) => containersOf(spec).map((c) => ({ where: `${where}/${c.name}`, c })));

/**
 * The scripts a container's command runs, in order, each with the argument after it. A word that
 * names a script but is none of these (an inline text that differs from the file, a path of
 * another form) throws: no container escapes the check unseen. An inline script's `$0` is its name.
 */
export function scriptsRun(c: { command?: string[]; args?: string[] }): { role: ScriptRole; arg?: string }[] {
    const words = [...(c.command ?? []), ...(c.args ?? [])];
    const found: { role: ScriptRole; arg?: string }[] = [];
    words.forEach((w, i) => {
        let seen = false;
        for (const role of ROLES) {
            const file = SCRIPT_FILES[role];
            const inline = SCRIPTS[role].shipped === "inline" && words[i - 1] === "-c" && w === readAsset(file);
            if (w.endsWith(`/${file}`) || inline) found.push({ role, arg: words[i + 1] });
            seen ||= w.endsWith(`/${file}`) || inline || (w === file && words[i - 1] === readAsset(file));
        }
        const named = ROLES.find((r) => w.includes(SCRIPT_FILES[r]));
        if (named && !seen) throw new Error(`a command word names ${SCRIPT_FILES[named]} but runs no script of the table as it is: ${JSON.stringify(w.slice(0, 80))}`);
    });
    return found;
}

/** What is wrong with one container's environment (each name with its plain value; undefined for a reference) for the scripts it runs. */
function envProblems(env: Map<string, string | undefined> | Set<string>, runs: { role: ScriptRole; arg?: string }[]): string[] {
    const names = new Set(env.keys());
    const problems: string[] = [];
    const reads = new Set(runs.flatMap(({ role }) => SCRIPTS[role].reads));
    runs.forEach(({ role, arg }, i) => {
        const row = SCRIPTS[role];
        const required = row.requiredAs && arg === row.requiredAs.arg ? row.requiredAs.required : row.required;
        const exported = new Set(runs.slice(0, i).flatMap((r) => SCRIPTS[r.role].provides ?? []));
        for (const n of required) {
            if (!names.has(n) && !exported.has(n)) problems.push(`${SCRIPT_FILES[role]} needs ${n}, which is not set`);
            else if (env instanceof Map && env.get(n) === "") problems.push(`${SCRIPT_FILES[role]} needs ${n}, which is set empty`);
        }
    });
    for (const n of names) if (OURS.has(n) && !reads.has(n)) problems.push(`${n} is set, but no script of this container reads it`);
    return problems;
}

/** The readiness Command's environment (secret as a whole: the raw inputs' envelope holds it as `value`), if the stack has one. */
function readinessCommand(r: Rendered): Record<string, string> | undefined {
    const cmd = r.resources.find((x) => x.type === "command:local:Command" && x.rawInputs.stdin === readAsset(SCRIPT_FILES.readiness));
    const env = cmd?.rawInputs.environment;
    return env ? (env.value ?? env) : undefined;
}

describe("the environment of every container that runs one of our scripts (core/scripts.ts)", function () {
    this.timeout(120000);
    const renders = new Map<string, Rendered>();
    const ran = new Set<ScriptRole>();

    before(async function () {
        for (const ex of EXAMPLE_STACKS) {
            const r = await renderOffline(readStackConfig(path.join(ROOT, ex.file)), ex.stack);
            renders.set(ex.stack, r);
            for (const o of r.objects) for (const { c } of containers(o.spec, "")) for (const { role } of scriptsRun(c)) ran.add(role);
            if (readinessCommand(r)) ran.add("readiness");
        }
        for (const role of ROLES) if ([...ran].some((r) => SCRIPTS[role].runBy === r)) ran.add(role);
    });

    for (const ex of EXAMPLE_STACKS) {
        it(`${ex.stack}: each script's required variables set, none of ours set where no script reads it`, function () {
            const r = renders.get(ex.stack)!;
            const problems: string[] = [];
            for (const o of r.objects) {
                for (const { where, c } of containers(o.spec, `${o.kind}/${o.metadata.name}`)) {
                    const env = new Map<string, string | undefined>((c.env ?? []).map((e: { name: string; value?: string }) => [e.name, e.value]));
                    problems.push(...envProblems(env, scriptsRun(c)).map((p) => `${where}: ${p}`));
                }
            }
            // The readiness check, where the plan has one: the Command that gets the script on stdin.
            const readiness = readinessCommand(r);
            assert.equal(readiness !== undefined, readinessPlan(planOf(readStackConfig(path.join(ROOT, ex.file)))) !== undefined, "a readiness Command exactly when the plan has a readiness check");
            if (readiness) problems.push(...envProblems(new Map(Object.entries(readiness)), [{ role: "readiness" }]).map((p) => `readiness Command: ${p}`));
            assert.deepEqual(problems, []);
        });
    }

    it("together the example stacks run every script of the table", function () {
        assert.deepEqual(ROLES.filter((r) => !ran.has(r)), []);
    });

    describe("the check can fail", function () {
        const wrapper = `/etc/metal3-ironic/scripts/${SCRIPT_FILES.wrapper}`;
        const fence = ["python3.12", `/etc/metal3-ironic/scripts/${SCRIPT_FILES.slotAgent}`, "--fence"];

        it("finds scripts by path, by their text under bash -c, and the argument after each", function () {
            assert.deepEqual(scriptsRun({ command: ["/bin/bash", wrapper, ...fence, "/bin/bash", `/x/${SCRIPT_FILES.dnsmasqStart}`] }), [
                { role: "wrapper", arg: "python3.12" },
                { role: "slotAgent", arg: "--fence" },
                { role: "dnsmasqStart", arg: undefined },
            ]);
            assert.deepEqual(scriptsRun({ command: ["/bin/bash", "-c", readAsset(SCRIPT_FILES.provisioningIpCheck), SCRIPT_FILES.provisioningIpCheck, "172.22.0.2"] }), [{ role: "provisioningIpCheck", arg: SCRIPT_FILES.provisioningIpCheck }]);
            assert.deepEqual(scriptsRun({ command: ["/bin/runironic"], args: ["--verbose"] }), []);
            assert.throws(() => scriptsRun({ command: ["/bin/bash", "-c", `${readAsset(SCRIPT_FILES.provisioningIpCheck)}\n`, SCRIPT_FILES.provisioningIpCheck] }), /names provisioning-ip-check\.sh but runs no script/);
            assert.throws(() => scriptsRun({ command: ["/bin/bash", `/x/${SCRIPT_FILES.wrapper}.bak`] }), /names conductor-start\.sh/);
        });

        it("reports a required variable not set, unless a script before it exports it; the fence needs less than the agent", function () {
            assert.deepEqual(envProblems(new Set(["PRUNER_HOSTSDIR", "PRUNER_OPTSDIR"]), [{ role: "pruner" }]), [`${SCRIPT_FILES.pruner} needs PRUNER_API_URL, which is not set`, `${SCRIPT_FILES.pruner} needs IRONIC_CONDUCTOR_HOST, which is not set`]);
            assert.deepEqual(envProblems(new Set(["NODE_NAME", "PRUNER_API_URL", "PRUNER_HOSTSDIR", "PRUNER_OPTSDIR"]), [{ role: "wrapper" }, { role: "pruner" }]), []);
            assert.deepEqual(envProblems(new Map([["IPA_CACHE_ARCHES", ""]]), [{ role: "ipaCacheClient" }]), [`${SCRIPT_FILES.ipaCacheClient} needs IPA_CACHE_ARCHES, which is set empty`]);
            const dirs = new Set(["SLOT_GRANT_DIR", "SLOT_FENCE_DIR"]);
            assert.deepEqual(envProblems(new Set([...dirs, "NODE_NAME"]), [{ role: "wrapper" }, { role: "slotAgent", arg: "--fence" }]), []);
            assert.deepEqual(envProblems(dirs, [{ role: "slotAgent" }]).map((p) => /needs (\w+)/.exec(p)![1]), ["SLOT_NAMESPACE", "SLOT_LEASE_PREFIX", "SLOT_IDENTITY", "SLOT_COUNT"], "the agent needs its namespace, prefix, identity and count");
        });

        it("on the rendered ha stack: the pruner's container without its API URL, or with the agent's namespace, is reported", function () {
            const ds = renders.get("ha")!.objects.find((o) => o.kind === "DaemonSet")!;
            const { c } = containers(ds.spec, "ds").find((x) => x.c.name === "dhcp-pruner")!;
            const names = new Set<string>(c.env.map((e: { name: string }) => e.name));
            assert.deepEqual(envProblems(names, scriptsRun(c)), []);
            names.delete("PRUNER_API_URL");
            names.add("SLOT_NAMESPACE");
            assert.deepEqual(envProblems(names, scriptsRun(c)), [`${SCRIPT_FILES.pruner} needs PRUNER_API_URL, which is not set`, "SLOT_NAMESPACE is set, but no script of this container reads it"]);
        });

        it("reports one of our variables set where no script of the container reads it; the image's own are not ours", function () {
            assert.deepEqual(envProblems(new Set(["NODE_NAME", "PRUNER_GRACE"]), [{ role: "wrapper" }]), ["PRUNER_GRACE is set, but no script of this container reads it"]);
            assert.deepEqual(envProblems(new Set(["NODE_NAME", "IRONIC_CONDUCTOR_HOST", "IPA_ARCH"]), [{ role: "wrapper" }]), []);
        });
    });
});
