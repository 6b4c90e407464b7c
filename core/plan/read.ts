/**
 * The plan's readers: what narrows a union of the plan (topology, database kind, conductor CA) for
 * the code that builds from one of its cases, and names a wrong case as a bug of the program. They
 * compute nothing: every value they return was decided in buildPlan. The only values manifests
 * import from core/plan (test/unit/architecture.test.ts, rule (d)).
 */
import type { DatabaseCommonPlan, DatabaseKindPlan, DatabasePlan } from "./database";
import type { DhcpSlotPlan } from "./slots";
import type { ConductorCaPlan, IronicPlan, ListedConductor, StackCaPlan, TopologyPlan } from "./types";

/** Multi: the listed nodes in config order (none for single). */
export function listedConductors(plan: IronicPlan): ListedConductor[] {
    return plan.topology.kind === "multi" ? plan.topology.conductors : [];
}

/** The listed nodes by node name: the order of every per-node map the program writes (quiet diffs). */
export function listedConductorsByNode(plan: IronicPlan): ListedConductor[] {
    return [...listedConductors(plan)].sort((a, b) => a.node.localeCompare(b.node));
}

/** Multi with DHCP: the slot layout (undefined otherwise). */
export function dhcpSlotsOf(plan: IronicPlan): DhcpSlotPlan | undefined {
    return plan.topology.kind === "multi" ? plan.topology.dhcpSlots : undefined;
}

/** The multi topology of `plan`; `what` names the caller in the error another topology is (a bug of the program). */
export function multiTopologyOf(plan: IronicPlan, what: string): Extract<TopologyPlan, { kind: "multi" }> {
    if (plan.topology.kind !== "multi") throw new Error(`${what}: topology multi only, not ${plan.topology.kind} (a bug of metal3-ironic)`);
    return plan.topology;
}

/**
 * `db` as the plan of `kinds`: what a manifest or component of those kinds is built from. Called for
 * another kind it is a bug of the program (they are registered for their kind only), said as one.
 */
export function databaseOf<K extends DatabaseKindPlan["kind"]>(db: DatabasePlan, ...kinds: K[]): DatabaseCommonPlan & Extract<DatabaseKindPlan, { kind: K }> {
    if (!(kinds as string[]).includes(db.kind)) throw new Error(`a ${kinds.join(" or ")} database object was built for database.kind ${db.kind}`);
    return db as DatabaseCommonPlan & Extract<DatabaseKindPlan, { kind: K }>;
}

/** Multi with your (your issuer's) conductor CA: the bundle it must chain to, which the minter checks (its env and its mount). */
export function conductorCaChainCheck(plan: { conductorCa?: ConductorCaPlan }): string | undefined {
    return plan.conductorCa && "chainCheck" in plan.conductorCa ? plan.conductorCa.chainCheck : undefined;
}

/** The stack CA this program generates, where the plan has one (tls generate; existing where MariaDB or the conductors need one); none with an issuer. */
export function stackCaOf(plan: Pick<IronicPlan, "tls">): StackCaPlan | undefined {
    return "stackCa" in plan.tls ? plan.tls.stackCa : undefined;
}

/** tls.mode existing: the user's TLS Secret, which the program reads and never writes (undefined otherwise). */
export function userTlsSecretOf(plan: Pick<IronicPlan, "tls" | "names">): string | undefined {
    return plan.tls.source === "user" ? plan.names.tlsSecret : undefined;
}

/** Whether the stack CA issues the API certificate (tls generate); with existing it is the user's, with cert-manager the issuer's. */
export function stackIssuesApiCertificate(plan: Pick<IronicPlan, "tls">): boolean {
    return plan.tls.source === "stack";
}
