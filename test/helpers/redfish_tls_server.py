"""A minimal Redfish endpoint over HTTPS for trust tests: the service root and one system.

Usage: redfish_tls_server.py CERT KEY HOST PORT. Serves until killed; logs each request to stderr.
"""
import http.server
import json
import ssl
import sys

cert, key, host, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

DOCS = {
    "/redfish/v1": {
        "@odata.id": "/redfish/v1/",
        "@odata.type": "#ServiceRoot.v1_5_0.ServiceRoot",
        "Id": "RootService",
        "Name": "Root Service",
        "RedfishVersion": "1.5.0",
        "UUID": "00000000-0000-0000-0000-000000000001",
        "Systems": {"@odata.id": "/redfish/v1/Systems"},
    },
    "/redfish/v1/Systems": {
        "@odata.id": "/redfish/v1/Systems",
        "Name": "Systems",
        "Members@odata.count": 1,
        "Members": [{"@odata.id": "/redfish/v1/Systems/1"}],
    },
    "/redfish/v1/Systems/1": {
        "@odata.id": "/redfish/v1/Systems/1",
        "@odata.type": "#ComputerSystem.v1_10_0.ComputerSystem",
        "Id": "1",
        "Name": "test host",
        "PowerState": "On",
    },
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        doc = DOCS.get(self.path.rstrip("/") or "/")
        body = json.dumps(doc if doc is not None else {"error": "not found"}).encode()
        self.send_response(200 if doc is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server = http.server.ThreadingHTTPServer((host, port), Handler)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(f"listening on {host}:{port}", file=sys.stderr, flush=True)
server.serve_forever()
