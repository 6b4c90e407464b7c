"""IPA image cache: serve the current complete version of each architecture over HTTPS.

Runs in the ironic image (python3.12, standard library only). Serves exactly
  /images/ironic-python-agent_<arch>.kernel      GET, HEAD
  /images/ironic-python-agent_<arch>.initramfs   GET, HEAD
  /images/ironic-python-agent_<arch>.sha256      the version's SHA256SUMS
  /healthz                                       200 once every architecture has a version
for the architectures in IPA_CACHE_ARCHES, from IPA_CACHE_DIR/current/<arch> (a symlink that
assets/ipa-cache-sync.sh replaces atomically; download directories are never reachable). Each
request resolves the symlink once and opens the file, so a response is one version throughout.
Last-Modified is the file's mtime: Ironic's image cache compares it to refetch a replaced IPA.
"""

import email.utils
import http.server
import os
import re
import shutil
import ssl
import sys

ROOT = os.environ.get("IPA_CACHE_DIR", "/cache")
ARCHES = os.environ.get("IPA_CACHE_ARCHES", "x86_64").split()
PORT = int(os.environ.get("IPA_CACHE_PORT", "6186"))
CERT_DIR = os.environ.get("IPA_CACHE_CERT_DIR", "/certs/ipa-cache-server")
PATH = re.compile(r"^/images/ironic-python-agent_([a-z0-9_]+)\.(kernel|initramfs|sha256)$")
FILES = {"kernel": "ironic-python-agent.kernel", "initramfs": "ironic-python-agent.initramfs", "sha256": "SHA256SUMS"}
CHUNK = 1 << 20


def version_dir(arch):
    """The directory of the served version of `arch`, or None while there is no complete one."""
    d = os.path.realpath(os.path.join(ROOT, "current", arch))
    return d if os.path.isfile(os.path.join(d, "complete")) else None


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "metal3-ipa-cache"
    protocol_version = "HTTP/1.1"
    # A client that stops reading (or never finishes its handshake) frees its thread.
    timeout = 120

    def log_message(self, fmt, *args):
        sys.stderr.write("ipa-cache-server: %s %s\n" % (self.address_string(), fmt % args))

    def plain(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def serve(self):
        if self.path == "/healthz":
            missing = [a for a in ARCHES if version_dir(a) is None]
            return self.plain(503, "no version yet: %s\n" % " ".join(missing)) if missing else self.plain(200, "ok\n")
        m = PATH.match(self.path)
        if not m or m.group(1) not in ARCHES:
            return self.plain(404, "not found\n")
        d = version_dir(m.group(1))
        if d is None:
            return self.plain(503, "no complete version of %s yet\n" % m.group(1))
        with open(os.path.join(d, FILES[m.group(2)]), "rb") as f:
            st = os.fstat(f.fileno())
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream" if m.group(2) != "sha256" else "text/plain")
            self.send_header("Content-Length", str(st.st_size))
            self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
            self.end_headers()
            if self.command != "HEAD":
                shutil.copyfileobj(f, self.wfile, CHUNK)

    def do_GET(self):
        self.serve()

    def do_HEAD(self):
        self.serve()


def main():
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(os.path.join(CERT_DIR, "tls.crt"), os.path.join(CERT_DIR, "tls.key"))
    httpd = http.server.ThreadingHTTPServer(("", PORT), Handler)
    httpd.daemon_threads = True
    # The handshake runs in each request's thread, not in the accept loop.
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True, do_handshake_on_connect=False)
    sys.stderr.write("ipa-cache-server: serving %s on https port %d\n" % (" ".join(ARCHES), PORT))
    httpd.serve_forever()


if __name__ == "__main__":
    main()
