#!/usr/bin/bash
# Stand-in for the keepalived image's CMD (/bin/manage-keepalived.sh; its contract in
# core/keepalived.ts), in front of Debian's real keepalived (file capabilities as the image gives
# its binary, see test/helpers/standins.ts): copies /etc/keepalived/keepalived.conf to
# $CUSTOM_CONF_DIR/keepalived/, puts the first VIP's interface for INTERFACE and every VIP of
# KEEPALIVED_VIRTUAL_IPS (ip,interface[,prefix], /32 or /128 without a prefix) as
# "<ip>/<prefix> dev <interface>" for CHANGEIP (legacy: PROVISIONING_IP on PROVISIONING_INTERFACE),
# then runs keepalived on the copy in the foreground with its pid files in $CUSTOM_DATA_DIR/keepalived.
set -euo pipefail

conf_dir="${CUSTOM_CONF_DIR:-/conf}/keepalived"
data_dir="${CUSTOM_DATA_DIR:-/data}/keepalived"
mkdir -p "$conf_dir" "$data_dir"
conf="$conf_dir/keepalived.conf"
cp /etc/keepalived/keepalived.conf "$conf"

with_prefix() {
  if [[ -n "${2:-}" ]]; then echo "$1/$2"; elif [[ "$1" == *:* ]]; then echo "$1/128"; else echo "$1/32"; fi
}

vips=()
iface=""
if [[ -n "${KEEPALIVED_VIRTUAL_IPS:-}" ]]; then
  for entry in $KEEPALIVED_VIRTUAL_IPS; do
    IFS=, read -r ip dev prefix <<<"$entry"
    [[ -n "$iface" ]] || iface="$dev"
    vips+=("$(with_prefix "$ip" "${prefix:-}") dev $dev")
  done
else
  iface="$PROVISIONING_INTERFACE"
  vips+=("$(with_prefix "$PROVISIONING_IP")")
fi

python3 - "$conf" "$iface" "${vips[@]}" <<'PY'
import sys
path, iface, vips = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(path).read().replace("INTERFACE", iface).replace("CHANGEIP", "\n        ".join(vips))
open(path, "w").write(text)
PY

exec /usr/sbin/keepalived --dont-fork --log-console \
  --pid="$data_dir/keepalived.pid" --vrrp_pid="$data_dir/vrrp.pid" --use-file="$conf"
