/**
 * What a stack's previous run leaves for its next one. The program exports a few facts as stack
 * outputs and reads them back on the next run through a StackReference to its own stack (the
 * engine keeps outputs with the stack's state; no extra store). The next run uses them to refuse
 * changes that would lose data or service (a schema downgrade, a silently replaced volume) and to
 * keep what must not move (DHCP slots).
 *
 * Reading is tolerant: a first run, a stack written by an older version of this program or a
 * value of the wrong shape all mean "nothing known", never an error.
 */
import type { ConfigIssue } from "../config";
import { dhcpSlotsOf, listedConductorsByNode } from "./conductors";
import { downgradeError } from "./database";
import type { DhcpSlotsState } from "./slots";
import type { IronicPlan } from "./types";

export type { DhcpSlotsState } from "./slots";

/** Stack output names; a contract between runs, so never renamed. */
export const PREVIOUS_OUTPUTS = {
    /** The deployed Ironic image (string). */
    ironicImage: "ironicImage",
    /** images.ironicVersion as deployed: the version of a digest-only image (string, may be absent). */
    ironicVersion: "ironicVersion",
    /** The persisted state below (object). */
    state: "state",
} as const;

/** The `state` output: facts the next run of this stack relies on. */
export interface PersistedState {
    topology: "single" | "multi";
    /** Database kind and, for a deployed MariaDB, its volume's storage class ("" = cluster default). */
    database: { kind: string; storageClass?: string };
    dhcpSlots?: DhcpSlotsState;
}

/** The previous run as this run sees it; every field may be missing. */
export interface PreviousState {
    ironicImage?: string;
    ironicVersion?: string;
    topology?: "single" | "multi";
    database?: { kind: string; storageClass?: string };
    dhcpSlots?: DhcpSlotsState;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function parseDhcpSlots(v: unknown): DhcpSlotsState | undefined {
    if (!isRecord(v) || typeof v.rangeStart !== "string" || typeof v.rangeEnd !== "string" || !Number.isInteger(v.slots) || !isRecord(v.nodes)) return undefined;
    const nodes: Record<string, number> = {};
    for (const [node, slot] of Object.entries(v.nodes)) {
        if (Number.isInteger(slot) && (slot as number) >= 0) nodes[node] = slot as number;
    }
    return { rangeStart: v.rangeStart, rangeEnd: v.rangeEnd, slots: v.slots as number, nodes };
}

/** Parse the outputs of the previous run (`{}` on a first run). */
export function parsePreviousState(outputs: Record<string, unknown>): PreviousState {
    const previous: PreviousState = {};
    const image = outputs[PREVIOUS_OUTPUTS.ironicImage];
    if (typeof image === "string" && image !== "") previous.ironicImage = image;
    const version = outputs[PREVIOUS_OUTPUTS.ironicVersion];
    if (typeof version === "string" && version !== "") previous.ironicVersion = version;
    const state = outputs[PREVIOUS_OUTPUTS.state];
    if (!isRecord(state)) return previous;
    if (state.topology === "single" || state.topology === "multi") previous.topology = state.topology;
    if (isRecord(state.database) && typeof state.database.kind === "string") {
        const { kind, storageClass } = state.database;
        previous.database = typeof storageClass === "string" ? { kind, storageClass } : { kind };
    }
    const slots = parseDhcpSlots(state.dhcpSlots);
    if (slots) previous.dhcpSlots = slots;
    return previous;
}

/** The `state` output of this run: what the next run will read back. Key order is fixed (quiet diffs). */
export function persistedState(plan: IronicPlan): PersistedState {
    const c = plan.config;
    const database = c.database.kind === "mariadb" ? { kind: c.database.kind, storageClass: c.database.storageClass ?? "" } : { kind: c.database.kind };
    const state: PersistedState = { topology: c.topology, database };
    const slots = dhcpSlotsOf(plan);
    if (slots) {
        const nodes: Record<string, number> = {};
        for (const cp of listedConductorsByNode(plan)) {
            if (cp.slot !== undefined) nodes[cp.node] = cp.slot.index;
        }
        state.dhcpSlots = { rangeStart: slots.rangeStart, rangeEnd: slots.rangeEnd, slots: slots.slots, nodes };
    }
    return state;
}

/** A check of this run's plan against the previous run. */
type PreviousCheck = (plan: IronicPlan, previous: PreviousState) => ConfigIssue[];

/** A shared database cannot go back to an older Ironic schema. */
const noSchemaDowngrade: PreviousCheck = (plan, previous) => {
    if (!plan.database.jobs) return [];
    const c = plan.config;
    const before = previous.ironicImage ? { image: previous.ironicImage, version: previous.ironicVersion } : undefined;
    const error = downgradeError(before, { image: c.images.ironic, version: c.images.ironicVersion }, c.database.allowDowngrade);
    return error ? [{ key: "images.ironic", message: error.replace(/^images\.ironic: /, "") }] : [];
};

/**
 * The MariaDB volume's storage class cannot change under a running stack: the provider replaces a
 * claim whose class changes (delete + create with the same name), i.e. the data is lost or, with
 * the claim kept, the new one collides with it. Migrating is a dump and restore (README).
 */
const noStorageClassChange: PreviousCheck = (plan, previous) => {
    const c = plan.config;
    const before = previous.database;
    if (c.database.kind !== "mariadb" || before?.kind !== "mariadb" || before.storageClass === undefined) return [];
    const now = c.database.storageClass ?? "";
    if (now === before.storageClass) return [];
    const name = (s: string) => (s === "" ? "the cluster default class" : `storage class "${s}"`);
    const keep = before.storageClass === "" ? "remove database.storageClass" : `set it back to "${before.storageClass}"`;
    return [
        {
            key: "database.storageClass",
            message:
                `the database volume ${plan.database.names.pvc} is on ${name(before.storageClass)}, this run asks for ${name(now)}, and a claim's class ` +
                `cannot change: the volume and its data would be replaced. To keep it, ${keep}. To move the data: dump it (mariadb-dump), ` +
                'create a new stack with the new class, restore the dump there and switch baremetal-operator over (README, Operations: "Storage class migration")',
        },
    ];
};

/**
 * DHCP slots: a changed layout without provisioning.dhcp.reslice, too few slots for the nodes,
 * pins on slots other nodes hold. The planner found them with the previous run's slots.
 */
const dhcpSlots: PreviousCheck = (plan) => dhcpSlotsOf(plan)?.issues ?? [];

const CHECKS: PreviousCheck[] = [noSchemaDowngrade, noStorageClassChange, dhcpSlots];

/** Every problem of moving from the previous run to this plan (empty when allowed). */
export function previousStateIssues(plan: IronicPlan, previous: PreviousState): ConfigIssue[] {
    return CHECKS.flatMap((check) => check(plan, previous));
}
