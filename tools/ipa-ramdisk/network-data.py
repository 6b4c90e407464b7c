"""Applies an OpenStack network_data.json (links by MAC, static IPv4/IPv6 networks with their
routes, DHCP networks) to this machine's interfaces with `ip` and `dhclient`: the small part of
glean's job (glean runs in the ramdisks of IPA's own builder) that the test ramdisk's /init needs
when a host boots from virtual media with no DHCP on its network. Ironic puts BMO's
preprovisioningNetworkData in the boot ISO at openstack/latest/network_data.json (label config-2).
Prints every command it runs; a command that fails is reported and the rest still applied.
Exits 1 when no address was configured (the caller falls back to DHCP).

    python3 network-data.py /path/to/network_data.json
"""
import ipaddress
import json
import os
import subprocess
import sys


def run(*cmd):
    print("ipa-ramdisk: network data: " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        print(f"ipa-ramdisk: network data: exited {r.returncode}", flush=True)
    return r.returncode == 0


def prefix(addr, mask):
    """ip_address with its netmask as an interface: a dotted or colon-written mask, a length, or a CIDR."""
    if "/" in addr or not mask:
        return ipaddress.ip_interface(addr)
    if ":" in str(mask):
        mask = bin(int(ipaddress.IPv6Address(mask))).count("1")
    return ipaddress.ip_interface(f"{addr}/{mask}")


def main(path):
    data = json.load(open(path))
    by_mac = {}
    for name in os.listdir("/sys/class/net"):
        if name != "lo":
            with open(f"/sys/class/net/{name}/address") as f:
                by_mac[f.read().strip().lower()] = name
    links = {}
    for link in data.get("links", []):
        mac = (link.get("ethernet_mac_address") or "").lower()
        if mac in by_mac:
            links[link.get("id")] = by_mac[mac]
        else:
            print(f"ipa-ramdisk: network data: link {link.get('id')}: no interface with MAC {mac or '(none)'}", flush=True)
    configured = False
    for net in data.get("networks", []):
        dev = links.get(net.get("link"))
        kind = net.get("type", "")
        if dev is None:
            continue
        run("ip", "link", "set", dev, "up")
        if kind in ("ipv4_dhcp", "ipv6_dhcp"):
            os.makedirs("/var/lib/dhcp", exist_ok=True)
            configured |= run("dhclient", "-1", "-6" if kind == "ipv6_dhcp" else "-4", dev)
            continue
        if kind not in ("ipv4", "ipv6") or not net.get("ip_address"):
            print(f"ipa-ramdisk: network data: network {net.get('id')} of type {kind!r}: skipped", flush=True)
            continue
        try:
            iface = prefix(net["ip_address"], net.get("netmask"))
        except ValueError as e:
            print(f"ipa-ramdisk: network data: network {net.get('id')}: {e}", flush=True)
            continue
        configured |= run("ip", "addr", "add", str(iface), "dev", dev)
        for route in net.get("routes", []):
            try:
                dest = prefix(route["network"], route.get("netmask")).network
            except (KeyError, ValueError) as e:
                print(f"ipa-ramdisk: network data: route {route}: {e!r}", flush=True)
                continue
            if route.get("gateway"):
                run("ip", "route", "add", "default" if dest.prefixlen == 0 else str(dest), "via", route["gateway"], "dev", dev)
    return 0 if configured else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
