/**
 * A BareMetalHost as the provisioning tests watch it: BMO's status is the oracle, every provisioning
 * state it reports is kept with the time it was first seen, and what the agent wrote to a VM's disk
 * is read back from the disk file.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import type { Cluster } from "../e2e/harness";
import { until } from "./ironic-lab";
import { Daemon, run } from "./sys";

export class BmhWatch {
    /** [provisioning state ("" before BMO set one, "(deleted)" once gone), ms since t0] per change. */
    readonly timeline: [string, number][] = [];
    /** The object as last read (`{}` once deleted). */
    bmh: any = {};

    constructor(
        private readonly kube: Cluster,
        readonly namespace: string,
        readonly name: string,
        readonly t0 = Date.now(),
        /** What a failure message adds (the VM's console, BMO's log). */
        private readonly context: () => string = () => "",
    ) {}

    /** Reads the host once, recording a new state; its state. */
    poll(): string {
        const r = this.kube.kubectl(["get", "baremetalhost", this.name, "-n", this.namespace, "-o", "json"], { allowFail: true });
        if (r.status !== 0 && !/NotFound/.test(r.stderr)) throw new Error(`kubectl get baremetalhost ${this.name}: ${r.stderr}`);
        this.bmh = r.status === 0 ? JSON.parse(r.stdout) : {};
        const state = r.status === 0 ? (this.bmh.status?.provisioning?.state ?? "") : "(deleted)";
        if (this.timeline[this.timeline.length - 1]?.[0] !== state) this.timeline.push([state, Date.now() - this.t0]);
        return state;
    }

    /** Seconds since t0 at which `state` was first seen after the `after`-th entry, or undefined. */
    at(state: string, after = 0): number | undefined {
        const e = this.timeline.slice(after).find(([s]) => s === state);
        return e && e[1] / 1000;
    }

    /**
     * Waits for `want`, polling every second; by default an error message BMO records ends the wait
     * (the caller's assertions say which), with `errors: "tolerate"` it does not (a retry is expected);
     * so does `stopIf` returning true. `also` runs after every poll.
     */
    async until(want: string, timeoutMs: number, o: { errors?: "stop" | "tolerate"; also?: () => void; stopIf?: () => boolean } = {}): Promise<void> {
        await until(
            () => {
                const state = this.poll();
                o.also?.();
                return state === want || (o.errors !== "tolerate" && !!this.bmh.status?.errorMessage) || !!o.stopIf?.();
            },
            timeoutMs,
            `BareMetalHost ${this.name} ${want}`,
            1000,
        ).catch((e) => assert.fail(`${e.message}: ${JSON.stringify(this.bmh.status)}\ntimeline: ${this.format()}\n${this.context()}`));
    }

    format(from = 0): string {
        return this.timeline
            .slice(from)
            .map(([st, ms]) => `${st || "(none)"} at ${(ms / 1000).toFixed(0)} s`)
            .join(" → ");
    }
}

/** The partition's first 6 MiB: the agent moves the GPT's backup header to the disk's end, so the label differs from the image's. */
function partition(b: Buffer): Buffer {
    return b.subarray(1024 * 1024, 7 * 1024 * 1024);
}

/**
 * The EFI system partition of a disk written from uefiWholeDiskImage holds the image's boot loader
 * (\EFI\BOOT\BOOTX64.EFI = GRUB_EFI), byte for byte: read with mtools at the partition's offset
 * into `work`; `message` says whose disk.
 */
export function assertEspLoader(disk: string, work: string, message: string): void {
    const copy = path.join(work, "bootx64.efi");
    const loader = run("mcopy", ["-n", "-i", `${disk}@@1M`, "::/EFI/BOOT/BOOTX64.EFI", copy], { env: { ...process.env, MTOOLS_SKIP_CHECK: "1" }, allowFail: true });
    assert.equal(loader.status, 0, loader.stderr);
    assert.ok(fs.readFileSync(copy).equals(fs.readFileSync(GRUB_EFI)), message);
}

/**
 * The image the tests deploy (a GPT whose one partition, 2048 + 12288 sectors, holds `image`'s
 * bytes) on the VM's disk file: that partition byte for byte, and after it the config drive BMO
 * sent (the agent adds a partition for it: an ISO 9660 volume labelled config-2).
 */
export function assertImageWritten(disk: string, image: Buffer): void {
    const label = JSON.parse(run("sfdisk", ["--json", disk]).stdout).partitiontable;
    assert.equal(label.label, "gpt", JSON.stringify(label));
    assert.deepEqual(label.partitions[0] && [label.partitions[0].start, label.partitions[0].size], [2048, 12288], JSON.stringify(label));
    assert.ok(partition(readAt(disk, 0, 7 * 1024 * 1024)).equals(partition(image)), "the VM's disk holds the image's partition, byte for byte");
    assert.equal(label.partitions.length, 2, JSON.stringify(label));
    const volume = readAt(disk, label.partitions[1].start * 512 + 32768, 72);
    assert.equal(volume.subarray(1, 6).toString("latin1"), "CD001", "the config drive is an ISO 9660 volume");
    assert.equal(volume.subarray(40, 72).toString("latin1").trim(), "config-2");
}

/** `length` bytes of a (sparse, large) disk file from `offset`: never the whole file in memory. */
export function readAt(file: string, offset: number, length: number): Buffer {
    const fd = fs.openSync(file, "r");
    try {
        const b = Buffer.alloc(length);
        const n = fs.readSync(fd, b, 0, length, offset);
        return b.subarray(0, n);
    } finally {
        fs.closeSync(fd);
    }
}

/** What the BIOS whole-disk image's boot sector writes to the first serial port once the firmware started it from the disk. */
export const BIOS_DISK_BOOT_MARKER = "M3I-BIOS-DISK-BOOT-OK";

/**
 * The boot code of the BIOS whole-disk image's MBR (real mode, loaded at 0x7c00): write
 * BIOS_DISK_BOOT_MARKER to COM1 (port 0x3f8), then halt with interrupts off. A guest that boots
 * code it cannot run spins: the image's own bytes there (sfdisk keeps bytes 0-439) kept a TCG VM
 * at a whole host core from its provisioning to its deprovisioning, measured; halted, it uses ~0.3 %.
 */
function biosBootCode(): Buffer {
    const msg = Buffer.from(`${BIOS_DISK_BOOT_MARKER}\r\n\0`, "latin1");
    const code = Buffer.from([
        0x31, 0xc0, // xor ax, ax
        0x8e, 0xd8, // mov ds, ax
        0xfc, // cld
        0xbe, 0x17, 0x7c, // mov si, 0x7c17 (the message, after these 23 bytes)
        0xba, 0xf8, 0x03, // mov dx, 0x3f8
        0xac, // next: lodsb
        0x84, 0xc0, // test al, al
        0x74, 0x03, // jz halt
        0xee, // out dx, al
        0xeb, 0xf8, // jmp next
        0xfa, // halt: cli
        0xf4, // hlt
        0xeb, 0xfd, // jmp hlt
    ]);
    return Buffer.concat([code, msg]);
}

/**
 * A BIOS whole-disk image (8 MiB): a GPT (the agent refuses an image with no partition table)
 * whose one partition holds bytes no disk starts with (sha256 of `${seed}block <offset>`), and an
 * MBR whose boot code prints BIOS_DISK_BOOT_MARKER and halts (biosBootCode).
 */
export function biosWholeDiskImage(file: string, seed = ""): Buffer {
    const pattern = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < pattern.length; i += 32) createHash("sha256").update(`${seed}block ${i}`).digest().copy(pattern, i);
    fs.writeFileSync(file, pattern);
    run("sfdisk", ["--quiet", file], { input: "label: gpt\nstart=2048, type=L\n" });
    const fd = fs.openSync(file, "r+");
    try {
        const code = biosBootCode();
        fs.writeSync(fd, code, 0, code.length, 0);
    } finally {
        fs.closeSync(fd);
    }
    return fs.readFileSync(file);
}

/** Debian's grub-efi-amd64-bin: a standalone x86_64 GRUB that reads $prefix/grub.cfg (prefix /EFI/debian) or the one beside it. */
export const GRUB_EFI = "/usr/lib/grub/x86_64-efi/monolithic/grubx64.efi";
/** What the UEFI whole-disk image's boot loader prints on the console once the firmware started it from the disk. */
export const UEFI_DISK_BOOT_MARKER = "M3I-UEFI-DISK-BOOT-OK";
/** What the UEFI image needs here (with sfdisk), or "" when all is there. */
export function uefiImagePrerequisites(): string {
    if (!fs.existsSync(GRUB_EFI)) return `${GRUB_EFI} (apt-get install grub-efi-amd64-bin)`;
    return run("sh", ["-c", "command -v mformat && command -v mcopy && command -v mmd"], { allowFail: true }).status === 0 ? "" : "mtools (apt-get install mtools)";
}

/**
 * A UEFI whole-disk image (40 MiB): a GPT whose one partition is an EFI system partition (FAT32)
 * holding \EFI\BOOT\BOOTX64.EFI, the firmware's removable-media path (no boot entry needed), which
 * is Debian's standalone GRUB printing UEFI_DISK_BOOT_MARKER. Made as a file, no loop device
 * (sfdisk, mtools at the partition's offset). What the agent needs to install a UEFI boot entry
 * for it: an ESP on the written disk and a boot loader the ESP holds (ironic_python_agent efi_utils).
 */
export function uefiWholeDiskImage(file: string): Buffer {
    fs.writeFileSync(file, "");
    fs.truncateSync(file, 40 * 1024 * 1024);
    run("sfdisk", ["--quiet", file], { input: 'label: gpt\nstart=2048, size=73728, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name="EFI System"\n' });
    const esp = `${file}@@1M`;
    const env = { ...process.env, MTOOLS_SKIP_CHECK: "1" };
    run("mformat", ["-i", esp, "-T", "73728", "-H", "2048", "-F", "-v", "ESP", "::"], { env });
    run("mmd", ["-i", esp, "::/EFI", "::/EFI/BOOT", "::/EFI/debian"], { env });
    run("mcopy", ["-i", esp, GRUB_EFI, "::/EFI/BOOT/BOOTX64.EFI"], { env });
    const cfg = `${file}.grub.cfg`;
    // No halt: a guest that powers itself off is reported to its BMC (and Ironic would power it on again).
    fs.writeFileSync(cfg, `echo "${UEFI_DISK_BOOT_MARKER}"\n`);
    run("mcopy", ["-i", esp, cfg, "::/EFI/debian/grub.cfg"], { env });
    run("mcopy", ["-i", esp, cfg, "::/EFI/BOOT/grub.cfg"], { env });
    return fs.readFileSync(file);
}

/**
 * The image server of the provisioning tests: `dir` over HTTP at ip:port in namespace `ns`. While
 * `held` exists, a GET waits (HEAD answers at once): the deploy's download is in flight, and stays
 * so until the test lets it go. Every request is logged with the client's address.
 */
export class ImageServer {
    readonly held: string;
    private readonly log: string;
    private readonly daemon: Daemon;

    constructor(o: { ns: string; ip: string; port: number; dir: string; work: string }) {
        // Named by its port: two servers in one work directory at once.
        this.held = path.join(o.work, `image-server-${o.port}.held`);
        this.log = path.join(o.work, `image-server-${o.port}.log`);
        const script = path.join(o.work, "image-server.py");
        fs.writeFileSync(
            script,
            [
                "import functools, http.server, os, sys, time",
                "held = sys.argv[4]",
                "class Handler(http.server.SimpleHTTPRequestHandler):",
                "    def do_GET(self):",
                "        if os.path.exists(held):",
                "            self.log_message('GET %s held', self.path)",
                "            while os.path.exists(held):",
                "                time.sleep(0.2)",
                "        super().do_GET()",
                "handler = functools.partial(Handler, directory=sys.argv[3])",
                "http.server.ThreadingHTTPServer((sys.argv[1], int(sys.argv[2])), handler).serve_forever()",
                "",
            ].join("\n"),
        );
        this.daemon = new Daemon("ip", ["netns", "exec", o.ns, "/usr/bin/python3", "-u", script, o.ip, String(o.port), o.dir, this.held], this.log);
    }

    hold(): void {
        fs.writeFileSync(this.held, "");
    }

    release(): void {
        fs.rmSync(this.held, { force: true });
    }

    /** The addresses whose GET of `file` is being held (or was). */
    heldFor(file: string): string[] {
        const log = fs.existsSync(this.log) ? fs.readFileSync(this.log, "utf8") : "";
        return [...log.matchAll(new RegExp(`^(\\S+) .*GET /${file.replace(/\./g, "\\.")} held$`, "gm"))].map((m) => m[1]);
    }

    async stop(): Promise<void> {
        this.release();
        await this.daemon.stop();
    }
}
