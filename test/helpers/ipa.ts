/**
 * The IPA deploy ramdisk the provisioning tests boot (tools/ipa-ramdisk/build.sh: Debian's kernel,
 * a minbase bookworm and ironic-python-agent from PyPI, cached outside the checkout). CI builds it
 * in the background from the start (.ci/run, $METAL3_IPA_STATUS holds the build's exit code once it
 * ends); a test that needs it waits for that build, and says how to build it where none runs.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

export const IPA_BUILD = path.resolve(__dirname, "..", "..", "tools", "ipa-ramdisk", "build.sh");

/**
 * The disk of a host the agent boots on, in MiB (a sparse file): the agent takes no disk under
 * 4 GiB as a root device (utils.guess_root_disk) and, finding none, waits 10 × 3 s for one at start
 * and again after its lookup (hardware.wait_for_disks): a minute of every boot, as on no real server.
 */
export const AGENT_DISK_MIB = 8192;
/** What the agent logs when it gave up waiting for a root device (hardware.wait_for_disks). */
export const NO_ROOT_DEVICE = /The root device was not detected/;

export interface IpaRamdisk {
    dir: string;
    kernel: string;
    initramfs: string;
    /** versions.txt of the build: agent, Debian, kernel, python. */
    versions: string;
}

/** Where build.sh puts (or has put) the ramdisk of this checkout's recipe. */
export function ipaDir(): string {
    return execFileSync("bash", [IPA_BUILD, "--where"], { encoding: "utf8" }).trim();
}

function built(dir: string): IpaRamdisk | undefined {
    if (!fs.existsSync(path.join(dir, "complete"))) return undefined;
    return { dir, kernel: path.join(dir, "ironic-python-agent.kernel"), initramfs: path.join(dir, "ironic-python-agent.initramfs"), versions: fs.readFileSync(path.join(dir, "versions.txt"), "utf8") };
}

/**
 * The built ramdisk, waiting up to `waitMs` for CI's background build when one runs; otherwise
 * (or when that build failed) why not, naming the command or the log.
 */
export async function ipaRamdisk(waitMs = 20 * 60000): Promise<IpaRamdisk | string> {
    const dir = ipaDir();
    const status = process.env.METAL3_IPA_STATUS;
    const end = Date.now() + waitMs;
    for (;;) {
        const r = built(dir);
        if (r) return r;
        if (!status || !fs.existsSync(status)) return `the IPA ramdisk in ${dir}: build it once as root with ${path.relative(process.cwd(), IPA_BUILD)} (.ci/run builds it in the background)`;
        const rc = fs.readFileSync(status, "utf8").trim();
        if (rc !== "") return built(dir) ?? `the IPA ramdisk build (${IPA_BUILD}) exited ${rc}; log: ${process.env.METAL3_IPA_LOG ?? "(none)"}`;
        if (Date.now() > end) return `the IPA ramdisk build did not finish within ${waitMs / 60000} min (status file ${status} still empty)`;
        await new Promise((r) => setTimeout(r, 2000));
    }
}
