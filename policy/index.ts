/**
 * The metal3-ironic policy pack: `pulumi preview --policy-pack policy` (docs/gitops.md, Policy pack).
 * The CLI runs this file with ts-node from this directory; @pulumi/policy and @pulumi/pulumi
 * resolve from the repository's node_modules, and package.json here gives the pack its version.
 */
import { PolicyPack } from "@pulumi/policy";

import { policies } from "./policies";

new PolicyPack("metal3-ironic", { policies });
