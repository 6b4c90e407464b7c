/**
 * The toolchain build that .ci/run starts in the background, as `npm test` (tools/run-tests.ts)
 * sees it: each stage's exit code lands in a status file ($METAL3_TOOLCHAIN_CLUSTER_STATUS for the
 * cluster stage, $METAL3_TOOLCHAIN_STATUS for all of it), empty while it builds; no such variable,
 * no build running.
 */
import * as fs from "fs";

import type { ToolchainNeed } from "./test-results";

/** How long a unit waits for the toolchain build before it fails. */
const TOOLCHAIN_WAIT_MAX_S = 60 * 60;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The file the background build writes a stage's exit code to ($METAL3_TOOLCHAIN_CLUSTER_STATUS for
 * the cluster stage, else the whole build's $METAL3_TOOLCHAIN_STATUS), or undefined when none runs.
 */
function statusFile(need: ToolchainNeed): string | undefined {
    if (need === "none") return undefined;
    return (need === "cluster" ? process.env.METAL3_TOOLCHAIN_CLUSTER_STATUS : undefined) || process.env.METAL3_TOOLCHAIN_STATUS || undefined;
}

/** Whether what a unit needs of the toolchain is no longer being built: nothing needed, no build running, or that stage has ended. */
export function toolchainEnded(need: ToolchainNeed): boolean {
    const status = statusFile(need);
    return !status || (fs.existsSync(status) && fs.readFileSync(status, "utf8").trim() !== "");
}

/** Waits for a stage of the background toolchain build: undefined when it succeeded (or none runs), else why it failed. */
export async function waitForToolchain(need: ToolchainNeed): Promise<string | undefined> {
    const status = statusFile(need);
    if (!status) return undefined;
    const start = Date.now();
    for (;;) {
        const rc = fs.existsSync(status) ? fs.readFileSync(status, "utf8").trim() : "";
        if (rc !== "") {
            if (rc === "0") return undefined;
            const log = process.env.METAL3_TOOLCHAIN_LOG;
            const lines = log && fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : [];
            const target = lines.filter((l) => /^\[toolchain\] \S+: building/.test(l)).pop()?.replace(/^\[toolchain\] (\S+):.*/, "$1");
            return `the toolchain build (tools/toolchain/build.sh) exited ${rc}${target ? ` while building ${target}` : ""}${log ? `; log: ${log}` : ""}`;
        }
        if ((Date.now() - start) / 1000 > TOOLCHAIN_WAIT_MAX_S) return `the toolchain build did not finish within ${TOOLCHAIN_WAIT_MAX_S / 60} min (status file ${status} still empty)`;
        await sleep(2000);
    }
}
