/** A stack's config validated and planned as the program does it, for tests: one helper instead of a copy per file. */
import { strict as assert } from "assert";

import { validateConfig } from "../../core/config";
import type { ConfigIssue, RawConfig, StackConfig } from "../../core/config";
import { buildPlan } from "../../core/plan";
import type { IronicPlan } from "../../core/plan";
import type { PreviousState } from "../../core/plan/previous";
import type { TopologyPlan } from "../../core/plan/types";

/** The validated config of `raw`; fails the test with every issue when it is rejected. */
export function configOf(raw: RawConfig): StackConfig {
    const r = validateConfig(raw);
    if (!r.ok) assert.fail(`config rejected:\n${(r as { issues: ConfigIssue[] }).issues.map((i) => `${i.key}: ${i.message}`).join("\n")}`);
    return r.config;
}

/** The plan of `raw` (with what a previous run left, when given). */
export const planOf = (raw: RawConfig, previous?: PreviousState): IronicPlan => buildPlan(configOf(raw), previous);

/** The multi topology of `plan`; fails the test on another one. */
export function multiOf(plan: IronicPlan): Extract<TopologyPlan, { kind: "multi" }> {
    if (plan.topology.kind !== "multi") assert.fail(`topology ${plan.topology.kind}, not multi`);
    return plan.topology;
}

/** The single topology of `plan`; fails the test on another one. */
export function singleOf(plan: IronicPlan): Extract<TopologyPlan, { kind: "single" }> {
    if (plan.topology.kind !== "single") assert.fail(`topology ${plan.topology.kind}, not single`);
    return plan.topology;
}
