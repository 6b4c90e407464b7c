/** Shared by the planner tests: the example stacks as validated configs, and variants of them. */
import * as path from "path";

import type { RawConfig } from "../../../core/config";
import { configOf, planOf } from "../../helpers/plan";
import { readStackConfig } from "../../../tools/render";

const ROOT = path.join(__dirname, "..", "..", "..");
export const devRaw = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
export const haRaw = readStackConfig(path.join(ROOT, "Pulumi.ha.yaml"));
export const vmediaRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.vmedia.yaml"));
export const v6VipRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.v6-vip.yaml"));
export const tlsExistingRaw = readStackConfig(path.join(ROOT, "test/fixtures/Pulumi.tls-existing.yaml"));

export { configOf, planOf };

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
