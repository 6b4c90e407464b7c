/** Shared by the planner tests: the example stacks as validated configs, and variants of them. */
import { strict as assert } from "assert";
import * as path from "path";

import { validateConfig } from "../../../core/config";
import type { ConfigIssue, RawConfig, StackConfig } from "../../../core/config";
import { buildPlan } from "../../../core/plan";
import type { IronicPlan } from "../../../core/plan";
import { readStackConfig } from "../../../tools/render";

const ROOT = path.join(__dirname, "..", "..", "..");
export const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
export const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
export const vmediaRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.vmedia.yaml"));
export const v6VipRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.v6-vip.yaml"));
export const tlsExistingRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.tls-existing.yaml"));

/** The validated config of `raw`; fails the test with every issue when it is rejected. */
export function configOf(raw: RawConfig): StackConfig {
    const r = validateConfig(raw);
    if (!r.ok) assert.fail(`config rejected:\n${(r as { issues: ConfigIssue[] }).issues.map((i) => `${i.key}: ${i.message}`).join("\n")}`);
    return r.config;
}

export const planOf = (raw: RawConfig): IronicPlan => buildPlan(configOf(raw));

/** `base` with top-level keys replaced. */
export const withKeys = (base: RawConfig, keys: RawConfig): RawConfig => ({ ...base, ...keys });

/** The ha stack without DHCP (virtual media only): no slices, so no pinned slots either. */
export const haNoDhcpRaw: RawConfig = withKeys(haRaw, {
    provisioning: { interface: "eth1", cidr: "172.22.0.0/24" },
    conductors: [
        { name: "cp-0", ip: "172.22.0.2" },
        { name: "cp-1", ip: "172.22.0.3", interface: "eno2" },
    ],
});

/** The dev stack without DHCP (virtual media only). */
export const devNoDhcpRaw: RawConfig = withKeys(devRaw, { provisioning: { interface: "eth1", ip: "172.22.0.2", cidr: "172.22.0.0/24" } });
