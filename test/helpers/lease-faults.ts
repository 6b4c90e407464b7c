/**
 * Faults a network (or a broken proxy) can do to the DHCP slot agent's API requests, shared by the
 * fast fake Lease API (lease-fake.ts) and the TLS proxy in front of the real kube-apiserver
 * (lease-proxy.ts): the answer is written on the raw connection, so it can be late, lost, cut in
 * the middle or dribbled in a byte at a time.
 *
 * The agent under test is named by the first path segments of its API URL (`/agents/<id>`), so a
 * fault can hit one agent and spare the others; what a request does is told from its method and
 * body (the agent writes acquireTime = renewTime when it claims, a later renewTime when it renews,
 * no holder when it releases).
 */
import type * as net from "net";
import { STATUS_CODES } from "http";

export type Fault =
    /** Answered at once. */
    | { kind: "none" }
    /** Applied at once, answered `ms` later. */
    | { kind: "delay"; ms: number }
    /** Not applied: the connection is closed without an answer. */
    | { kind: "drop" }
    /** Not applied: the connection stays open, never answered (a cut network). */
    | { kind: "blackhole" }
    /** Applied, then the connection is closed without an answer (the answer is lost). */
    | { kind: "lose" }
    /** Applied, the connection stays open, never answered. */
    | { kind: "stall" }
    /** Applied, the answer sent one byte every `everyMs`. */
    | { kind: "trickle"; everyMs: number }
    /** Applied, the answer spread evenly over `ms` (a slow link: every read gets bytes soon, the whole takes long). */
    | { kind: "slow"; ms: number }
    /**
     * Applied, the answer torn: `status` a cut status line (http.client: BadStatusLine), `body` a
     * body shorter than its Content-Length (IncompleteRead), `json` a whole HTTP answer whose JSON
     * is cut, `not-lease` valid JSON that is no Lease.
     */
    | { kind: "tear"; how: "status" | "body" | "json" | "not-lease" };

export type RequestKind = "get" | "create" | "claim" | "renew" | "release" | "other";

export interface LeaseRequest {
    /** The agent the URL names (`/agents/<id>/...`), "" for none. */
    agent: string;
    method: string;
    /** The Lease's name (from the path, or a create's body). */
    name: string;
    kind: RequestKind;
    body?: any;
}

export type FaultPolicy = (r: LeaseRequest) => Fault | undefined;

export const NO_FAULT: Fault = { kind: "none" };

/** `/agents/<id>/apis/...` → [id, "/apis/..."]; other paths → ["", path]. */
export function splitAgent(url: string): [string, string] {
    const m = /^\/agents\/([^/]+)(\/.*)$/.exec(url);
    return m ? [decodeURIComponent(m[1]), m[2]] : ["", url];
}

const LEASE_PATH = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/?]+))?(?:\?.*)?$/;

/** [namespace, name or undefined] of a Lease API path, or undefined for another path. */
export function leasePath(p: string): [string, string | undefined] | undefined {
    const m = LEASE_PATH.exec(p);
    return m ? [decodeURIComponent(m[1]), m[2] && decodeURIComponent(m[2])] : undefined;
}

/** What a request does, from its method and the spec the agent sends. */
export function requestKind(method: string, body: any): RequestKind {
    if (method === "GET") return "get";
    if (method === "POST") return "create";
    if (method !== "PUT") return "other";
    const spec = body?.spec ?? {};
    if (!spec.holderIdentity) return "release";
    return spec.acquireTime && spec.acquireTime === spec.renewTime ? "claim" : "renew";
}

/** A request as a fault-injecting Lease server sees it (the fake and the proxy alike). */
export interface ClassifiedRequest extends LeaseRequest {
    /** The path without the agent's prefix. */
    path: string;
    /** [namespace, name or undefined] when the path is a Lease's (leasePath). */
    lease: [string, string | undefined] | undefined;
    /** The fault the policy picks; NO_FAULT for a path that is no Lease's. */
    fault: Fault;
}

/** The agent, Lease path and name, body (undefined when not JSON), kind, and the policy's fault of one request. */
export function classifyRequest(url: string, method: string, text: string, policy: FaultPolicy): ClassifiedRequest {
    const [agent, p] = splitAgent(url);
    let body: any;
    try {
        body = text ? JSON.parse(text) : undefined;
    } catch {
        body = undefined;
    }
    const lease = leasePath(p);
    const name = lease?.[1] ?? body?.metadata?.name ?? "";
    const kind = requestKind(method, body);
    const fault = (lease && policy({ agent, method, name, kind, body })) || NO_FAULT;
    return { agent, method, name, kind, body, path: p, lease, fault };
}

/** An HTTP/1.1 answer, closing the connection after it. */
export function httpAnswer(status: number, body: string): Buffer {
    const payload = Buffer.from(body);
    const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`;
    return Buffer.concat([Buffer.from(head), payload]);
}

/** Sockets held open by stall/blackhole/trickle faults, destroyed by `closeAll`. */
export class HeldSockets {
    private readonly held = new Set<net.Socket>();
    private readonly timers = new Set<NodeJS.Timeout>();

    hold(s: net.Socket): void {
        this.held.add(s);
        s.once("close", () => this.held.delete(s));
    }

    timer(t: NodeJS.Timeout): void {
        this.timers.add(t);
    }

    untimer(t: NodeJS.Timeout): void {
        clearTimeout(t);
        clearInterval(t);
        this.timers.delete(t);
    }

    closeAll(): void {
        for (const t of this.timers) {
            clearTimeout(t);
            clearInterval(t);
        }
        this.timers.clear();
        for (const s of this.held) s.destroy();
        this.held.clear();
    }
}

/** Whether the fault keeps the request from being applied (forwarded, or stored by the fake). */
export const notApplied = (f: Fault): boolean => f.kind === "drop" || f.kind === "blackhole";

/**
 * Writes `status`/`body` on `socket` as `fault` says. The request has been applied (or not, see
 * notApplied) by the caller; this is only the answer.
 */
export function deliver(socket: net.Socket, held: HeldSockets, status: number, body: string, fault: Fault): void {
    const answer = httpAnswer(status, body);
    socket.on("error", () => undefined);
    switch (fault.kind) {
        case "none":
            socket.end(answer);
            return;
        case "delay": {
            held.hold(socket);
            const t = setTimeout(() => {
                held.untimer(t);
                if (!socket.destroyed) socket.end(answer);
            }, fault.ms);
            held.timer(t);
            return;
        }
        case "drop":
        case "lose":
            socket.destroy();
            return;
        case "blackhole":
        case "stall":
            held.hold(socket);
            return;
        case "trickle": {
            held.hold(socket);
            let i = 0;
            const t = setInterval(() => {
                if (socket.destroyed || i >= answer.length) {
                    held.untimer(t);
                    if (!socket.destroyed) socket.end();
                    return;
                }
                socket.write(answer.subarray(i, i + 1));
                i++;
            }, fault.everyMs);
            held.timer(t);
            return;
        }
        case "slow": {
            held.hold(socket);
            const every = Math.max(5, Math.min(50, fault.ms / 10));
            const steps = Math.max(1, Math.floor(fault.ms / every));
            const per = Math.max(1, Math.ceil(answer.length / steps));
            let i = 0;
            const t = setInterval(() => {
                if (socket.destroyed || i >= answer.length) {
                    held.untimer(t);
                    if (!socket.destroyed) socket.end();
                    return;
                }
                // The last bytes only when the time is up.
                const n = i + per >= answer.length ? answer.length - i : per;
                socket.write(answer.subarray(i, i + n));
                i += n;
            }, every);
            held.timer(t);
            return;
        }
        case "tear": {
            if (fault.how === "status") socket.end("HTTP/1.1 2");
            else if (fault.how === "body") socket.end(answer.subarray(0, answer.length - Math.max(1, Math.floor(Buffer.byteLength(body) / 2))));
            else if (fault.how === "json") socket.end(httpAnswer(status, body.slice(0, Math.max(1, Math.floor(body.length / 2)))));
            else socket.end(httpAnswer(200, JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Success" })));
            return;
        }
    }
}
