/**
 * The single-topology Ironic workload: dnsmasq ConfigMap, Deployment and API Service (bound to
 * provisioning.ip: with its EndpointSlice; apiService, shared with multi's Conductors).
 * A thin shell: every object body comes from the pure functions in manifests.ts.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { ANNOTATIONS, dnsmasqConfigMapData, inNamespace, ironicDeployment, ironicEndpointSlice, ironicService, sha256 } from "../core/manifests";
import { IronicPlan } from "../core/plan";
import { WORKLOAD_IDENTITY, switchOptions } from "./topology-switch";
import type { SwitchOptions } from "./topology-switch";
import { stackMeta } from "../core/manifests/meta";

export interface IronicArgs {
    plan: IronicPlan;
    /** Namespace the objects go into (an Output so that they depend on its creation). */
    namespace: pulumi.Input<string>;
    /** Server certificate PEM: its hash rolls the pod when the certificate is re-issued (none with cert-manager). */
    tlsCertPem?: pulumi.Input<string>;
    /** Hash of the API credentials (Credentials.rollHash): the pod rolls when the password changes. */
    credentialsHash?: pulumi.Input<string>;
    /** Objects the pod mounts; the Deployment waits for them. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

export class Ironic extends pulumi.ComponentResource {
    public readonly deployment: k8s.apps.v1.Deployment;
    public readonly service: k8s.core.v1.Service;
    public readonly dnsmasqConfig?: k8s.core.v1.ConfigMap;
    /** provisioning.bindInterface: the Service's endpoint, provisioning.ip. */
    public readonly endpointSlice?: k8s.discovery.v1.EndpointSlice;

    constructor(name: string, args: IronicArgs, opts?: pulumi.ComponentResourceOptions) {
        super(WORKLOAD_IDENTITY.single.component, name, {}, opts);
        const { plan } = args;
        // A switch from multi keeps the Service and replaces the DaemonSet, deleting it first.
        const fromMulti = switchOptions(name, "single", opts?.parent);

        const data = dnsmasqConfigMapData(plan);
        const dependsOn = [...args.dependsOn];
        if (data) {
            this.dnsmasqConfig = new k8s.core.v1.ConfigMap(
                `${name}-dnsmasq`,
                { metadata: stackMeta(plan, plan.names.dnsmasqConfigMap, { namespace: args.namespace }), data },
                { parent: this },
            );
            dependsOn.push(this.dnsmasqConfig);
        }
        const rollOn = rollAnnotations(args);
        this.deployment = new k8s.apps.v1.Deployment(
            `${name}${WORKLOAD_IDENTITY.single.workload}`,
            inNamespace(ironicDeployment(plan, rollOn), args.namespace),
            { parent: this, dependsOn, ...fromMulti.workload },
        );
        ({ service: this.service, endpointSlice: this.endpointSlice } = apiService(this, name, plan, args.namespace, fromMulti));
        this.registerOutputs({ deployment: this.deployment.metadata.name, service: this.service.metadata.name });
    }
}

/** The pod-template annotations that roll the pods when what is read at start only changes: the server certificate, the API credentials, the IPA cache's own root. */
export function rollAnnotations(args: { tlsCertPem?: pulumi.Input<string>; credentialsHash?: pulumi.Input<string>; cacheCaPem?: pulumi.Input<string> }): Record<string, pulumi.Input<string>> {
    return {
        ...(args.tlsCertPem ? { [ANNOTATIONS.tlsCert]: pulumi.output(args.tlsCertPem).apply((pem) => sha256(pem)) } : {}),
        ...(args.credentialsHash ? { [ANNOTATIONS.credentials]: args.credentialsHash } : {}),
        ...(args.cacheCaPem ? { [ANNOTATIONS.cacheCa]: pulumi.output(args.cacheCaPem).apply((pem) => sha256(pem)) } : {}),
    };
}

/**
 * The API Service of either topology's component (`opts`: its topology-switch aliases); bound
 * (provisioning.bindInterface), with its EndpointSlice (aliased like the Service), written first,
 * so that what waits on the Service (the readiness check) waits on it too.
 */
export function apiService(parent: pulumi.Resource, name: string, plan: IronicPlan, namespace: pulumi.Input<string>, opts: Pick<SwitchOptions, "service" | "endpoints">) {
    const slice = ironicEndpointSlice(plan);
    const endpointSlice = slice ? new k8s.discovery.v1.EndpointSlice(`${name}-endpoints`, inNamespace(slice, namespace), { parent, ...opts.endpoints }) : undefined;
    const service = new k8s.core.v1.Service(`${name}-service`, inNamespace(ironicService(plan), namespace), { parent, ...(endpointSlice ? { dependsOn: [endpointSlice] } : {}), ...opts.service });
    return { service, endpointSlice };
}
