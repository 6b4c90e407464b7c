/** Types shared by the planner's modules. */

/** Environment variables by name. */
export type EnvMap = Record<string, string>;
