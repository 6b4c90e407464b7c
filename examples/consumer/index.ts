// Ironic for baremetal-operator, deployed by a program of your own: the metal3-ironic component
// takes the configuration that metal3-ironic's stack config takes (docs/configuration.md), as
// plain values, and this program decides where they come from.
import * as pulumi from "@pulumi/pulumi";
import { Metal3Ironic, Metal3IronicConfig, readPreviousState } from "metal3-ironic";

const cfg = new pulumi.Config();

// The provisioning network differs per site; the rest is this program's policy.
const config: Metal3IronicConfig = {
    namespace: cfg.get("namespace") ?? "metal3",
    provisioning: {
        ip: cfg.require("provisioningIp"),
        cidr: cfg.require("provisioningCidr"),
        interface: cfg.get("provisioningInterface") ?? "eth1",
    },
    database: { kind: "mariadb", storageSize: "2Gi" },
    ironic: { apiUsername: "bmo" },
    readiness: { enabled: cfg.getBoolean("readiness") ?? true },
};

export = async () => {
    const ironic = new Metal3Ironic("ironic", {
        config,
        // What the last run exported (below): DHCP slots stay put, downgrades are refused.
        previous: await readPreviousState(),
    });
    // Export the outputs under their own names: the next run reads ironicImage and state back.
    return {
        ...ironic.outputs,
        // Anything else of this program's, e.g. what baremetal-operator's kustomization needs.
        bmoEndpoint: ironic.outputs.apiUrl,
    };
};
