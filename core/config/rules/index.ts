/**
 * Every cross-field rule, in the order their issues are reported (users and tests see that order).
 * Adding a rule is adding a file here that exports a `Rule` and listing it below; `rule.ts` (the
 * type) and `network.ts` (the provisioning network as numbers) are shared by the rules, not rules.
 */
import { bindRule } from "./bind";
import { bmoRule } from "./bmo";
import { conductorsRule } from "./conductors";
import { databaseRule } from "./database";
import { dhcpExtraRangesRule } from "./dhcp-extra-ranges";
import { dhcpGatewayRule } from "./dhcp-gateway";
import { dhcpRangeRule } from "./dhcp-range";
import { dhcpSizeRule } from "./dhcp-size";
import { downloadsRule } from "./downloads";
import { dualStackRule } from "./dual-stack";
import { kernelRule } from "./kernel";
import { imagesRule } from "./images";
import { imageCacheRule, ipaDownloadRule } from "./image-cache";
import { ipFamilyRule } from "./ip-family";
import { portsRule } from "./ports";
import { provisioningRule } from "./provisioning";
import { metricsRule } from "./metrics";
import { keepalivedRule } from "./keepalived";
import { externalRule } from "./reach";
import { resourcesRule } from "./resources";
import type { Rule } from "./rule";
import { tlsRule } from "./tls";
import { topologyRule } from "./topology";
import { trustRule } from "./trust";

export type { AddIssue, Rule, RuleInput } from "./rule";
export { RESERVED_MULTI_OPTIONS } from "./topology";

export const RULES: readonly Rule[] = [
    portsRule,
    ipFamilyRule,
    dualStackRule,
    provisioningRule,
    dhcpRangeRule,
    dhcpSizeRule,
    dhcpGatewayRule,
    dhcpExtraRangesRule,
    tlsRule,
    conductorsRule,
    topologyRule,
    databaseRule,
    kernelRule,
    imagesRule,
    imageCacheRule,
    ipaDownloadRule,
    resourcesRule,
    trustRule,
    metricsRule,
    bmoRule,
    downloadsRule,
    externalRule,
    keepalivedRule,
    bindRule,
];
