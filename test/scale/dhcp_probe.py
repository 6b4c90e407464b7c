#!/usr/bin/env python3
"""How long DHCP servers take to answer known MACs (test/scale/): for each MAC given, a
DHCPDISCOVER in a raw frame from that MAC (broadcast flag set, so the offer is broadcast back), all
in flight at once (started 20 ms apart), and the time until the first DHCPOFFER with its
transaction id (and every server that offered within 0.3 s after it); retransmitted every second,
given up after --timeout. One line per MAC: `<mac> <server identifiers, comma-separated, or -> <ms or ->`.
Never requests, so no lease is taken. Runs in a network namespace of the test's own.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def discover(mac, xid):
    chaddr = bytes.fromhex(mac.replace(":", ""))
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0, xid, 0, 0x8000, b"\0" * 4, b"\0" * 4, b"\0" * 4, b"\0" * 4, chaddr, b"", b"")
    options = b"\x63\x82\x53\x63" + b"\x35\x01\x01" + b"\x37\x04\x01\x03\x42\x43" + b"\xff"
    payload = bootp + options
    udp = struct.pack("!HHHH", 68, 67, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, b"\0" * 4, b"\xff" * 4)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return b"\xff" * 6 + chaddr + b"\x08\x00" + ip + udp


def offer_from(frame, xid):
    """The server identifier of a DHCPOFFER for `xid` in an Ethernet frame, else None."""
    if len(frame) < 14 + 20 + 8 + 240 or frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    ihl = (frame[14] & 0x0F) * 4
    udp = 14 + ihl
    if struct.unpack("!H", frame[udp + 2:udp + 4])[0] != 68:
        return None
    bootp = udp + 8
    if frame[bootp] != 2 or struct.unpack("!I", frame[bootp + 4:bootp + 8])[0] != xid:
        return None
    i, kind, server = bootp + 240, None, None
    while i < len(frame) and frame[i] != 255:
        if frame[i] == 0:
            i += 1
            continue
        code, length = frame[i], frame[i + 1]
        value = frame[i + 2:i + 2 + length]
        if code == 53:
            kind = value[0]
        elif code == 54:
            server = socket.inet_ntoa(value)
        i += 2 + length
    return server if kind == 2 else None


def ask_all(sock, macs, timeout, stagger=0.02):
    """Every MAC in flight at once (first DISCOVERs `stagger` s apart, like hosts booting together):
    mac -> (servers that offered, comma-separated, ms to the first offer)."""
    pending = {}
    t_start = time.monotonic()
    for i, mac in enumerate(macs):
        xid = int.from_bytes(os.urandom(4), "big")
        pending[xid] = {"mac": mac, "frame": discover(mac, xid), "t0": t_start + i * stagger, "next": t_start + i * stagger, "servers": [], "ms": None, "until": None}
    done = {}
    while pending:
        now = time.monotonic()
        for xid, q in list(pending.items()):
            if q["until"] is not None and now >= q["until"]:
                done[q["mac"]] = (",".join(q["servers"]), q["ms"])
                del pending[xid]
            elif q["until"] is None and now - q["t0"] > timeout:
                done[q["mac"]] = (None, None)
                del pending[xid]
            elif q["until"] is None and now >= q["next"]:
                sock.send(q["frame"])
                q["next"] = now + 1.0
        if not pending:
            break
        wake = min(q["until"] if q["until"] is not None else min(q["next"], q["t0"] + timeout) for q in pending.values())
        r, _, _ = select.select([sock], [], [], max(0.0, wake - time.monotonic()))
        if r:
            frame = sock.recv(2048)
            xid = struct.unpack("!I", frame[46:50])[0] if len(frame) >= 50 else None
            q = pending.get(xid)
            server = q and offer_from(frame, xid)
            if server:
                if q["ms"] is None:
                    # Every server that offers within 0.3 s of the first is recorded: a second answerer shows.
                    q["ms"], q["until"] = (time.monotonic() - q["t0"]) * 1000, time.monotonic() + 0.3
                if server not in q["servers"]:
                    q["servers"].append(server)
    return done


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--interface", required=True)
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("macs", nargs="+")
    a = p.parse_args()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
    sock.bind((a.interface, 0))
    done = ask_all(sock, a.macs, a.timeout)
    for mac in a.macs:
        server, ms = done[mac]
        print("%s %s %s" % (mac, server or "-", "%.2f" % ms if ms is not None else "-"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
