#!/bin/bash
# Rendered by metal3-ironic. Starts one container of a multi-conductor Ironic pod with the data of
# the node it runs on. usage: conductor-start.sh <command> [args...]
#
# The node's address: its entry's, else the one conductor-address.py finds on the interface, refused
# when it lies in the DHCP range or is the DHCP gateway (dual-stack: its IPv6 address the same way). Then the node's files from the templates and,
# where asked, its certificate (minted, or copied from the minted volume); then the command runs, and
# the container restarts (exit 0) when the entry, the conductor CA, the found address or the copied
# certificate's stamp changes from what was read. A TERM (or INT) before the
# command runs ends the wrapper at once (143; 130 for INT); once it runs, it is passed to it. The
# command leads a process group of its own: when it ends (also killed, e.g. by the OOM killer), the
# wrapper notices at once and stops what is left of its group (TERM, KILL 2 s later) before it ends
# itself: the dnsmasq a DHCP slot fence runs never outlives its fence.
set -euo pipefail
# The container's PID 1 takes no default action on TERM: without a trap, a pod deleted while this
# waits for its address or mints would wait out its grace period.
child=""
pause=""
terminating=""
# shellcheck disable=SC2317 # run by the traps below
on_signal() {
  if [[ -n "$pause" ]]; then kill "$pause" 2>/dev/null || true; fi
  if [[ -n "$child" ]]; then
    # Passed on; the watch loop then waits for the command alone (no further watch sleep).
    terminating=1
    kill -TERM "$child" 2>/dev/null || true
    return
  fi
  exit "$1"
}
trap 'on_signal 143' TERM
trap 'on_signal 130' INT
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
# The watch (below) compares the entry and the conductor CA with what they are now, before either
# is read: a change from here on restarts the container (at worst once for nothing). Exactly this
# node's file: node cp-1 does not watch cp-1.example.env.
watched_files() {
  local f
  for f in "$env_file" "$ca/tls.crt" "$ca/tls.key"; do
    if [[ -r "$f" ]]; then cat "$f" 2>/dev/null || true; fi
  done
}
files_started=$(watched_files | sha256sum)
if [[ -r "$env_file" ]]; then
  set -a
  # shellcheck disable=SC1090
  . "$env_file"
  set +a
fi
# 2. The interface and address: the entry's, else provisioning.interface and the one address
# conductor-address.py finds on it inside provisioning.cidr (waiting a little for a NIC coming up),
# refused inside provisioning.dhcp's range or equal to its gateway (dnsmasq could hand it to a host).
# Only a found address is checked: config validation already refuses such a conductors[].ip.
iface="${CONDUCTOR_INTERFACE:-${CONDUCTOR_DEFAULT_INTERFACE:-}}"
if [[ ! "$iface" =~ ^[A-Za-z0-9_.:@-]{1,15}$ ]]; then
  echo "FATAL: node $node: no usable provisioning interface ('$iface'); set provisioning.interface, or conductors[].interface for this node" >&2
  exit 1
fi
# find_address [6]: the IPv4 (or, dual-stack, the IPv6) address of the node in its CIDR.
find_address() {
  local args=() cidr="${CONDUCTOR_CIDR:-}"
  if [[ "${1:-}" == 6 ]]; then
    cidr="${CONDUCTOR_CIDR6:-}"
    args+=(--ipv6-side)
    if [[ -n "${CONDUCTOR_DHCP_RANGE6:-}" ]]; then args+=(--dhcp-range "$CONDUCTOR_DHCP_RANGE6"); fi
  else
    if [[ -n "${CONDUCTOR_DHCP_RANGE:-}" ]]; then args+=(--dhcp-range "$CONDUCTOR_DHCP_RANGE"); fi
    if [[ -n "${CONDUCTOR_GATEWAY:-}" ]]; then args+=(--gateway "$CONDUCTOR_GATEWAY"); fi
  fi
  "$python" "$scripts/conductor-address.py" "${args[@]}" -- "$iface" "$cidr"
}
# wait_address VAR [6]: VAR (unless the entry set it) from find_address, waiting for a NIC coming up.
wait_address() {
  local rc deadline found
  deadline=$(($(date +%s) + ${CONDUCTOR_ADDRESS_WAIT:-60}))
  while :; do
    rc=0
    found=$(find_address "${2:-}") || rc=$?
    if [[ $rc -eq 0 ]]; then
      printf -v "$1" '%s' "$found"
      break
    fi
    if [[ $rc -ne 1 || $(date +%s) -ge $deadline ]]; then
      echo "FATAL: node $node: no provisioning address${2:+ (IPv6)} (see above)" >&2
      exit 1
    fi
    # In the background: bash runs a trap only once a foreground command ends, but `wait` at once.
    sleep 2 &
    pause=$!
    wait "$pause"
    pause=""
  done
  echo "node $node: provisioning address ${!1} on $iface, found on the node (no address in its entry of ConfigMap ${CONDUCTOR_NAMESPACE:-?}/${CONDUCTOR_CONFIGMAP:-?})"
}
discovered=""
if [[ -z "${CONDUCTOR_NODE_IP:-}" ]]; then
  wait_address CONDUCTOR_NODE_IP
  discovered="$CONDUCTOR_NODE_IP"
fi
export CONDUCTOR_NODE_IP
# Dual-stack (provisioning.ipv6): the node's IPv6 address likewise, from its entry or found in CONDUCTOR_CIDR6.
discovered6=""
if [[ -n "${CONDUCTOR_CIDR6:-}" && -z "${CONDUCTOR_NODE_IPV6:-}" ]]; then
  wait_address CONDUCTOR_NODE_IPV6 6
  discovered6="$CONDUCTOR_NODE_IPV6"
fi
export CONDUCTOR_NODE_IPV6="${CONDUCTOR_NODE_IPV6:-}"
# With a proxy (proxy.applyToIronic), this node's own address bypasses it: the pod template names
# only the provisioning CIDR, which old curl releases ignore, and no node's address, so that
# listing a node changes no pod template.
for var in NO_PROXY no_proxy; do
  if [[ -n "${!var:-}" ]]; then export "$var=${!var},$CONDUCTOR_NODE_IP${CONDUCTOR_NODE_IPV6:+,$CONDUCTOR_NODE_IPV6}"; fi
done
# 3. This node's files from the templates of the scripts ConfigMap (node.env.template and, with
# DHCP, node.dnsmasq.conf.template): the image's environment and dnsmasq's own file.
mkdir -p "$run_dir"
fill() {
  local line
  while IFS= read -r line || [[ -n "$line" ]]; do
    line="${line//__CONDUCTOR_IP__/$CONDUCTOR_NODE_IP}"
    line="${line//__CONDUCTOR_IPV6__/$CONDUCTOR_NODE_IPV6}"
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
# The node's certificate (multi): the conductor-certs container alone mounts the conductor CA and
# its key; its wrapper mints the pair for this node's address and SANs with conductor-cert.py into
# the pod's minted volume, then a stamp (written last) naming what it was minted for, the CA's
# SHA-256 and the pair's. A restart with the same inputs and CA keeps the pair. ironic and httpd
# (CONDUCTOR_MINTED_DIR) wait for a stamp naming their own inputs and copy the pair into every
# directory the image reads, checked against the stamp (a pair rewritten meanwhile is copied again).
read -r -a cert_dirs <<<"${CONDUCTOR_CERT_DIRS:-}"
minted="${CONDUCTOR_MINTED_DIR:-}"
stamp_started=""
sha() { sha256sum <"$1" | cut -d' ' -f1; }
if [[ ${#cert_dirs[@]} -gt 0 ]]; then
  # The SANs every conductor shares, then this node's own (its entry's external hosts).
  read -r -a sans <<<"${CONDUCTOR_NODE_IPV6:+IP:$CONDUCTOR_NODE_IPV6 }${CONDUCTOR_CERT_SANS:-} ${CONDUCTOR_NODE_SANS:-}"
  for_what="$node IP:$CONDUCTOR_NODE_IP ${sans[*]}"
  if [[ -z "$minted" ]]; then
    out="${cert_dirs[0]}"
    stamp="$out/minted-for"
    ca_sha=$(sha "$ca/tls.crt")
    if [[ -r "$stamp" && -r "$out/tls.crt" && -r "$out/tls.key" ]] &&
      [[ "$(cat "$stamp")" == "$(printf '%s\n%s\n%s\n%s' "$for_what" "$ca_sha" "$(sha "$out/tls.crt")" "$(sha "$out/tls.key")")" ]]; then
      echo "node $node: keeping the certificate minted for $for_what from this conductor CA"
    else
      rm -f "$stamp"
      trust=()
      if [[ -n "${CONDUCTOR_CA_TRUST:-}" ]]; then trust=(--trust "$CONDUCTOR_CA_TRUST"); fi
      "$python" "$scripts/conductor-cert.py" "${trust[@]}" "$ca" "$out" "$node" "$CONDUCTOR_NODE_IP" "${sans[@]}"
      printf '%s\n%s\n%s\n%s\n' "$for_what" "$ca_sha" "$(sha "$out/tls.crt")" "$(sha "$out/tls.key")" >"$stamp.tmp"
      mv -f "$stamp.tmp" "$stamp"
    fi
    for dir in "${cert_dirs[@]:1}"; do
      cp "$out/tls.crt" "$out/tls.key" "$dir/"
    done
  else
    deadline=$(($(date +%s) + ${CONDUCTOR_CERT_WAIT:-300}))
    while :; do
      seen=$(cat "$minted/minted-for" 2>/dev/null || true)
      if [[ "${seen%%$'\n'*}" == "$for_what" ]]; then
        for dir in "${cert_dirs[@]}"; do
          cp "$minted/tls.crt" "$minted/tls.key" "$dir/" 2>/dev/null || true
        done
        want=$(printf '%s\n' "$seen" | sed -n '3,4p')
        copied=$(for dir in "${cert_dirs[@]}"; do sha "$dir/tls.crt" 2>/dev/null; sha "$dir/tls.key" 2>/dev/null; done | sort -u)
        if [[ "$(cat "$minted/minted-for" 2>/dev/null || true)" == "$seen" && "$copied" == "$(printf '%s\n' "$want" | sort -u)" ]]; then
          stamp_started="$seen"
          echo "node $node: certificate for $for_what from the conductor-certs container"
          break
        fi
      fi
      if [[ $(date +%s) -ge $deadline ]]; then
        echo "FATAL: node $node: no certificate minted for $for_what in $minted after ${CONDUCTOR_CERT_WAIT:-300} s (it names: ${seen%%$'\n'*}); see the log of this pod's conductor-certs container" >&2
        exit 1
      fi
      sleep 1 &
      pause=$!
      wait "$pause"
      pause=""
    done
  fi
fi
# Restart on a change of: the node's entry, the conductor CA (only where mounted: a re-issued one
# must be minted from), the address found on the node (the node's DHCP gave it another) or, where
# the certificate is copied, the stamp of the minted pair (minted again). The baseline: the files
# as they were before being read (above), the address this start used, the stamp copied.
fingerprint() {
  local address=""
  local address="" address6=""
  if [[ -n "$discovered" ]]; then address=$(find_address 2>/dev/null || echo "$discovered"); fi
  if [[ -n "$discovered6" ]]; then address6=$(find_address 6 2>/dev/null || echo "$discovered6"); fi
  local stamp=""
  if [[ -n "$stamp_started" ]]; then stamp=$(cat "$minted/minted-for" 2>/dev/null || true); fi
  echo "$(watched_files | sha256sum) $address $address6 $(printf '%s' "$stamp" | sha256sum)"
}
started="$files_started $discovered $discovered6 $(printf '%s' "$stamp_started" | sha256sum)"
# What is left of the command's process group once the command has ended: TERM, then KILL.
stop_group() {
  local i
  kill -TERM -- "-$child" 2>/dev/null || return 0
  for ((i = 0; i < 20; i++)); do
    kill -0 -- "-$child" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "processes of the command still running 2 s after it ended: killing them"
  kill -KILL -- "-$child" 2>/dev/null || true
  for ((i = 0; i < 10; i++)); do
    kill -0 -- "-$child" 2>/dev/null || return 0
    sleep 0.1
  done
}
# Job control on for this one start only: the command leads a process group of its own. Its stdin
# stays /dev/null, as for any background command without job control.
set -m
"$@" </dev/null &
child=$!
set +m
set +e
while [[ -z "$terminating" ]] && kill -0 "$child" 2>/dev/null; do
  sleep "${CONDUCTOR_WATCH_INTERVAL:-15}" &
  pause=$!
  # Returns when the command ends too, not a watch interval later.
  wait -n "$child" "$pause"
  kill "$pause" 2>/dev/null
  pause=""
  if [[ -n "$terminating" ]] || ! kill -0 "$child" 2>/dev/null; then break; fi
  if [[ "$(fingerprint)" != "$started" ]] && kill -0 "$child" 2>/dev/null; then
    echo "per-node data of $node, its address or the conductor CA changed: restarting this container to apply it"
    kill -TERM "$child"
    wait "$child"
    stop_group
    exit 0
  fi
done
# The command's status; a wait that a signal interrupts returns early, so wait until it is gone.
status=0
while :; do
  wait "$child"
  status=$?
  if ! kill -0 "$child" 2>/dev/null; then break; fi
done
stop_group
exit "$status"
