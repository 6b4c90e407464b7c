#!/bin/bash
# Init container of topology single without keepalived (run by the ironic image's bash, as the
# image's user, read-only root): the pod serves on provisioning.ip, which it does not add itself,
# so the node it landed on must hold that address. Waits up to WAIT seconds (a NIC coming up),
# then fails with what to do instead: without this check, Ironic and dnsmasq would run on a node
# that does not hold the address, and hosts would be sent to a server that is not there.
#
# usage: provisioning-ip-check.sh IP [INTERFACE]   (env: WAIT seconds, default 60; NODE_NAME)
set -uo pipefail

want=${1:?usage: provisioning-ip-check.sh IP [INTERFACE]}
iface=${2:-}
wait=${WAIT:-60}
node=${NODE_NAME:-this node}
where=${iface:-any interface}

link_exists() {
    [[ -z "$iface" ]] || ip link show dev "$iface" >/dev/null 2>&1
}

has_address() {
    local args=(-o addr show)
    [[ -n "$iface" ]] && args+=(dev "$iface")
    # "2: eth1    inet 172.22.0.2/24 brd ..." -> 172.22.0.2; matched inside awk, which reads
    # everything (a `grep -q` would close the pipe early and pipefail would turn that into a miss).
    ip "${args[@]}" 2>/dev/null | awk -v want="$want" '{ split($4, a, "/"); if (a[1] == want) found = 1 } END { exit !found }'
}

for ((i = 0; i <= wait; i++)); do
    if has_address; then
        echo "provisioning.ip $want is on $where of node $node"
        exit 0
    fi
    ((i == 0)) && echo "waiting up to ${wait} s for provisioning.ip $want on $where of node $node"
    sleep 1
done
if ! link_exists; then
    echo "FATAL: node $node has no interface $iface (provisioning.interface; waited ${wait} s)." \
        "Set provisioning.interface to the name of the provisioning NIC on the node that holds provisioning.ip $want," \
        "and pin the pod there with placement.nodeSelector (e.g. kubernetes.io/hostname: <that node>)." >&2
    exit 1
fi
echo "FATAL: provisioning.ip $want is not an address of $where on node $node (waited ${wait} s)." \
    "Topology single without keepalived serves on the node that holds provisioning.ip: pin the pod there" \
    "with placement.nodeSelector (e.g. kubernetes.io/hostname: <that node>), or set provisioning.keepalived: true" \
    "so that keepalived holds provisioning.ip as a virtual IP on whichever node runs the pod." >&2
exit 1
