/**
 * npm run -s bench:scale -- --nodes N [--workers W] [--sample S] [--json FILE]: the ha example's
 * pods with N fake-hardware nodes (test/scale/scale-lab.ts), a benchmark, not a test. Prints a
 * table and writes the figures as JSON (default /var/tmp/m3i-scale-<N>.json). Needs what the pod
 * tier needs (root, network namespaces, the toolchain's local cluster, the image's Ironic venv).
 */
import * as fs from "fs";
import * as os from "os";

import { ScaleLab } from "./scale-lab";

function args(argv: string[]): { nodes: number; workers: number; sample: number; json: string } {
    const o = { nodes: 1000, workers: 8, sample: 50, json: "" };
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i].replace(/^--/, "") as keyof typeof o;
        if (!(k in o)) throw new Error(`bench:scale: unknown option ${argv[i]} (--nodes N, --workers W, --sample S, --json FILE)`);
        (o as any)[k] = k === "json" ? argv[++i] : Number(argv[++i]);
    }
    if (!(o.nodes > 0 && o.nodes <= 65536)) throw new Error("bench:scale: --nodes must be 1..65536");
    return { ...o, json: o.json || `/var/tmp/m3i-scale-${o.nodes}.json` };
}

async function main(): Promise<number> {
    const a = args(process.argv.slice(2));
    const s = new ScaleLab();
    const t0 = Date.now();
    const figures: Record<string, unknown> = { nodes: a.nodes, machine: { cores: os.cpus().length, memGiB: Math.round(os.totalmem() / 2 ** 30) }, ironic: "38 (PyPI, the image's release)" };
    try {
        await s.setUp();
        s.say(`lab up in ${Math.round((Date.now() - t0) / 1000)} s; enrolling ${a.nodes} nodes with ${a.workers} clients`);
        const [enroll] = s.drive("enroll", ["--nodes", String(a.nodes), "--workers", String(a.workers), "--timeout", "18000", ...s.images()], 6 * 3600000);
        s.say(`enroll: ${JSON.stringify(enroll)}`);
        const [deploy] = s.drive("deploy", ["--nodes", String(a.nodes), "--workers", String(a.workers), "--timeout", "18000", ...s.images()], 6 * 3600000);
        s.say(`deploy: ${JSON.stringify(deploy)}`);
        // Nodes whose deploy request was refused (counted in deploy.refused) stay available, with no DHCP entry.
        const owners = s.owners().filter((o) => o.state === "active");
        const perConductor = s.figures(owners, a.sample);
        for (const f of perConductor) s.say(`${f.node}: ${JSON.stringify(f)}`);
        const loss = await s.loss(owners, a.sample, 1800000);
        s.say(`loss: ${JSON.stringify(loss)}`);
        Object.assign(figures, { enroll, deploy, perConductor, loss });
    } finally {
        figures.log = s.log;
        fs.writeFileSync(a.json, JSON.stringify(figures, null, 2) + "\n");
        await s.tearDown();
    }
    const f = figures as any;
    const rows = [
        `scale benchmark: ${a.nodes} nodes, 3 conductors (the ha example's pods), ${f.machine.cores} cores; ${f.ironic}`,
        `enrollment to available: ${f.enroll.per_min} nodes/min (${f.enroll.available_s} s); ramdisk deploy to active: ${f.deploy.per_min} nodes/min (${f.deploy.active_s} s; ${f.deploy.refused} refused after retries)`,
        "conductor  owned  host files  option files  dnsmasq RSS  first offer p50/p99/max (n)  again p50/p99/max  pruner full/quick",
        ...f.perConductor.map((c: any) => `${c.node.padEnd(10)} ${String(c.owned).padStart(5)}  ${String(c.hostFiles).padStart(10)}  ${String(c.optionFiles).padStart(12)}  ${String(Math.round(c.dnsmasqRssKiB / 1024)).padStart(8)} MiB  ${`${c.answerMs.p50}/${c.answerMs.p99}/${c.answerMs.max} ms (${c.answerMs.n})`.padEnd(28)}  ${`${c.repeatMs.p50}/${c.repeatMs.p99}/${c.repeatMs.max} ms`.padEnd(17)}  ${c.prunerPassS.full}/${c.prunerPassS.quick} s`),
        `conductor loss (${f.loss.killed} SIGKILLed, ${f.loss.moved} nodes moved): ring moved ${f.loss.ringMovedS} s, files on new owners ${f.loss.filesMovedS} s, moved MACs answered by new owners only ${f.loss.answeredS} s; entries left behind ${f.loss.leftBehind}`,
        "DHCP entries: Ironic's own (ramdisk deploy with iPXE: the dnsmasq provider writes them on the owner; takeover rewrites them on the new owner)",
        `figures: ${a.json}`,
    ];
    console.log(rows.join("\n"));
    return 0;
}

main().then(
    (c) => process.exit(c),
    (e) => {
        console.error(`bench:scale: ${e instanceof Error ? e.message : e}`);
        process.exit(1);
    },
);
