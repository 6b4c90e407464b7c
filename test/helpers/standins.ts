/**
 * The container images of the stack, as the pod runner starts them: stand-in layers overlaid on
 * this machine's /usr and /etc (see pod-runner.ts).
 *
 * The project's own scripts (start wrapper, dnsmasq start script, pruner) are not part of any
 * image: they come from the rendered ConfigMaps and run for real. What an image contributes is
 * stood in for here, from its documented contract (docs/ironic-image-contract.md):
 *  - ironic image: the entrypoints under test/standins/ironic/usr/bin (they check the contract and
 *    start the real program: Ironic 38, the image's release, and the exporter from the image's
 *    Python environment, IMAGE_VENV, mounted read-only; the httpd stand-in); /usr/sbin/dnsmasq = Debian's dnsmasq with
 *    the file capabilities the image gives it (setcap NET_ADMIN, NET_BIND_SERVICE, NET_RAW);
 *    python3.12 (hard-coded by the image) = IMAGE_VENV's interpreter; the iPXE binaries in /tftpboot;
 *    the `ironic` user 997/994;
 *  - ipa-downloader: get-resource.sh downloading with curl as the real one does (its contract);
 *  - keepalived: holds the VIP with `ip` made capable through a file-capable setpriv (what
 *    keepalived does as MASTER);
 *  - mariadb: the upstream image's docker-entrypoint.sh and healthcheck.sh behaviour, then Debian's
 *    mariadbd on a defaults file built from /etc/mysql/conf.d only.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";

import { DEFAULT_IMAGES, IPXE_FILES, IRONIC_GID, IRONIC_UID, KEEPALIVED_IMAGE } from "../../core/contract";
import type { StandinImage } from "./pod-runner";
import { which } from "./sys";

const SRC = path.join(__dirname, "..", "standins");

/**
 * The image's Python environment: PyPI's Ironic 38.0.0 (the image's release) with sushy, PyMySQL,
 * ironic-prometheus-exporter and gunicorn (.ci/run's pinned venv; the image installs the same under
 * /usr). The pod runner mounts it into the ironic image's containers at the same path, read-only.
 */
export const IMAGE_VENV = "/var/cache/metal3-ironic-pypi/ironic-38-exporter";
/** The Ironic release of IMAGE_VENV, as tests name it. */
export const IMAGE_IRONIC = "Ironic 38.0.0 from PyPI (the image's release)";

/** Whether IMAGE_VENV holds Ironic 38 and the exporter (what .ci/run installs). */
let venvReady: boolean | undefined;
export function imageVenvReady(): boolean {
    venvReady ??= probeImageVenv();
    return venvReady;
}
function probeImageVenv(): boolean {
    const py = path.join(IMAGE_VENV, "bin", "python");
    if (!fs.existsSync(py)) return false;
    // Looked up on the PATH the pod runner gives containers (sbin included: mkfs.vfat is in /sbin).
    if (IMAGE_PROGRAMS.some((p) => !which(p, POD_PATH))) return false;
    try {
        const v = execFileSync(py, ["-c", "import importlib.metadata as m, ironic.conf, ironic_prometheus_exporter.messaging, gunicorn; print(m.version('ironic'))"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 60000 }).trim();
        return v === "38.0.0";
    } catch {
        return false;
    }
}

/**
 * Programs the image installs (its RPMs) that Ironic runs, taken from the host as the rest of /usr:
 * without ipmitool the ipmi hardware type (enabled by the image's default config) fails to load
 * and the conductor exits, which would look like a hang; xorrisofs builds the config drive BMO
 * sends with every deploy; qemu-img and mkfs.vfat images and virtual media.
 */
export const IMAGE_PROGRAMS = ["ipmitool", "xorrisofs", "qemu-img", "mkfs.vfat"];
/** The PATH the pod runner gives containers (test/helpers/pod-runner.ts DEFAULT_PATH). */
const POD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** What a test that runs the image's Ironic names when the environment is missing. */
export const IMAGE_VENV_NEEDED = `${IMAGE_IRONIC} with ironic-prometheus-exporter and gunicorn in ${IMAGE_VENV}, and ${IMAGE_PROGRAMS.join(", ")} on PATH (bash .ci/run creates the pinned venv and installs them)`;

function users(extra: { name: string; uid: number; gid: number }[]): { passwd: string; group: string } {
    const taken = (line: string) => {
        const f = line.split(":");
        return extra.some((u) => f[0] === u.name || Number(f[2]) === u.uid);
    };
    const passwd = fs.readFileSync("/etc/passwd", "utf8").split("\n").filter((l) => l && !taken(l));
    const group = fs.readFileSync("/etc/group", "utf8").split("\n").filter((l) => {
        const f = l.split(":");
        return l && !extra.some((u) => f[0] === u.name || Number(f[2]) === u.gid);
    });
    for (const u of extra) {
        passwd.push(`${u.name}:x:${u.uid}:${u.gid}::/home/${u.name}:/sbin/nologin`);
        group.push(`${u.name}:x:${u.gid}:`);
    }
    return { passwd: passwd.join("\n") + "\n", group: group.join("\n") + "\n" };
}

function layer(work: string, name: string, u: { name: string; uid: number; gid: number }[]): string {
    const dir = path.join(work, "images", name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.join(dir, "usr"), { recursive: true });
    fs.mkdirSync(path.join(dir, "etc"), { recursive: true });
    if (fs.existsSync(path.join(SRC, name))) fs.cpSync(path.join(SRC, name), dir, { recursive: true });
    const { passwd, group } = users(u);
    fs.writeFileSync(path.join(dir, "etc", "passwd"), passwd);
    fs.writeFileSync(path.join(dir, "etc", "group"), group);
    return dir;
}

/** A copy of a host binary carrying file capabilities, as the image ships it. */
function fileCapable(src: string, dest: string, caps: string) {
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(src, dest);
    fs.chmodSync(dest, 0o755);
    execFileSync("setcap", [caps, dest]);
}

/** Debian's iPXE binaries standing in for the image's (the image builds snponly.efi as snponly-x86_64.efi). */
const DEBIAN_IPXE: Record<string, string> = { [IPXE_FILES.bios]: "/usr/lib/ipxe/undionly.kpxe", [IPXE_FILES.efiX86_64]: "/usr/lib/ipxe/snponly.efi" };

/** The GRUB modules of the stand-in ESP's boot loader (Debian's grub-efi-amd64-bin). */
const GRUB_EFI_MODULES = "/usr/lib/grub/x86_64-efi";
export const ESP_TEMPLATE = "/templates/uefi_esp_x86_64.img";

/**
 * What the image ships for virtual media, where this machine has the parts: `mkisofs` (the image's
 * xorriso provides it; Ironic runs it by that name to build every boot ISO) and the EFI system
 * partition image the image builds at /templates/uefi_esp_<arch>.img (prepare-efi.sh: FAT12, label
 * ESP_IMAGE, \EFI\BOOT\BOOTX64.EFI; its start script makes it [conductor]bootloader). The image's
 * CentOS GRUB reads the grub.cfg Ironic writes at [DEFAULT]grub_config_path (EFI/centos/grub.cfg)
 * on the ISO; the stand-in's boot loader is Debian's GRUB made to do the same (an embedded config
 * finding that file), with no shim: the test firmware has Secure Boot off.
 */
function imageVirtualMedia(layerDir: string): void {
    const xorrisofs = which("xorrisofs", POD_PATH);
    if (xorrisofs) fs.writeFileSync(path.join(layerDir, "usr", "bin", "mkisofs"), `#!/bin/sh\nexec ${xorrisofs} "$@"\n`, { mode: 0o755 });
    const mkfs = which("mkfs.vfat", POD_PATH);
    if (!mkfs || !which("grub-mkimage") || !which("mcopy") || !fs.existsSync(path.join(GRUB_EFI_MODULES, "iso9660.mod"))) return;
    const dir = path.join(layerDir, path.dirname(ESP_TEMPLATE));
    fs.mkdirSync(dir, { recursive: true });
    const early = path.join(layerDir, "..", "esp-early.cfg");
    fs.writeFileSync(early, "search --no-floppy --file --set=root /EFI/centos/grub.cfg\nset prefix=($root)/EFI/centos\nconfigfile ($root)/EFI/centos/grub.cfg\n");
    const loader = path.join(layerDir, "..", "esp-bootx64.efi");
    const modules = ["iso9660", "fat", "part_gpt", "part_msdos", "search", "search_fs_file", "configfile", "normal", "linux", "echo", "test", "efi_gop", "all_video", "gzio"];
    execFileSync("grub-mkimage", ["-O", "x86_64-efi", "-d", GRUB_EFI_MODULES, "-p", "/EFI/centos", "-c", early, "-o", loader, ...modules]);
    const img = path.join(layerDir, ESP_TEMPLATE);
    fs.rmSync(img, { force: true });
    execFileSync(mkfs, ["-C", "-F", "12", "-n", "ESP_IMAGE", img, "6400"], { stdio: "ignore" });
    const env = { ...process.env, MTOOLS_SKIP_CHECK: "1" };
    execFileSync("mmd", ["-i", img, "::/EFI", "::/EFI/BOOT"], { env });
    execFileSync("mcopy", ["-i", img, loader, "::/EFI/BOOT/BOOTX64.EFI"], { env });
}

/**
 * The next Ironic release's image, for the rolling upgrade (test/integration/upgrade.test.ts): the
 * same stand-in with PyPI's Ironic 39.0.0 in its Python environment (.ci/run's second venv).
 */
export const NEXT_IRONIC = { image: "quay.io/metal3-io/ironic:v39.0.0", venv: "/var/cache/metal3-ironic-pypi/ironic-39-exporter", version: "39.0.0" } as const;

/** The ironic image's stand-in layer, its Python environment `venv` (the stand-in scripts' IMAGE_VENV). */
function ironicLayer(work: string, name: string, venv: string): string {
    const ironic = layer(work, name, [{ name: "ironic", uid: IRONIC_UID, gid: IRONIC_GID }]);
    if (name !== "ironic") fs.cpSync(path.join(SRC, "ironic"), ironic, { recursive: true });
    const common = path.join(ironic, "usr", "lib", "metal3-standin", "common.sh");
    fs.writeFileSync(common, fs.readFileSync(common, "utf8").replace(/^IMAGE_VENV=.*$/m, `IMAGE_VENV=${venv}`));
    fileCapable("/usr/sbin/dnsmasq", path.join(ironic, "usr", "sbin", "dnsmasq"), "cap_net_admin,cap_net_bind_service,cap_net_raw+ep");
    // The image's python3.12 (hard-coded by its scripts) is the one Ironic is installed for: here
    // the image's Python environment's interpreter, run by its path (a symlink would not do: Python
    // finds its venv beside the path it was started by, so /usr/bin/python3.12 would be the system's).
    fs.writeFileSync(path.join(ironic, "usr", "bin", "python3.12"), `#!/bin/sh\nexec ${path.join(venv, "bin", "python")} "$@"\n`, { mode: 0o755 });
    fs.mkdirSync(path.join(ironic, "tftpboot"), { recursive: true });
    // The image's iPXE builds: Debian's (package ipxe) where this machine has them, so real
    // firmware can load and run them (test/integration/pods.test.ts boots VMs); arm64 stays a stand-in.
    for (const f of Object.values(IPXE_FILES)) {
        const debian = DEBIAN_IPXE[f];
        if (debian && fs.existsSync(debian)) fs.copyFileSync(debian, path.join(ironic, "tftpboot", f));
        else fs.writeFileSync(path.join(ironic, "tftpboot", f), `stand-in iPXE firmware ${f}\n`);
    }
    imageVirtualMedia(ironic);
    return ironic;
}

/** NEXT_IRONIC's image: its stand-in with Ironic 39's Python environment mounted. */
export function nextIronicImage(work: string): StandinImage {
    return { layer: ironicLayer(work, "ironic-next", NEXT_IRONIC.venv), hostDirs: fs.existsSync(NEXT_IRONIC.venv) ? [NEXT_IRONIC.venv] : [] };
}

/** Stand-in images for the references a stack uses (keys: the default references; matched by repository). */
export function prepareImages(work: string): Record<string, StandinImage> {
    const ironic = ironicLayer(work, "ironic", IMAGE_VENV);
    const ipa = layer(work, "ipa-downloader", []);
    const keepalived = layer(work, "keepalived", [{ name: "keepalived", uid: 65532, gid: 65532 }]);
    // iproute2 drops file capabilities for non-root callers unless NET_ADMIN is inheritable, so a
    // file-capable copy of `ip` cannot add addresses. The layer's /usr/local/sbin/ip runs the real
    // `ip` through this file-capable setpriv, which passes NET_ADMIN/NET_RAW on as ambient
    // capabilities (still bounded by the container's capability bounding set).
    fileCapable("/usr/bin/setpriv", path.join(keepalived, "usr", "local", "libexec", "metal3-standin", "setpriv-net-admin"), "cap_net_admin,cap_net_raw+ep");
    const mariadb = layer(work, "mariadb", [{ name: "mysql", uid: 999, gid: 999 }]);

    return {
        // The image's Python environment (absent: every entrypoint fails naming it).
        [DEFAULT_IMAGES.ironic]: { layer: ironic, hostDirs: fs.existsSync(IMAGE_VENV) ? [IMAGE_VENV] : [] },
        [DEFAULT_IMAGES.ipaDownloader]: { layer: ipa, entrypoint: ["/usr/local/bin/get-resource.sh"] },
        [DEFAULT_IMAGES.keepalived]: { layer: keepalived, entrypoint: ["/usr/local/bin/keepalived-standin"] },
        [DEFAULT_IMAGES.mariadb]: { layer: mariadb, entrypoint: ["/usr/local/bin/docker-entrypoint.sh"], cmd: ["mariadbd"] },
    };
}

/**
 * The keepalived image with Debian's real keepalived (what the image installs, from Ubuntu): the
 * binary with the file capabilities the image gives it (setcap net_raw,net_broadcast,net_admin+eip),
 * the image's template at /etc/keepalived/keepalived.conf (group-writable by its user 65532, as the
 * image makes it), its /conf and /data owned by that user, and the CMD /bin/manage-keepalived.sh
 * as a stand-in written from its contract (core/keepalived.ts).
 */
export function debianKeepalivedImage(work: string): StandinImage {
    const dir = layer(work, "keepalived-debian", [{ name: "nonroot", uid: KEEPALIVED_IMAGE.uid, gid: KEEPALIVED_IMAGE.gid }]);
    fileCapable("/usr/sbin/keepalived", path.join(dir, "usr", "sbin", "keepalived"), "cap_net_raw,cap_net_broadcast,cap_net_admin+eip");
    const etc = path.join(dir, "etc", "keepalived");
    fs.mkdirSync(etc, { recursive: true });
    const { interface: iface, ips } = KEEPALIVED_IMAGE.placeholders;
    fs.writeFileSync(
        path.join(etc, "keepalived.conf"),
        `! The image's default template: router id 1, no authentication.\nvrrp_instance VI_1 {\n    state MASTER\n    interface ${iface}\n    virtual_router_id 1\n    priority 101\n    advert_int 1\n    virtual_ipaddress {\n        ${ips}\n    }\n}\n`,
    );
    fs.chownSync(etc, 0, KEEPALIVED_IMAGE.gid);
    fs.chmodSync(etc, 0o2775);
    fs.chownSync(path.join(etc, "keepalived.conf"), 0, KEEPALIVED_IMAGE.gid);
    fs.chmodSync(path.join(etc, "keepalived.conf"), 0o664);
    for (const d of ["conf", "data"]) {
        fs.mkdirSync(path.join(dir, d), { recursive: true });
        fs.chownSync(path.join(dir, d), KEEPALIVED_IMAGE.uid, KEEPALIVED_IMAGE.gid);
    }
    return { layer: dir, cmd: [...KEEPALIVED_IMAGE.command] };
}

/**
 * The IPA downloader as a stand-in that really downloads with curl (test/standins/ipa-downloader-curl):
 * for tests that serve the IPA from a loopback server and check what the download went through
 * (proxy, no-proxy, CA bundle). Same entrypoint as the image.
 */
export function curlDownloaderImage(work: string): StandinImage {
    return { layer: layer(work, "ipa-downloader-curl", []), entrypoint: ["/usr/local/bin/get-resource.sh"] };
}
