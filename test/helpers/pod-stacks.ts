/**
 * What the pod-runner test files share: an example stack rendered with real secrets (its plan and
 * the objects the program registers), the prerequisites of the pod runner, and small probes.
 */
import * as fs from "fs";
import * as path from "path";

import type { RawConfig } from "../../core/config";
import { ipToNumber } from "../../core/ip";
import type { IronicPlan } from "../../core/plan";
import type { SizedRange } from "../../core/plan/types";
import { parsePreviousState } from "../../core/plan/previous";
import { Rendered, readStackConfig } from "../../tools/render";
import { ClusterData } from "./pod-runner";
import { planOf } from "./plan";
import { renderWithRealSecrets } from "./real-secrets";
import { canUseNetns, requireOrSkip, run, which } from "./sys";

export const ROOT = path.join(__dirname, "..", "..");

export interface Stack {
    raw: RawConfig;
    plan: IronicPlan;
    rendered: Rendered;
    cluster: ClusterData;
}

/** An example stack file rendered as the program renders it, with real secrets; `edit` changes its config first. */
export async function renderStack(file: string, stack: string, edit: (raw: RawConfig) => RawConfig = (r) => r, next: Parameters<typeof renderWithRealSecrets>[4] = {}): Promise<Stack> {
    const raw = edit(readStackConfig(file));
    return { raw, plan: planOf(raw, parsePreviousState(next.previousOutputs ?? {})), ...(await renderWithRealSecrets(raw, stack, "", {}, next)) };
}

export function podRunnerPrerequisites(ctx: Mocha.Context): void {
    requireOrSkip(ctx, canUseNetns(), "root and iproute2 for network namespaces");
    requireOrSkip(ctx, ["dnsmasq", "busybox", "setcap", "nsenter", "unshare", "setpriv", "openssl", "curl"].every((c) => !!which(c)), "dnsmasq, busybox, libcap2-bin, util-linux, openssl, curl");
}

/** Whether `ip` lies in the DHCP range of `c`. */
export const inRange = (ip: string | undefined, c: { range?: SizedRange }) => !!ip && ipToNumber(ip) >= ipToNumber(c.range!.start) && ipToNumber(ip) <= ipToNumber(c.range!.end);

/** Host PID and uid of the process listening on UDP port 67 in a namespace. */
export function dhcpListener(ns: string): { pid: number; uid: number } | undefined {
    const out = run("ip", ["netns", "exec", ns, "ss", "-lunpH", "sport = :67"], { allowFail: true }).stdout;
    const m = /pid=(\d+)/.exec(out);
    if (!m) return undefined;
    const status = fs.readFileSync(`/proc/${m[1]}/status`, "utf8");
    return { pid: Number(m[1]), uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]) };
}

/**
 * The hooks of a suite that runs one Ironic pod: the pod's logs when a test fails; at the end the
 * pod and the image cache stop, the network namespaces go and the work directory (unless KEEP_WORK=1).
 */
export function onePodHooks(suite: () => { pod?: { printLogs(): void; stop(): Promise<void> }; cache?: { stop(): Promise<unknown> }; net: { destroy(): void }; work: string }): void {
    afterEach(function () {
        if (this.currentTest?.state === "failed") suite().pod?.printLogs();
    });
    after(async function () {
        const { pod, cache, net, work } = suite();
        await pod?.stop();
        await cache?.stop();
        net.destroy();
        if (work && process.env.KEEP_WORK !== "1") fs.rmSync(work, { recursive: true, force: true });
    });
}
