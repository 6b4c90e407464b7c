/**
 * The pure half of `npm test` (tools/run-tests.ts): the tier of a test file, the per-file results
 * the mocha reporter appends to $TEST_RESULTS_FILE (test/helpers/e2e-tally-reporter.ts), and the
 * breakdown table of where the time went.
 */
import * as fs from "fs";
import * as path from "path";

export const TIERS = ["unit", "program", "integration", "e2e"];
const SLOWEST = 15;
/** The e2e file that deploys every example stack: two units of their own, by stack (planUnits, selectExamples). */
export const EXAMPLES_FILE = "test/e2e/examples.test.ts";
/** The ha pod lab with baremetal-operator's scenarios, the longest file: a unit of its own (planUnits). */
export const POD_TIER_FILE = "test/integration/pods.test.ts";
/** The single topology's provisioning tier (BMO, two VMs): a unit of its own (planUnits). */
export const SINGLE_PROVISIONING_FILE = "test/integration/pods-single-bmo.test.ts";
/** Virtual media's provisioning tier (BMO, one VM booted from ISOs): a unit of its own (planUnits). */
export const VMEDIA_PROVISIONING_FILE = "test/integration/pods-vmedia-bmo.test.ts";

/** The tier of a test file (path relative to the checkout): test/components/ is the program tier. */
export function tierOf(rel: string): string {
    const top = rel.split("/")[1];
    return top === "components" ? "program" : top;
}

/**
 * What of the toolchain (tools/toolchain/build.sh) a test file or unit needs: nothing; its first
 * stage, `cluster` (etcd, Kubernetes, kwok and baremetal-operator: a local cluster and BMO); or
 * `all` of it (also the Pulumi CLI and plugins). .ci/run builds the stages in that order.
 */
export type ToolchainNeed = "none" | "cluster" | "all";
export const TOOLCHAIN_STAGES: ToolchainNeed[] = ["none", "cluster", "all"];

export interface Unit {
    name: string;
    files: string[];
    needsToolchain: ToolchainNeed;
    /** Environment of its mocha process beside the runner's (which examples it deploys: selectExamples). */
    env?: Record<string, string>;
}

/**
 * The example stacks a unit of examples.test.ts deploys, from $E2E_EXAMPLES: all of them when it
 * is unset or empty; `a,b`: those stacks; `!a,!b`: all but those. A name that is no example
 * stack, or names and exclusions mixed, is an error naming it.
 */
export function selectExamples<T extends { stack: string }>(all: T[], selection: string | undefined): T[] {
    const { names, excluding } = parseSelection(selection);
    if (names.length === 0) return all;
    const bare = names.map((n) => n.replace(/^!/, ""));
    const unknown = bare.filter((n) => !all.some((ex) => ex.stack === n));
    if (unknown.length > 0) throw new Error(`E2E_EXAMPLES names no example stack: ${unknown.join(", ")} (the stacks: ${all.map((ex) => ex.stack).join(", ")})`);
    if (names.some((n) => n.startsWith("!") !== excluding)) throw new Error(`E2E_EXAMPLES mixes stacks and exclusions: ${selection} (either a,b or !a,!b)`);
    return all.filter((ex) => bare.includes(ex.stack) !== excluding);
}

/** Whether a selection of selectExamples covers the stacks no selection names (none, or exclusions): the unit that checks every stack file is an example. */
export function selectsTheRest(selection: string | undefined): boolean {
    const { names, excluding } = parseSelection(selection);
    return names.length === 0 || excluding;
}

/** $E2E_EXAMPLES's names (trimmed, empty ones dropped), and whether the first is an exclusion (`!name`). */
function parseSelection(selection: string | undefined): { names: string[]; excluding: boolean } {
    const names = (selection ?? "").split(",").map((n) => n.trim()).filter(Boolean);
    return { names, excluding: names[0]?.startsWith("!") ?? false };
}

/**
 * The units, longest first: a free lane takes the first one it can run now (see nextUnit), so the
 * long ones start early and the short unit + program fills the gaps. While the toolchain builds,
 * that is the integration files that need none (two halves, every other file, so that both lanes
 * have some) and unit + program; the integration files that need the toolchain start once its
 * cluster stage is there (they need no Pulumi), the example stacks and the other e2e suites once
 * all of it is.
 */
export function planUnits(files: string[], tc: (f: string) => ToolchainNeed): Unit[] {
    const isExamples = (f: string) => f === EXAMPLES_FILE;
    const of = (tiers: string[], withTc: boolean) => files.filter((f) => tiers.includes(tierOf(f)) && (tc(f) !== "none") === withTc);
    /** The most any of `files` needs. */
    const most = (fs: string[]): ToolchainNeed => TOOLCHAIN_STAGES[Math.max(0, ...fs.map((f) => TOOLCHAIN_STAGES.indexOf(tc(f))))];
    const isPods = (f: string) => f === POD_TIER_FILE;
    const isSingle = (f: string) => f === SINGLE_PROVISIONING_FILE;
    const isVmedia = (f: string) => f === VMEDIA_PROVISIONING_FILE;
    const rest = (f: string) => !isPods(f) && !isSingle(f) && !isVmedia(f);
    const clusterFiles = of(["integration"], true);
    const units: Unit[] = [
        // Longest first, by the times of a fresh machine's run (3357612: the 15 slowest files of
        // .ci/run): with a warm cache three lanes take them in this order, and no more than two
        // provisioning tiers (TCG VMs, CPU-bound) run at once (all three at once took 3.5x as long,
        // stop 56). The pod tier (1680 s; its BMO scenarios boot VMs) starts the moment the
        // cluster stage is built on an empty cache.
        { name: "integration+toolchain", files: clusterFiles.filter(isPods), needsToolchain: most(clusterFiles.filter(isPods)) },
        // The other files that need the cluster stage (scale, upgrade, v6; 859 s).
        { name: "integration+toolchain-2", files: clusterFiles.filter(rest), needsToolchain: most(clusterFiles.filter(rest)) },
        // The integration files that need no toolchain, in two halves (every other file: 778 and 732 s).
        { name: "integration-2", files: of(["integration"], false).filter((_, i) => i % 2 === 1), needsToolchain: "none" },
        { name: "integration-1", files: of(["integration"], false).filter((_, i) => i % 2 === 0), needsToolchain: "none" },
        // The single topology's provisioning tier (two VMs provisioned by BMO: 586 s), then virtual media's (one VM, booted from ISOs: 493 s).
        { name: "integration+toolchain-single", files: clusterFiles.filter(isSingle), needsToolchain: most(clusterFiles.filter(isSingle)) },
        { name: "integration+toolchain-vmedia", files: clusterFiles.filter(isVmedia), needsToolchain: most(clusterFiles.filter(isVmedia)) },
        // The example stacks (each deploys on a cluster of its own) apart from the other e2e
        // suites, in two units: the nine stacks (about 425 s) and the ha stack with the day-2 and
        // conductor scenarios that go on with its deployment (about 420 s). On an empty cache the
        // toolchain is the critical path and they come after it: two lanes deploy them at once
        // (they were 816 s in one, after a 2402 s wait).
        ...examplesUnits(of(["e2e"], true).filter(isExamples)),
        { name: "e2e", files: of(["e2e"], true).filter((f) => !isExamples(f)).concat(of(["e2e"], false)), needsToolchain: "all" },
        { name: "unit+program+toolchain", files: of(["unit", "program"], true), needsToolchain: most(of(["unit", "program"], true)) },
        { name: "unit+program", files: of(["unit", "program"], false), needsToolchain: "none" },
    ];
    return units.filter((u) => u.files.length > 0);
}

/**
 * A test file's name in the results (the reporter's lines, test/helpers/e2e-tally-reporter.ts): its
 * path in the checkout, with the part a unit runs when one file runs in several units
 * ($TEST_FILE_PART, e.g. `test/e2e/examples.test.ts [ha]`).
 */
export function resultName(rel: string, part: string | undefined): string {
    return part ? `${rel} [${part}]` : rel;
}

/** examples.test.ts in two units (selectExamples): the ha stack and what follows it, and the rest. */
function examplesUnits(files: string[]): Unit[] {
    return [
        { name: "e2e-examples", files, needsToolchain: "all", env: { E2E_EXAMPLES: "!ha", TEST_FILE_PART: "!ha" } },
        { name: "e2e-examples-ha", files, needsToolchain: "all", env: { E2E_EXAMPLES: "ha", TEST_FILE_PART: "ha" } },
    ];
}

/**
 * The index in `queue` of the unit a free lane takes: the first it can run now (`ready` says which
 * stages are built), else the first of those that need the least (to wait for the stage that comes first).
 */
export function nextUnit(queue: Unit[], ready: (need: ToolchainNeed) => boolean): number {
    if (queue.length === 0) return -1;
    const i = queue.findIndex((u) => ready(u.needsToolchain));
    if (i >= 0) return i;
    const least = Math.min(...queue.map((u) => TOOLCHAIN_STAGES.indexOf(u.needsToolchain)));
    return queue.findIndex((u) => TOOLCHAIN_STAGES.indexOf(u.needsToolchain) === least);
}

export interface FileResult {
    tier: string;
    file: string;
    seconds: number;
    passed: number;
    failed: number;
    pending: number;
}

/** The non-empty lines of a file the mocha processes append to; none before the first append. */
function appendedLines(file: string): string[] {
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

export function readResults(file: string): FileResult[] {
    return appendedLines(file).map((l) => {
        const [tier, f, seconds, passed, failed, pending] = l.split("\t");
        return { tier, file: f, seconds: Number(seconds), passed: Number(passed), failed: Number(failed), pending: Number(pending) };
    });
}

export interface LaneTimes {
    lane: number;
    units: { name: string; seconds: number }[];
    waitedSeconds: number;
}

/** A failed test or hook as the reporter records it in $TEST_FAILURES_FILE (one JSON line each). */
export interface FailureNote {
    file: string;
    title: string;
    error: string;
}

/** The recorded failures; a line cut short (a unit stopped while it wrote) is kept as what it says, never a reason to lose the totals. */
export function readFailures(file: string): FailureNote[] {
    return appendedLines(file).map((l) => {
        try {
            return JSON.parse(l) as FailureNote;
        } catch {
            return { file: "?", title: "(a failure record cut short)", error: l };
        }
    });
}

/** Failures shown at the end of the breakdown, and how much of each: CI shows only its output's tail. */
const DIGEST_MAX = 10;
const DIGEST_LINE = 240;

/** What failed and why, in the first lines of each error: the end of CI's output says it. */
export function failureDigest(failures: FailureNote[]): string[] {
    if (failures.length === 0) return [];
    const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
    const out = [`  what failed (the error's first lines; the whole in the unit's log):`];
    for (const f of failures.slice(0, DIGEST_MAX)) {
        out.push(`    ✗ ${f.file}: ${cut(f.title, 2 * DIGEST_LINE)}`);
        for (const l of f.error.split("\n").filter((x) => x.trim())) out.push(`        ${cut(l.trim(), DIGEST_LINE)}`);
    }
    if (failures.length > DIGEST_MAX) out.push(`    and ${failures.length - DIGEST_MAX} more`);
    return out;
}

/** The breakdown table: per tier, per lane, the slowest files, then what failed. */
export function breakdown(results: FileResult[], lanes: LaneTimes[], wallSeconds: number, extraFailures: string[], failures: FailureNote[] = []): string {
    const pad = (s: string | number, n: number) => String(s).padStart(n);
    const tiers = [...TIERS];
    for (const r of results) if (!tiers.includes(r.tier)) tiers.push(r.tier);
    const out: string[] = [];
    out.push(`where the time went (wall clock per file, its hooks included; ${lanes.length} lane(s), ${wallSeconds.toFixed(0)} s in all):`);
    out.push(`  ${"tier".padEnd(12)} ${pad("files", 5)} ${pad("passed", 6)} ${pad("failed", 6)} ${pad("pending", 7)} ${pad("seconds", 8)} ${pad("min", 5)}`);
    for (const t of tiers) {
        const rs = results.filter((r) => r.tier === t);
        if (rs.length === 0) continue;
        const sum = (k: "seconds" | "passed" | "failed" | "pending") => rs.reduce((a, r) => a + r[k], 0);
        out.push(`  ${t.padEnd(12)} ${pad(rs.length, 5)} ${pad(sum("passed"), 6)} ${pad(sum("failed"), 6)} ${pad(sum("pending"), 7)} ${pad(sum("seconds").toFixed(0), 8)} ${pad((sum("seconds") / 60).toFixed(1), 5)}`);
    }
    for (const l of lanes) {
        const parts = l.units.map((u) => `${u.name} ${u.seconds.toFixed(0)} s`);
        if (l.waitedSeconds > 0) parts.push(`waited ${l.waitedSeconds.toFixed(0)} s for the toolchain`);
        out.push(`  lane ${l.lane}: ${parts.join(", ") || "idle"}`);
    }
    out.push(`  the ${SLOWEST} slowest files:`);
    for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST)) {
        out.push(`    ${pad(r.seconds.toFixed(0), 5)} s  ${r.tier.padEnd(11)} ${r.file} (${r.passed} passed${r.failed ? `, ${r.failed} failed` : ""}${r.pending ? `, ${r.pending} pending` : ""})`);
    }
    for (const f of extraFailures) out.push(`  failed outside a test: ${f}`);
    out.push(...failureDigest(failures));
    return out.join("\n") + "\n";
}


/**
 * Prints the breakdown and the totals line `npm test: N passed, N failed`, and keeps both in the log
 * dir (timings.txt, totals.txt: CI reads the totals from there, whatever happens to the output on its
 * way). Returns the number of failures: the tests' and the failures outside a test.
 */
export function report(logDir: string, results: FileResult[], lanes: LaneTimes[], wallSeconds: number, extraFailures: string[], failures: FailureNote[] = []): number {
    const table = breakdown(results, lanes, wallSeconds, extraFailures, failures);
    fs.writeFileSync(path.join(logDir, "timings.txt"), table);
    process.stdout.write("\n" + table);
    const passed = results.reduce((a, r) => a + r.passed, 0);
    const failed = results.reduce((a, r) => a + r.failed, 0) + extraFailures.length;
    const totals = `npm test: ${passed} passed, ${failed} failed`;
    fs.writeFileSync(path.join(logDir, "totals.txt"), totals + "\n");
    console.log(`${totals} (breakdown in ${path.join(logDir, "timings.txt")})`);
    return failed;
}
