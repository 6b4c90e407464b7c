#!/usr/bin/env python3
# Rendered by metal3-ironic: keeps this conductor's dnsmasq host/option files consistent with
# node ownership in Ironic (see components/pruner.ts for the why).
import base64
import itertools
import json
import os
import ssl
import sys
import time
import urllib.request

API = os.environ["PRUNER_API_URL"].rstrip("/")
CA = os.environ.get("PRUNER_CA_FILE") or None
AUTH_DIR = os.environ.get("PRUNER_AUTH_DIR") or None
HOSTSDIR = os.environ["PRUNER_HOSTSDIR"]
OPTSDIR = os.environ["PRUNER_OPTSDIR"]
INTERVAL = float(os.environ.get("PRUNER_INTERVAL", "2"))
# This conductor as the API names it (conductor_name below: an IPv6 host without brackets).
ME = os.environ["IRONIC_CONDUCTOR_HOST"]
# "1": passes until a quick one (a full pass first, more while a verdict waits; at most 30), each
# timed in the log, then exit (tests, the benchmark).
ONCE = os.environ.get("PRUNER_ONCE") == "1"
# Ownership is read (a detailed node listing, the costly part at thousands of nodes) at most this
# often, and on every pass while the conductors changed lately or a verdict waits; see prune_once.
FULL_INTERVAL = float(os.environ.get("PRUNER_FULL_INTERVAL", "60"))
GRACE = float(os.environ.get("PRUNER_GRACE", "15"))
REBALANCE_DELAY = float(os.environ.get("PRUNER_REBALANCE_DELAY", "20"))
HEARTBEAT = os.environ.get("PRUNER_HEARTBEAT_FILE") or None
# After a pass the pruner waits INTERVAL, or this many times as long as the pass took if longer
# (3: listing takes the API at most a quarter of the time, however large the fleet; at 10,000 nodes
# one quick pass lists ten pages of UUIDs), but never more than MAX_PAUSE (a quarter of the
# liveness probe's limit on the heartbeat's age).
PAUSE_PER_PASS = float(os.environ.get("PRUNER_PAUSE_PER_PASS", "3"))
MAX_PAUSE = 30
HEADERS = {"X-OpenStack-Ironic-API-Version": "1.82", "Accept": "application/json"}


def conductor_name(registered):
    """The [DEFAULT]host a conductor was configured with, from the name it registered under.

    Ironic (the image's 38, and every release since RPC API 1.58) registers a conductor whose
    [json_rpc]port is not 8089 as "<host>:<port>", an IPv6 address bracketed ("[fd00::2]:6189");
    older releases, and port 8089, register the host alone. A host name or IPv4 address has no
    colon and a bare IPv6 address no brackets, so either form reads back unambiguously. An IPv6
    host is returned without brackets, however it was configured ("[fd00::2]" or "fd00::2").
    """
    name = str(registered or "")
    if name.startswith("["):
        host, sep, rest = name[1:].partition("]")
        return host if sep and (rest == "" or (rest.startswith(":") and rest[1:].isdigit())) else name
    host, sep, port = name.rpartition(":")
    return host if sep and port.isdigit() and ":" not in host else name


ME = conductor_name(ME)


def log(msg):
    print("dhcp-pruner[%s]: %s" % (ME, msg), flush=True)


def auth_header():
    if not AUTH_DIR:
        return {}
    with open(os.path.join(AUTH_DIR, "username")) as f:
        user = f.read().strip()
    with open(os.path.join(AUTH_DIR, "password")) as f:
        password = f.read().strip()
    token = base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    return {"Authorization": "Basic " + token}


def context():
    if not API.startswith("https:"):
        return None
    return ssl.create_default_context(cafile=CA)


def get_all(path, key):
    """Every item of a paginated collection; raises on any error (then nothing is changed)."""
    items = []
    url = API + path
    while url:
        req = urllib.request.Request(url, headers={**HEADERS, **auth_header()})
        with urllib.request.urlopen(req, timeout=10, context=context()) as resp:
            body = json.load(resp)
        items.extend(body[key])
        url = body.get("next")
    return items


def heartbeat():
    """Liveness: the file's mtime is when the loop last went round, whether or not the API was
    usable (the pod's probe checks its age; an API outage is not a reason to restart)."""
    if not HEARTBEAT:
        return
    try:
        with open(HEARTBEAT, "a"):
            pass
        os.utime(HEARTBEAT, None)
    except OSError as e:
        log("cannot touch heartbeat file %s: %s" % (HEARTBEAT, e))


def write_atomic(path, content):
    # A dot-file is ignored by dnsmasq; the rename is seen through inotify (IN_MOVED_TO).
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".tmp")
    with open(tmp, "w") as f:
        f.write(content)
    os.rename(tmp, path)


def settled(path, verdict, previous, current, rebalance):
    """Prune only on a stable view: the same verdict in the last poll too (for REBALANCE_DELAY
    when the verdict may be a rebalance), and the file past the grace period."""
    now = time.time()
    first = previous[path][1] if path in previous and previous[path][0] == verdict else None
    current[path] = (verdict, first if first is not None else now)
    if first is None:
        return False
    if rebalance and now - first < REBALANCE_DELAY:
        return False
    try:
        return now - os.stat(path).st_mtime >= GRACE
    except FileNotFoundError:
        return False


OWNERSHIP = "owner:"


def ring_signature(conductors):
    """What the hash ring is built from: who is alive, in which group, with which hardware types."""
    return sorted((str(c.get("hostname")), str(c.get("conductor_group") or ""), bool(c.get("alive")), sorted(c.get("drivers") or [])) for c in conductors)


def wants_full(state, signature, now):
    """A node's owner changes when the ring does (a conductor joins, leaves or dies; the API follows
    within hash_ring_reset_interval, far below GRACE) or its driver or group is edited (rare). So
    ownership is read on every pass from a change of the conductors until GRACE after it, while
    an ownership verdict waits to be confirmed, and every FULL_INTERVAL otherwise."""
    if signature != state.get("signature"):
        # The first view (a start, or after an API outage) is no change: its first pass is full anyway.
        state["changed"] = now if "signature" in state else -GRACE - INTERVAL
        state["signature"] = signature
    return (now - state.get("full", -FULL_INTERVAL) >= FULL_INTERVAL or now - state["changed"] < GRACE + INTERVAL
            or any(v[0].startswith(OWNERSHIP) for v in state.get("previous", {}).values()))


def quick_gone(path, mac, nodes, state):
    """A quick pass lists no ports. An entry older than the last full pass's listing (a MAC enrolled
    again since is rewritten by its new owner) is gone if its MAC had no port then, or the node it
    had is no longer listed (Ironic deletes a node's ports with it). A port deleted alone, or a MAC
    moved to another node, waits for the next full pass."""
    node_uuid = state["ports"].get(mac)
    try:
        if os.stat(path).st_mtime >= state["ports_at"]:
            return False
    except FileNotFoundError:
        return False
    return node_uuid is None or (node_uuid in state["listed"] and node_uuid not in nodes)


def prune_once(unattributed, state):
    """One pass. A full pass reads every node's owner and tag, and every port; a quick one only which
    nodes exist (deleted nodes are pruned at once) and carries ownership verdicts to the next full one.
    state["previous"]: this pass's verdicts (path -> (verdict, first seen)), which the next confirms."""
    conductors = get_all("/v1/conductors?detail=true&limit=1000", "conductors")
    me_alive = any(conductor_name(c.get("hostname")) == ME and c.get("alive") for c in conductors)
    now = time.time()
    full = wants_full(state, ring_signature(conductors), now)
    listing = "/v1/nodes?detail=true&limit=1000" if full else "/v1/nodes?fields=uuid&limit=1000"
    nodes = {n["uuid"]: n for n in get_all(listing, "nodes")}
    if full:
        ports = {p["address"].lower(): p["node_uuid"] for p in get_all("/v1/ports?fields=address,node_uuid&limit=1000", "ports")}
        # What a quick pass knows of ports (listing them costs about as much as the nodes).
        state.update(ports=ports, ports_at=now, listed=set(nodes))
    previous, current = state.get("previous", {}), {}

    def carry(path):
        """A quick pass decides nothing on ownership: a waiting verdict goes on to the next full pass."""
        if path in previous:
            current[path] = previous[path]
    for name in sorted(os.listdir(HOSTSDIR)):
        if not (name.startswith("ironic-") and name.endswith(".conf")):
            continue
        path = os.path.join(HOSTSDIR, name)
        try:
            with open(path) as f:
                line = f.readline().strip()
        except FileNotFoundError:
            continue
        fields = line.split(",")
        if len(fields) < 2 or fields[1] == "ignore":
            continue
        mac = fields[0].lower()
        if not full and not quick_gone(path, mac, nodes, state):
            carry(path)
            continue
        if not full or mac not in ports:
            # No port has this MAC any more: its node (or the port) was deleted, and Ironic's
            # deletion leaves the entry active. Left so, this dnsmasq would keep answering the
            # machine, and also beside its new owner if it is enrolled again.
            unattributed.discard(path)
            if settled(path, "no port", previous, current, False):
                write_atomic(path, "%s,ignore\n" % fields[0])
                log("host %s belongs to no port in Ironic (its node or port was deleted): entry %s set to ignore" % (mac, name))
            continue
        node = nodes.get(ports[mac])
        owner = node and conductor_name(node.get("conductor"))
        if not owner:
            if path not in unattributed:
                unattributed.add(path)
                log("leaving %s alone: cannot attribute MAC %s to a node with an owner" % (name, mac))
            continue
        unattributed.discard(path)
        tag = fields[1][len("set:"):] if fields[1].startswith("set:") else None
        node_tag = (node.get("driver_internal_info") or {}).get("dnsmasq_tag")
        if owner != ME:
            reason = OWNERSHIP + "is owned by %s" % owner
        elif node_tag is None:
            # Cleanup drops the node's tag. A tag that merely differs is left alone: it can be a
            # takeover racing with this poll, and silencing the owner would be worse.
            reason = OWNERSHIP + "no longer has a DHCP tag (cleaned up elsewhere; entry had %s)" % tag
        else:
            continue
        if settled(path, reason, previous, current, me_alive):
            write_atomic(path, "%s,ignore\n" % fields[0])
            log("host %s (node %s) %s: entry %s set to ignore" % (mac, node["uuid"], reason[len(OWNERSHIP):], name))
    for name in sorted(os.listdir(OPTSDIR)):
        if not (name.startswith("ironic-") and name.endswith(".conf")):
            continue
        uuid = name[len("ironic-"):-len(".conf")]
        node = nodes.get(uuid)
        path = os.path.join(OPTSDIR, name)
        owner = node and full and conductor_name(node.get("conductor"))
        if node is None:
            why, verdict, rebalance = "node %s no longer exists" % uuid, "no node", False
        elif not full:
            carry(path)
            continue
        elif owner and owner != ME:
            why, verdict, rebalance = "node %s is owned by %s" % (uuid, owner), OWNERSHIP + owner, me_alive
        else:
            continue
        if settled(path, verdict, previous, current, rebalance):
            try:
                os.remove(path)
                log("%s: removed option file %s" % (why, name))
            except FileNotFoundError:
                pass
    state["previous"] = current
    if full:
        state["full"] = now
    return full


def main():
    log("watching %s and %s against %s" % (HOSTSDIR, OPTSDIR, API))
    unattributed = set()
    state = {}
    failing = False
    reached = False
    heartbeat()
    for n in itertools.count():
        full = None
        pause = INTERVAL
        try:
            t0 = time.time()
            full = prune_once(unattributed, state)
            pause = min(max(INTERVAL, PAUSE_PER_PASS * (time.time() - t0)), MAX_PAUSE)
            if ONCE:
                log("%s pass: %.2f s" % ("full" if full else "quick", time.time() - t0))
            if failing:
                log("Ironic API reachable again")
            elif not reached:
                log("Ironic API reachable; pruning entries of nodes this conductor does not own")
            failing = False
            reached = True
        except Exception as e:  # keep going through API outages; change nothing meanwhile
            state = {}
            if not failing:
                log("Ironic API not usable (%s); changing nothing until it is" % e)
            failing = True
        heartbeat()
        if ONCE and (full is False or n >= 29):
            return 0
        time.sleep(pause)


if __name__ == "__main__":
    sys.exit(main())
