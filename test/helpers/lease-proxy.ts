/**
 * A TLS proxy in front of the real kube-apiserver (its own certificate for 127.0.0.1) that faults
 * the DHCP slot agent's requests as lease-faults.ts says: a request is dropped or held before it
 * reaches the API server, or forwarded (with the agent's own credentials) and its answer delayed,
 * dribbled, lost or torn on the way back. The agent is named by its URL (`/agents/<id>/...`);
 * every request is logged with the API server's status, so a test can tell when a write landed.
 */
import * as fs from "fs";
import * as https from "https";
import type * as net from "net";
import * as path from "path";

import { classifyRequest, deliver, FaultPolicy, HeldSockets, notApplied } from "./lease-faults";
import type { RequestRecord } from "./lease-fake";
import { run } from "./sys";

export class LeaseProxy {
    private readonly server: https.Server;
    private readonly held = new HeldSockets();
    readonly caFile: string;
    policy: FaultPolicy = () => undefined;
    readonly log: RequestRecord[] = [];
    port = 0;

    constructor(dir: string, target: URL, targetCa: string) {
        const key = path.join(dir, "lease-proxy.key");
        this.caFile = path.join(dir, "lease-proxy.crt");
        if (!fs.existsSync(this.caFile)) {
            run("openssl", ["req", "-x509", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", this.caFile, "-subj", "/CN=lease proxy", "-days", "2", "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:TRUE"]);
        }
        const ca = fs.readFileSync(targetCa);
        this.server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(this.caFile) }, (req, res) => {
            const chunks: Buffer[] = [];
            req.on("data", (c: Buffer) => chunks.push(c));
            req.on("end", () => {
                const socket = (res.socket ?? req.socket) as net.Socket;
                const text = Buffer.concat(chunks).toString("utf8");
                const { agent, method, name, kind, path: p, fault } = classifyRequest(req.url ?? "", req.method ?? "", text, this.policy);
                const rec: RequestRecord = { t: Date.now() / 1000, agent, method, name, kind, fault: fault.kind, status: 0 };
                this.log.push(rec);
                if (notApplied(fault)) {
                    deliver(socket, this.held, 0, "", fault);
                    return;
                }
                const headers = { ...req.headers, host: `${target.hostname}:${target.port || 443}` };
                const up = https.request({ host: target.hostname, port: Number(target.port || 443), method: req.method, path: p, headers, ca }, (r) => {
                    const out: Buffer[] = [];
                    r.on("data", (c: Buffer) => out.push(c));
                    r.on("end", () => {
                        rec.status = r.statusCode ?? 502;
                        const answer = Buffer.concat(out).toString("utf8");
                        if (rec.status < 300 && req.method !== "GET") {
                            try {
                                const spec = JSON.parse(answer).spec ?? {};
                                rec.holder = spec.holderIdentity;
                                rec.renewTime = spec.renewTime;
                            } catch {
                                /* not JSON: logged without */
                            }
                        }
                        deliver(socket, this.held, rec.status, answer, fault);
                    });
                });
                up.on("error", () => socket.destroy());
                up.end(text);
            });
        });
    }

    async listen(): Promise<void> {
        await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", () => r()));
        this.port = (this.server.address() as net.AddressInfo).port;
    }

    /** The API URL agent `id` is given. */
    url(agent: string): string {
        return `https://127.0.0.1:${this.port}/agents/${encodeURIComponent(agent)}`;
    }

    /** Requests the proxy did not pass on (dropped or held). */
    get dropped(): number {
        return this.log.filter((r) => r.fault === "drop" || r.fault === "blackhole").length;
    }

    /** Ends held answers (the agents' requests then fail). */
    heal(): void {
        this.held.closeAll();
    }

    async close(): Promise<void> {
        this.held.closeAll();
        this.server.closeAllConnections();
        await new Promise<void>((r) => this.server.close(() => r()));
    }
}
