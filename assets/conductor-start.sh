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
env_file="$data/$node.env"
if [[ ! -r "$env_file" ]]; then
  {
    echo "FATAL: node $node has no conductor entry in ConfigMap ${CONDUCTOR_NAMESPACE:-?}/${CONDUCTOR_CONFIGMAP:-?}."
    echo "Add the node to the stack configuration and run pulumi up, e.g.:"
    echo "  pulumi config set --path 'metal3-ironic:conductors[N].name' $node"
    echo "  pulumi config set --path 'metal3-ironic:conductors[N].ip' <provisioning IP of $node>"
    echo "(Pods land only on nodes this program labels; a label added by hand leads here.)"
  } >&2
  exit 1
fi
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
# The containers that serve TLS mint their certificate for this node's address from the conductor
# CA (only they mount it) with conductor-cert.py from the scripts ConfigMap; every directory the
# image reads gets the same pair.
read -r -a cert_dirs <<<"${CONDUCTOR_CERT_DIRS:-}"
if [[ ${#cert_dirs[@]} -gt 0 ]]; then
  if [[ -z "${CONDUCTOR_NODE_IP:-}" ]]; then
    echo "FATAL: node $node's entry sets no CONDUCTOR_NODE_IP; run pulumi up to render it" >&2
    exit 1
  fi
  read -r -a sans <<<"${CONDUCTOR_CERT_SANS:-}"
  "${CONDUCTOR_PYTHON:-python3.12}" "$scripts/conductor-cert.py" "$ca" "${cert_dirs[0]}" "$node" "$CONDUCTOR_NODE_IP" "${sans[@]}"
  for dir in "${cert_dirs[@]:1}"; do
    cp "${cert_dirs[0]}/tls.crt" "${cert_dirs[0]}/tls.key" "$dir/"
  done
fi
# Only what this container mounts: the dnsmasq and pruner containers have no conductor CA. A
# re-issued conductor CA restarts the containers that minted from it.
fingerprint() {
  local f
  for f in "$data/$node".* "$ca/tls.crt" "$ca/tls.key"; do
    if [[ -r "$f" ]]; then cat "$f"; fi
  done | sha256sum
}
started=$(fingerprint)
"$@" &
child=$!
trap 'kill -TERM "$child" 2>/dev/null || true' TERM INT
set +e
while kill -0 "$child" 2>/dev/null; do
  sleep "${CONDUCTOR_WATCH_INTERVAL:-15}" &
  wait $!
  if [[ "$(fingerprint)" != "$started" ]] && kill -0 "$child" 2>/dev/null; then
    echo "per-node data of $node or the conductor CA changed: restarting this container to apply it"
    kill -TERM "$child"
    wait "$child"
    exit 0
  fi
done
wait "$child"
exit $?
