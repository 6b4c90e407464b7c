#!/usr/bin/env python3
# Rendered by metal3-ironic. Finds this node's provisioning address at container start.
#
# usage: conductor-address.py INTERFACE CIDR [--dhcp-range START-END] [--gateway IP] [--ipv6-side]
#   Prints the one address of INTERFACE inside CIDR (the stack's provisioning.cidr), read from
#   `ip -j addr show dev INTERFACE` in the pod's (the host's) network namespace.
#   --dhcp-range, --gateway: provisioning.dhcp's rangeStart-rangeEnd and gateway. An address inside
#   the range (whichever slot serves that part, dnsmasq could lease it to a host) or equal to the
#   gateway (handed to hosts as their router) is refused, naming the key and the fix. Config
#   validation checks a conductors[].ip; this checks the address found on the node. IPv4 or IPv6.
#   --ipv6-side: dual-stack, the node's IPv6 address in provisioning.ipv6.cidr; messages name the
#   provisioning.ipv6 keys and conductors[].ipv6.
#
# Only an address whose prefix is no longer than CIDR's is the node's own: a VIP or host route
# (e.g. a /32) inside CIDR is not. Several, or none, and nothing is guessed: the message says
# which addresses were seen and how to pin the address in the stack config.
#
# Exit codes: 0 found (the address on stdout), 1 none yet (the wrapper retries), 2 refused.
import argparse
import ipaddress
import json
import subprocess
import sys


def fail(code, message):
    print(f"conductor-address: {message}", file=sys.stderr)
    sys.exit(code)


USAGE = "usage: conductor-address.py INTERFACE CIDR [--dhcp-range START-END] [--gateway IP] [--ipv6-side]"
# The config keys messages name: of the provisioning network, or of its IPv6 side (dual-stack).
KEYS = {"cidr": "provisioning.cidr", "ip": "conductors[].ip", "range": "provisioning.dhcp.rangeStart/rangeEnd"}
IPV6_SIDE_KEYS = {"cidr": "provisioning.ipv6.cidr", "ip": "conductors[].ipv6", "range": "provisioning.ipv6.dhcp.rangeStart/rangeEnd"}


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail(2, f"{message}; {USAGE}")


def address_of(value, what, network):
    """An address of the CIDR's family, or refused naming `what`."""
    try:
        addr = ipaddress.ip_address(value.strip())
    except ValueError:
        fail(2, f"{what} {value!r} is not an IP address")
    if addr.version != network.version:
        fail(2, f"{what} {addr} is not an IPv{network.version} address like {KEYS['cidr']} {network}")
    return addr


def main(argv):
    parser = Parser(prog="conductor-address.py", add_help=False, allow_abbrev=False)
    parser.add_argument("interface")
    parser.add_argument("cidr")
    parser.add_argument("--dhcp-range", dest="dhcp_range")
    parser.add_argument("--gateway")
    parser.add_argument("--ipv6-side", dest="ipv6_side", action="store_true")
    args = parser.parse_args(argv)
    if args.ipv6_side:
        KEYS.update(IPV6_SIDE_KEYS)
    interface, cidr = args.interface, args.cidr
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        fail(2, f"CIDR {cidr!r} is not a network")
    dhcp_range = None
    if args.dhcp_range:
        start, sep, end = args.dhcp_range.partition("-")
        if not sep:
            fail(2, f"DHCP range {args.dhcp_range!r} is not START-END")
        dhcp_range = (address_of(start, "DHCP range start", network), address_of(end, "DHCP range end", network))
    gateway = address_of(args.gateway, "DHCP gateway", network) if args.gateway else None
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
                f"give the node its provisioning address, or set {KEYS['ip']} for this node")
    if len(own) > 1:
        fail(2, f"{interface} has several addresses inside {cidr}: {', '.join(f'{a}/{p}' for a, p in own)}; "
                f"set {KEYS['ip']} for this node to the one its conductor serves on")
    addr = own[0][0]
    if dhcp_range and dhcp_range[0] <= addr <= dhcp_range[1]:
        fail(2, f"the address found on {interface}, {addr}, lies inside the DHCP range {dhcp_range[0]}-{dhcp_range[1]} "
                f"({KEYS['range']}): dnsmasq could lease the conductor's own address to a host; "
                f"give the node a provisioning address outside the range (and, if it keeps this one too, set {KEYS['ip']} "
                "for this node to the new one), or move the range off it")
    if gateway is not None and addr == gateway:
        fail(2, f"the address found on {interface}, {addr}, is the DHCP gateway (provisioning.dhcp.gateway) that dnsmasq "
                "gives hosts as their router; give the node another provisioning address (and, if it keeps this one too, "
                "set conductors[].ip for this node to the new one), or set provisioning.dhcp.gateway to the network's router")
    print(addr)


if __name__ == "__main__":
    main(sys.argv[1:])
