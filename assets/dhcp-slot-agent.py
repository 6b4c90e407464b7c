#!/usr/bin/env python3
# Rendered by metal3-ironic: claims one DHCP slot of a multi-conductor stack through a
# coordination.k8s.io/v1 Lease, runs the command (dnsmasq serving that slot's slice) only while
# the Lease is held, and releases it on a clean stop. usage: dhcp-slot-agent.py <command> [args...]
#
# Which slot: a pin (conductors[].slot) and only that one; else the slot this node held last (its
# Lease still names the node: released Leases keep their node, so a restarted container, a new pod
# of a rolling update, or a node listed in conductors[] later gets its slice back, whatever the
# stack config remembers); else the slot the config remembers for this node (how the first run with
# Leases adopts the slices of a stack that had none); else a free one: never used before released
# by another node (that node may come back for it), slots remembered for other nodes last, lowest
# first. A slot pinned for another node is never taken, and a holder yields its slot when the
# config pins it for another node (or pins this node elsewhere).
#
# Protocol (the API server is the only arbiter; no other store):
# - Slot k is the Lease "<prefix><k>". Creating it is the claim (atomic by name). Taking over an
#   expired one is an update with the resourceVersion that was seen expiring (compare-and-swap).
# - The holder renews every RETRY_PERIOD. A renewal counts from the moment its request was SENT.
# - Fencing: a holder whose last successful renewal was sent RENEW_DEADLINE ago stops the command
#   (SIGTERM, SIGKILL after STOP_GRACE) and gives the slot up.
# - A claimer treats a Lease as expired only after it has seen the same resourceVersion, unchanged,
#   for leaseDurationSeconds + CLAIM_MARGIN on its own monotonic clock.
# Timing argument: the holder's last successful renewal was sent at t0 and written at ts >= t0; a
# claimer first sees that version at tc >= ts, so it takes over at >= t0 + LEASE_DURATION + MARGIN.
# The holder's command is gone by t0 + RENEW_DEADLINE + STOP_GRACE (+ one request timeout, bounded
# by the remaining deadline). Both intervals are measured on each process's own monotonic clock,
# so the clocks' offsets never matter; only their rates do. With drift rate r it is safe while
#   (RENEW_DEADLINE + STOP_GRACE) * (1 + r) < (LEASE_DURATION + MARGIN) * (1 - r)
# With the defaults (10 + 2) * 1.001 < (15 + 2) * 0.999 holds for any r below 17 %; real clocks
# drift well under 0.01 %. renewTime in the Lease is informational (kubectl, the slot table).
import datetime
import json
import os
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

SA = "/var/run/secrets/kubernetes.io/serviceaccount"


def env(name, default=None):
    value = os.environ.get(name)
    return value if value not in (None, "") else default


def default_api():
    host = env("KUBERNETES_SERVICE_HOST")
    port = env("KUBERNETES_SERVICE_PORT", "443")
    if not host:
        return None
    return "https://%s:%s" % ("[%s]" % host if ":" in host else host, port)


API = (env("SLOT_API_URL") or default_api() or "").rstrip("/")
TOKEN_FILE = env("SLOT_TOKEN_FILE", SA + "/token")
CA_FILE = env("SLOT_CA_FILE", SA + "/ca.crt")
NAMESPACE = env("SLOT_NAMESPACE")
PREFIX = env("SLOT_LEASE_PREFIX")
COUNT = int(env("SLOT_COUNT", "0"))
IDENTITY = env("SLOT_IDENTITY")
NODE = env("SLOT_NODE", "")
PREFERENCES = env("SLOT_PREFERENCES_FILE")
LABELS = env("SLOT_LEASE_LABELS", "")
LEASE_DURATION = int(env("SLOT_LEASE_DURATION", "15"))
RENEW_DEADLINE = float(env("SLOT_RENEW_DEADLINE", "10"))
RETRY_PERIOD = float(env("SLOT_RETRY_PERIOD", "2"))
CLAIM_MARGIN = float(env("SLOT_CLAIM_MARGIN", "2"))
STOP_GRACE = float(env("SLOT_STOP_GRACE", "2"))
STATUS_FILE = env("SLOT_STATUS_FILE")
NODE_ANNOTATION = "metal3-ironic.metal3.io/node"


def log(msg):
    print("dhcp-slot-agent[%s]: %s" % (IDENTITY, msg), flush=True)


def fatal(msg):
    log("FATAL: " + msg)
    sys.exit(2)


def check_settings():
    missing = [n for n, v in (("SLOT_API_URL or KUBERNETES_SERVICE_HOST", API), ("SLOT_NAMESPACE", NAMESPACE),
                              ("SLOT_LEASE_PREFIX", PREFIX), ("SLOT_IDENTITY", IDENTITY)) if not v]
    if missing:
        fatal("not set: " + ", ".join(missing))
    if COUNT < 1:
        fatal("SLOT_COUNT must be a positive number of slots, got %r" % env("SLOT_COUNT"))
    if not RENEW_DEADLINE + STOP_GRACE < LEASE_DURATION + CLAIM_MARGIN:
        fatal("unsafe timing: SLOT_RENEW_DEADLINE + SLOT_STOP_GRACE (%s) must stay below "
              "SLOT_LEASE_DURATION + SLOT_CLAIM_MARGIN (%s)" % (RENEW_DEADLINE + STOP_GRACE, LEASE_DURATION + CLAIM_MARGIN))
    if not RETRY_PERIOD < RENEW_DEADLINE:
        fatal("SLOT_RETRY_PERIOD (%s) must be below SLOT_RENEW_DEADLINE (%s)" % (RETRY_PERIOD, RENEW_DEADLINE))


def preferences():
    """(pinned slot or None, preferred slot or None, slots remembered or pinned for other nodes, slots pinned for other nodes)."""
    if not PREFERENCES or not os.path.exists(PREFERENCES):
        return None, None, set(), set()
    try:
        with open(PREFERENCES) as f:
            data = json.load(f)
        pins = {n: int(v) for n, v in data.get("pinned", {}).items()}
        kept = {n: int(v) for n, v in data.get("remembered", {}).items()}
    except (OSError, ValueError, TypeError, AttributeError) as e:
        log("preferences %s unreadable (%s): claiming the lowest free slot" % (PREFERENCES, e))
        return None, None, set(), set()
    pinned_others = {s for n, s in pins.items() if n != NODE}
    others = {s for n, s in kept.items() if n != NODE} | pinned_others
    return pins.get(NODE), kept.get(NODE), others, pinned_others


def preferences_stamp():
    try:
        return os.stat(PREFERENCES).st_mtime_ns if PREFERENCES else None
    except OSError:
        return None


class ApiError(Exception):
    def __init__(self, status, text):
        super().__init__("HTTP %s: %s" % (status, text))
        self.status = status


def request(method, path, body=None, timeout=5.0):
    headers = {"Accept": "application/json"}
    if TOKEN_FILE and os.path.exists(TOKEN_FILE):
        with open(TOKEN_FILE) as f:  # re-read: projected tokens rotate
            headers["Authorization"] = "Bearer " + f.read().strip()
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    ctx = None
    if API.startswith("https:"):
        ctx = ssl.create_default_context(cafile=CA_FILE if CA_FILE and os.path.exists(CA_FILE) else None)
    req = urllib.request.Request(API + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=max(0.2, timeout), context=ctx) as resp:
            return json.load(resp)
    except urllib.error.HTTPError as e:
        raise ApiError(e.code, e.read().decode(errors="replace")[:300]) from None
    except ValueError as e:  # a body that is not JSON (a proxy's error page, a cut-off answer)
        raise OSError("unreadable answer from the API server: %s" % e) from None


def lease_path(slot=None):
    base = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NAMESPACE
    return base if slot is None else "%s/%s%d" % (base, PREFIX, slot)


def micro_time():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def labels():
    out = {}
    for item in filter(None, LABELS.split(",")):
        k, _, v = item.partition("=")
        out[k] = v
    return out


def held_spec(previous=None):
    now = micro_time()
    transitions = (previous or {}).get("leaseTransitions", 0)
    # A new holder, also of a released Lease (no holder), counts as a transition.
    if previous is not None and previous.get("holderIdentity") != IDENTITY:
        transitions += 1
    return {"holderIdentity": IDENTITY, "leaseDurationSeconds": LEASE_DURATION, "acquireTime": now,
            "renewTime": now, "leaseTransitions": transitions}


def write_status(text):
    if not STATUS_FILE:
        return
    tmp = STATUS_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.rename(tmp, STATUS_FILE)


class Agent:
    def __init__(self, command):
        self.command = command
        self.child = None
        self.stopping = False
        self.seen = {}  # slot -> (resourceVersion, monotonic time it was first seen)
        self.history = {}  # slot -> the node its Lease names (held or released), as last surveyed
        self.stamp = preferences_stamp()
        self.pinned, self.preferred, self.others, self.pinned_others = preferences()

    def order(self, last=None):
        if self.pinned is not None:
            return [self.pinned]
        first = []
        for s in (last, self.preferred):
            if s is not None and s < COUNT and s not in self.pinned_others and s not in first:
                first.append(s)
        rest = [s for s in range(COUNT) if s not in first and s not in self.pinned_others]
        # Never used first; a slot another node held last after those (it may come back for it);
        # slots remembered for other nodes last (their holders may still be serving from an
        # earlier run that held no Lease).
        rest.sort(key=lambda s: (s in self.others, self.history.get(s, NODE) != NODE, s))
        return first + rest

    def survey(self):
        """Reads every slot's Lease: notes the node each names; returns (slot, holder, duration) of
        this node's last one (preferring one this agent holds, then the latest renewed), or
        (None, None, LEASE_DURATION). A slot whose Lease cannot be read is left unknown."""
        mine = []
        for slot in range(COUNT):
            try:
                lease = request("GET", lease_path(slot), timeout=RETRY_PERIOD)
            except ApiError as e:
                if e.status != 404:
                    log("slot %d: API error while reading its Lease: %s" % (slot, e))
                self.history.pop(slot, None)
                continue
            except OSError as e:
                log("slot %d: API error while reading its Lease: %s" % (slot, e))
                continue
            node = ((lease.get("metadata") or {}).get("annotations") or {}).get(NODE_ANNOTATION)
            if node:
                self.history[slot] = node
            if NODE and node == NODE:
                spec = lease.get("spec") or {}
                mine.append((spec.get("holderIdentity") == IDENTITY, spec.get("renewTime") or "", slot,
                             spec.get("holderIdentity"), spec.get("leaseDurationSeconds") or LEASE_DURATION))
        if not mine:
            return None, None, LEASE_DURATION
        _, _, slot, holder, duration = max(mine)
        return slot, holder, duration

    def preferences_changed(self):
        stamp = preferences_stamp()
        if stamp == self.stamp:
            return False
        self.stamp = stamp
        self.pinned, self.preferred, self.others, self.pinned_others = preferences()
        return True

    def try_claim(self, slot):
        """The Lease object when this agent now holds `slot`, else None."""
        try:
            lease = request("GET", lease_path(slot), timeout=RETRY_PERIOD)
        except ApiError as e:
            if e.status != 404:
                raise
            body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "%s%d" % (PREFIX, slot), "namespace": NAMESPACE, "labels": labels(),
                                 "annotations": {NODE_ANNOTATION: NODE}},
                    "spec": held_spec()}
            try:
                return request("POST", lease_path(), body, timeout=RETRY_PERIOD)
            except ApiError as e2:
                if e2.status == 409:
                    log("slot %d: created by another agent first" % slot)
                    return None
                raise
        spec = lease.get("spec") or {}
        rv = lease["metadata"]["resourceVersion"]
        holder = spec.get("holderIdentity")
        if holder and holder != IDENTITY:
            now = time.monotonic()
            seen = self.seen.get(slot)
            if seen is None or seen[0] != rv:
                self.seen[slot] = (rv, now)
                return None
            duration = spec.get("leaseDurationSeconds") or LEASE_DURATION
            if now - seen[1] < duration + CLAIM_MARGIN:
                return None
            log("slot %d: Lease of %s unchanged for %.1fs (duration %ss + margin %ss): taking it over"
                % (slot, holder, now - seen[1], duration, CLAIM_MARGIN))
        lease["spec"] = held_spec(spec)
        lease["metadata"].setdefault("annotations", {})[NODE_ANNOTATION] = NODE
        try:
            return request("PUT", lease_path(slot), lease, timeout=RETRY_PERIOD)
        except ApiError as e:
            if e.status in (404, 409):
                return None  # changed or deleted meanwhile: look again next round
            raise

    def claim(self):
        waited = False
        last, holder, duration = (None, None, LEASE_DURATION) if self.pinned is not None else self.survey()
        # Held by another pod of this node (one that died without releasing): wait until it may be
        # taken over (its duration + margin after this agent first saw its version) rather than move
        # this node's slice, but not forever (a holder that keeps renewing is alive).
        patient = False
        if last is not None:
            log("slot %d: this node's last (%s)" % (last, "released" if not holder else "held by " + holder))
            patient = bool(holder) and holder != IDENTITY and last not in self.pinned_others
        start = time.monotonic()
        wait = duration + CLAIM_MARGIN + 2 * RETRY_PERIOD
        while not self.stopping:
            if patient:
                seen = self.seen.get(last)
                until = max(start, seen[1] if seen else start) + wait
                patient = time.monotonic() < min(until, start + 3 * wait)
            order = [last] if patient else self.order(last)
            for slot in order:
                try:
                    lease = self.try_claim(slot)
                except (ApiError, OSError) as e:
                    # Not an answer about this slot: trying the next one now would move this node's
                    # slice (and leave its own Lease held) on a passing API error. Ask again next round.
                    log("slot %d: API error while claiming: %s; asking again in %ss before any other slot" % (slot, e, RETRY_PERIOD))
                    break
                if lease is not None:
                    return slot, lease
            if not waited:
                log("no free slot among %s yet; retrying every %ss" % (order, RETRY_PERIOD))
                write_status("waiting")
                waited = True
            self.sleep(RETRY_PERIOD)
        return None, None

    def sleep(self, seconds):
        end = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < end:
            if self.child is not None and self.child.poll() is not None:
                return
            time.sleep(min(0.1, max(0.0, end - time.monotonic())))

    def start_child(self, slot):
        child_env = dict(os.environ, DHCP_SLOT=str(slot))
        self.child = subprocess.Popen(self.command, env=child_env)
        log("slot %d held: started %s (pid %d)" % (slot, self.command[0], self.child.pid))

    def stop_child(self, why):
        if self.child is None or self.child.poll() is not None:
            self.child = None
            return
        log("stopping %s (pid %d): %s" % (self.command[0], self.child.pid, why))
        self.child.terminate()
        try:
            self.child.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()
        log("stopped (pid %d, %s)" % (self.child.pid, why))
        self.child = None

    def hold(self, slot, lease):
        """Renew until the child exits, the Lease is lost, a stop is asked, or the config pins the
        slot for another node (or this node elsewhere); returns the reason."""
        last_ok = time.monotonic()
        while True:
            self.sleep(RETRY_PERIOD)
            if self.stopping:
                return "stop", lease
            if self.child.poll() is not None:
                return "child", lease
            if self.preferences_changed() and (slot in self.pinned_others or self.pinned not in (None, slot)):
                return "yield", lease
            sent = time.monotonic()
            remaining = RENEW_DEADLINE - (sent - last_ok)
            if remaining <= 0:
                return "deadline", lease
            renewed = dict(lease)
            renewed["spec"] = dict(lease["spec"], renewTime=micro_time())
            try:
                lease = request("PUT", lease_path(slot), renewed, timeout=min(5.0, remaining))
                last_ok = sent
            except ApiError as e:
                if e.status == 409:
                    # Our last write may have landed with its answer lost: look before giving up.
                    try:
                        current = request("GET", lease_path(slot), timeout=min(5.0, remaining))
                    except (ApiError, OSError):
                        current = None
                    if current and (current.get("spec") or {}).get("holderIdentity") == IDENTITY:
                        lease = current
                        continue
                    return "taken", lease
                if e.status == 404:
                    return "deleted", lease
                log("slot %d: renewal failed: %s" % (slot, e))
            except OSError as e:
                log("slot %d: renewal failed: %s" % (slot, e))
            if time.monotonic() - last_ok >= RENEW_DEADLINE:
                return "deadline", lease

    def release(self, slot, lease):
        # Free for anyone at once (no holder), still naming this node: its next agent takes it back
        # first. An update with the resourceVersion held (compare-and-swap), like every write here.
        released = dict(lease)
        released["spec"] = {k: v for k, v in (lease.get("spec") or {}).items() if k not in ("holderIdentity", "acquireTime")}
        try:
            request("PUT", lease_path(slot), released, timeout=RETRY_PERIOD)
            log("slot %d released" % slot)
        except (ApiError, OSError) as e:
            log("slot %d: release failed (%s); it frees when the Lease expires" % (slot, e))

    def run(self):
        check_settings()
        signal.signal(signal.SIGTERM, self.on_signal)
        signal.signal(signal.SIGINT, self.on_signal)
        log("node %s, %d slots, Leases %s/%s0..%d" % (NODE or "?", COUNT, NAMESPACE, PREFIX, COUNT - 1))
        while not self.stopping:
            slot, lease = self.claim()
            if slot is None:
                break
            self.start_child(slot)
            write_status("slot %d" % slot)
            why, lease = self.hold(slot, lease)
            if why == "deadline":
                self.stop_child("no renewal for %ss (renew deadline): another conductor may take slot %d" % (RENEW_DEADLINE, slot))
            elif why in ("taken", "deleted"):
                self.stop_child("the Lease of slot %d was %s by someone else" % (slot, why))
            elif why == "yield":
                self.stop_child("slot %d is now pinned %s" % (slot, "for another node" if slot in self.pinned_others else "elsewhere for this node"))
                self.release(slot, lease)
            else:
                code = self.child.poll() if why == "child" else None
                self.stop_child("stop asked" if why == "stop" else "it exited")
                self.release(slot, lease)
                write_status("stopped")
                return 0 if why == "stop" else (code or 1)
            write_status("lost slot %d" % slot)
        write_status("stopped")
        return 0

    def on_signal(self, signum, _frame):
        self.stopping = True


def main():
    if len(sys.argv) < 2:
        fatal("usage: dhcp-slot-agent.py <command> [args...]")
    agent = Agent(sys.argv[1:])
    try:
        code = agent.run()
    finally:
        # Whatever ends the agent (even a bug), the command never outlives the slot it held.
        agent.stop_child("the agent is exiting")
    sys.exit(code)


if __name__ == "__main__":
    main()
