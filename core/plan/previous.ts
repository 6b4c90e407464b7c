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
import { type ConfigIssue, MAX_DHCP_SLOTS } from "../config";
import { ipFamily } from "../ip";
import { dhcpSlotsOf, listedConductorsByNode } from "./read";
import { downgradeError } from "./database";
import type { DhcpSlotsState } from "./slots";
import type { IronicPlan } from "./types";
import { rollingUpgradeIssues } from "./upgrade";

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
    /** The Pulumi stack that wrote it (absent in the state of releases before it was added). */
    stack?: string;
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

const isIp = (v: unknown): v is string => typeof v === "string" && ipFamily(v) !== undefined;
const isSlotCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_DHCP_SLOTS;

function parseDhcpSlots(v: unknown): DhcpSlotsState | undefined {
    if (!isRecord(v) || !isIp(v.rangeStart) || !isIp(v.rangeEnd) || !isSlotCount(v.slots) || !isRecord(v.nodes)) return undefined;
    const nodes: Record<string, number> = {};
    for (const [node, slot] of Object.entries(v.nodes)) {
        if (Number.isInteger(slot) && (slot as number) >= 0 && (slot as number) < (v.slots as number)) nodes[node] = slot as number;
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
export function persistedState(plan: IronicPlan, stack?: string): PersistedState {
    const db = plan.database;
    const database = db.kind === "mariadb" ? { kind: db.kind, storageClass: db.storageClass ?? "" } : { kind: db.kind };
    const state: PersistedState = { topology: plan.topology.kind, database };
    const slots = dhcpSlotsOf(plan);
    if (slots) {
        const nodes: Record<string, number> = {};
        for (const cp of listedConductorsByNode(plan)) {
            if (cp.slot !== undefined) nodes[cp.node] = cp.slot.index;
        }
        state.dhcpSlots = { rangeStart: slots.rangeStart, rangeEnd: slots.rangeEnd, slots: slots.slots, nodes };
    }
    if (stack !== undefined) state.stack = stack;
    return state;
}

/** A check of this run's plan against the previous run. */
type PreviousCheck = (plan: IronicPlan, previous: PreviousState) => ConfigIssue[];

/** A shared database cannot go back to an older Ironic schema. */
const noSchemaDowngrade: PreviousCheck = (plan, previous) => {
    if (!plan.database.jobs) return [];
    const before = previous.ironicImage ? { image: previous.ironicImage, version: previous.ironicVersion } : undefined;
    const error = downgradeError(before, { image: plan.images.ironic, version: plan.images.ironicVersion }, plan.database.allowDowngrade);
    return error ? [{ key: "images.ironic", message: error.replace(/^images\.ironic: /, "") }] : [];
};

/**
 * The MariaDB volume's storage class cannot change under a running stack: the provider replaces a
 * claim whose class changes (delete + create with the same name), i.e. the data is lost or, with
 * the claim kept, the new one collides with it. Migrating is a dump and restore (docs/operations.md).
 */
const noStorageClassChange: PreviousCheck = (plan, previous) => {
    const db = plan.database;
    const before = previous.database;
    if (db.kind !== "mariadb" || before?.kind !== "mariadb" || before.storageClass === undefined) return [];
    const now = db.storageClass ?? "";
    if (now === before.storageClass) return [];
    const name = (s: string) => (s === "" ? "the cluster default class" : `storage class "${s}"`);
    const keep = before.storageClass === "" ? "remove database.storageClass" : `set it back to "${before.storageClass}"`;
    return [
        {
            key: "database.storageClass",
            message:
                `the database volume ${plan.database.names.pvc} is on ${name(before.storageClass)}, this run asks for ${name(now)}, and a claim's class ` +
                `cannot change: the volume and its data would be replaced. To keep it, ${keep}. To move the data: dump it (mariadb-dump), ` +
                'create a new stack with the new class, restore the dump there and switch baremetal-operator over (docs/operations.md, "Storage class migration")',
        },
    ];
};

/**
 * From the single-pod `mariadb` to `mariadb-operator`: the operator starts a new, empty Galera
 * cluster, so the switch alone would leave Ironic without a single node. Allowed only once the
 * user states it (database.allowKindChange), having dumped the data to restore (docs/database.md).
 */
const noSilentKindChange: PreviousCheck = (plan, previous) => {
    const db = plan.database;
    if (previous.database?.kind !== "mariadb" || db.kind !== "mariadb-operator" || db.allowKindChange) return [];
    return [
        {
            key: "database.kind",
            message:
                `the stack runs database.kind "mariadb" (its data on the volume ${plan.database.names.pvc}); "mariadb-operator" starts a new, empty Galera cluster ` +
                "and Ironic would lose every node it knows. Dump the database first (mariadb-dump), then set database.allowKindChange to true and restore the dump " +
                'into the new cluster (docs/database.md, "Moving from mariadb to mariadb-operator"); or keep database.kind "mariadb"',
        },
    ];
};

/**
 * DHCP slots: a changed layout without provisioning.dhcp.reslice, too few slots for the nodes,
 * pins on slots other nodes hold. The planner found them with the previous run's slots.
 */
const dhcpSlots: PreviousCheck = (plan) => dhcpSlotsOf(plan)?.issues ?? [];

/** Multi moving to a newer Ironic release: the conductors pinned to the old one meanwhile (core/plan/upgrade.ts). */
const pinnedWhileMixed: PreviousCheck = (plan, previous) => rollingUpgradeIssues(plan.upgrade, previous);

const CHECKS: PreviousCheck[] = [noSchemaDowngrade, noStorageClassChange, noSilentKindChange, dhcpSlots, pinnedWhileMixed];

/** Every problem of moving from the previous run to this plan (empty when allowed). */
export function previousStateIssues(plan: IronicPlan, previous: PreviousState): ConfigIssue[] {
    return CHECKS.flatMap((check) => check(plan, previous));
}

/**
 * Problems of a file that should hold this stack's outputs (`npm run plan -- --previous FILE`):
 * the program itself reads its outputs tolerantly (an older release's state means "nothing
 * known"), but a file a person passes must be what they think it is: this program's outputs, of
 * this stack, with each known output well formed.
 */
export function previousOutputsProblems(outputs: Record<string, unknown>, plan: IronicPlan, stack: string): string[] {
    const how = "write it with pulumi stack output --json > FILE in this stack's directory (--stack NAME)";
    const known = ["apiUrl", PREVIOUS_OUTPUTS.ironicImage, PREVIOUS_OUTPUTS.state];
    if (!known.some((k) => k in outputs)) return [`holds none of this program's outputs (${known.join(", ")}): ${how}`];
    const problems: string[] = [];
    const image = outputs[PREVIOUS_OUTPUTS.ironicImage];
    if (image !== undefined && typeof image !== "string") problems.push(`ironicImage must be the deployed image reference (a string)`);
    const state = outputs[PREVIOUS_OUTPUTS.state];
    if (state !== undefined) {
        if (!isRecord(state)) problems.push("state must be an object (topology, database, dhcpSlots)");
        else {
            if (state.topology !== "single" && state.topology !== "multi") problems.push(`state.topology must be "single" or "multi"`);
            if (!isRecord(state.database) || typeof state.database.kind !== "string") problems.push("state.database must be an object with a kind");
            if (typeof state.stack === "string" && state.stack !== stack) {
                problems.push(`is the outputs of stack ${JSON.stringify(state.stack)} (state.stack), not of ${JSON.stringify(stack)}: pass this stack's outputs (pulumi stack output --json --stack ${stack})`);
            }
            if (state.dhcpSlots !== undefined && !parseDhcpSlots(state.dhcpSlots)) {
                problems.push(`state.dhcpSlots must have rangeStart and rangeEnd (IP addresses), slots (1-${MAX_DHCP_SLOTS}) and nodes (node name to slot)`);
            }
        }
    }
    return problems;
}

/**
 * What a person should know of a `--previous` file that is not refused: an `apiUrl` of another
 * name or namespace (the outputs of another stack, or this change renames the stack's objects,
 * which creates every object anew: then the kept DHCP slots and guards of the previous run are
 * those of objects this change replaces).
 */
export function previousOutputsNotes(outputs: Record<string, unknown>, plan: IronicPlan): string[] {
    const apiUrl = outputs.apiUrl;
    if (typeof apiUrl !== "string") return [];
    const hostOf = (u: string) => {
        try {
            return new URL(u).hostname;
        } catch {
            return undefined;
        }
    };
    const theirs = hostOf(apiUrl);
    const ours = hostOf(plan.urls.apiInCluster);
    if (theirs === ours) return [];
    return [
        `its apiUrl names ${theirs ?? JSON.stringify(apiUrl)}, this stack's API is ${ours} (name ${plan.name}, namespace ${plan.namespace}): ` +
            "either the file is another stack's outputs, or this change renames the stack's objects, which creates every object anew",
    ];
}
