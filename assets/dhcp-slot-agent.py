#!/usr/bin/env python3
# Rendered by metal3-ironic: claims one DHCP slot of a multi-conductor stack through a
# coordination.k8s.io/v1 Lease and grants it to the fence, which runs the command (dnsmasq serving
# that slot's slice) only while the Lease is held; releases it on a clean stop. Two processes in two
# containers: the agent (`dhcp-slot-agent.py`, the only one with an API token and no capability) and
# the fence in front of dnsmasq (`dhcp-slot-agent.py --fence <command> [args...]`, no token).
#
# Which slot: a pin (conductors[].slot) and only that one; else the slot this node held last (its
# Lease still names the node: released Leases keep their node, so a restarted container, a new pod
# of a rolling update, or a node listed in conductors[] later gets its slice back, whatever the
# stack config remembers); else the slot the config remembers for this node (how the first run with
# Leases adopts the slices of a stack that had none); else a free one: never used before released
# by another node (that node may come back for it), slots remembered for other nodes last, lowest
# first. A slot pinned for another node is never taken, and a holder yields its slot when the
# config pins it for another node (or pins this node elsewhere). The preferences are re-read while
# waiting too (a pin removed or moved). An API error on a slot that may be this node's own (held
# last, remembered for it, naming it, or never read) is asked about again before any later slot,
# for as long as a Lease takes to expire (a passing error must not move the node's slice); an
# error on a slot known to be another's only skips it.
#
# Protocol (the API server is the only arbiter; no other store):
# - Slot k is the Lease "<prefix><k>". A claim is a create (atomic by name) or an update carrying
#   the resourceVersion just read (compare-and-swap); so is every renewal. A write counts from the
#   moment its request was SENT, and only once confirmed: its answer came back, or a later read
#   shows its renewTime (unique: each write of a holder has a later one).
# - Every request has a total deadline (connect, TLS, every byte of the answer), not a per-read
#   timeout; any answer that is not a whole JSON Lease (cut, torn, late) is a failed request.
# - The holder renews every RETRY_PERIOD. Fencing does not depend on it: the command runs under a
#   fence, a process of its own in dnsmasq's container (this script with --fence), that stops it
#   (SIGTERM, SIGKILL after STOP_GRACE) RENEW_DEADLINE after the last confirmed write was sent,
#   whatever the agent is doing (blocked in a request, starved, stopped, dead); the agent only moves
#   that deadline later, through its grant file. A restarted agent (same pod, same identity) takes
#   its own Lease back at once, and the fence goes on serving the same slot under the new hold. A
#   clean stop releases the Lease only once the fence confirms that the command stopped; else the
#   Lease frees when it expires.
# - Expiry, decided as client-go decides it: a claimer takes over a held Lease only after it has
#   seen the same holder and renewTime for leaseDurationSeconds + CLAIM_MARGIN on its own monotonic
#   clock, counted from the first answer that showed them. Writes that change neither (labels,
#   annotations) do not restart the count; a released Lease (no holder) is free at once, its last
#   holder having stopped its command first.
# - A Lease this agent creates did not exist: one deleted while held (by hand) leaves no holder to
#   wait for. The command then starts RENEW_DEADLINE + STOP_GRACE + CLAIM_MARGIN after the create's
#   answer (the Lease renewed meanwhile): any holder of the deleted Lease has been fenced by then.
# Timing argument. A claimer's update succeeds only while the record it saw unchanged (first seen
# at tc) is still the record, so every confirmed write of the old holder landed no later than that
# record, before tc, and was sent before it landed: its last one at t0 < tc. Its fence stops the
# command by t0 + RENEW_DEADLINE + STOP_GRACE; the claimer starts its own at >= tc + LEASE_DURATION
# + MARGIN. After a create: the deleted Lease's holder confirmed its last write before the delete,
# which came before the create landed and so before its answer. Each interval is measured on one
# process's own monotonic clock, so the clocks' offsets never matter; only their rates do. With
# drift rate r it is safe while
#   (RENEW_DEADLINE + STOP_GRACE) * (1 + r) < (LEASE_DURATION + MARGIN) * (1 - r)  and
#   (RENEW_DEADLINE + STOP_GRACE) * (1 + r) < (RENEW_DEADLINE + STOP_GRACE + MARGIN) * (1 - r)
# With the defaults (10 + 2) * 1.001 < (15 + 2) * 0.999 and < (10 + 2 + 2) * 0.999 hold for any r
# below 7 %; real clocks drift well under 0.01 %. renewTime in the Lease is informational
# (kubectl, the slot table) and the record's identity; no clock is compared with it.
# Takeover: a waiter sees a dead holder's last renewal within RETRY_PERIOD of its landing and takes
# the slot LEASE_DURATION + MARGIN after that (it looks again exactly then); a deleted Lease is
# seen within RETRY_PERIOD and served RENEW_DEADLINE + STOP_GRACE + MARGIN later. So a slot waits
# at most RETRY_PERIOD + max(LEASE_DURATION, RENEW_DEADLINE + STOP_GRACE) + MARGIN (19 s with the
# defaults) plus the answer times of one claim round, a read and the claim.
#
# Only what the fence needs is imported at the top: it shares the container's memory with dnsmasq.
import os
import select
import signal
import subprocess
import sys
import time

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
GRANT_DIR = env("SLOT_GRANT_DIR")
FENCE_DIR = env("SLOT_FENCE_DIR")
# How often the fence reads the grant (and so how late it sees a stop or a later deadline).
FENCE_POLL = 0.1
NODE_ANNOTATION = "metal3-ironic.metal3.io/node"
# Every request's total time limit: half the renew deadline (a claim answered later leaves its
# holder too little time to renew), at most 5 s; a renewal's never runs past the renew deadline.
REQUEST_TIMEOUT = min(5.0, RENEW_DEADLINE / 2)


def log(msg):
    print("dhcp-slot-agent[%s]: %s" % (IDENTITY, msg), flush=True)


def fatal(msg):
    log("FATAL: " + msg)
    sys.exit(2)


def now():
    return time.monotonic()


def stamp_now():
    """now() as the grant and state files write it (microseconds), so that both sides compare equals."""
    return float("%.6f" % now())


# ---- The fence, in dnsmasq's container, and the grant it reads ---------------------------------
# The agent (its own container, the only one with an API token) and the fence (dnsmasq's container,
# no token) share two small files, each written by one side only, each replaced whole (rename):
# - GRANT_DIR/grant, by the agent: "<epoch> <slot> <deadline>", or "<epoch> - 0 <why>" to stop. The epoch
#   names one hold of one slot (the monotonic time it began: later holds, also of a restarted agent,
#   have later ones); the deadline, RENEW_DEADLINE after the agent's last confirmed write was sent,
#   only moves later within a hold.
# - FENCE_DIR/state, by the fence: "<busy|serving|idle|exited> <epoch>": busy when it starts (before
#   it reads any grant), serving once it started the command for that hold, idle once the command
#   of that hold is gone (or never started), exited when it ends with no command running.
# The pod's containers share the node's kernel, so both sides read one CLOCK_MONOTONIC.


def write_file(directory, name, text):
    tmp = os.path.join(directory, "." + name + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(directory, name))


def read_words(directory, name):
    try:
        with open(os.path.join(directory, name)) as f:
            return f.read().split()
    except OSError:
        return None


def read_grant():
    """(epoch, slot or None, deadline, why) of the agent's grant, None when there is none (or it is torn)."""
    words = read_words(GRANT_DIR, "grant")
    try:
        return float(words[0]), (None if words[1] == "-" else int(words[1])), float(words[2]), " ".join(words[3:])
    except (TypeError, ValueError, IndexError):
        return None


def fence(command):
    """Runs `command` (DHCP_SLOT set) only while the agent's grant names a slot and its deadline is
    ahead; stops it (TERM, KILL after STOP_GRACE) at that deadline, when the grant moves to another
    slot or stops, or on a TERM of its own (then exits 0). Exits with the command's status when it
    ends by itself. Moving the deadline later is all the agent can do: starved, stopped or dead,
    the command is stopped on time."""
    signals = []
    # A TERM only wakes the loop (through the wakeup pipe): the command is always stopped by it.
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: signals.append(signum))
    epoch, slot, deadline = 0.0, None, 0.0
    child = None
    state = ""

    def set_state(word):
        nonlocal state
        text = "%s %.6f\n" % (word, epoch)
        if text != state:
            write_file(FENCE_DIR, "state", text)
            state = text

    def stop(why):
        log("stopping %s (pid %d): %s" % (command[0], child.pid, why))
        child.terminate()
        try:
            child.wait(timeout=STOP_GRACE)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        log("stopped (pid %d, %s)" % (child.pid, why))

    set_state("busy")
    while True:
        grant = read_grant()
        if grant is not None and grant[0] > epoch:
            if child is not None and grant[1] != slot:
                stop("the slot agent %s" % ("moved to slot %d" % grant[1] if grant[1] is not None else "stopped serving slot %s: %s" % (slot, grant[3])))
                child = None
            epoch, deadline = grant[0], grant[2]
            if child is None:
                slot = grant[1]
        elif grant is not None and grant[0] == epoch:
            deadline = max(deadline, grant[2])
        if signals:
            if child is not None:
                stop("signal %d" % signals[0])
            set_state("exited")
            return 0
        if child is not None and now() >= deadline:
            stop("no renewal for %ss (renew deadline): another conductor may take slot %s" % (RENEW_DEADLINE, slot))
            child = None
        if child is not None and child.poll() is not None:
            log("%s (pid %d) exited with %s" % (command[0], child.pid, child.returncode))
            set_state("exited")
            return child.returncode
        # Also again within one hold: a renewal confirmed late (sent before the deadline that fired,
        # its answer after it) moves the deadline on, and that write is fenced by its own sending.
        if child is None and slot is not None and now() < deadline:
            child = subprocess.Popen(command, stdin=subprocess.DEVNULL, env=dict(os.environ, DHCP_SLOT=str(slot)))
            log("slot %s held: started %s (pid %d)" % (slot, command[0], child.pid))
        set_state("serving" if child is not None else "idle")
        wait = FENCE_POLL if child is None else max(0.0, min(FENCE_POLL, deadline - now()))
        if select.select([wake_r], [], [], wait)[0]:
            os.read(wake_r, 64)


class Grant:
    """The agent's side of the fence: one hold of `slot`, its deadline moved later by each renewal."""

    def __init__(self, slot, deadline):
        self.slot, self.epoch, self.deadline = slot, stamp_now(), deadline
        self.write()

    def write(self):
        write_file(GRANT_DIR, "grant", "%.6f %d %.6f\n" % (self.epoch, self.slot, self.deadline))

    def extend(self, deadline):
        if deadline > self.deadline:
            self.deadline = deadline
            self.write()


def stop_fence(why, confirm):
    """Asks the fence to stop whatever it serves (this agent's hold or an earlier agent's). With
    `confirm` (before a release), True once the fence confirms that no command runs (a fence that
    starts later reads this stop first), False when it did not in STOP_GRACE + 5 s."""
    epoch = stamp_now()
    write_file(GRANT_DIR, "grant", "%.6f - 0 %s\n" % (epoch, " ".join(why.split())))
    if not confirm:
        return False
    end = epoch + STOP_GRACE + 5
    while True:
        state = read_words(FENCE_DIR, "state")
        if state is None or state[0] == "exited" or (state[0] == "idle" and float(state[1]) >= epoch):
            return True
        if now() >= end:
            log("the fence did not confirm within %ss that dnsmasq stopped (state %s, %s)" % (STOP_GRACE + 5, " ".join(state), why))
            return False
        time.sleep(0.05)


# ---- The API ----------------------------------------------------------------------------------

class ApiError(Exception):
    """The API server answered with an error status."""

    def __init__(self, status, text):
        super().__init__("HTTP %s: %s" % (status, text))
        self.status = status


class TransportError(Exception):
    """No usable answer: connection, TLS, a cut or torn answer, none within the deadline."""


class Late(Exception):
    pass


def on_alarm(_signum, _frame):
    raise Late()


_ssl = {}


def ssl_context():
    import ssl
    try:
        stamp = os.stat(CA_FILE).st_mtime_ns if CA_FILE else None
    except OSError:
        stamp = None
    if _ssl.get("stamp", -1) != stamp:  # the CA bundle can be rotated
        _ssl["ctx"] = ssl.create_default_context(cafile=CA_FILE if stamp is not None else None)
        _ssl["stamp"] = stamp
    return _ssl["ctx"]


def exchange(method, path, body):
    import http.client
    import json
    import urllib.parse
    url = urllib.parse.urlsplit(API)
    headers = {"Accept": "application/json", "Connection": "close"}
    if TOKEN_FILE and os.path.exists(TOKEN_FILE):
        with open(TOKEN_FILE) as f:  # re-read: projected tokens rotate
            headers["Authorization"] = "Bearer " + f.read().strip()
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if url.scheme == "https":
        conn = http.client.HTTPSConnection(url.hostname, url.port or 443, context=ssl_context())
    else:
        conn = http.client.HTTPConnection(url.hostname, url.port or 80)
    try:
        conn.request(method, url.path.rstrip("/") + path, body=data, headers=headers)
        resp = conn.getresponse()
        status, raw = resp.status, resp.read()
    finally:
        conn.close()
    text = raw.decode("utf-8")
    if not 200 <= status < 300:
        raise ApiError(status, text[:300])
    answer = json.loads(text)
    meta = answer.get("metadata") if isinstance(answer, dict) else None
    if not isinstance(meta, dict) or not isinstance(meta.get("resourceVersion"), str) or not isinstance(answer.get("spec", {}), dict):
        raise ValueError("not a Lease: %s" % text[:120])
    answer.setdefault("spec", {})
    return answer


def request(method, path, body=None, timeout=5.0):
    """One API request, all of it within `timeout` seconds: the Lease answered, or ApiError (an
    error status) or TransportError (anything else)."""
    import http.client
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, max(0.05, timeout))
            return exchange(method, path, body)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except Late:
        raise TransportError("no whole answer within %.1fs" % timeout) from None
    except (OSError, http.client.HTTPException, ValueError) as e:  # TLS, IncompleteRead, BadStatusLine, JSON, no Lease
        raise TransportError("%s: %s" % (type(e).__name__, e)) from None


def lease_path(slot=None):
    base = "/apis/coordination.k8s.io/v1/namespaces/%s/leases" % NAMESPACE
    return base if slot is None else "%s/%s%d" % (base, PREFIX, slot)


def micro_time(after=""):
    """Now as a MicroTime, but later than `after` (the wall clock may step back)."""
    import datetime
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ"
    t = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    if after:
        t = max(t, datetime.datetime.strptime(after, fmt) + datetime.timedelta(microseconds=1))
    return t.strftime(fmt)


def labels():
    out = {}
    for item in filter(None, LABELS.split(",")):
        k, _, v = item.partition("=")
        out[k] = v
    return out


def record(spec):
    """What says a holder is alive: its identity and its last renewTime (client-go's record)."""
    return spec.get("holderIdentity") or "", spec.get("renewTime") or ""


def duration_of(spec):
    try:
        return max(int(spec.get("leaseDurationSeconds") or 0), LEASE_DURATION)
    except (TypeError, ValueError):
        return LEASE_DURATION


def write_status(text):
    if not STATUS_FILE:
        return
    tmp = STATUS_FILE + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.rename(tmp, STATUS_FILE)


# ---- Settings and preferences -----------------------------------------------------------------

def check_settings():
    missing = [n for n, v in (("SLOT_API_URL or KUBERNETES_SERVICE_HOST", API), ("SLOT_NAMESPACE", NAMESPACE),
                              ("SLOT_LEASE_PREFIX", PREFIX), ("SLOT_IDENTITY", IDENTITY),
                              ("SLOT_GRANT_DIR", GRANT_DIR), ("SLOT_FENCE_DIR", FENCE_DIR)) if not v]
    if missing:
        fatal("not set: " + ", ".join(missing))
    if COUNT < 1:
        fatal("SLOT_COUNT must be a positive number of slots, got %r" % env("SLOT_COUNT"))
    if not RENEW_DEADLINE + STOP_GRACE < LEASE_DURATION + CLAIM_MARGIN:
        fatal("unsafe timing: SLOT_RENEW_DEADLINE + SLOT_STOP_GRACE (%s) must stay below "
              "SLOT_LEASE_DURATION + SLOT_CLAIM_MARGIN (%s)" % (RENEW_DEADLINE + STOP_GRACE, LEASE_DURATION + CLAIM_MARGIN))
    if not RETRY_PERIOD < RENEW_DEADLINE:
        fatal("SLOT_RETRY_PERIOD (%s) must be below SLOT_RENEW_DEADLINE (%s)" % (RETRY_PERIOD, RENEW_DEADLINE))
    if not (CLAIM_MARGIN > 0 and STOP_GRACE > 0):
        fatal("SLOT_CLAIM_MARGIN (%s) and SLOT_STOP_GRACE (%s) must be positive" % (CLAIM_MARGIN, STOP_GRACE))


def preferences():
    """(pinned slot or None, preferred slot or None, slots remembered or pinned for other nodes, slots pinned for other nodes)."""
    if not PREFERENCES or not os.path.exists(PREFERENCES):
        return None, None, set(), set()
    import json
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
        st = os.stat(PREFERENCES) if PREFERENCES else None
        return (st.st_ino, st.st_mtime_ns, st.st_size) if st else None
    except OSError:
        return None


# ---- The agent --------------------------------------------------------------------------------

class Agent:
    def __init__(self):
        self.grant = None
        self.stopping = False
        self.seen = {}  # slot -> (record, monotonic time of the first answer showing it, its duration)
        self.history = {}  # slot -> the node its Lease names (held or released), as last surveyed
        self.sent = {}  # renewTime this agent wrote -> monotonic time that write was sent
        self.last_time = ""
        self.watching = set()  # slots held by others, seen this round, not yet expired
        self.read = set()  # slots whose Lease (or its absence) this agent has read
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
            if self.stopping:
                break
            try:
                lease = request("GET", lease_path(slot), timeout=REQUEST_TIMEOUT)
            except ApiError as e:
                if e.status != 404:
                    log("slot %d: API error while reading its Lease: %s" % (slot, e))
                else:
                    self.read.add(slot)
                self.history.pop(slot, None)
                continue
            except TransportError as e:
                log("slot %d: API error while reading its Lease: %s" % (slot, e))
                continue
            self.read.add(slot)
            node = ((lease.get("metadata") or {}).get("annotations") or {}).get(NODE_ANNOTATION)
            if node:
                self.history[slot] = node
            if NODE and node == NODE:
                spec = lease["spec"]
                mine.append((spec.get("holderIdentity") == IDENTITY, str(spec.get("renewTime") or ""), slot,
                             spec.get("holderIdentity"), duration_of(spec)))
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

    def next_time(self):
        """A renewTime later than every one this agent wrote (unique: it names the write)."""
        stamp = micro_time(self.last_time)
        self.last_time = stamp
        return stamp

    def held_spec(self, previous=None):
        """The spec of a Lease this agent claims (acquireTime = renewTime)."""
        stamp = self.next_time()
        transitions = (previous or {}).get("leaseTransitions", 0)
        if not isinstance(transitions, int):
            transitions = 0
        # A new holder, also of a released Lease (no holder), counts as a transition.
        if previous is not None and previous.get("holderIdentity") != IDENTITY:
            transitions += 1
        return {"holderIdentity": IDENTITY, "leaseDurationSeconds": LEASE_DURATION, "acquireTime": stamp,
                "renewTime": stamp, "leaseTransitions": transitions}

    def write(self, method, path, lease, timeout):
        """Sends a write of this agent's Lease; returns (answer, time sent)."""
        sent = now()
        self.sent[lease["spec"]["renewTime"]] = sent
        if len(self.sent) > 64:
            for k in sorted(self.sent)[:-32]:
                del self.sent[k]
        return request(method, path, lease, timeout=timeout), sent

    def try_claim(self, slot):
        """(Lease, time the claim was sent, created) when this agent now holds `slot`, else None."""
        try:
            lease = request("GET", lease_path(slot), timeout=REQUEST_TIMEOUT)
        except ApiError as e:
            if e.status != 404:
                raise
            self.read.add(slot)
            self.history.pop(slot, None)
            body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                    "metadata": {"name": "%s%d" % (PREFIX, slot), "namespace": NAMESPACE, "labels": labels(),
                                 "annotations": {NODE_ANNOTATION: NODE}},
                    "spec": self.held_spec()}
            try:
                lease, sent = self.write("POST", lease_path(), body, REQUEST_TIMEOUT)
                return lease, sent, True
            except ApiError as e2:
                if e2.status == 409:
                    log("slot %d: created by another agent first" % slot)
                    return None
                raise
        self.read.add(slot)
        node = (lease["metadata"].get("annotations") or {}).get(NODE_ANNOTATION)
        if node:
            self.history[slot] = node
        spec = lease["spec"]
        holder = spec.get("holderIdentity")
        if holder and holder != IDENTITY:
            seen_at = now()
            seen = self.seen.get(slot)
            if seen is None or seen[0] != record(spec):
                self.seen[slot] = seen = (record(spec), seen_at, duration_of(spec))
            if seen_at - seen[1] < seen[2] + CLAIM_MARGIN:
                self.watching.add(slot)
                return None
            log("slot %d: Lease of %s not renewed for %.1fs (duration %ss + margin %ss): taking it over"
                % (slot, holder, seen_at - seen[1], seen[2], CLAIM_MARGIN))
        lease["spec"] = self.held_spec(spec)
        lease["metadata"].setdefault("annotations", {})[NODE_ANNOTATION] = NODE
        try:
            answer, sent = self.write("PUT", lease_path(slot), lease, REQUEST_TIMEOUT)
            return answer, sent, False
        except ApiError as e:
            if e.status in (404, 409):
                return None  # changed or deleted meanwhile: look again next round
            raise

    def claim(self):
        """(slot, Lease, time the claim was sent, created) once this agent holds a slot; None when asked to stop."""
        waited = False
        last, holder, duration = (None, None, LEASE_DURATION) if self.pinned is not None else self.survey()
        # Held by another pod of this node (one that died without releasing): wait until it may be
        # taken over (its duration + margin after this agent first saw its record) rather than move
        # this node's slice, but not forever (a holder that keeps renewing is alive).
        patient = False
        if last is not None:
            log("slot %d: this node's last (%s)" % (last, "released" if not holder else "held by " + holder))
            patient = bool(holder) and holder != IDENTITY and last not in self.pinned_others
        start = now()
        wait = duration + CLAIM_MARGIN + 2 * RETRY_PERIOD
        failing = {}  # slot -> when it started failing (API errors in a row)
        while not self.stopping:
            if self.preferences_changed():
                log("preferences changed: pinned %s, remembered %s" % (self.pinned, self.preferred))
            if patient:
                seen = self.seen.get(last)
                until = max(start, seen[1] if seen else start) + wait
                patient = now() < min(until, start + 3 * wait)
            order = [last] if patient else self.order(last)
            errors = False
            self.watching.clear()
            for slot in order:
                if self.stopping:
                    return None
                try:
                    got = self.try_claim(slot)
                except (ApiError, TransportError) as e:
                    errors = True
                    since = failing.setdefault(slot, now())
                    # Not an answer about this slot. On a slot that may be this node's own (the one it
                    # held last, the one remembered for it, one naming it, one never read), trying the
                    # next one now would move its slice (and leave its own Lease held) on a passing
                    # error: ask again next round, for as long as a Lease takes to expire. A slot
                    # known to be another's is only skipped.
                    own = slot in (last, self.preferred) or self.history.get(slot) == NODE or slot not in self.read
                    if own and slot != order[-1] and now() - since < LEASE_DURATION + CLAIM_MARGIN + 2 * RETRY_PERIOD:
                        log("slot %d: API error while claiming: %s; asking again in %ss before any other slot" % (slot, e, RETRY_PERIOD))
                        break
                    log("slot %d: API error while claiming: %s; trying the next slot" % (slot, e))
                    continue
                failing.pop(slot, None)
                if got is not None:
                    return (slot,) + got
            if not waited:
                log("no free slot among %s yet; retrying every %ss" % (order, RETRY_PERIOD))
                write_status("waiting")
                waited = True
            # Look again after a retry period, or exactly when a Lease seen may be taken over.
            pause = RETRY_PERIOD
            if not errors:
                for s in self.watching:
                    pause = min(pause, self.seen[s][1] + self.seen[s][2] + CLAIM_MARGIN - now())
            self.sleep(max(0.0, pause))
        return None

    def sleep(self, seconds):
        end = now() + seconds
        while not self.stopping and now() < end:
            time.sleep(min(0.1, max(0.0, end - now())))

    def renew(self, slot, lease, confirmed):
        """One renewal: (Lease, time of the last confirmed write, reason to give up or None)."""
        sent_before = now()
        remaining = confirmed + RENEW_DEADLINE - sent_before
        renewed = dict(lease)
        renewed["spec"] = dict(lease["spec"])
        renewed["spec"]["renewTime"] = self.next_time()
        try:
            lease, sent = self.write("PUT", lease_path(slot), renewed, min(REQUEST_TIMEOUT, remaining))
            return lease, sent, None
        except ApiError as e:
            if e.status == 404:
                return lease, confirmed, "deleted"
            if e.status != 409:
                log("slot %d: renewal failed: %s" % (slot, e))
                return lease, confirmed, None
        except TransportError as e:
            log("slot %d: renewal failed: %s" % (slot, e))
            return lease, confirmed, None
        # 409: a write of ours may have landed with its answer lost. Look: it is ours while it
        # names this agent, and the renewTime it shows was written by a request sent then.
        try:
            current = request("GET", lease_path(slot), timeout=max(0.05, min(REQUEST_TIMEOUT, confirmed + RENEW_DEADLINE - now())))
        except ApiError as e:
            return lease, confirmed, "deleted" if e.status == 404 else None
        except TransportError:
            return lease, confirmed, None
        spec = current["spec"]
        if spec.get("holderIdentity") != IDENTITY:
            return lease, confirmed, "taken"
        sent = self.sent.get(spec.get("renewTime"))
        return current, max(confirmed, sent) if sent is not None else confirmed, None

    def hold(self, slot, lease, sent, created):
        """Renews from the claim (sent at `sent`) until the Lease is lost, a stop is asked, or the
        config pins the slot for another node (or this node elsewhere); grants the slot to the fence
        once it may be served. Returns the reason and the Lease."""
        confirmed = sent
        start_at = now()
        if created:
            start_at += RENEW_DEADLINE + STOP_GRACE + CLAIM_MARGIN
            log("slot %d: created its Lease; serving in %ss (any holder of a Lease of that name deleted meanwhile is fenced by then)"
                % (slot, RENEW_DEADLINE + STOP_GRACE + CLAIM_MARGIN))
        next_renewal = sent + RETRY_PERIOD
        while True:
            if self.stopping:
                return "stop", lease
            if now() >= confirmed + RENEW_DEADLINE:
                return "deadline", lease
            if self.grant is None and now() >= start_at:
                self.grant = Grant(slot, confirmed + RENEW_DEADLINE)
                write_status("slot %d" % slot)
            if self.preferences_changed() and (slot in self.pinned_others or self.pinned not in (None, slot)):
                return "yield", lease
            if now() >= next_renewal:
                next_renewal = now() + RETRY_PERIOD
                lease, confirmed, lost = self.renew(slot, lease, confirmed)
                if lost:
                    return lost, lease
                if self.grant is not None:
                    self.grant.extend(confirmed + RENEW_DEADLINE)
                continue
            wake = min(next_renewal, confirmed + RENEW_DEADLINE, start_at if self.grant is None else next_renewal)
            self.sleep(max(0.0, wake - now()))

    def stop_child(self, why, confirm=False):
        """Has the fence stop the command it runs for this hold; with `confirm` (before a release),
        whatever it runs, and True once it confirms that nothing runs."""
        if self.grant is not None:
            log("slot %d: asked the fence to stop serving it (%s)" % (self.grant.slot, why))
        elif not confirm:
            return False
        self.grant = None
        return stop_fence(why, confirm)

    def release(self, slot, lease):
        # Free for anyone at once (no holder), still naming this node: its next agent takes it back
        # first. An update with the resourceVersion held (compare-and-swap), like every write here.
        released = dict(lease)
        released["spec"] = {k: v for k, v in (lease.get("spec") or {}).items() if k not in ("holderIdentity", "acquireTime")}
        try:
            request("PUT", lease_path(slot), released, timeout=REQUEST_TIMEOUT)
            log("slot %d released" % slot)
        except (ApiError, TransportError) as e:
            log("slot %d: release failed (%s); it frees when the Lease expires" % (slot, e))

    def run(self):
        check_settings()
        signal.signal(signal.SIGTERM, self.on_signal)
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGALRM, on_alarm)
        log("node %s, %d slots, Leases %s/%s0..%d" % (NODE or "?", COUNT, NAMESPACE, PREFIX, COUNT - 1))
        while not self.stopping:
            got = self.claim()
            if got is None:
                break
            slot, lease, sent, created = got
            why, lease = self.hold(slot, lease, sent, created)
            if why == "deadline":
                self.stop_child("no renewal for %ss (renew deadline): another conductor may take slot %d" % (RENEW_DEADLINE, slot))
                log("slot %d: no renewal confirmed for %ss (renew deadline): lost" % (slot, RENEW_DEADLINE))
            elif why in ("taken", "deleted"):
                self.stop_child("the Lease of slot %d was %s by someone else" % (slot, why))
            elif why == "yield":
                if self.stop_child("slot %d is now pinned %s" % (slot, "for another node" if slot in self.pinned_others else "elsewhere for this node"), confirm=True):
                    self.release(slot, lease)
            else:
                # Free at once only when the fence confirmed that dnsmasq stopped; else at expiry.
                if self.stop_child("stop asked", confirm=True):
                    self.release(slot, lease)
                else:
                    log("slot %d: not released; it frees when the Lease expires" % slot)
                write_status("stopped")
                return 0
            write_status("lost slot %d" % slot)
        write_status("stopped")
        return 0

    def on_signal(self, signum, _frame):
        self.stopping = True


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--fence":
        if not (GRANT_DIR and FENCE_DIR):
            fatal("not set: SLOT_GRANT_DIR and SLOT_FENCE_DIR (the fence reads the agent's grant and writes its state there)")
        sys.exit(fence(sys.argv[2:]))
    if len(sys.argv) != 1:
        fatal("usage: dhcp-slot-agent.py (the agent) | dhcp-slot-agent.py --fence <command> [args...]")
    agent = Agent()
    try:
        code = agent.run()
    finally:
        # Whatever ends the agent (even a bug), it asks the fence to stop what it granted.
        agent.stop_child("the agent is exiting")
    sys.exit(code)


if __name__ == "__main__":
    main()
