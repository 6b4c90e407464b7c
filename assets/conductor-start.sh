#!/bin/bash
# Rendered by metal3-ironic. Starts one container of a multi-conductor Ironic pod with the data of
# the node it runs on. usage: conductor-start.sh <command> [args...]
set -euo pipefail
node="${NODE_NAME:-}"
data="${CONDUCTOR_DATA_DIR:-/etc/metal3-ironic/conductors}"
certs="${CONDUCTOR_CERTS_DIR:-/etc/metal3-ironic/conductor-certs}"
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
for dir in ${CONDUCTOR_CERT_DIRS:-}; do
  for ext in crt key; do
    if [[ ! -r "$certs/$node.tls.$ext" ]]; then
      echo "FATAL: no certificate for node $node ($certs/$node.tls.$ext); run pulumi up to issue it" >&2
      exit 1
    fi
    cp "$certs/$node.tls.$ext" "$dir/tls.$ext"
  done
done
# Only what this container mounts: the dnsmasq and pruner containers have no node certificates.
fingerprint() {
  local f
  for f in "$data/$node".* "$certs/$node".*; do
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
    echo "per-node data of $node changed: restarting this container to apply it"
    kill -TERM "$child"
    wait "$child"
    exit 0
  fi
done
wait "$child"
exit $?
