#!/usr/bin/env bash
# Builds an ironic-python-agent (IPA) deploy ramdisk from Debian's packages and PyPI only, for the
# provisioning tier (hosts that boot the agent from the stack's httpd, as the ironic image's IPA
# would be booted): Debian bookworm (debootstrap --variant=minbase) with the tools the agent calls
# (udev, lsblk, fuser, hdparm, parted, sgdisk, qemu-img, dmidecode, lshw, efibootmgr, mdadm, dhclient), a venv
# with ironic-python-agent from PyPI, Debian's kernel with the modules a virtio or e1000 VM needs,
# and a small /init that brings up the boot interface (BOOTIF) with DHCP (or applies the network data
# of a virtual-media ISO: network-data.py) and runs the agent, which
# reads ipa-api-url and the rest from the kernel command line Ironic gives it.
#
#   tools/ipa-ramdisk/build.sh          builds (or reuses) the ramdisk; prints its directory last on stdout:
#                                       ironic-python-agent.kernel, ironic-python-agent.initramfs, versions.txt
#   tools/ipa-ramdisk/build.sh --where  prints that directory only (built when it holds "complete")
#
# Root only (debootstrap, chroot). The result goes into a cache outside the repository keyed by this
# script and the versions below (METAL3_IPA_CACHE moves it; default /var/cache/metal3-ironic-ipa);
# two runs at once: one builds, the other waits and reuses. Nothing of IPA's own builder is used.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

IPA_VERSION=13.0.0
SUITE=bookworm
MIRROR=${METAL3_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the agent calls (ironic_python_agent.hardware and its deploy steps), its network and udev.
PACKAGES=udev,kmod,iproute2,isc-dhcp-client,procps,util-linux,psmisc,hdparm,bsdextrautils,file,parted,gdisk,dosfstools,e2fsprogs,qemu-utils,dmidecode,lshw,pciutils,efibootmgr,mdadm,python3,python3-venv,ca-certificates
# Drivers of the test VMs (test/helpers/vm.ts: q35, virtio NIC and disk; e1000 for other models),
# the file systems the agent reads, efivarfs (the EFI variables efibootmgr writes when the agent
# installs a UEFI image's boot entry), and their dependencies (resolved by modprobe below).
MODULES="virtio_pci virtio_net virtio_blk virtio_scsi sd_mod sr_mod ahci ata_piix e1000 e1000e ext4 vfat nls_cp437 nls_ascii nls_utf8 isofs loop efivarfs"

cache=${METAL3_IPA_CACHE:-/var/cache/metal3-ironic-ipa}
key=$(cat "$0" "$here/init" "$here/network-data.py" | sha256sum | cut -c1-16)
out=$cache/$key
log() { printf '[ipa-ramdisk] %s\n' "$*" >&2; }
if [[ "${1:-}" == "--where" ]]; then echo "$out"; exit 0; fi

[[ $(id -u) == 0 ]] || { log "needs root (debootstrap, chroot)"; exit 2; }
for p in debootstrap cpio zstd modprobe depmod dpkg-deb apt-get; do
  command -v "$p" >/dev/null || { log "missing $p (apt-get install debootstrap cpio zstd kmod)"; exit 2; }
done
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [[ -s "$out/complete" ]]; then log "cached: $out"; echo "$out"; exit 0; fi

start=$SECONDS
work=$(mktemp -d "$cache/build.XXXXXX")
root=$work/root
cleanup() {
  for m in proc sys dev; do umount -l "$root/$m" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap "exit 143" TERM INT

log "debootstrap $SUITE (minbase) from $MIRROR"
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
log "debootstrap: $((SECONDS - start)) s"

# The agent from PyPI into a venv of the ramdisk's own python3 (the host's CA bundle for pip: this
# machine may reach PyPI through an inspecting proxy whose CA the ramdisk must not keep).
cp /etc/ssl/certs/ca-certificates.crt "$root/tmp/pip-ca.crt"
mount -t proc proc "$root/proc"
# A clean environment: none of this machine's settings (CA paths, pip options) leaks into the chroot.
inroot() { chroot "$root" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }
inroot python3 -m venv /opt/ironic-python-agent
inroot PIP_CERT=/tmp/pip-ca.crt REQUESTS_CA_BUNDLE=/tmp/pip-ca.crt SSL_CERT_FILE=/tmp/pip-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 \
  /opt/ironic-python-agent/bin/pip install -q "ironic-python-agent==$IPA_VERSION" >"$work/pip.log" 2>&1 || { tail -30 "$work/pip.log" >&2; exit 1; }
umount "$root/proc"
rm -f "$root/tmp/pip-ca.crt"
ln -s /opt/ironic-python-agent/bin/ironic-python-agent "$root/usr/local/bin/ironic-python-agent"
log "ironic-python-agent $IPA_VERSION: $((SECONDS - start)) s"

# Debian's kernel of this suite (the package linux-image-amd64 points at), only the modules listed.
(cd "$work" && apt-get download -q linux-image-amd64 >/dev/null 2>&1) || { log "apt-get download linux-image-amd64 failed (apt-get update first)"; exit 1; }
kpkg=$(dpkg-deb -f "$work"/linux-image-amd64_*.deb Depends | tr ',' '\n' | sed -n 's/^ *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -1)
[[ -n "$kpkg" ]] || { log "linux-image-amd64 depends on no kernel package"; exit 1; }
(cd "$work" && apt-get download -q "$kpkg" >/dev/null 2>&1) || { log "apt-get download $kpkg failed"; exit 1; }
mkdir "$work/kernel"
dpkg-deb -x "$work/${kpkg}"_*.deb "$work/kernel"
kver=${kpkg#linux-image-}
depmod -b "$work/kernel" "$kver"
for m in $MODULES; do
  modprobe -d "$work/kernel" -S "$kver" --show-depends "$m" 2>/dev/null | sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | sed "s|^$work/kernel||" | sort -u >"$work/modules.txt"
while read -r f; do
  mkdir -p "$root$(dirname "$f")"
  cp "$work/kernel$f" "$root$f"
done <"$work/modules.txt"
mkdir -p "$root/lib/modules/$kver"
cp "$work/kernel/lib/modules/$kver"/modules.{builtin,builtin.modinfo,order} "$root/lib/modules/$kver/"
depmod -b "$root" "$kver"
echo "$MODULES" >"$root/etc/ipa-modules"

install -m 0755 "$here/init" "$root/init"
install -D -m 0644 "$here/network-data.py" "$root/usr/local/lib/ipa-network-data.py"
# Smaller: no docs, manuals, locales, package lists or caches in a ramdisk.
rm -rf "$root"/usr/share/{doc,man,info,locale} "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/*

mkdir -p "$work/out"
cp "$work/kernel/boot/vmlinuz-$kver" "$work/out/ironic-python-agent.kernel"
(cd "$root" && find . -xdev | LC_ALL=C sort | cpio -o -H newc --quiet | zstd -q -T0 -10) >"$work/out/ironic-python-agent.initramfs"
{
  echo "ironic-python-agent $IPA_VERSION (PyPI)"
  echo "debian $SUITE $(cat "$root/etc/debian_version")"
  echo "kernel $kpkg $(dpkg-deb -f "$work/${kpkg}"_*.deb Version)"
  echo "python $(inroot python3 --version | cut -d' ' -f2)"
  echo "modules $(wc -l <"$work/modules.txt") ($MODULES and their dependencies)"
  echo "initramfs $(stat -c %s "$work/out/ironic-python-agent.initramfs") bytes, kernel $(stat -c %s "$work/out/ironic-python-agent.kernel") bytes"
} >"$work/out/versions.txt"
(cd "$work/out" && sha256sum ironic-python-agent.kernel ironic-python-agent.initramfs >SHA256SUMS)
rm -rf "$out"
mv "$work/out" "$out"
echo "$((SECONDS - start))" >"$out/complete"
log "built in $((SECONDS - start)) s: $out"
sed 's/^/[ipa-ramdisk]   /' "$out/versions.txt" >&2
echo "$out"
