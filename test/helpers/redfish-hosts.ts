/**
 * Bare-metal hosts behind a Redfish BMC, for the provisioning tests: sushy-tools' fake driver is
 * the BMC (power state, boot device and mode, as Ironic's redfish driver sets them) and tells a
 * receiver of ours every change of a system (its external notifier: the system's JSON, PUT). The
 * receiver, a few lines of Python in the BMC's namespace, appends each notification to a file;
 * this class follows that file and makes each system's VM (test/helpers/vm.ts: real firmware, a
 * NIC on the provisioning bridge, a disk) match: powered on from the boot device the BMC holds
 * (Pxe: the network first; Hdd: the disk first; Cd: the ISO inserted as virtual media, which the
 * BMC downloaded, in its CD-ROM drive) and powered off; a guest that powers itself off
 * is reported to the BMC (a ForceOff through its Redfish API), as a real BMC would see it. No
 * libvirt: the VM is ours, the BMC is sushy-tools'.
 */
import * as fs from "fs";
import * as path from "path";

import { FakeSystem, startSushy, sushyConfig } from "./bmo";
import { Daemon, NetnsLab, run } from "./sys";
import { Firmware, PxeVm } from "./vm";

export interface RedfishHost extends FakeSystem {
    firmware: Firmware;
    /** Size of its (sparse, raw) disk in MiB. */
    diskMiB: number;
}

export interface RedfishHostsOptions {
    lab: NetnsLab;
    /** The BMC's namespace, address and port (BMO and the conductors reach it there). */
    ns: string;
    ip: string;
    port: number;
    /** Where the VMs' NICs are plugged. */
    switchNs: string;
    bridge: string;
    work: string;
    hosts: RedfishHost[];
    /** RAM of each VM in MiB (the agent's ramdisk needs 2048). */
    memoryMiB: number;
    /**
     * Virtual media: BareMetalHosts name the BMC with redfish-virtualmedia (Ironic boots them from
     * an ISO it builds and inserts through the BMC), and the BMC downloads every ISO verifying TLS
     * against `caFile` alone (SUSHY_EMULATOR_VMEDIA_VERIFY_SSL, requests' REQUESTS_CA_BUNDLE).
     */
    virtualMedia?: { caFile: string };
}

const RECEIVER = `import http.server, json, sys, time
out = open(sys.argv[2], "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        out.write(json.dumps({"t": time.time(), "system": json.loads(body)}) + "\\n")
        self.send_response(204)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
`;
/** The receiver of a BMC's notifications: its own port per instance (two BMCs at once never share one). */
const receiverPort = (bmcPort: number) => 7000 + (bmcPort % 1000);

export interface PowerEvent {
    /** Milliseconds since start(). */
    ms: number;
    host: string;
    what: string;
}

export class RedfishHosts {
    readonly events: PowerEvent[] = [];
    /** Every ISO a VM was powered on with (kept: the BMC deletes its own on eject), in order. */
    /** What went wrong while following the BMC (a test fails on any). */
    readonly problems: string[] = [];
    readonly isos: { host: string; file: string }[] = [];
    readonly vms = new Map<string, PxeVm>();
    private readonly notifications: string;
    private readonly daemons: Daemon[] = [];
    private readonly desired = new Map<string, { on: boolean; boot: string }>();
    /** Systems whose VM ended (stopped by us, or told to the BMC as off): not reported again. */
    private readonly offered = new Set<string>();
    private timer?: NodeJS.Timeout;
    private read = 0;
    private t0 = 0;
    private busy = false;

    constructor(readonly o: RedfishHostsOptions) {
        this.notifications = path.join(o.work, `bmc-${o.port}-notifications.jsonl`);
    }

    /** The BMC address of `host` as a BareMetalHost names it. */
    address(host: RedfishHost): string {
        return `${this.o.virtualMedia ? "redfish-virtualmedia" : "redfish"}+http://${this.o.ip}:${this.o.port}/redfish/v1/Systems/${host.uuid}`;
    }

    disk(host: RedfishHost): string {
        return path.join(this.o.work, `host-${host.name}.disk`);
    }

    async start(): Promise<void> {
        const { o } = this;
        this.t0 = Date.now();
        fs.writeFileSync(this.notifications, "");
        for (const h of o.hosts) {
            fs.writeFileSync(this.disk(h), "");
            fs.truncateSync(this.disk(h), h.diskMiB * 1024 * 1024);
        }
        this.daemons.push(new Daemon("ip", ["netns", "exec", o.ns, "/usr/bin/python3", "-c", RECEIVER, String(receiverPort(o.port)), this.notifications], path.join(o.work, `bmc-${o.port}-receiver.log`)));
        // Everything of this BMC is named by its port: two instances in one work directory at once.
        const conf = path.join(o.work, `sushy-${o.port}.conf`);
        fs.writeFileSync(conf, sushyConfig(o.hosts, path.join(o.work, `sushy-${o.port}-state`), `http://127.0.0.1:${receiverPort(o.port)}`, !!o.virtualMedia));
        // The media it downloads go to its TMPDIR: the work directory, not the machine's /tmp.
        const media = path.join(o.work, `sushy-${o.port}-media`);
        fs.mkdirSync(media, { recursive: true });
        const env = { ...process.env, TMPDIR: media, ...(o.virtualMedia ? { REQUESTS_CA_BUNDLE: o.virtualMedia.caFile } : {}) };
        this.daemons.push(await startSushy({ ns: o.ns, ip: o.ip, port: o.port, conf, log: path.join(o.work, `sushy-${o.port}.log`), uuid: o.hosts[0].uuid, env }));
        this.timer = setInterval(() => void this.reconcile(), 300);
    }

    /** The ISO the BMC holds for `host`, kept (the VM reads it; the BMC unlinks its own on eject): a hard link, else a copy. */
    private keepIso(h: RedfishHost, file: string): string {
        const kept = path.join(this.o.work, `bmc-${this.o.port}-${h.name}-boot-${this.isos.filter((x) => x.host === h.name).length + 1}.iso`);
        try {
            fs.linkSync(file, kept);
        } catch {
            fs.copyFileSync(file, kept);
        }
        this.isos.push({ host: h.name, file: kept });
        return kept;
    }

    private note(host: string, what: string): void {
        this.events.push({ ms: Date.now() - this.t0, host, what });
    }

    /**
     * Applies new notifications in order: a system turned On starts its VM from the boot device the
     * BMC holds, turned Off stops it. A VM that ended on its own (the guest powered off: qemu runs
     * with -no-reboot, so a reboot ends it too) is what a BMC sees as the host going off: the
     * system is reset ForceOff through the BMC's own Redfish API, so Ironic reads Off from it.
     */
    private async reconcile(): Promise<void> {
        if (this.busy) return;
        this.busy = true;
        try {
            const text = fs.readFileSync(this.notifications, "utf8");
            const fresh = text.slice(this.read);
            const complete = fresh.lastIndexOf("\n") + 1;
            this.read += complete;
            for (const line of fresh.slice(0, complete).split("\n").filter(Boolean)) {
                const sys = JSON.parse(line).system;
                const h = this.o.hosts.find((x) => x.uuid === sys.uuid);
                if (!h) continue;
                const was = this.desired.get(h.uuid);
                // boot_image: {Cd: [file, write protected, inserted]} while media is inserted.
                const cd = sys.boot_image?.Cd;
                const now = { on: sys.power_state === "On", boot: sys.boot_device ?? "Hdd", cd: cd?.[2] ? (cd[0] as string) : undefined };
                this.desired.set(h.uuid, now);
                const vm = this.vms.get(h.uuid);
                if (now.on && !was?.on) {
                    if (vm?.running) await vm.stop();
                    const bootFrom = now.boot === "Pxe" ? "network" : now.boot === "Cd" ? "cd" : "disk";
                    let cdrom: string | undefined;
                    if (bootFrom === "cd") {
                        try {
                            cdrom = this.keepIso(h, now.cd!);
                        } catch (e) {
                            this.problems.push(`${h.name}: powered on from Cd, but no inserted ISO to boot (${now.cd}): ${(e as Error).message}`);
                        }
                    }
                    const next = new PxeVm({ name: h.name.slice(-6), mac: h.mac, firmware: h.firmware, lab: this.o.lab, switchNs: this.o.switchNs, bridge: this.o.bridge, work: this.o.work, memoryMiB: this.o.memoryMiB, disk: this.disk(h), bootFrom, cdrom });
                    this.vms.set(h.uuid, next);
                    this.offered.delete(h.uuid);
                    this.note(h.name, `on (boot from ${bootFrom}${cdrom ? `, ${path.basename(cdrom)} inserted` : ""})`);
                    next.start();
                } else if (!now.on && was?.on) {
                    this.note(h.name, "off");
                    this.offered.add(h.uuid);
                    await vm?.stop();
                }
            }
            for (const h of this.o.hosts) {
                const vm = this.vms.get(h.uuid);
                if (!vm || vm.running || !this.desired.get(h.uuid)?.on || this.offered.has(h.uuid)) continue;
                this.offered.add(h.uuid);
                this.note(h.name, "guest ended (BMC reset ForceOff)");
                run("ip", ["netns", "exec", this.o.ns, "curl", "-sf", "-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ ResetType: "ForceOff" }), `http://${this.o.ip}:${this.o.port}/redfish/v1/Systems/${h.uuid}/Actions/ComputerSystem.Reset`], { allowFail: true });
            }
        } finally {
            this.busy = false;
        }
    }

    /** The serial console and qemu output of `host`'s VM (its latest power-on). */
    output(host: RedfishHost): string {
        return this.vms.get(host.uuid)?.output() ?? "";
    }

    /** Whether `host`'s VM (its qemu process) is running. */
    running(host: RedfishHost): boolean {
        return !!this.vms.get(host.uuid)?.running;
    }

    async stop(): Promise<void> {
        if (this.timer) clearInterval(this.timer);
        for (const vm of this.vms.values()) await vm.stop();
        for (const d of this.daemons) await d.stop();
    }
}
