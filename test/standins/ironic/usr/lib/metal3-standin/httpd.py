#!/usr/bin/env python3
"""Stand-in for the ironic image's Apache httpd (ironic-image-contract.md §6, §7, §13).

Started by the stand-in /bin/runhttpd with the JSON file it writes (/conf/httpd/standin.json).
Python standard library plus python3-bcrypt, nothing else. Listeners, as the image's httpd
configuration has them (LISTEN_ALL_INTERFACES=false binds the plain and API ports to IRONIC_IP,
not the virtual-media port):

* plain HTTP on HTTP_PORT: DocumentRoot /shared/html. With virtual-media TLS the directories
  /shared/html/redfish and /shared/html/ilo are refused (403); with HTTPD_SERVE_NODE_IMAGES=false
  only the ironic* files of /shared/html/images are served; .ht* files never.
* virtual media over HTTPS on VMEDIA_TLS_PORT (with /certs/vmedia): only /shared/html/redfish and
  /shared/html/ilo.
* the API over HTTPS on IRONIC_LISTEN_PORT (API TLS and IRONIC_REVERSE_PROXY_SETUP): /images from
  /shared/html/images, everything else proxied to Ironic's unix socket /shared/ironic.sock (or
  127.0.0.1:IRONIC_PRIVATE_PORT). With an htpasswd, HTTP basic auth (bcrypt) on everything except
  /, /v1, /v1/lookup, /v1/heartbeat, /v1/continue_inspection and /images.

SIGTERM, SIGINT and SIGWINCH (Apache's graceful stop) end it with status 0. A changed or removed
certificate (RESTART_CONTAINER_CERTIFICATE_UPDATED) ends it too, so the container restarts on the
new certificate.
"""
import base64
import hashlib
import http.client
import http.server
import json
import os
import posixpath
import re
import signal
import socket
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

import bcrypt

PUBLIC_API = [re.compile(r"^/(v1/?)?$"), re.compile(r"^/(v1/)?(lookup|heartbeat|continue_inspection)"), re.compile(r"^/images(/.*)?$")]
VMEDIA = re.compile(r"^/(redfish|ilo)(/|$)")
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers", "transfer-encoding", "upgrade"}


def log(msg):
    sys.stderr.write(f"httpd: {msg}\n")
    sys.stderr.flush()


def fatal(msg):
    sys.stderr.write(f"FATAL: httpd: {msg}\n")
    sys.stderr.flush()
    sys.exit(1)


class Htpasswd:
    """user -> bcrypt hash; successful checks are remembered (bcrypt is slow on purpose)."""

    def __init__(self, path):
        self.users = {}
        self.ok = set()
        self.lock = threading.Lock()
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or ":" not in line:
                    continue
                user, _, h = line.partition(":")
                self.users[user] = h.encode()

    def check(self, user, password):
        h = self.users.get(user)
        if h is None:
            return False
        key = hashlib.sha256(user.encode() + b"\0" + password.encode() + b"\0" + h).hexdigest()
        with self.lock:
            if key in self.ok:
                return True
        try:
            good = bcrypt.checkpw(password.encode(), h)
        except ValueError:
            good = False
        if good:
            with self.lock:
                self.ok.add(key)
        return good


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("127.0.0.1", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


class Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "metal3-standin-httpd"
    sys_version = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=CONF["docroot"], **kwargs)

    # TLS handshake in the connection's own thread, so a slow client cannot block accept().
    def setup(self):
        ctx = self.server.ssl_ctx
        if ctx is not None:
            self.request.settimeout(30)
            try:
                self.request = ctx.wrap_socket(self.request, server_side=True)
            except (ssl.SSLError, OSError) as e:
                log(f"{self.server.role}: TLS handshake with {self.client_address[0]} failed: {e}")
                raise
        super().setup()

    def log_message(self, fmt, *args):
        log(f"{self.server.role} {self.client_address[0]} - {fmt % args}")

    # -- helpers ---------------------------------------------------------------------------
    def url_path(self):
        return urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)

    def norm_path(self):
        p = posixpath.normpath(self.url_path())
        return "/" if p in (".", "//") else p

    def refuse(self, code, why):
        body = f"{code} {http.client.responses.get(code, '')}: {why}\n".encode()
        self.send_response(code)
        if code == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="Restricted area"')
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def static_allowed(self):
        """None when the static file may be served, else (status, reason)."""
        p = self.norm_path()
        if posixpath.basename(p).startswith(".ht"):
            return 403, "forbidden"
        role = self.server.role
        if role == "plain":
            c = CONF["plain"]
            if c["deny_vmedia"] and VMEDIA.match(p + "/"):
                return 403, "virtual media is served over HTTPS only"
            if (p == "/images" or p.startswith("/images/")) and not c["serve_node_images"] and not posixpath.basename(p).startswith("ironic"):
                return 403, "node images are not served (HTTPD_SERVE_NODE_IMAGES=false)"
        elif role == "vmedia":
            if not VMEDIA.match(p + "/") or p in ("/redfish", "/ilo"):
                return 403, "only /redfish/ and /ilo/ are served on the virtual-media port"
        elif role == "api":
            if not (p == "/images" or p.startswith("/images/")):
                return 403, "forbidden"
        return None

    def serve_static(self):
        denied = self.static_allowed()
        if denied:
            return self.refuse(*denied)
        if self.command == "HEAD":
            return super().do_HEAD()
        return super().do_GET()

    # -- API proxy -------------------------------------------------------------------------
    def authorized(self):
        htp = self.server.htpasswd
        if htp is None or any(r.match(self.url_path()) for r in PUBLIC_API):
            return True
        h = self.headers.get("Authorization", "")
        if not h.lower().startswith("basic "):
            return False
        try:
            user, _, password = base64.b64decode(h[6:].strip()).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        return htp.check(user, password)

    def read_body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else None

    def proxy(self):
        backend = CONF["api"]["backend"]
        body = self.read_body()
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() not in ("host", "content-length")}
        headers["Host"] = "127.0.0.1"
        headers["X-Forwarded-For"] = self.client_address[0]
        if self.headers.get("Host"):
            headers["X-Forwarded-Host"] = self.headers["Host"]
        if body is not None:
            headers["Content-Length"] = str(len(body))
        try:
            if backend.startswith("unix:"):
                conn = UnixHTTPConnection(backend[5:], timeout=120)
            else:
                u = urllib.parse.urlsplit(backend)
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            conn.close()
        except OSError as e:
            log(f"api: backend {backend} unavailable: {e}")
            return self.refuse(503, f"the Ironic API at {backend} is not available")
        self.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() in HOP_BY_HOP or k.lower() == "content-length":
                continue
            if k.lower() == "location" and v.startswith("http://127.0.0.1/") and self.headers.get("Host"):
                v = f"https://{self.headers['Host']}/" + v[len("http://127.0.0.1/"):]
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_api(self):
        if not self.authorized():
            return self.refuse(401, "authentication required")
        p = self.url_path()
        if p == "/images" or p.startswith("/images/"):
            if self.command in ("GET", "HEAD"):
                return self.serve_static()
            return self.refuse(405, "method not allowed")
        return self.proxy()

    # -- dispatch --------------------------------------------------------------------------
    def dispatch(self):
        if self.server.role == "api":
            return self.handle_api()
        if self.command in ("GET", "HEAD"):
            return self.serve_static()
        return self.refuse(405, "method not allowed")

    do_GET = dispatch
    do_HEAD = dispatch
    do_POST = dispatch
    do_PUT = dispatch
    do_PATCH = dispatch
    do_DELETE = dispatch
    do_OPTIONS = dispatch


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, role, bind, port, ssl_ctx=None, htpasswd=None):
        self.role = role
        self.ssl_ctx = ssl_ctx
        self.htpasswd = htpasswd
        if bind:
            self.address_family = socket.AF_INET6 if ":" in bind else socket.AF_INET
            addr = bind
        else:
            # All addresses, IPv4 and IPv6 (LISTEN_ALL_INTERFACES).
            self.address_family = socket.AF_INET6 if socket.has_ipv6 else socket.AF_INET
            addr = "::" if socket.has_ipv6 else "0.0.0.0"
        try:
            super().__init__((addr, port), Handler, bind_and_activate=True)
        except OSError as e:
            if not bind and addr == "::":
                self.address_family = socket.AF_INET
                try:
                    super().__init__(("0.0.0.0", port), Handler, bind_and_activate=True)
                    return
                except OSError as e4:
                    e = e4
            hint = " (ports below 1024 need NET_BIND_SERVICE, which this container does not have)" if port < 1024 else ""
            fatal(f"{role}: cannot listen on port {port} as uid {os.getuid()}: {e}{hint}")

    def handle_error(self, request, client_address):
        log(f"{self.role}: connection from {client_address[0]}: {sys.exc_info()[1]!r}")

    def server_bind(self):
        if self.address_family == socket.AF_INET6:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = host
        self.server_port = port


def tls_context(cert, key, min_tls12):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    if min_tls12:
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        ctx.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as e:
        fatal(f"cannot load the certificate {cert} and key {key}: {e}")
    return ctx


def digest(files):
    out = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                out.append(hashlib.sha256(fh.read()).hexdigest())
        except OSError:
            out.append("missing")
    return out


def main():
    global CONF
    with open(sys.argv[1]) as f:
        CONF = json.load(f)
    bind = CONF.get("bind") or ""
    servers = [Server("plain", bind, CONF["plain"]["port"])]
    if CONF.get("vmedia"):
        v = CONF["vmedia"]
        # The image's vmedia vhost template has `Listen <port>` and no address, whatever
        # LISTEN_ALL_INTERFACES says (ironic-config/apache2-vmedia.conf.j2): every address.
        servers.append(Server("vmedia", "", v["port"], tls_context(v["cert"], v["key"], False)))
    if CONF.get("api"):
        a = CONF["api"]
        htp = None
        if a.get("htpasswd"):
            htp = Htpasswd(a["htpasswd"])
            if not htp.users:
                fatal(f"{a['htpasswd']} holds no user")
        servers.append(Server("api", bind, a["port"], tls_context(a["cert"], a["key"], True), htp))

    stop = threading.Event()

    def on_signal(signum, _frame):
        log(f"signal {signal.Signals(signum).name}: stopping")
        stop.set()

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGWINCH):
        signal.signal(s, on_signal)

    for s in servers:
        threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True).start()
        log(f"{s.role}: listening on {s.server_address[0]} port {s.server_address[1]}{' (TLS)' if s.ssl_ctx else ''}")
    pidfile = CONF.get("pidfile")
    if pidfile:
        with open(pidfile, "w") as f:
            f.write(f"{os.getpid()}\n")

    watch = CONF.get("watch") or []
    before = digest(watch)
    while not stop.wait(2):
        if watch and digest(watch) != before:
            log(f"a certificate changed ({', '.join(watch)}): stopping so the container restarts with it")
            break
    for s in servers:
        s.shutdown()
        s.server_close()
    sys.exit(0)


CONF = {}

if __name__ == "__main__":
    main()
