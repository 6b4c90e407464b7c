/**
 * The package's public entry (`import { Metal3Ironic } from "metal3-ironic"`): the component, its
 * arguments (the stack config's keys and schema) and outputs, and what a program needs to run it
 * again and again (its previous outputs, the provider settings). docs/library.md shows a program.
 */
export { Metal3Ironic } from "./stack";
export { KUBERNETES_PROVIDER_OPTIONS, kubernetesProviderArgs, planFromArgs, validateArgs } from "./args";
export type { Metal3IronicArgs, Metal3IronicOutputs } from "./args";
export { readPreviousState } from "./previous-state";
export { bmoCacheDir, loadBmoRelease } from "./bmo-release";
export { stackFileStated } from "./secret-config";
export type { BmoRelease, BmoReleaseOptions } from "./bmo-release";
export { parsePreviousState, PREVIOUS_OUTPUTS } from "../core/plan/previous";
export type { PersistedState, PreviousState } from "../core/plan/previous";
export type { Metal3IronicConfig, StackConfig } from "../core/config";
export type { TopologySummary } from "../core/plan/summary";
