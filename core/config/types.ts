/**
 * The validated, defaulted stack configuration: what `validateConfig` returns and the planner
 * reads. Each section's type is that of its module's resolver (core/config/section.ts); this file
 * only names the whole and re-exports the parts other modules import.
 */
import type { applyDefaults } from "./defaults";

export type { CaSource } from "./network";
export type { ConductorConfig } from "./conductors";
export type { DhcpConfig, ExtraDhcpRangeConfig, Ipv6Config } from "./provisioning";
export type { ExternalConfig, KeepalivedConfig } from "./reach";

/** What applyDefaults returns. Written nowhere by hand. */
export type StackConfig = ReturnType<typeof applyDefaults>;
