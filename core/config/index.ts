/**
 * Stack configuration: the schema, its defaults, and validation that reports every problem
 * at once with the config key it concerns and how to fix it.
 *
 * Pure: no Pulumi import. `index.ts` hands in the raw config read from the engine;
 * `tools/plan.ts` hands in the raw config read from Pulumi.<stack>.yaml.
 *
 * This file only re-exports:
 *   <section>.ts  one module per section: schema, defaults (resolver), type, docs (section.ts)
 *   schema.ts     zod building blocks and the sections in order (`sections`)
 *   strings.ts    free strings checked for what their consumer accepts (env, ini, iPXE, Kubernetes)
 *   defaults.ts   every section's resolver applied (applyDefaults)
 *   types.ts      the validated, defaulted configuration (StackConfig: applyDefaults' return type)
 *   rules/        cross-field rules, one file per topic, reported in the order of rules/index.ts
 *   validate.ts   validateConfig, ConfigIssue, formatIssues
 *   raw.ts        the raw config from the engine (rawConfigFromEntries, PROJECT)
 */
export { ipToNumber, numberToIp } from "../ip";
export { DEFAULT_MIN_DHCP_RANGE, defaultDhcpSlots } from "./defaults";
export { PROJECT, rawConfigFromEntries } from "./raw";
export type { RawConfig, SecretPath } from "./raw";
export { RESERVED_MULTI_OPTIONS } from "./rules/topology";
export { MAX_DHCP_SLOTS, TOP_LEVEL_KEYS } from "./schema";
export type { Metal3IronicConfig } from "./schema";
export type { ConductorConfig, DhcpConfig, ExternalConfig, Ipv6Config, StackConfig } from "./types";
export { formatIssues, validateConfig, validateReadable } from "./validate";
export type { ConfigIssue, UnreadablePath } from "./validate";
