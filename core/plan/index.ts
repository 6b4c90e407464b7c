/**
 * The planner: validated config → deployment plan, as plain data. Pure; tested without Pulumi.
 *
 * This file only re-exports:
 *   plan.ts          buildPlan, composing the modules below
 *   types.ts         IronicPlan, ConductorPlan, EnvMap, OsloSetting
 *   conductors.ts    the conductors of each topology and their dnsmasq options; cidrParts
 *   env.ts           container environments, OS_* settings, databaseEnv
 *   certificates.ts  SANs of the API and node certificates
 *   secrets.ts       Secrets the user owns versus Secrets the program writes
 *   summary.ts       the `topology` stack output
 *   admit.ts         admitPlan: the plan and every problem it has, for the program and `npm run plan`
 *   database.ts, names.ts, slices.ts, slots.ts, timings.ts, conductor.ts, previous.ts: imported from their own paths
 */
export { buildPlan } from "./plan";
export { admitPlan } from "./admit";
export type { ConductorCaPlan, EnvMap, IronicPlan, CertValidity, ListedConductor, OsloSetting, SingleConductor, StackCaPlan, TlsPlan, TopologyPlan } from "./types";
export { cidrParts, dhcpSlotsOf, listedConductors, planTopology } from "./conductors";
export { commonEnv, databaseEnv, ipaDownloaderEnv, ironicEnv, osloSettings } from "./env";
export { apiCertificate, conductorCaPlan, nodeCertificateSans } from "./certificates";
export { ownedSecretNames, userSecretIssues, userSecrets } from "./secrets";
export type { UserSecret } from "./secrets";
export { topologySummary } from "./summary";
export type { TopologySummary } from "./summary";
export { FAILOVER_SETTINGS } from "../timings";
