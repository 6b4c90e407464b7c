/**
 * The planner: validated config → deployment plan, as plain data. Pure; tested without Pulumi.
 *
 * This file only re-exports:
 *   plan.ts          buildPlan, composing the modules below
 *   types.ts         IronicPlan, ConductorPlan, EnvMap, OsloSetting
 *   read.ts          the readers that narrow the plan's unions (listedConductors, dhcpSlotsOf, databaseOf, …)
 *   conductors.ts    the conductors of each topology and their dnsmasq options; cidrParts
 *   env.ts           container environments, OS_* settings
 *   database.ts      databaseEnv (the rest from its own path)
 *   certificates.ts  SANs of the API and node certificates
 *   secrets.ts       Secrets the user owns versus Secrets the program writes
 *   summary.ts       the `topology` stack output
 *   admit.ts         admitPlan: the plan and every problem it has, for the program and `npm run plan`
 *   slices.ts, slots.ts, conductor.ts, previous.ts: imported from their own paths (core/names.ts and
 *   core/timings.ts are outside the plan)
 */
export { buildPlan } from "./plan";
export { admitPlan } from "./admit";
export type { ConductorCaPlan, EnvMap, IronicPlan, CertValidity, ListedConductor, OsloSetting, SingleConductor, StackCaPlan, TlsPlan, TopologyPlan } from "./types";
export { cidrParts, planTopology } from "./conductors";
export { databaseOf, dhcpSlotsOf, listedConductors, listedConductorsByNode, multiTopologyOf, stackCaOf, stackIssuesApiCertificate, userTlsSecretOf } from "./read";
export { databaseEnv } from "./database";
export { commonEnv, ipaDownloaderEnv, ironicEnv, osloSettings } from "./env";
export { apiCertificate, conductorCaPlan, nodeCertificateSans } from "./certificates";
export { ownedSecretNames, userSecretIssues, userSecrets } from "./secrets";
export type { UserSecret } from "./secrets";
export { topologySummary } from "./summary";
export type { TopologySummary } from "./summary";
export { FAILOVER_SETTINGS } from "../timings";
