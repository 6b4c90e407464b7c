#!/usr/bin/env python3
"""Live readiness of a metal3-ironic stack, run by `pulumi up` where `pulumi up` runs.

Waits until every expected conductor is alive in Ironic's `GET /v1/conductors`, reaching the API
either at its in-cluster Service URL or through `kubectl port-forward` to that Service, over TLS
verified with the stack CA, with the generated API credentials. components/readiness.ts runs it
through @pulumi/command (`python3 -`, this file on stdin); core/scripts.ts declares the
environment it reads (READINESS_ENV) and why; the README ("Live readiness") says what users see.

stdout: the hostnames of the alive conductors ([DEFAULT]host, without the JSON-RPC port Ironic
appends when it registers them), sorted, one per line, and nothing else.
stderr: progress, and on failure which conductors never came alive and what was seen last.
Exit status: 0 ready; 1 not ready within the timeout; 2 unusable environment.
Needs Python 3.8+ (standard library only) and, for port-forward, kubectl on PATH.
The password is only ever put into the Authorization header, never printed.
"""

import base64
import http.client
import json
import os
import queue
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

# GET /v1/conductors exists from API microversion 1.49 on; older requests get 404.
MICROVERSION = "1.49"
PREFIX = "metal3-ironic readiness: "
# How long kubectl may take to print its "Forwarding from" line.
FORWARD_START_SECONDS = 30
REQUEST_TIMEOUT_SECONDS = 10


def log(msg):
    print(PREFIX + msg, file=sys.stderr, flush=True)


class Fatal(Exception):
    """The environment cannot work at all: exit 2 at once."""


class NotYet(Exception):
    """This attempt failed; worth reporting, and trying again until the deadline."""


def number(name, raw, default):
    raw = raw or default
    try:
        value = float(raw)
    except ValueError:
        raise Fatal("%s=%r is not a number of seconds" % (name, raw)) from None
    if value <= 0:
        raise Fatal("%s=%r must be above 0" % (name, raw))
    return value


class TlsConnection(http.client.HTTPSConnection):
    """HTTPS to (host, port) with the certificate checked against tls_name (port-forward: 127.0.0.1)."""

    def __init__(self, host, port, tls_name, context):
        super().__init__(host, port, timeout=REQUEST_TIMEOUT_SECONDS, context=context)
        self.tls_name = tls_name
        self.tls_context = context

    def connect(self):
        sock = socket.create_connection((self.host, self.port), self.timeout)
        self.sock = self.tls_context.wrap_socket(sock, server_hostname=self.tls_name)


class PortForward:
    """`kubectl port-forward` to the API Service on a free local port; started again when it died."""

    def __init__(self, context, namespace, service, port):
        self.args = ["kubectl"] + (["--context", context] if context else [])
        self.args += ["--namespace", namespace, "port-forward", "--address", "127.0.0.1", "service/" + service, ":" + port]
        self.where = "kubectl port-forward service/%s (namespace %s%s)" % (service, namespace, ", context " + context if context else "")
        self.proc = None
        self.port = None
        self.errors = []

    def _pump(self, stream, sink):
        for line in stream:
            sink(line.rstrip("\n"))

    def _start(self):
        try:
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except FileNotFoundError:
            raise Fatal("kubectl is not on PATH: readiness.mode port-forward (or auto outside a cluster) needs it") from None
        lines = queue.Queue()
        self.errors = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.errors.append), daemon=True).start()
        deadline = time.monotonic() + FORWARD_START_SECONDS
        while True:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    time.sleep(0.2)  # let the stderr reader catch up
                    raise NotYet("%s exited (%s): %s" % (self.where, self.proc.returncode, " / ".join(self.errors[-3:]) or "no message"))
                if time.monotonic() > deadline:
                    self.close()
                    raise NotYet("%s printed no 'Forwarding from' line within %d s" % (self.where, FORWARD_START_SECONDS))
                continue
            match = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) -> ", line)
            if match:
                self.port = int(match.group(1))
                return

    def address(self):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        return ("127.0.0.1", self.port)

    def reset(self):
        """After a failed request: a forward to a pod that went away does not recover."""
        self.close()

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Api:
    """GET /v1/conductors, directly (in-cluster) or through a PortForward."""

    def __init__(self):
        url = os.environ.get("READINESS_API_URL", "")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Fatal("READINESS_API_URL=%r is not an http(s) URL" % url)
        self.scheme = parts.scheme
        self.service_port = parts.port or (443 if parts.scheme == "https" else 80)
        self.tls_name = os.environ.get("READINESS_TLS_NAME", "") or parts.hostname
        user = os.environ.get("READINESS_USERNAME", "")
        password = os.environ.get("READINESS_PASSWORD", "")
        if not user or not password:
            raise Fatal("READINESS_USERNAME and READINESS_PASSWORD must be set (the API credentials)")
        self.auth = "Basic " + base64.b64encode((user + ":" + password).encode()).decode()
        self.context = None
        if self.scheme == "https":
            try:
                self.context = ssl.create_default_context(cadata=os.environ.get("READINESS_CA_PEM", ""))
            except (ssl.SSLError, ValueError, TypeError) as e:
                raise Fatal("READINESS_CA_PEM is not a usable PEM CA certificate (%s)" % e) from None
        mode = os.environ.get("READINESS_MODE", "") or "auto"
        if mode == "auto":
            mode = "in-cluster" if os.environ.get("KUBERNETES_SERVICE_HOST", "") else "port-forward"
        if mode not in ("in-cluster", "port-forward"):
            raise Fatal("READINESS_MODE=%r: expected auto, in-cluster or port-forward" % mode)
        self.mode = mode
        self.forward = None
        if mode == "port-forward":
            service = os.environ.get("READINESS_SERVICE", "")
            namespace = os.environ.get("READINESS_NAMESPACE", "")
            port = os.environ.get("READINESS_SERVICE_PORT", "") or str(self.service_port)
            if not service or not namespace:
                raise Fatal("READINESS_SERVICE and READINESS_NAMESPACE must be set for port-forward")
            self.forward = PortForward(os.environ.get("READINESS_KUBE_CONTEXT", ""), namespace, service, port)
            self.where = self.forward.where
            self.direct = None
        else:
            self.direct = (parts.hostname, self.service_port)
            self.where = url

    def conductors(self):
        """[(hostname, alive)] as the API reports them; raises NotYet on any failure."""
        host, port = self.direct or self.forward.address()
        if self.scheme == "https":
            conn = TlsConnection(host, port, self.tls_name, self.context)
        else:
            conn = http.client.HTTPConnection(host, port, timeout=REQUEST_TIMEOUT_SECONDS)
        headers = {
            "Host": "%s:%d" % (self.tls_name, self.service_port),
            "Authorization": self.auth,
            "X-OpenStack-Ironic-API-Version": MICROVERSION,
            "Accept": "application/json",
        }
        try:
            conn.request("GET", "/v1/conductors", headers=headers)
            resp = conn.getresponse()
            status, body = resp.status, resp.read(1000000)
        except ssl.SSLCertVerificationError as e:
            raise NotYet("TLS: the API's certificate is not valid for %s or not signed by the stack CA (%s)" % (self.tls_name, e.verify_message)) from None
        except (OSError, http.client.HTTPException) as e:
            if self.forward:
                self.forward.reset()
            raise NotYet("cannot reach the API (%s): %s" % (self.where, e)) from None
        finally:
            conn.close()
        return parse(status, body)

    def close(self):
        if self.forward:
            self.forward.close()


def parse(status, body):
    text = " ".join(body.decode("utf-8", "replace").split())[:300]
    if status == 401:
        raise NotYet("GET /v1/conductors: HTTP 401, the API refused the credentials: %s" % text)
    if status in (404, 406):
        raise NotYet("GET /v1/conductors: HTTP %d, the API lacks microversion %s (Ironic too old?): %s" % (status, MICROVERSION, text))
    if status != 200:
        raise NotYet("GET /v1/conductors: HTTP %d: %s" % (status, text))
    try:
        items = json.loads(body)["conductors"]
        return [(conductor_name(c["hostname"]), c.get("alive") is True) for c in items]
    except (ValueError, KeyError, TypeError):
        raise NotYet("GET /v1/conductors: not the expected JSON: %s" % text) from None


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


def describe(seen):
    if not seen:
        return "GET /v1/conductors: no conductor registered"
    return "GET /v1/conductors: " + ", ".join("%s %s" % (h, "alive" if a else "not alive") for h, a in sorted(seen))


def wait(api, expected, timeout, interval):
    """0 and the alive hostnames on stdout when every expected one is alive (any one if none is expected), else 1."""
    deadline = time.monotonic() + timeout
    what = ("conductors " + ", ".join(expected)) if expected else "a conductor"
    log("waiting up to %d s for %s to be alive in GET /v1/conductors (%s: %s)" % (timeout, what, api.mode, api.where))
    last, reported, alive = "no answer yet", None, []
    while True:
        try:
            seen = api.conductors()
            alive = sorted({h for h, a in seen if a})
            if all(h in alive for h in expected) and alive:
                print("\n".join(alive), flush=True)
                log("ready: %s alive" % ", ".join(alive))
                return 0
            last = describe(seen)
        except NotYet as e:
            last = str(e)
        if last != reported:
            log("not ready yet: " + last)
            reported = last
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(interval, remaining))
    missing = [h for h in expected if h not in alive]
    if expected:
        log("conductors never came alive within %d s: %s (expected %s). Last seen: %s" % (timeout, ", ".join(missing), ", ".join(expected), last))
    else:
        log("no conductor came alive within %d s. Last seen: %s" % (timeout, last))
    namespace = os.environ.get("READINESS_NAMESPACE", "")
    log("look at the Ironic pods (kubectl --namespace %s get pods, then their logs); readiness.timeoutSeconds sets the wait, "
        "readiness.enabled false turns this check off" % (namespace or "<namespace>"))
    return 1


def main():
    # pulumi cancels with SIGTERM: leave through `finally`, so kubectl is stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    api = None
    try:
        timeout = number("READINESS_TIMEOUT", os.environ.get("READINESS_TIMEOUT", ""), "600")
        interval = number("READINESS_INTERVAL", os.environ.get("READINESS_INTERVAL", ""), "5")
        expected = sorted({conductor_name(h) for h in re.split(r"[,\s]+", os.environ.get("READINESS_CONDUCTORS", "")) if h})
        api = Api()
        return wait(api, expected, timeout, interval)
    except Fatal as e:
        log(str(e))
        return 2
    finally:
        if api is not None:
            api.close()


if __name__ == "__main__":
    sys.exit(main())
