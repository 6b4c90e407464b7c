/**
 * `ports`: the ports every Ironic listens on (on the provisioning network, host network). Its
 * schema, defaults (the image's, core/contract.ts), resolved type and documentation in one place
 * (core/config/section.ts).
 */
import type { z } from "zod";

import { PORTS } from "../contract";
import type { SectionBlocks, SectionDocs } from "./section";

/** The `ports` section. */
export function portsSection({ strict, port }: SectionBlocks & { port: z.ZodType<number> }) {
    return strict({
        api: port.optional(),
        http: port.optional(),
        vmediaTls: port.optional(),
        jsonRpc: port.optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof portsSection>> | undefined;

/** Defaults: the ports BMO and IrSO use (core/contract.ts PORTS). */
export function resolvePorts(p: Parsed) {
    return {
        api: p?.api ?? PORTS.api,
        http: p?.http ?? PORTS.http,
        vmediaTls: p?.vmediaTls ?? PORTS.vmediaTls,
        jsonRpc: p?.jsonRpc ?? PORTS.jsonRpc,
    };
}

/** What StackConfig holds for `ports`. */
export type PortsConfig = ReturnType<typeof resolvePorts>;

export const PORTS_DOCS: SectionDocs = {
    description: "Ports on the provisioning network.",
    reference: [
        { keys: ["ports.api"], type: "1–65535", default: "`6385`", notes: "API (httpd TLS proxy)" },
        { keys: ["ports.http"], type: "1–65535", default: "`6180`", notes: "images and iPXE scripts" },
        { keys: ["ports.vmediaTls"], type: "1–65535", default: "`6183`", notes: "virtual media over HTTPS" },
        { keys: ["ports.jsonRpc"], type: "1–65535", default: "`6189`", notes: "JSON-RPC between conductors (multi)" },
    ],
};
