/**
 * Virtual machines with real boot firmware, for the tests that boot "bare-metal hosts" through the
 * rendered DHCP and HTTP services (Debian's qemu-system-x86, ovmf and ipxe-qemu).
 *
 * Each VM has one virtio NIC on a tap device plugged into a test bridge (in the test's switch
 * namespace: the VM's traffic never leaves the namespaces the test created) and, unless given one
 * (the disk the agent cleans and writes), no disk, so the firmware's only boot option is the network:
 *  - `bios`: SeaBIOS with QEMU's PXE option ROM for the NIC, which is iPXE (Debian's ipxe-qemu):
 *    its first DHCP request already carries iPXE's option 175, so it goes straight to the boot
 *    script URL (the legacy PXE → TFTP → undionly.kpxe step needs a non-iPXE PXE ROM, which
 *    Debian does not ship);
 *  - `uefi`: OVMF (Debian's ovmf) with its own virtio-net driver and PXE (the NIC's option ROM is
 *    left out, so no iPXE is involved until the firmware loads one): UEFI PXE over IPv4 asks DHCP
 *    with client architecture 7 (x86-64 UEFI), fetches the iPXE binary it is given over TFTP and
 *    runs it; that iPXE asks DHCP again (option 175) and fetches the boot script over HTTP;
 *  - `uefi6`: the same OVMF on an IPv6-only network: its "UEFI PXEv6" boot option solicits DHCPv6
 *    (client architecture 7 in option 61, vendor class PXEClient), fetches the iPXE binary named by
 *    the option 59 URL over TFTP and runs it; that iPXE configures IPv6 from the router
 *    advertisement (managed flag), asks DHCPv6 (user class "iPXE") and fetches the boot-script URL
 *    it is given. OVMF's IPv4 PXE option is switched off with OVMF's own fw_cfg knob
 *    (opt/org.tianocore/IPv4PXESupport, as a server's "IPv6 PXE only" setup option): the boot
 *    manager would otherwise try IPv4 PXE first and wait out its DHCPv4 timeout on every boot.
 * Started with setsid and stopped by PID. Emulated (TCG), not KVM: see `start`.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { Daemon, NetnsLab, trackProcessGroup, which } from "./sys";

export type Firmware = "bios" | "uefi" | "uefi6";

export const OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd";
export const OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd";

/** What a machine needs to run these VMs, or why it cannot (for requireOrSkip). */
export function vmPrerequisites(): string | undefined {
    if (!which("qemu-system-x86_64")) return "qemu-system-x86_64 (apt-get install qemu-system-x86 ipxe-qemu ovmf)";
    if (!fs.existsSync(OVMF_CODE) || !fs.existsSync(OVMF_VARS)) return `${OVMF_CODE} and ${OVMF_VARS} (apt-get install ovmf)`;
    if (!fs.existsSync("/usr/lib/ipxe/qemu/pxe-virtio.rom")) return "QEMU's iPXE option ROMs (apt-get install ipxe-qemu)";
    return undefined;
}

export interface VmOptions {
    /** Short name (tap device and files). */
    name: string;
    mac: string;
    firmware: Firmware;
    lab: NetnsLab;
    /** Namespace and bridge the VM's NIC is plugged into. */
    switchNs: string;
    bridge: string;
    work: string;
    /** RAM in MiB (default 256: enough for the firmware and iPXE; the agent's ramdisk needs 2048). */
    memoryMiB?: number;
    /** A raw disk image file, attached as a virtio disk (the host's disk for the agent). */
    disk?: string;
    /** What the firmware tries first, the others next (a BMC's boot device): default the network. */
    bootFrom?: "network" | "disk" | "cd";
    /** An ISO image in the VM's CD-ROM drive (on the q35 AHCI controller): a BMC's virtual media. */
    cdrom?: string;
    /** Extra fw_cfg knobs of OVMF (`name=value`), e.g. to measure the default boot order. */
    fwCfg?: Record<string, string>;
}

/** The fw_cfg knobs of OVMF each UEFI firmware flavour boots with (edk2's OvmfPkg/RUNTIME_CONFIG.md). */
export const OVMF_KNOBS: Record<Exclude<Firmware, "bios">, Record<string, string>> = {
    uefi: {},
    uefi6: { "opt/org.tianocore/IPv4PXESupport": "no" },
};

/** The chassis MAC of the lab's "switch" (locally administered). */
export const LAB_SWITCH_MAC = "02:4d:33:49:00:01";
export const LAB_SWITCH_NAME = "m3i-lab-switch";
/**
 * The VM's switch port speaking LLDP, as a server's top-of-rack switch does: every second an LLDP
 * frame (chassis MAC, the port's name as port ID, TTL, system name) out of the VM's tap. Without
 * one, the agent (ipa-collect-lldp, the image's default for inspection) waits its 30 s LLDP timeout
 * each time it lists the NICs: three times per inspection.
 */
export const LLDP_SENDER = `import socket, struct, sys, time
port, chassis = sys.argv[1], bytes.fromhex(sys.argv[2].replace(":", ""))
def tlv(t, v):
    return struct.pack("!H", (t << 9) | len(v)) + v
frame = bytes.fromhex("0180c200000e") + chassis + b"\\x88\\xcc" + tlv(1, b"\\x04" + chassis) + tlv(2, b"\\x05" + port.encode()) + tlv(3, struct.pack("!H", 120)) + tlv(5, sys.argv[3].encode()) + b"\\x00\\x00"
frame += bytes(max(0, 60 - len(frame)))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((port, 0))
while True:
    try:
        s.send(frame)
    except OSError:
        pass
    time.sleep(1)
`;

export class PxeVm {
    readonly tap: string;
    readonly serialLog: string;
    private proc?: ChildProcess;
    private lldp?: Daemon;
    startedAt = 0;

    constructor(private readonly o: VmOptions) {
        this.tap = o.lab.name(`t${o.name}`);
        this.serialLog = path.join(o.work, `vm-${o.name}.serial`);
    }

    start(): void {
        const { o } = this;
        // The tap outlives a VM that is powered off: powered on again, it is reused.
        const exists = spawnSync("ip", ["-n", o.switchNs, "link", "show", "dev", this.tap], { stdio: "ignore" }).status === 0;
        if (!exists) execFileSync("ip", ["-n", o.switchNs, "tuntap", "add", "dev", this.tap, "mode", "tap"]);
        execFileSync("ip", ["-n", o.switchNs, "link", "set", this.tap, "master", o.bridge, "up"]);
        if (!this.lldp?.running) this.lldp = new Daemon("ip", ["netns", "exec", o.switchNs, "python3", "-c", LLDP_SENDER, this.tap, LAB_SWITCH_MAC, LAB_SWITCH_NAME], path.join(o.work, `lldp-${o.name}.log`));
        // Boot order: the BMC's boot device first, then the disk, the network (and the CD-ROM).
        const first = o.bootFrom === "cd" && o.cdrom ? "cd" : o.bootFrom === "disk" && o.disk ? "disk" : "network";
        const order = [first, ...(["disk", "network", "cd"] as const).filter((d) => d !== first)];
        const bootindex = (d: string) => order.indexOf(d as (typeof order)[number]) + 1;
        const nic = [`virtio-net-pci`, `netdev=n0`, `mac=${o.mac}`, `bootindex=${bootindex("network")}`];
        const args = [
            "-name", `m3i-${o.name}`,
            // An SMBIOS UUID of its own, as every server has: iPXE's DHCPv6 client identifies itself
            // by it (DUID-UUID), so two VMs never share a DHCPv6 identity.
            "-uuid", `00000000-0000-4000-8000-${o.mac.replace(/:/g, "")}`,
            "-machine", "q35",
            // TCG: the same on every machine (KVM inside the CI sandbox fails on the firmware's first
            // FPU instruction or MSR write); a diskless boot to the boot script takes seconds.
            "-accel", "tcg",
            "-m", String(o.memoryMiB ?? 256),
            "-display", "none",
            "-monitor", "none",
            "-serial", `file:${this.serialLog}`,
            "-no-reboot",
            "-netdev", `tap,id=n0,ifname=${this.tap},script=no,downscript=no`,
        ];
        if (o.firmware !== "bios") {
            const vars = path.join(o.work, `vm-${o.name}.vars.fd`);
            fs.copyFileSync(OVMF_VARS, vars);
            args.push("-drive", `if=pflash,format=raw,unit=0,readonly=on,file=${OVMF_CODE}`, "-drive", `if=pflash,format=raw,unit=1,file=${vars}`);
            nic.push("romfile=");
            for (const [k, v] of Object.entries({ ...OVMF_KNOBS[o.firmware], ...o.fwCfg })) args.push("-fw_cfg", `name=${k},string=${v}`);
        }
        args.push("-device", nic.join(","));
        if (o.disk) args.push("-drive", `if=none,id=d0,format=raw,file=${o.disk}`, "-device", `virtio-blk-pci,drive=d0,bootindex=${bootindex("disk")}`);
        if (o.cdrom) args.push("-drive", `if=none,id=cd0,media=cdrom,readonly=on,format=raw,file=${o.cdrom}`, "-device", `ide-cd,bus=ide.0,drive=cd0,bootindex=${bootindex("cd")}`);
        const out = fs.openSync(path.join(o.work, `vm-${o.name}.out`), "w");
        this.startedAt = Date.now();
        this.proc = spawn("ip", ["netns", "exec", o.switchNs, "qemu-system-x86_64", ...args], { detached: true, stdio: ["ignore", out, out] });
        fs.closeSync(out);
        trackProcessGroup(this.proc, `VM ${o.name}`);
    }

    get running(): boolean {
        return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
    }

    output(): string {
        const read = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, "latin1") : "");
        return `${read(path.join(this.o.work, `vm-${this.o.name}.out`))}${read(this.serialLog)}`;
    }

    async stop(): Promise<void> {
        await this.lldp?.stop();
        const p = this.proc;
        if (!p || !this.running) return;
        const exited = new Promise((res) => p.once("exit", res));
        try {
            process.kill(p.pid!, "SIGTERM");
        } catch {
            return;
        }
        const t = setTimeout(() => {
            try {
                process.kill(p.pid!, "SIGKILL");
            } catch {
                /* gone */
            }
        }, 5000);
        await exited;
        clearTimeout(t);
    }
}
