#!/usr/bin/env python3
"""Drives N fake-hardware nodes through Ironic's API for the scale benchmark (test/scale/).

Runs inside the lab's admin network namespace (the only place the conductors' APIs are reachable),
with the API credentials and CA the stack rendered. Requests go round-robin to the conductors'
APIs, as the API Service spreads them. Each phase prints one JSON line on stdout.

  enroll: create node (fake power/management, iPXE boot, ramdisk deploy, no automated clean) and its
          port, then manage and provide every node; timed until every node is `available`.
  deploy: set each node's instance kernel/ramdisk (http) and deploy it; timed until every node is
          `active`. A ramdisk deploy with iPXE makes the owning conductor write the node's DHCP host
          and option files through the `dnsmasq` DHCP provider: Ironic itself, no stand-in.
  owners: every node's uuid, MAC and owning conductor (as the API reports it).
"""
import argparse
import base64
import concurrent.futures
import json
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request

HEADERS = {"X-OpenStack-Ironic-API-Version": "1.82", "Content-Type": "application/json", "Accept": "application/json"}


class Api:
    def __init__(self, urls, user, password, cafile):
        self.urls = urls
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.ctx = ssl.create_default_context(cafile=cafile)
        self.n = 0
        self.dropped = 0
        self.lock = threading.Lock()

    def call(self, method, path, body=None, tries=5):
        with self.lock:
            base = self.urls[self.n % len(self.urls)]
            self.n += 1
        data = json.dumps(body).encode() if body is not None else None
        for attempt in range(tries):
            req = urllib.request.Request(base + path, data=data, method=method, headers={**HEADERS, "Authorization": self.auth})
            try:
                with urllib.request.urlopen(req, timeout=120, context=self.ctx) as resp:
                    text = resp.read()
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as e:
                text = e.read()[:300]
                # 409 (node locked by a periodic task) and 503 (no free worker) are Ironic's "try again";
                # a 500 for a JSON-RPC connection the conductor refused or closed (seen at ~9,700 nodes on
                # 2 cores, and once as an SSL EOF from the conductor's JSON-RPC server at ~9,900 during
                # deploy) is retried too, as baremetal-operator retries it, and counted.
                dropped = e.code == 500 and (b"Unable to establish connection" in text or b"SSL exception connecting to" in text)
                if (e.code in (409, 503) or dropped) and attempt < tries - 1:
                    if dropped:
                        with self.lock:
                            self.dropped += 1
                    time.sleep(0.5 * (attempt + 1))
                    continue
                raise RuntimeError("%s %s: %s %s" % (method, path, e.code, text))
        raise RuntimeError("%s %s: gave up" % (method, path))

    def all(self, path, key):
        """Every item of a paginated collection (`path` with its query, `key` the list's name)."""
        out, url = [], path
        while url:
            body = self.call("GET", url)
            out.extend(body[key])
            nxt = body.get("next")
            url = nxt[nxt.index("/v1/"):] if nxt else None
        return out

    def all_nodes(self, fields):
        # `conductor` is computed, not a column: only the detailed list has it.
        query = "detail=true" if fields == "detail" else "fields=%s" % fields
        return self.all("/v1/nodes?%s&limit=1000" % query, "nodes")


def mac_of(prefix, i):
    return "%s:%02x:%02x" % (prefix, (i >> 8) & 0xFF, i & 0xFF)


def wait_all(api, names, state, timeout, fail_states):
    t0 = time.time()
    while True:
        nodes = [n for n in api.all_nodes("uuid,name,provision_state,last_error") if n["name"] in names]
        done = [n for n in nodes if n["provision_state"] == state]
        failed = [n for n in nodes if n["provision_state"] in fail_states]
        if failed:
            raise RuntimeError("%d node(s) failed, e.g. %s: %s" % (len(failed), failed[0]["name"], failed[0]["last_error"]))
        if len(done) == len(names):
            return
        if time.time() - t0 > timeout:
            raise RuntimeError("%d of %d nodes %s after %d s" % (len(done), len(names), state, timeout))
        time.sleep(2)


def run_all(workers, fn, items):
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for f in concurrent.futures.as_completed([pool.submit(fn, x) for x in items]):
            f.result()


def enroll(api, a):
    names = {"%s-%05d" % (a.name_prefix, i) for i in range(a.first, a.first + a.nodes)}
    t0 = time.time()

    def create(i):
        node = api.call("POST", "/v1/nodes", {
            "name": "%s-%05d" % (a.name_prefix, i),
            "driver": "fake-hardware",
            "boot_interface": "ipxe",
            "deploy_interface": "ramdisk",
            "automated_clean": False,
            "driver_info": {"deploy_kernel": a.kernel, "deploy_ramdisk": a.ramdisk},
        })
        api.call("POST", "/v1/ports", {"address": mac_of(a.mac_prefix, i), "node_uuid": node["uuid"], "pxe_enabled": True})
        api.call("PUT", "/v1/nodes/%s/states/provision" % node["uuid"], {"target": "manage"})

    run_all(a.workers, create, range(a.first, a.first + a.nodes))
    created = time.time() - t0
    wait_all(api, names, "manageable", a.timeout, ("enroll",))
    uuids = [n["uuid"] for n in api.all_nodes("uuid,name") if n["name"] in names]
    run_all(a.workers, lambda u: api.call("PUT", "/v1/nodes/%s/states/provision" % u, {"target": "provide"}), uuids)
    wait_all(api, names, "available", a.timeout, ("clean failed",))
    total = time.time() - t0
    print(json.dumps({"phase": "enroll", "nodes": a.nodes, "created_s": round(created, 1), "available_s": round(total, 1), "per_min": round(a.nodes / total * 60, 1), "rpc_retries": api.dropped}), flush=True)


def deploy(api, a):
    names = {"%s-%05d" % (a.name_prefix, i) for i in range(a.first, a.first + a.nodes)}
    uuids = [n["uuid"] for n in api.all_nodes("uuid,name") if n["name"] in names]
    t0 = time.time()

    refused = []

    def one(u):
        try:
            api.call("PATCH", "/v1/nodes/%s" % u, [
                {"op": "add", "path": "/instance_info/kernel", "value": a.kernel},
                {"op": "add", "path": "/instance_info/ramdisk", "value": a.ramdisk},
            ])
            api.call("PUT", "/v1/nodes/%s/states/provision" % u, {"target": "active"})
        except RuntimeError as e:
            # One node's request refused after its retries does not end the run (stop 50 lost every
            # figure of a 10,000-node lab to one): the node stays available, is counted and named, and
            # the figures are taken on the nodes that were deployed.
            with api.lock:
                refused.append((u, str(e)))

    run_all(a.workers, one, uuids)
    names_of = {n["uuid"]: n["name"] for n in api.all_nodes("uuid,name") if n["name"] in names}
    wait_all(api, names - {names_of.get(u) for u, _ in refused}, "active", a.timeout, ("deploy failed",))
    total = time.time() - t0
    deployed = len(uuids) - len(refused)
    print(json.dumps({"phase": "deploy", "nodes": deployed, "active_s": round(total, 1), "per_min": round(deployed / total * 60, 1), "rpc_retries": api.dropped,
                      "refused": len(refused), "refused_example": refused[0][1][:300] if refused else None}), flush=True)


def owners(api, a):
    ports = {p["node_uuid"]: p["address"] for p in api.all("/v1/ports?fields=address,node_uuid&limit=1000", "ports")}
    nodes = [n for n in api.all_nodes("detail") if n["name"].startswith(a.name_prefix + "-")]
    print(json.dumps({"phase": "owners", "nodes": [{"uuid": n["uuid"], "name": n["name"], "mac": ports.get(n["uuid"]), "conductor": n["conductor"], "state": n["provision_state"]} for n in nodes]}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("phase", choices=["enroll", "deploy", "owners"])
    p.add_argument("--api", action="append", required=True, help="an API base URL (repeat: round-robin)")
    p.add_argument("--auth", required=True, help="file with username and password, one per line")
    p.add_argument("--ca", required=True)
    p.add_argument("--nodes", type=int, default=0)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--timeout", type=int, default=3600)
    p.add_argument("--name-prefix", default="scale")
    p.add_argument("--mac-prefix", default="52:54:10:00")
    p.add_argument("--kernel", default="")
    p.add_argument("--ramdisk", default="")
    a = p.parse_args()
    with open(a.auth) as f:
        user, password = f.read().split("\n")[:2]
    api = Api([u.rstrip("/") for u in a.api], user, password, a.ca)
    {"enroll": enroll, "deploy": deploy, "owners": owners}[a.phase](api, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
