/**
 * Multi-conductor per-node plumbing, pure: the env file of each node, and the start wrapper that
 * resolves a node's entry at container start. The DaemonSet pod template is identical on every
 * node and never lists nodes; everything node-specific is looked up by NODE_NAME here.
 */
import { CONDUCTOR_PATHS } from "../contract";
import { WRAPPER_ENV } from "../contract";


export { shellQuote, renderEnvFile } from "../render/envfile";


/**
 * The start wrapper: `conductor-start.sh <command> [args…]`.
 * 1. finds this node's entry (fails with what to add to stack config when there is none);
 * 2. exports the node's environment and copies the node's certificate where the image expects it;
 * 3. runs the command and restarts this container (exit) when this node's data changes, so a
 *    change of one node never restarts another node's conductor.
 */
export function renderConductorWrapper(): string {
    const E = WRAPPER_ENV;
    return `#!/bin/bash
# Rendered by metal3-ironic. Starts one container of a multi-conductor Ironic pod with the data of
# the node it runs on. usage: ${CONDUCTOR_PATHS.wrapper} <command> [args...]
set -euo pipefail
node="\${${E.node}:-}"
data="\${${E.dataDir}:-${CONDUCTOR_PATHS.nodeData}}"
certs="\${${E.certsDir}:-${CONDUCTOR_PATHS.nodeCerts}}"
if [[ -z "$node" ]]; then
  echo "FATAL: ${E.node} is empty (it comes from the downward API, spec.nodeName)" >&2
  exit 1
fi
env_file="$data/$node.env"
if [[ ! -r "$env_file" ]]; then
  {
    echo "FATAL: node $node has no conductor entry in ConfigMap \${${E.namespace}:-?}/\${${E.configMap}:-?}."
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
for dir in \${${E.certDirs}:-}; do
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
  sleep "\${${E.watchInterval}:-15}" &
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
`;
}
