/**
 * `npm run plan` as users run it, for the tests that render through the CLI: the compiled tool
 * through tools/launch.js, started by this node (process.execPath) without npm's start-up, and
 * not the sources through ts-node (about 8 s of CPU per call, against about 1 s).
 *
 * The launcher builds dist/ first when a source is newer than the last build, under its lock, so
 * a run makes one build at most and an edited source never runs stale. `buildPlanCliFirst()`, in
 * a describe, makes that build in a `before` hook with a build's time allowed, so it is not
 * charged to whichever test renders first.
 */
import * as path from "path";

import { run } from "./sys";

const ROOT = path.resolve(__dirname, "..", "..");
const LAUNCH = path.join(ROOT, "tools", "launch.js");
/** A build of dist/ (tsc -p tsconfig.build.json, about 15 s alone) on a busy 2-core machine. */
const BUILD_TIMEOUT = 600000;

/** Whether the launcher has run to completion in this process, so dist/ was made current once. */
let launched = false;

/**
 * `npm run plan -- ARGS` in the project root: exit status, stdout and stderr. `timeout` is the
 * render's own; the first call in a process is also given the time a build takes.
 */
export function planCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): { status: number; stdout: string; stderr: string } {
    const timeout = (opts.timeout ?? 120000) + (launched ? 0 : BUILD_TIMEOUT);
    const r = run(process.execPath, [LAUNCH, "plan", ...args], { cwd: opts.cwd ?? ROOT, env: opts.env, allowFail: true, timeout });
    if (r.status !== -1) launched = true;
    return r;
}

/** In a describe: a `before` hook that builds dist/ when it is stale (once per process; the launcher's own check and lock). */
export function buildPlanCliFirst(): void {
    before(function () {
        if (launched) return;
        this.timeout(BUILD_TIMEOUT + 60000);
        const r = planCli(["--help"]);
        if (r.status !== 0) throw new Error(`node tools/launch.js plan --help exited ${r.status}: the build of dist/ failed?\n${r.stderr}`);
    });
}
