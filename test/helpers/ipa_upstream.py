"""A stand-in for the IPA tarball server (tarballs.opendev.org) on loopback, for the image cache tests.

Serves files from ROOT (argv[1]) on 127.0.0.1:PORT (argv[2]) with an ETag (sha256 of the content)
and a Last-Modified, answers If-None-Match with 304, and appends one line per GET to LOG (argv[3]):
"<path> <status> <bytes sent>", so the test counts downloads at the source. A file <name>.cut next
to a file makes the server send the full Content-Length but only half the body, then close.
"""

import email.utils
import hashlib
import http.server
import os
import sys
import time

ROOT, PORT, LOG = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, status, sent):
        with open(LOG, "a") as f:
            f.write("%s %d %d\n" % (self.path, status, sent))

    def do_GET(self):
        path = os.path.join(ROOT, self.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return self.record(404, 0)
        data = open(path, "rb").read()
        etag = '"%s"' % hashlib.sha256(data).hexdigest()[:16]
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return self.record(304, 0)
        cut = os.path.exists(path + ".cut")
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", email.utils.formatdate(os.stat(path).st_mtime, usegmt=True))
        self.end_headers()
        body = data[: len(data) // 2] if cut else data
        self.wfile.write(body)
        self.wfile.flush()
        self.record(200, len(body))
        if cut:
            time.sleep(0.2)
            self.close_connection = True


http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
