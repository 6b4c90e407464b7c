/**
 * Admission of a validated config, shared by the program (components/args.ts) and `npm run plan`
 * (tools/plan.ts), so both refuse the same things with the same words: the plan built with what the
 * previous run left, and every problem the plan has at once (a Secret you own named like one this
 * program writes; what the previous run forbids: a schema downgrade, a storage class or database
 * kind change, DHCP slots that would move).
 */
import type { ConfigIssue, StackConfig } from "../config";
import { buildPlan } from "./plan";
import { previousStateIssues } from "./previous";
import type { PreviousState } from "./previous";
import { userSecretIssues } from "./secrets";
import type { IronicPlan } from "./types";

export function admitPlan(config: StackConfig, previous: PreviousState = {}): { plan: IronicPlan; issues: ConfigIssue[] } {
    const plan = buildPlan(config, previous);
    return { plan, issues: [...userSecretIssues(plan), ...previousStateIssues(plan, previous)] };
}
