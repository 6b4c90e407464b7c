#!/usr/bin/env python3
# Rendered by metal3-ironic. Finds this node's provisioning address at container start.
#
# usage: conductor-address.py INTERFACE CIDR
#   Prints the one address of INTERFACE inside CIDR (the stack's provisioning.cidr), read from
#   `ip -j addr show dev INTERFACE` in the pod's (the host's) network namespace.
#
# Only an address whose prefix is no longer than CIDR's is the node's own: a VIP or host route
# (e.g. a /32) inside CIDR is not. Several, or none, and nothing is guessed: the message says
# which addresses were seen and how to pin the address in the stack config.
#
# Exit codes: 0 found (the address on stdout), 1 none yet (the wrapper retries), 2 refused.
import ipaddress
import json
import subprocess
import sys


def fail(code, message):
    print(f"conductor-address: {message}", file=sys.stderr)
    sys.exit(code)


def main(argv):
    if len(argv) != 2:
        fail(2, "usage: conductor-address.py INTERFACE CIDR")
    interface, cidr = argv
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        fail(2, f"CIDR {cidr!r} is not a network")
    family = "inet" if network.version == 4 else "inet6"
    r = subprocess.run(["ip", "-j", "addr", "show", "dev", interface], capture_output=True, text=True)
    if r.returncode != 0:
        fail(1, f"interface {interface!r} not found ({r.stderr.strip() or 'ip exited ' + str(r.returncode)}); "
                "set provisioning.interface, or conductors[].interface for this node, to the interface on the provisioning network")
    try:
        links = json.loads(r.stdout or "[]")
    except ValueError:
        fail(2, f"cannot parse `ip -j addr show dev {interface}`: {r.stdout[:200]!r}")
    seen, inside = [], []
    for link in links:
        for a in link.get("addr_info", []):
            if a.get("family") != family or a.get("scope") == "host":
                continue
            addr = ipaddress.ip_address(a["local"])
            seen.append(f"{addr}/{a.get('prefixlen')}")
            if addr in network and int(a.get("prefixlen", 128)) <= network.prefixlen:
                inside.append((addr, a.get("prefixlen")))
    own = inside
    if not own:
        fail(1, f"{interface} has no address inside {cidr} with a prefix of at most /{network.prefixlen} (it has: {', '.join(seen) or 'none'}); "
                "give the node its provisioning address, or set conductors[].ip for this node")
    if len(own) > 1:
        fail(2, f"{interface} has several addresses inside {cidr}: {', '.join(f'{a}/{p}' for a, p in own)}; "
                "set conductors[].ip for this node to the one its conductor serves on")
    print(own[0][0])


if __name__ == "__main__":
    main(sys.argv[1:])
