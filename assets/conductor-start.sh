#!/bin/bash
# Rendered by metal3-ironic. Starts one container of a multi-conductor Ironic pod with the data of
# the node it runs on. usage: conductor-start.sh <command> [args...]
set -euo pipefail
node="${NODE_NAME:-}"
data="${CONDUCTOR_DATA_DIR:-/etc/metal3-ironic/conductors}"
ca="${CONDUCTOR_CA_DIR:-/etc/metal3-ironic/conductor-ca}"
scripts="${CONDUCTOR_SCRIPTS_DIR:-/etc/metal3-ironic/scripts}"
if [[ -z "$node" ]]; then
  echo "FATAL: NODE_NAME is empty (it comes from the downward API, spec.nodeName)" >&2
  exit 1
fi
run_dir="${CONDUCTOR_RUN_DIR:-/run/metal3-ironic/$$}"
python="${CONDUCTOR_PYTHON:-python3.12}"
# 1. The node's entry (conductors[] in the stack config), when it has one: overrides only.
env_file="$data/$node.env"
if [[ -r "$env_file" ]]; then
  set -a
  # shellcheck disable=SC1090
  . "$env_file"
  set +a
fi
# 2. The interface and address: the entry's, else provisioning.interface and the one address
# conductor-address.py finds on it inside provisioning.cidr (waiting a little for a NIC coming up).
iface="${CONDUCTOR_INTERFACE:-${CONDUCTOR_DEFAULT_INTERFACE:-}}"
if [[ ! "$iface" =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]]; then
  echo "FATAL: node $node: no usable provisioning interface ('$iface'); set provisioning.interface, or conductors[].interface for this node" >&2
  exit 1
fi
find_address() {
  "$python" "$scripts/conductor-address.py" "$iface" "${CONDUCTOR_CIDR:-}"
}
discovered=""
if [[ -z "${CONDUCTOR_NODE_IP:-}" ]]; then
  deadline=$(($(date +%s) + ${CONDUCTOR_ADDRESS_WAIT:-60}))
  while :; do
    rc=0
    CONDUCTOR_NODE_IP=$(find_address) || rc=$?
    if [[ $rc -eq 0 ]]; then break; fi
    if [[ $rc -ne 1 || $(date +%s) -ge $deadline ]]; then
      echo "FATAL: node $node: no provisioning address (see above)" >&2
      exit 1
    fi
    sleep 2
  done
  discovered="$CONDUCTOR_NODE_IP"
  echo "node $node: provisioning address $CONDUCTOR_NODE_IP on $iface, found on the node (no address in its entry of ConfigMap ${CONDUCTOR_NAMESPACE:-?}/${CONDUCTOR_CONFIGMAP:-?})"
fi
export CONDUCTOR_NODE_IP
# 3. This node's files from the templates of the scripts ConfigMap (node.env.template and, with
# DHCP, node.dnsmasq.conf.template): the image's environment and dnsmasq's own file.
mkdir -p "$run_dir"
fill() {
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line//__CONDUCTOR_IP__/$CONDUCTOR_NODE_IP}"
    printf '%s\n' "${line//__CONDUCTOR_INTERFACE__/$iface}"
  done <"$1"
}
fill "$scripts/node.env.template" >"$run_dir/node.env"
if [[ -r "$scripts/node.dnsmasq.conf.template" ]]; then
  fill "$scripts/node.dnsmasq.conf.template" >"$run_dir/dnsmasq.conf"
fi
set -a
# shellcheck disable=SC1091
. "$run_dir/node.env"
set +a
export CONDUCTOR_RUN_DIR="$run_dir"
# The containers that serve TLS mint their certificate for this node's address from the conductor
# CA (only they mount it) with conductor-cert.py from the scripts ConfigMap; every directory the
# image reads gets the same pair.
read -r -a cert_dirs <<<"${CONDUCTOR_CERT_DIRS:-}"
if [[ ${#cert_dirs[@]} -gt 0 ]]; then
  read -r -a sans <<<"${CONDUCTOR_CERT_SANS:-}"
  "$python" "$scripts/conductor-cert.py" "$ca" "${cert_dirs[0]}" "$node" "$CONDUCTOR_NODE_IP" "${sans[@]}"
  for dir in "${cert_dirs[@]:1}"; do
    cp "${cert_dirs[0]}/tls.crt" "${cert_dirs[0]}/tls.key" "$dir/"
  done
fi
# Restart on a change of: the node's entry, the conductor CA (only where mounted: a re-issued one
# must be minted from), or the address found on the node (the node's DHCP gave it another).
fingerprint() {
  local f
  for f in "$data/$node".* "$ca/tls.crt" "$ca/tls.key"; do
    if [[ -r "$f" ]]; then cat "$f"; fi
  done
  if [[ -n "$discovered" ]]; then find_address 2>/dev/null || echo "$discovered"; fi
}
fingerprint_sum() {
  fingerprint | sha256sum
}
started=$(fingerprint_sum)
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM INT
set +e
while kill -0 "$child" 2>/dev/null; do
  sleep "${CONDUCTOR_WATCH_INTERVAL:-15}" &
  wait $!
  if [[ "$(fingerprint_sum)" != "$started" ]] && kill -0 "$child" 2>/dev/null; then
    echo "per-node data of $node, its address or the conductor CA changed: restarting this container to apply it"
    kill -TERM "$child"
    wait "$child"
    exit 0
  fi
done
wait "$child"
exit $?
