/**
 * metrics.enabled: the Service over every Ironic pod's exporter (one endpoint per conductor), and
 * with metrics.serviceMonitor.enabled a prometheus-operator ServiceMonitor over it. The exporter
 * containers themselves are part of the Ironic pod (core/manifests/metrics.ts).
 *
 * The ServiceMonitor is a switch, never a lookup of its CRD: a preview must not change with what
 * happens to be installed in the cluster. Without the CRD, `pulumi up` fails on it, naming the kind.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { inNamespace, metricsService, serviceMonitor } from "../core/manifests";
import { IronicPlan } from "../core/plan";

export interface MetricsArgs {
    plan: IronicPlan;
    namespace: pulumi.Input<string>;
}

export class Metrics extends pulumi.ComponentResource {
    public readonly service: k8s.core.v1.Service;
    public readonly serviceMonitor?: k8s.apiextensions.CustomResource;

    constructor(name: string, args: MetricsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:metrics:Metrics", name, {}, opts);
        const { plan, namespace } = args;
        this.service = new k8s.core.v1.Service(`${name}-service`, inNamespace(metricsService(plan), namespace), { parent: this });
        if (plan.metrics.serviceMonitor.enabled) {
            this.serviceMonitor = new k8s.apiextensions.CustomResource(`${name}-servicemonitor`, inNamespace(serviceMonitor(plan), namespace), { parent: this, dependsOn: [this.service] });
        }
        this.registerOutputs({ service: this.service.metadata.name, serviceMonitor: this.serviceMonitor?.metadata.name });
    }
}
