/**
 * npm run plan [-- --stack NAME] [-- --out DIR] [-- --previous outputs.json]
 *
 * Renders a stack offline: runs the program in-process against mocks (no cluster, no Pulumi
 * CLI), writes every Kubernetes object as YAML to out/NAME/<kind>/<namespace>/<name>.yaml, and prints a
 * summary. Secrets are redacted. Exits non-zero, listing every problem, when config is invalid.
 * With --diff DIR (a previous render, e.g. of the base branch): what changed per object and which
 * pods restart on which nodes, and which Jobs run (tools/diff.ts).
 * Without --previous it renders a first run; with the stack's outputs (`pulumi stack output
 * --json > outputs.json`) it renders what the stack's next run would do (kept DHCP slots, refusals).
 * --write-outputs FILE writes this render's outputs in that format (secrets as "[secret]").
 */
import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { formatIssues, validateReadable } from "../core/config";
import { admitPlan } from "../core/plan";
import { pinNote } from "../core/plan/upgrade";
import { PreviousState, parsePreviousState, previousOutputsNotes, previousOutputsProblems } from "../core/plan/previous";
import { readinessPlan } from "../core/plan/readiness";
import { namespaceNotCreatedNote } from "../core/manifests";
import { findUp } from "../core/render/assets";

import { formatDiff, objectId, readRender } from "./diff";
import { bmoCacheDir } from "../components/bmo-release";
import { exitFlushed } from "./exit-flushed";
import { dhcpLines, endpointLines, pinningLines } from "./plan-summary";
import { valueOf } from "./offline";
import { renderOffline, readStackFile, StackFile } from "./render";

const USAGE = "usage: npm run plan [-- --stack NAME] [--file Pulumi.NAME.yaml] [--out DIR] [--previous OUTPUTS.json] [--write-outputs OUTPUTS.json] [--diff PREVIOUS_RENDER_DIR]";

function parseArgs(argv: string[]): { stack: string; out?: string; file?: string; previous?: string; writeOutputs?: string; diff?: string } {
    let stack: string | undefined;
    let out: string | undefined;
    let file: string | undefined;
    let previous: string | undefined;
    let diff: string | undefined;
    let writeOutputs: string | undefined;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === "--stack" || a === "-s") stack = argv[++i] ?? "";
        else if (a.startsWith("--stack=")) stack = a.slice("--stack=".length);
        else if (a === "--out") out = argv[++i];
        else if (a.startsWith("--out=")) out = a.slice("--out=".length);
        else if (a === "--file") file = argv[++i];
        else if (a.startsWith("--file=")) file = a.slice("--file=".length);
        else if (a === "--diff") diff = argv[++i];
        else if (a.startsWith("--diff=")) diff = a.slice("--diff=".length);
        else if (a === "--write-outputs") writeOutputs = argv[++i];
        else if (a.startsWith("--write-outputs=")) writeOutputs = a.slice("--write-outputs=".length);
        else if (a === "--previous") previous = argv[++i];
        else if (a.startsWith("--previous=")) previous = a.slice("--previous=".length);
        else if (a === "--help" || a === "-h") {
            console.log(USAGE);
            process.exit(0);
        } else {
            console.error(`plan: unknown argument "${a}" (${USAGE})`);
            process.exit(2);
        }
    }
    // The stack a file belongs to is in its name (Pulumi.<stack>.yaml); --stack says it explicitly
    // (e.g. an edited copy of a stack's file), and wins.
    const fromFile = file ? /^Pulumi\.(.+)\.ya?ml$/.exec(path.basename(file))?.[1] : undefined;
    if (file && stack === undefined && fromFile === undefined) {
        console.error(`plan: --file ${file}: cannot tell its stack from the name (expected Pulumi.<stack>.yaml); pass --stack NAME too`);
        process.exit(2);
    }
    stack = stack ?? fromFile ?? "dev";
    if (!/^[A-Za-z0-9_.-]+$/.test(stack)) {
        console.error(`plan: invalid stack name "${stack}"`);
        process.exit(2);
    }
    return { stack, out, file, previous, writeOutputs, diff };
}

/** The previous run's outputs, as `pulumi stack output --json` prints them (secrets shown as "[secret]" are not needed). */
function readPreviousOutputs(file: string): Record<string, unknown> {
    let text: string;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch (e) {
        throw new Error(`--previous ${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`);
    }
    let outputs: unknown;
    try {
        outputs = JSON.parse(text);
    } catch (e) {
        throw new Error(`--previous ${file}: not JSON (${(e as Error).message}); write it with: pulumi stack output --json > ${path.basename(file)}`);
    }
    if (typeof outputs !== "object" || outputs === null || Array.isArray(outputs)) {
        throw new Error(`--previous ${file}: expected the JSON object of the stack's outputs (pulumi stack output --json)`);
    }
    return outputs as Record<string, unknown>;
}

/**
 * The stack outputs of this render as `pulumi stack output --json` prints them (secret outputs as
 * "[secret]"): what `--previous` of a later render reads, e.g. the base branch's render in a pull
 * request, so the head is rendered as the next run of the base (kept DHCP slots).
 */
async function outputsJson(outputs: object): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [k, o] of Object.entries(outputs)) {
        if (!pulumi.Output.isInstance(o)) continue;
        out[k] = (await pulumi.isSecret(o)) ? "[secret]" : await valueOf(o);
    }
    return out;
}

/** One line on what the previous run left: the remembered DHCP layout, or that this is a first run. */
function previousLine(file: string | undefined, previous: PreviousState): string {
    if (!file) return "previous run: none given (rendered as a first run; --previous OUTPUTS.json renders the next run of a deployed stack)";
    const s = previous.dhcpSlots;
    const slots = s ? `DHCP ${s.rangeStart}-${s.rangeEnd} in ${s.slots} slots, ${Object.keys(s.nodes).length} node(s) remembered` : "no DHCP slots remembered";
    return `previous run: ${path.basename(file)} (${previous.ironicImage ?? "no ironicImage"}; ${slots})`;
}

/** Config values set with --secret: how many, that they were never read, and which checks waited for the engine. */
function encryptedLines({ unreadable, secretKeys }: StackFile, skipped: string[]): string[] {
    const lines: string[] = [];
    if (unreadable.length > 0) {
        lines.push(`encrypted config: ${unreadable.length} value(s) set with --secret, not readable without the Pulumi CLI; stand-ins rendered, never the value (keys treated as secret: ${secretKeys.join(", ")})`);
        if (skipped.length > 0) lines.push(`  checks skipped (pulumi preview checks the plaintext): ${skipped.join(", ")}`);
    }
    return lines;
}

async function main(): Promise<number> {
    const args = parseArgs(process.argv.slice(2));
    const { stack, out } = args;
    const root = path.dirname(findUp(__dirname, "Pulumi.yaml"));
    const file = args.file ? path.resolve(args.file) : path.join(root, `Pulumi.${stack}.yaml`);
    let stackFile: StackFile;
    let previousOutputs: Record<string, unknown> = {};
    try {
        stackFile = readStackFile(file);
        if (args.previous) previousOutputs = readPreviousOutputs(path.resolve(args.previous));
    } catch (e) {
        console.error(`plan: ${(e as Error).message}`);
        return 2;
    }
    const previous = parsePreviousState(previousOutputs);
    const { secretKeys, unreadable } = stackFile;
    // What the engine hands the program, less what only the CLI can decrypt.
    const { result, skipped, checked: raw } = validateReadable(stackFile.raw, unreadable, { configKeys: stackFile.configKeys, secretKeys });
    if (!result.ok) {
        console.error(`plan: ${path.basename(file)}: ${formatIssues(result.issues)}`);
        return 1;
    }
    // As the program does (core/plan/admit.ts): the plan with what the previous run left, and every problem it has.
    const { plan, issues: planIssues } = admitPlan(result.config, previous);
    const previousProblems = args.previous ? previousOutputsProblems(previousOutputs, plan, stack) : [];
    const previousNotes = args.previous ? previousOutputsNotes(previousOutputs, plan) : [];
    if (previousProblems.length > 0) {
        console.error(`plan: --previous ${args.previous}:\n${previousProblems.map((p) => `  - ${p}`).join("\n")}`);
        return 2;
    }
    if (planIssues.length > 0) {
        console.error(`plan: ${path.basename(file)}: ${formatIssues(planIssues)}`);
        return 1;
    }
    const rendered = await renderOffline(raw, stack, { previousOutputs, secretKeys, stated: stackFile.stated });
    // Read the previous render before writing: it may be the very directory written below.
    const before = args.diff ? readRender(path.resolve(args.diff)) : undefined;

    const outDir = path.resolve(out ?? path.join(root, "out", stack));
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    for (const f of rendered.files) {
        fs.mkdirSync(path.dirname(path.join(outDir, f.name)), { recursive: true });
        fs.writeFileSync(path.join(outDir, f.name), f.content);
    }

    if (args.writeOutputs) fs.writeFileSync(path.resolve(args.writeOutputs), JSON.stringify(await outputsJson(rendered.outputs), null, 2) + "\n");

    const lines: string[] = [];
    lines.push(`stack ${stack}: topology ${plan.topology.kind}, namespace ${plan.namespace}`);
    if (!plan.createNamespace) lines.push(`note: ${namespaceNotCreatedNote(plan)}`);
    lines.push(previousLine(args.previous, previous));
    for (const n of [pinNote(plan, previous)].filter(Boolean)) lines.push(`note: ${n}`);
    for (const n of previousNotes) lines.push(`note: --previous ${path.basename(args.previous!)}: ${n}`);
    // A diff between first runs shows what a new stack would get, not what the deployed one will do
    // (its kept DHCP slots, its remembered slot count): the review recipe passes --previous.
    if (args.diff && !args.previous) lines.push("note: --diff without --previous compares this render as a first run; for a deployed stack render both sides with its outputs (pulumi stack output --json > deployed.json; the base with --previous deployed.json --write-outputs base.json, this one with --previous base.json)");
    lines.push(`wrote ${rendered.files.length} objects to ${path.relative(process.cwd(), outDir) || "."}/`);
    lines.push("objects per kind:");
    const width = Math.max(12, ...Object.keys(rendered.kinds).map((k) => k.length));
    for (const [kind, n] of Object.entries(rendered.kinds)) lines.push(`  ${kind.padEnd(width)} ${n}`);
    // Objects the program only reads: they must exist before `pulumi up`, and are never written.
    for (const r of rendered.reads) lines.push(`reads: ${r.type.split(":").pop()} ${r.id} (existing)`);
    lines.push(...endpointLines(plan));
    const ready = readinessPlan(plan);
    const waitsFor = ready && (ready.expected.length > 0 ? `conductors ${ready.expected.join(", ")}` : "a conductor");
    lines.push(ready ? `readiness: after the workload, waits up to ${plan.readiness.timeoutSeconds} s (mode ${plan.readiness.mode}) for ${waitsFor} alive in GET /v1/conductors` : "readiness: off (readiness.enabled false)");
    lines.push(...dhcpLines(plan));
    const b = plan.bmo;
    if (b.enabled) lines.push(`baremetal-operator: ${b.version} (${plan.images.baremetalOperator}), its release's config/ from ${b.goproxy} (the module zip, verified: ${b.checksum}; cached in ${bmoCacheDir()})`);
    lines.push(...pinningLines(stack, rendered.objects));
    lines.push(`secrets: ${rendered.redactedSecrets} Secret value(s) redacted`);
    lines.push(...encryptedLines(stackFile, skipped));
    if (before) lines.push(formatDiff(args.diff!, before, new Map(rendered.objects.map((o) => [objectId(o), o]))));
    console.log(lines.join("\n"));
    return 0;
}

main().then(
    (code) => exitFlushed(code),
    (e) => {
        // Config errors are reported above; anything here is a bug of this tool, not of the input.
        console.error(`plan: ${e instanceof Error ? e.message : String(e)}`);
        exitFlushed(1);
    },
);
