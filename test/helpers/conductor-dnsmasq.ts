/**
 * Multi-conductor dnsmasq labs: every listed conductor of a plan as a node namespace on one bridge,
 * running real dnsmasq on its rendered per-node config plus the rendered file of its preferred slot
 * (checked with `dnsmasq --test` first), only file locations pointed at the node's scratch dirs.
 * Shared by the IPv4, IPv6 and dual-stack DHCP tests (test/integration/multi-dhcp.test.ts,
 * multi-dhcp6.test.ts, multi-dhcp-dualstack.test.ts). Stopped by PID; the namespaces belong to the caller's NetnsLab.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { type IronicPlan, type ListedConductor, listedConductors } from "../../core/plan";
import { slotConfKey } from "../../core/names";
import { type DnsmasqOptions, renderDnsmasqConf } from "../../core/render/dnsmasq";
import { until } from "./ironic-lab";
import { Daemon, type NetnsLab, run } from "./sys";
import { multiOf } from "./plan";

export const readIfExists = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8") : "");

export interface DnsmasqNode {
    plan: ListedConductor;
    ns: string;
    dir: string;
    daemon?: Daemon;
}

/**
 * The plan's listed conductors as namespaces `<base><i>` on `bridge` (in `sw`), each with its
 * address (and, dual-stack, its IPv6 address) on its interface, dnsmasq started and listening on
 * every port in `ports` (e.g. 67, 547).
 */
export async function startConductorDnsmasqs(plan: IronicPlan, lab: NetnsLab, sw: string, bridge: string, work: string, opts: { base: string; ipv6: boolean; ports: number[] }): Promise<DnsmasqNode[]> {
    const nodes: DnsmasqNode[] = [];
    const prefix = plan.provisioning.cidr.split("/")[1];
    const prefix6 = plan.provisioning.ipv6?.cidr.split("/")[1];
    listedConductors(plan).forEach((c, i) => {
        const ns = lab.addNamespace(`${opts.base}${i}`);
        if (opts.ipv6) lab.enableIpv6(ns);
        const ifname = lab.plug(ns, `${opts.base}d${i}`, sw, bridge, { cidr: `${c.ip}/${prefix}`, rename: c.interface });
        if (c.ipv6) lab.addAddress(ns, ifname, `${c.ipv6}/${prefix6}`);
        const dir = path.join(work, c.node);
        for (const d of ["hostsdir", "optsdir", "tftp"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
        const conf = renderDnsmasqConf({
            ...(c.resolved!.dnsmasq!.dnsmasqOptions as DnsmasqOptions),
            tftpRoot: path.join(dir, "tftp"),
            leaseFile: path.join(dir, "dnsmasq.leases"),
            knownHostsOnly: { hostsDir: path.join(dir, "hostsdir"), optsDir: path.join(dir, "optsdir") },
        });
        fs.writeFileSync(path.join(dir, "dnsmasq.conf"), conf);
        fs.writeFileSync(path.join(dir, "slot.conf"), multiOf(plan).slotDnsmasqConfs[slotConfKey(c.slot!.index)]);
        const t = run("dnsmasq", ["--test", `--conf-file=${path.join(dir, "dnsmasq.conf")}`, `--conf-file=${path.join(dir, "slot.conf")}`], { allowFail: true });
        assert.equal(t.status, 0, `dnsmasq --test of ${c.node}'s files: ${t.stderr}`);
        nodes.push({ plan: c, ns, dir });
    });
    for (const n of nodes) {
        n.daemon = new Daemon(
            "ip",
            ["netns", "exec", n.ns, "dnsmasq", "--keep-in-foreground", `--conf-file=${path.join(n.dir, "dnsmasq.conf")}`, `--conf-file=${path.join(n.dir, "slot.conf")}`, "--user=root", "--no-ping", `--pid-file=${path.join(n.dir, "dnsmasq.pid")}`, `--log-facility=${path.join(n.dir, "dnsmasq.log")}`],
            path.join(n.dir, "dnsmasq.out"),
        );
    }
    for (const n of nodes) {
        const output = () => `${n.plan.node}'s dnsmasq output:\n${readIfExists(path.join(n.dir, "dnsmasq.out"))}${readIfExists(path.join(n.dir, "dnsmasq.log"))}`;
        const abort = () => {
            if (!n.daemon!.running) throw new Error(`dnsmasq on ${n.plan.node} exited (${n.daemon!.proc.exitCode ?? n.daemon!.proc.signalCode}). ${output()}`);
        };
        for (const port of opts.ports) {
            await until(() => new RegExp(`:${port}\\b`).test(run("ip", ["netns", "exec", n.ns, "ss", "-lun"], { allowFail: true }).stdout), 60000, `${n.plan.node}'s dnsmasq on :${port}. ${output()}`, 200, abort);
        }
        await until(() => /started, version/.test(readIfExists(path.join(n.dir, "dnsmasq.log"))), 60000, `${n.plan.node}'s dnsmasq log. ${output()}`, 200, abort);
    }
    return nodes;
}

/** Changes of files in dnsmasq's dhcp-hostsdir or dhcp-optsdir (paths as dnsmasq sees them). */
export interface DirChanges {
    read?: string[];
    removed?: string[];
}

/**
 * The changes `log` (dnsmasq's, since the changes were made) does not show handled yet: dnsmasq
 * logs "read <file>" for a file written there and "inotify: <file> removed" for one removed, as
 * inotify hands them over, and handles each before it answers another packet.
 */
export function unhandledChanges(log: string, changes: DirChanges): string[] {
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const seen = (re: string) => new RegExp(re, "m").test(log);
    return [
        ...(changes.read ?? []).filter((f) => !seen(`\\bread ${esc(f)}$`)).map((f) => `read ${f}`),
        ...(changes.removed ?? []).filter((f) => !seen(`\\binotify: ${esc(f)} removed$`)).map((f) => `${f} removed`),
    ];
}

/** Waits (30 s) until `n`'s dnsmasq has handled `changes`, made when its log was `since` long. */
export async function dnsmasqHandled(n: DnsmasqNode, since: number, changes: DirChanges): Promise<void> {
    const log = () => readIfExists(path.join(n.dir, "dnsmasq.log")).slice(since);
    await until(() => unhandledChanges(log(), changes).length === 0, 30000, `${n.plan.node}'s dnsmasq to handle ${JSON.stringify(changes)}`, 50).catch((e) => {
        throw new Error(`${e.message}; not yet: ${unhandledChanges(log(), changes).join(", ")}; its log since:\n${log().slice(-1500)}`);
    });
}

/** The length of `n`'s dnsmasq log now (a mark for dnsmasqHandled). */
export const dnsmasqLogLength = (n: DnsmasqNode) => readIfExists(path.join(n.dir, "dnsmasq.log")).length;
