/**
 * What a rule is. A rule checks one topic across sections and reports each problem with `add`,
 * keyed by the path the user types in `pulumi config set --path`, and says how to fix it.
 */
import type { ParsedSections } from "../schema";
import type { StackConfig } from "../types";

export type AddIssue = (key: string, message: string) => void;

export interface RuleInput {
    /** The defaulted configuration (every section, parsed or not). */
    config: StackConfig;
    /**
     * The sections the user set and that parsed. A rule reads a section from here when its
     * problems only make sense for a section that was given (a section that failed to parse has
     * already been reported structurally), or when "set" must be told apart from "defaulted".
     */
    parsed: ParsedSections;
    /**
     * The sections the user set that did not parse (already reported structurally). A rule that
     * would report such a section as missing stays silent: its default is not what the user meant.
     */
    failed: ReadonlySet<keyof ParsedSections>;
}

export type Rule = (input: RuleInput, add: AddIssue) => void;
