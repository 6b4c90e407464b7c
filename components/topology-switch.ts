/**
 * The Pulumi identity of each topology's workload, and the resource options that make a topology
 * switch (single ↔ multi) safe. Single registers the Ironic component (Deployment + Service),
 * multi the Conductors component (DaemonSet + Service); both Services are the same Kubernetes
 * object, and both workloads bind the same host ports and run dnsmasq.
 *
 * - The API Service of each topology aliases the other topology's Service URN: the engine matches
 *   it to the existing Service and updates it in place (no create-then-delete of a fixed name).
 *   So does its EndpointSlice (provisioning.bindInterface), one fixed name too.
 * - The workload of each topology aliases the other's workload URN, with `replaceOnChanges:
 *   ["kind"]` and `deleteBeforeReplace`. The engine does not compare types of aliased resources;
 *   it asks the provider to diff old state against new inputs, and pulumi-kubernetes' Diff does not
 *   force a replacement on `kind` (only on metadata.name/namespace and per-kind immutable fields).
 *   Without `replaceOnChanges` the switch would be an in-place Update, which applies the new kind
 *   and never deletes the old object. With it, the change of `kind` is a replacement, and with
 *   `deleteBeforeReplace` the engine deletes the old workload (the provider deletes the object its
 *   old state records and waits until it is gone) before it creates the new one. Without the
 *   alias, the old workload would only be deleted at the end of the update, after the new one
 *   started next to it on the same host ports with a second dnsmasq answering DHCP.
 * On runs without a switch the resource's own URN matches first and the aliases do nothing.
 */
import * as pulumi from "@pulumi/pulumi";

export type Topology = "single" | "multi";

/** Type tokens and child names per topology: part of every URN, never changed casually. */
export const WORKLOAD_IDENTITY = {
    single: { component: "metal3:ironic:Ironic", suffix: "-ironic", workloadType: "kubernetes:apps/v1:Deployment", workload: "-deployment" },
    multi: { component: "metal3:ironic:Conductors", suffix: "-conductors", workloadType: "kubernetes:apps/v1:DaemonSet", workload: "-daemonset" },
} as const;

const SERVICE_TYPE = "kubernetes:core/v1:Service";
const SERVICE = "-service";
const ENDPOINTS_TYPE = "kubernetes:discovery.k8s.io/v1:EndpointSlice";
const ENDPOINTS = "-endpoints";

/** Name of the topology's workload component under the stack component `stackName`. */
export function workloadComponentName(stackName: string, topology: Topology): string {
    return `${stackName}${WORKLOAD_IDENTITY[topology].suffix}`;
}

export interface SwitchOptions {
    /** For the API Service. */
    service: pulumi.CustomResourceOptions;
    /** For its EndpointSlice (provisioning.bindInterface): one object whichever topology writes it. */
    endpoints: pulumi.CustomResourceOptions;
    /** For the Deployment / DaemonSet. */
    workload: pulumi.CustomResourceOptions;
}

/**
 * Options for the children of the `topology` workload component named `componentName` (whose
 * parent is `parent`): aliases to the same children of the other topology's component.
 */
export function switchOptions(componentName: string, topology: Topology, parent: pulumi.Resource | undefined): SwitchOptions {
    const own = WORKLOAD_IDENTITY[topology];
    if (!componentName.endsWith(own.suffix)) throw new Error(`${componentName}: a ${topology} workload component is named <stack>${own.suffix}`);
    const stackName = componentName.slice(0, -own.suffix.length);
    const other = WORKLOAD_IDENTITY[topology === "single" ? "multi" : "single"];
    const otherName = `${stackName}${other.suffix}`;
    // The URN the other topology's component has (or had) in this stack: same parent, its type and name.
    const otherComponent = pulumi.createUrn(otherName, other.component, parent);
    return {
        service: { aliases: [pulumi.createUrn(`${otherName}${SERVICE}`, SERVICE_TYPE, otherComponent)] },
        endpoints: { aliases: [pulumi.createUrn(`${otherName}${ENDPOINTS}`, ENDPOINTS_TYPE, otherComponent)] },
        workload: {
            aliases: [pulumi.createUrn(`${otherName}${other.workload}`, other.workloadType, otherComponent)],
            replaceOnChanges: ["kind"],
            deleteBeforeReplace: true,
        },
    };
}
