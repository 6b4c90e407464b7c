/** Shared by the config tests: the example stacks, issue lookups, and table-driven tests of one rule in isolation. */
import { strict as assert } from "assert";
import * as path from "path";
import type { z } from "zod";

import { ConfigIssue, RawConfig, validateConfig } from "../../../core/config";
import { applyDefaults } from "../../../core/config/defaults";
import type { Rule } from "../../../core/config/rules";
import { ParsedSections, TOP_LEVEL_KEYS, sections } from "../../../core/config/schema";
import { readStackConfig } from "../../../tools/render";

const ROOT = path.join(__dirname, "..", "..", "..");
export const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
export const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));

/** A real OpenSSH ed25519 public key line (made with ssh-keygen -t ed25519 -C ops@bastion-1). */
export const ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIM34SCcE0yyQXdtkAw+Y/I7PzXLEIIjwvb20VYzM6h2G ops@bastion-1";

export function issues(raw: RawConfig): ConfigIssue[] {
    const r = validateConfig(raw);
    assert.equal(r.ok, false, "expected the config to be rejected");
    return (r as { issues: ConfigIssue[] }).issues;
}

export function withProvisioning(p: Record<string, unknown>, base: RawConfig = devRaw): RawConfig {
    return { ...base, provisioning: { ...(base.provisioning as object), ...p } };
}

export function withDhcp(d: Record<string, unknown>, base: RawConfig = devRaw): RawConfig {
    const prov = base.provisioning as Record<string, any>;
    return { ...base, provisioning: { ...prov, dhcp: { ...prov.dhcp, ...d } } };
}

/** `base` without `provisioning.<key>`. */
export function withoutProvisioning(key: string, base: RawConfig = devRaw): RawConfig {
    const prov: Record<string, unknown> = { ...(base.provisioning as Record<string, unknown>) };
    delete prov[key];
    return { ...base, provisioning: prov };
}

export const listing = (list: ConfigIssue[]) => list.map((i) => `${i.key}: ${i.message}`).join("\n") || "(none)";

export function hasIssue(list: ConfigIssue[], key: string, pattern: RegExp): void {
    const found = list.find((i) => i.key === key && pattern.test(i.message));
    assert.ok(found, `no issue for ${key} matching ${pattern}; got:\n${listing(list)}`);
}

/**
 * The issues of one rule alone, on a raw config parsed and defaulted as `validateConfig` does.
 * Every section of `raw` must parse: a case that breaks the schema tests the schema, not the rule.
 */
export function ruleIssues(rule: Rule, raw: RawConfig): ConfigIssue[] {
    const parsed: ParsedSections = {};
    for (const key of TOP_LEVEL_KEYS) {
        if (raw[key] === undefined) continue;
        const result = (sections[key] as z.ZodTypeAny).safeParse(raw[key]);
        assert.ok(result.success, `test case: section ${key} does not parse: ${JSON.stringify(!result.success && result.error.issues)}`);
        (parsed as Record<string, unknown>)[key] = result.data;
    }
    const list: ConfigIssue[] = [];
    rule({ config: applyDefaults(parsed), parsed, failed: new Set() }, (key, message) => list.push({ key, message }));
    return list;
}

export interface RuleCase {
    /** What the case is about; the test name says whether it is reported. */
    name: string;
    raw: RawConfig;
    /** The exact key of the issue and a fragment of its message. */
    key: string;
    message: string;
    reported: boolean;
}

/**
 * One test per case: the rule alone reports (or does not report) an issue with exactly `key`
 * whose message contains `message`; the same holds for the whole validation.
 */
export function ruleTable(rule: Rule, cases: RuleCase[]): void {
    for (const c of cases) {
        it(`${c.reported ? "reports" : "does not report"} ${c.key}: ${c.name}`, function () {
            const matches = (list: ConfigIssue[]) => list.filter((i) => i.key === c.key && i.message.includes(c.message));
            const alone = ruleIssues(rule, c.raw);
            const r = validateConfig(c.raw);
            const all = r.ok ? [] : r.issues;
            if (c.reported) {
                assert.equal(matches(alone).length, 1, `the rule: expected one ${c.key} containing ${JSON.stringify(c.message)}; got:\n${listing(alone)}`);
                assert.equal(matches(all).length, 1, `validateConfig: expected one ${c.key} containing ${JSON.stringify(c.message)}; got:\n${listing(all)}`);
            } else {
                assert.deepEqual(matches(alone), [], `the rule reported ${c.key}:\n${listing(alone)}`);
                assert.deepEqual(matches(all), [], `validateConfig reported ${c.key}:\n${listing(all)}`);
            }
        });
    }
}
