/**
 * A fast fake of the part of the Kubernetes API the DHCP slot agent uses: coordination.k8s.io/v1
 * Leases in one namespace, read by name (GET), created (POST, 409 AlreadyExists when the name is
 * taken) and updated with the resourceVersion read (PUT: compare-and-swap, 409 Conflict when it
 * changed, 404 when the Lease is gone), on 127.0.0.1 over plain HTTP, bearer token checked. Each
 * request can be faulted (lease-faults.ts) and every one is logged, with the writes that were
 * applied, so a test can tell when a holder's last renewal landed.
 *
 * The fake is what many runs of the real agent need: answers in well under a millisecond, no
 * cluster to start. The same cases run against the real kube-apiserver through lease-proxy.ts.
 */
import * as http from "http";
import type * as net from "net";

import { classifyRequest, deliver, Fault, FaultPolicy, HeldSockets, notApplied, RequestKind } from "./lease-faults";

export interface Lease {
    apiVersion: "coordination.k8s.io/v1";
    kind: "Lease";
    metadata: { name: string; namespace: string; resourceVersion: string; uid: string; creationTimestamp: string; labels?: Record<string, string>; annotations?: Record<string, string> };
    spec: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number };
}

export interface RequestRecord {
    /** Wall-clock seconds when the request arrived (children's records use the same clock). */
    t: number;
    agent: string;
    method: string;
    name: string;
    kind: RequestKind;
    fault: Fault["kind"];
    /** The status answered (or that would have been, for a lost answer); 0 when not applied. */
    status: number;
    /** For an applied write: the holder and renewTime it stored. */
    holder?: string;
    renewTime?: string;
}

const status = (code: number, reason: string, message: string) => JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });

export const now = (): number => Date.now() / 1000;

export class LeaseFake {
    private readonly server: http.Server;
    private readonly leases = new Map<string, Lease>();
    private readonly held = new HeldSockets();
    private rv = 1000;
    private uid = 0;
    port = 0;
    policy: FaultPolicy = () => undefined;
    /** Names every request on gets 403 (RBAC refusing that Lease). */
    readonly forbidden = new Set<string>();
    readonly log: RequestRecord[] = [];

    constructor(
        readonly namespace: string,
        readonly token: string,
    ) {
        this.server = http.createServer((req, res) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => this.handle(req, res.socket ?? req.socket, Buffer.concat(chunks).toString("utf8")));
        });
        this.server.keepAliveTimeout = 1;
    }

    async listen(): Promise<void> {
        await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
        this.port = (this.server.address() as net.AddressInfo).port;
    }

    /** The API URL agent `id` is given: its requests are told from the others' by the path. */
    url(agent: string): string {
        return `http://127.0.0.1:${this.port}/agents/${encodeURIComponent(agent)}`;
    }

    get(name: string): Lease | undefined {
        const l = this.leases.get(name);
        return l && JSON.parse(JSON.stringify(l));
    }

    /** A Lease as another agent would have left it: released (no holder) or held, naming `node`. */
    seed(name: string, node: string, holder?: string): void {
        const t = new Date().toISOString().replace("Z", "000Z");
        const rec: RequestRecord = { t: now(), agent: "", method: "PUT", name, kind: "other", fault: "none", status: 0 };
        this.store(name, { metadata: { annotations: { "metal3-ironic.metal3.io/node": node } }, spec: holder ? { holderIdentity: holder, leaseDurationSeconds: 1, acquireTime: t, renewTime: t } : { leaseDurationSeconds: 1, renewTime: t } }, undefined, rec);
    }

    /** Forbidden writes (updates, creates) on these names: they can be read. */
    readonly readOnly = new Set<string>();

    /** `kubectl delete lease`: gone at once, whoever holds it. */
    delete(name: string): void {
        this.leases.delete(name);
    }

    /** A write that changes only metadata (an annotation), as a label or annotation edit does: a new resourceVersion, the same holder and renewTime. */
    touch(name: string): void {
        const l = this.leases.get(name);
        if (!l) return;
        l.metadata.annotations = { ...l.metadata.annotations, "test/touched": String(this.rv) };
        l.metadata.resourceVersion = String(++this.rv);
    }

    /** Holder identity of every held Lease. */
    holders(): Record<string, string> {
        const out: Record<string, string> = {};
        for (const [n, l] of this.leases) if (l.spec.holderIdentity) out[n] = l.spec.holderIdentity;
        return out;
    }

    /** Releases held sockets and timers of faulted answers (the agents' requests then fail). */
    heal(): void {
        this.held.closeAll();
    }

    async close(): Promise<void> {
        this.held.closeAll();
        this.server.closeAllConnections();
        await new Promise<void>((r) => this.server.close(() => r()));
    }

    private handle(req: http.IncomingMessage, socket: net.Socket, text: string): void {
        const { agent, method, name, kind, body, lease: lp, fault } = classifyRequest(req.url ?? "", req.method ?? "", text, this.policy);
        const rec: RequestRecord = { t: now(), agent, method, name, kind, fault: fault.kind, status: 0 };
        this.log.push(rec);
        if (notApplied(fault)) {
            deliver(socket, this.held, 0, "", fault);
            return;
        }
        const [code, answer] = this.apply(req, lp, method, name, body, rec);
        rec.status = code;
        deliver(socket, this.held, code, answer, fault);
    }

    private apply(req: http.IncomingMessage, lp: [string, string | undefined] | undefined, method: string, name: string, body: any, rec: RequestRecord): [number, string] {
        if (req.headers.authorization !== `Bearer ${this.token}`) return [401, status(401, "Unauthorized", "Unauthorized")];
        if (!lp || lp[0] !== this.namespace) return [403, status(403, "Forbidden", `forbidden: ${req.url}`)];
        if (this.forbidden.has(name) || (method !== "GET" && this.readOnly.has(name))) return [403, status(403, "Forbidden", `leases "${name}" is forbidden: admission webhook "test" denied the request`)];
        const current = this.leases.get(name);
        if (method === "GET" && lp[1]) return current ? [200, JSON.stringify(current)] : [404, status(404, "NotFound", `leases.coordination.k8s.io "${name}" not found`)];
        if (method === "POST" && !lp[1]) {
            if (!body?.metadata?.name || body.kind !== "Lease") return [400, status(400, "BadRequest", "not a Lease")];
            if (current) return [409, status(409, "AlreadyExists", `leases.coordination.k8s.io "${name}" already exists`)];
            return [201, this.store(name, body, undefined, rec)];
        }
        if (method === "PUT" && lp[1]) {
            if (body?.metadata?.name !== name || body.kind !== "Lease") return [400, status(400, "BadRequest", "not this Lease")];
            if (!current) return [404, status(404, "NotFound", `leases.coordination.k8s.io "${name}" not found`)];
            if (body.metadata.resourceVersion !== current.metadata.resourceVersion) {
                return [409, status(409, "Conflict", `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`)];
            }
            return [200, this.store(name, body, current, rec)];
        }
        return [405, status(405, "MethodNotAllowed", `${method} not allowed`)];
    }

    private store(name: string, body: any, current: Lease | undefined, rec: RequestRecord): string {
        const lease: Lease = {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: {
                name,
                namespace: this.namespace,
                resourceVersion: String(++this.rv),
                uid: current?.metadata.uid ?? `uid-${++this.uid}`,
                creationTimestamp: current?.metadata.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, "Z"),
                ...(body.metadata.labels ? { labels: body.metadata.labels } : {}),
                ...(body.metadata.annotations ? { annotations: body.metadata.annotations } : {}),
            },
            spec: { ...(body.spec ?? {}) },
        };
        this.leases.set(name, lease);
        rec.holder = lease.spec.holderIdentity;
        rec.renewTime = lease.spec.renewTime;
        return JSON.stringify(lease);
    }
}
