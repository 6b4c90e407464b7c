"""Applies an OpenStack network_data.json (links by MAC, static IPv4/IPv6 networks with their
routes, DHCP networks) to this machine's interfaces with `ip` and `dhclient`: the part of glean
(which the ramdisks of IPA's own builder run) that the test ramdisk's /init needs when a host boots
from virtual media with no DHCP on its network. Ironic puts BMO's preprovisioningNetworkData in
the boot ISO at openstack/latest/network_data.json (label config-2). Prints every command it runs.

    python3 network-data.py /path/to/network_data.json
"""
import ipaddress
import json
import os
import subprocess
import sys


def run(*cmd):
    print("ipa-ramdisk: network data: " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


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
            links[link["id"]] = by_mac[mac]
        else:
            print(f"ipa-ramdisk: network data: link {link.get('id')}: no interface with MAC {mac or '(none)'}", flush=True)
    for net in data.get("networks", []):
        dev = links.get(net.get("link"))
        kind = net.get("type", "")
        if dev is None:
            continue
        run("ip", "link", "set", dev, "up")
        if kind in ("ipv4_dhcp", "ipv6_dhcp"):
            os.makedirs("/var/lib/dhcp", exist_ok=True)
            run("dhclient", "-1", "-6" if kind == "ipv6_dhcp" else "-4", dev)
            continue
        if kind not in ("ipv4", "ipv6"):
            print(f"ipa-ramdisk: network data: network {net.get('id')} of type {kind!r}: skipped", flush=True)
            continue
        addr = net["ip_address"]
        mask = net.get("netmask")
        run("ip", "addr", "add", str(ipaddress.ip_interface(f"{addr}/{mask}" if mask and "/" not in addr else addr)), "dev", dev)
        for route in net.get("routes", []):
            dest = ipaddress.ip_network(f"{route['network']}/{route['netmask']}", strict=False)
            run("ip", "route", "add", "default" if dest.prefixlen == 0 else str(dest), "via", route["gateway"], "dev", dev)


if __name__ == "__main__":
    main(sys.argv[1])
