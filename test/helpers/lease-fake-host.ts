/**
 * Fake Lease APIs (lease-fake.ts) served from a worker thread, for tests that start many agents:
 * Node's spawn() forks the whole test process and blocks its event loop for tens of milliseconds a
 * time, which would make the fakes' answers late. In the worker they answer on their own loop.
 * Faults are declarative here (a table of windows), since a function cannot cross threads.
 */
import * as path from "path";
import { isMainThread, parentPort, Worker } from "worker_threads";

import type { Fault } from "./lease-faults";

export interface FaultWindow {
    agent: string;
    fault: Fault;
    /** Probability that a request of the agent's in the window gets the fault. */
    p: number;
    /** Seconds after the run's start. */
    from: number;
    until: number;
}

type Request =
    | { op: "open"; namespace: string; token: string; seed: number }
    | { op: "faults"; id: number; windows: FaultWindow[]; t0: number }
    | { op: "calm" | "heal" | "holders" | "close" | "count"; id: number }
    | { op: "delete" | "touch"; id: number; name: string };

/** The main thread's handle on one fake in the worker. */
export class HostedFake {
    constructor(
        private readonly host: FakeHost,
        readonly id: number,
        readonly port: number,
    ) {}

    url(agent: string): string {
        return `http://127.0.0.1:${this.port}/agents/${encodeURIComponent(agent)}`;
    }
    faults(windows: FaultWindow[], t0: number): Promise<unknown> {
        return this.host.call({ op: "faults", id: this.id, windows, t0 });
    }
    /** No more faults (held answers stay held until heal). */
    calm(): Promise<unknown> {
        return this.host.call({ op: "calm", id: this.id });
    }
    /** Ends held answers; resolves to when (the worker's Date.now()). */
    heal(): Promise<number> {
        return this.host.call({ op: "heal", id: this.id }) as Promise<number>;
    }
    delete(name: string): Promise<unknown> {
        return this.host.call({ op: "delete", id: this.id, name });
    }
    touch(name: string): Promise<unknown> {
        return this.host.call({ op: "touch", id: this.id, name });
    }
    holders(): Promise<Record<string, string>> {
        return this.host.call({ op: "holders", id: this.id }) as Promise<Record<string, string>>;
    }
    /** How many answers were faulted. */
    faulted(): Promise<number> {
        return this.host.call({ op: "count", id: this.id }) as Promise<number>;
    }
    close(): Promise<unknown> {
        return this.host.call({ op: "close", id: this.id });
    }
}

export class FakeHost {
    private readonly worker: Worker;
    private seq = 0;
    private readonly waiting = new Map<number, (v: unknown) => void>();

    constructor() {
        // The worker runs this file through ts-node, as mocha does.
        this.worker = new Worker(`require("ts-node/register/transpile-only"); require(${JSON.stringify(path.join(__dirname, "lease-fake-host.ts"))});`, { eval: true });
        this.worker.on("message", (m: { seq: number; value: unknown }) => {
            this.waiting.get(m.seq)?.(m.value);
            this.waiting.delete(m.seq);
        });
        this.worker.unref();
    }

    call(r: Request): Promise<unknown> {
        const seq = ++this.seq;
        return new Promise((res) => {
            this.waiting.set(seq, res);
            this.worker.postMessage({ seq, r });
        });
    }

    async open(namespace: string, token: string, seed: number): Promise<HostedFake> {
        const { id, port } = (await this.call({ op: "open", namespace, token, seed })) as { id: number; port: number };
        return new HostedFake(this, id, port);
    }

    async close(): Promise<void> {
        await this.worker.terminate();
    }
}

if (!isMainThread && parentPort) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const { LeaseFake } = require("./lease-fake") as typeof import("./lease-fake");
    const fakes = new Map<number, { fake: InstanceType<typeof LeaseFake>; windows: FaultWindow[]; t0: number; calm: boolean; rnd: () => number; faulted: number }>();
    let next = 0;
    const port = parentPort;
    port.on("message", async ({ seq, r }: { seq: number; r: Request }) => {
        let value: unknown;
        if (r.op === "open") {
            const fake = new LeaseFake(r.namespace, r.token);
            await fake.listen();
            const id = next++;
            let a = r.seed >>> 0;
            const rnd = () => {
                a = (a + 0x6d2b79f5) >>> 0;
                let t = Math.imul(a ^ (a >>> 15), a | 1);
                t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
                return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
            };
            const state = { fake, windows: [] as FaultWindow[], t0: Date.now(), calm: false, rnd, faulted: 0 };
            fake.policy = (q) => {
                if (state.calm) return undefined;
                const t = (Date.now() - state.t0) / 1000;
                const w = state.windows.find((x) => x.agent === q.agent && t >= x.from && t < x.until);
                if (!w || state.rnd() >= w.p) return undefined;
                state.faulted++;
                return w.fault;
            };
            fakes.set(id, state);
            value = { id, port: fake.port };
        } else {
            const s = fakes.get(r.id)!;
            if (r.op === "faults") {
                s.windows = r.windows;
                s.t0 = r.t0;
            } else if (r.op === "calm") s.calm = true;
            else if (r.op === "heal") {
                s.fake.heal();
                value = Date.now();
            }
            else if (r.op === "delete") s.fake.delete(r.name);
            else if (r.op === "touch") s.fake.touch(r.name);
            else if (r.op === "holders") value = s.fake.holders();
            else if (r.op === "count") value = s.faulted;
            else if (r.op === "close") {
                await s.fake.close();
                fakes.delete(r.id);
            }
        }
        port.postMessage({ seq, value });
    });
}
