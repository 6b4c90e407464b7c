#!/bin/bash
# Rendered by metal3-ironic: prepares the TFTP root like the image's rundnsmasq, then runs
# dnsmasq on the configuration shipped in a ConfigMap (multi: the node's file, then the file of
# the DHCP slot that dhcp-slot-agent.py holds for this pod and names in DHCP_SLOT).
set -euo pipefail
conf=__CONF__
slot_conf=__SLOT_CONF__
if [[ ! -r "$conf" ]]; then echo "FATAL: dnsmasq configuration $conf not found" >&2; exit 1; fi
confs=("--conf-file=$conf")
if [[ -n "$slot_conf" ]]; then
  if [[ -z "${DHCP_SLOT:-}" ]]; then
    echo "FATAL: DHCP_SLOT is empty: in a multi-conductor pod dnsmasq runs under dhcp-slot-agent.py, which sets it to the slot it holds" >&2
    exit 1
  fi
  if [[ ! -r "$slot_conf" ]]; then echo "FATAL: no DHCP range for slot $DHCP_SLOT ($slot_conf not found)" >&2; exit 1; fi
  confs+=("--conf-file=$slot_conf")
fi
mkdir -p /shared/tftpboot __LEASE_DIR__
touch __LEASE_FILE__
src=/tftpboot
if [[ -r /shared/custom_ipxe_firmware ]]; then src=/shared/custom_ipxe_firmware; fi
copied=0
for f in undionly.kpxe snponly-x86_64.efi snponly-arm64.efi; do
  if [[ -r "$src/$f" ]]; then cp "$src/$f" /shared/tftpboot/; copied=$((copied + 1)); fi
done
if [[ "$copied" -eq 0 ]]; then
  echo "FATAL: no iPXE firmware (undionly.kpxe, snponly-x86_64.efi, snponly-arm64.efi) found in $src" >&2
  exit 1
fi
exec /usr/sbin/dnsmasq --keep-in-foreground --log-facility=- "${confs[@]}"
