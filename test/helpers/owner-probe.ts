/**
 * A continuous owner probe for the DHCP layer: one network namespace with an interface per host
 * MAC on the provisioning bridge, and a loop (busybox udhcpc, one bounded attempt per MAC in turn,
 * started with setsid, stopped by its PID) that asks for a lease again and again and logs who
 * answered. Afterwards, per MAC: answers per server over time, and the longest time without one.
 */
import * as fs from "fs";
import * as path from "path";

import { Daemon, NetnsLab } from "./sys";

export interface ProbeAnswer {
    /** Seconds since the epoch, when the attempt ended. */
    t: number;
    mac: string;
    /** The answering server's identifier (its address), or undefined when no one answered. */
    server?: string;
    ip?: string;
}

export interface ProbeSummary {
    mac: string;
    attempts: number;
    /** Answers per server identifier. */
    answers: Record<string, number>;
    /** When the first answer came (s since the epoch), if any. */
    first?: number;
    /** The longest time (s) from the first answer on without an answer, the end of the probe included. */
    longestGap: number;
}

export class OwnerProbe {
    private readonly daemon: Daemon;
    private readonly log: string;
    private readonly macs: string[];
    private stoppedAt = 0;

    /** `macs` on `bridge` of `bridgeNs`; `work`: where the loop's script and log go; `tag`: a short unique name for its namespace. */
    constructor(net: NetnsLab, bridgeNs: string, bridge: string, macs: string[], work: string, tag = "op") {
        this.macs = macs;
        const ns = net.addNamespace(tag);
        const ifaces = macs.map((mac, i) => net.plug(ns, `${tag}${i}`, bridgeNs, bridge, { mac }));
        const hook = path.join(work, `${tag}-udhcpc.sh`);
        fs.writeFileSync(hook, '#!/bin/sh\nif [ "$1" = bound ]; then echo "serverid=$serverid ip=$ip"; fi\n', { mode: 0o755 });
        this.log = path.join(work, `${tag}-answers.log`);
        const pairs = ifaces.map((f, i) => `${f}=${macs[i]}`).join(" ");
        const loop = [
            "while :; do",
            `  for pair in ${pairs}; do`,
            '    out=$(busybox udhcpc -i "${pair%%=*}" -f -q -n -t 1 -T 1 -s ' + hook + " 2>/dev/null)",
            '    sid=$(printf "%s\\n" "$out" | sed -n "s/^serverid=\\([^ ]*\\) ip=.*/\\1/p" | tail -n 1)',
            '    ip=$(printf "%s\\n" "$out" | sed -n "s/.* ip=//p" | tail -n 1)',
            '    echo "$(date +%s.%N) ${pair#*=} ${sid:--} ${ip:--}" >> ' + this.log,
            "  done",
            "done",
        ].join("\n");
        this.daemon = new Daemon("ip", ["netns", "exec", ns, "bash", "-c", loop], path.join(work, `${tag}-loop.log`));
    }

    async stop(): Promise<void> {
        await this.daemon.stop();
        this.stoppedAt = Date.now() / 1000;
    }

    answers(): ProbeAnswer[] {
        if (!fs.existsSync(this.log)) return [];
        return fs
            .readFileSync(this.log, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => {
                const [t, mac, server, ip] = l.split(" ");
                return { t: Number(t), mac, server: server === "-" ? undefined : server, ip: ip === "-" ? undefined : ip };
            });
    }

    /** Per MAC, in the order given: attempts, answers per server, the longest gap from the first answer to the end. */
    summary(): ProbeSummary[] {
        const all = this.answers();
        const end = this.stoppedAt || Date.now() / 1000;
        return this.macs.map((mac) => {
            const mine = all.filter((a) => a.mac === mac);
            const answered = mine.filter((a) => a.server);
            const answers: Record<string, number> = {};
            for (const a of answered) answers[a.server!] = (answers[a.server!] ?? 0) + 1;
            let longestGap = 0;
            for (let i = 1; i < answered.length; i++) longestGap = Math.max(longestGap, answered[i].t - answered[i - 1].t);
            if (answered.length > 0) longestGap = Math.max(longestGap, end - answered[answered.length - 1].t);
            return { mac, attempts: mine.length, answers, first: answered[0]?.t, longestGap: Math.round(longestGap * 10) / 10 };
        });
    }
}
