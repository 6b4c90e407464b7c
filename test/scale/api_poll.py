#!/usr/bin/env python3
"""A client of the Ironic API through an upgrade (test/integration/upgrade.test.ts): every
--interval seconds, against each --api in turn, a read (GET /v1/nodes, one page of UUIDs) and a
write through Ironic's RPC to the node's owning conductor (PATCH a node's extra, the nodes of
--nodes in turn), until SIGTERM. One JSON line per request on stdout: time, API, operation, HTTP
status (0: no answer), what went wrong (the error body), the API's maximum version (X-OpenStack-Ironic-API-Maximum-Version: a pinned
API reports its pinned release's), milliseconds.
Standard library only; run in the lab's admin network namespace."""
import argparse
import base64
import json
import signal
import ssl
import sys
import time
import urllib.error
import urllib.request

stop = False


def on_term(*_):
    global stop
    stop = True


def request(url, method, headers, ctx, body=None):
    """(status, maximum version, start time, what went wrong: the error body or exception, else "")."""
    t0 = time.time()
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5, context=ctx) as r:
            r.read()
            return r.status, r.headers.get("X-OpenStack-Ironic-API-Maximum-Version"), t0, ""
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("X-OpenStack-Ironic-API-Maximum-Version"), t0, e.read()[:400].decode(errors="replace")
    except Exception as e:
        return 0, None, t0, repr(e)[:200]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--api", action="append", required=True)
    p.add_argument("--auth", required=True, help="file with username and password, one per line")
    p.add_argument("--ca", required=True)
    p.add_argument("--nodes", default="", help="comma-separated node UUIDs to PATCH in turn")
    p.add_argument("--interval", type=float, default=0.5)
    a = p.parse_args()
    signal.signal(signal.SIGTERM, on_term)
    with open(a.auth) as f:
        user, password = f.read().split("\n")[:2]
    token = base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
    # 1.82: what the pruner and BMO-era clients ask for; within the pinned release's range.
    headers = {"Authorization": "Basic " + token, "X-OpenStack-Ironic-API-Version": "1.82", "Accept": "application/json", "Content-Type": "application/json"}
    ctx = ssl.create_default_context(cafile=a.ca)
    nodes = [n for n in a.nodes.split(",") if n]
    n = 0
    while not stop:
        tick = time.time()
        for api in a.api:
            code, maxv, t0, err = request(api + "/v1/nodes?fields=uuid&limit=50", "GET", headers, ctx)
            print(json.dumps({"t": round(t0, 3), "api": api, "op": "get", "code": code, "max": maxv, "ms": round((time.time() - t0) * 1000, 1), "error": err}), flush=True)
            if nodes:
                uuid = nodes[n % len(nodes)]
                n += 1
                code, maxv, t0, err = request(api + "/v1/nodes/" + uuid, "PATCH", headers, ctx, [{"op": "add", "path": "/extra/upgrade_poll", "value": str(n)}])
                print(json.dumps({"t": round(t0, 3), "api": api, "op": "patch", "node": uuid, "code": code, "max": maxv, "ms": round((time.time() - t0) * 1000, 1), "error": err}), flush=True)
        time.sleep(max(0.0, a.interval - (time.time() - tick)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
