/**
 * Every label the program puts on what it deploys, built here only: the Kubernetes recommended
 * labels (app.kubernetes.io/*) of each app of a stack, the selector of its pods, and the component
 * that sets one part of an app apart. The plan carries the Ironic and image cache sets; manifests
 * add their app's or component's.
 */
type Labels = Record<string, string>;

/** The recommended label keys. */
export const LABEL = {
    name: "app.kubernetes.io/name",
    instance: "app.kubernetes.io/instance",
    partOf: "app.kubernetes.io/part-of",
    managedBy: "app.kubernetes.io/managed-by",
    component: "app.kubernetes.io/component",
} as const;

/** What selects the pods of `app` (ironic, ipa-cache, mariadb, …) of instance `instance`. */
export function appSelector(app: string, instance: string): Labels {
    return { [LABEL.name]: app, [LABEL.instance]: instance };
}

/** The labels of every object of `app` a stack deploys: its selector, part of metal3, managed by this program. */
export function appLabels(app: string, instance: string): Labels {
    return { ...appSelector(app, instance), [LABEL.partOf]: "metal3", [LABEL.managedBy]: "metal3-ironic" };
}

/** The label of a component (what sets one part of an app apart, e.g. the metrics Service, a schema Job's pods). */
export function componentLabel(component: string): Labels {
    return { [LABEL.component]: component };
}

/** `labels` as `app`'s (its name) and of `component`: another app's objects in a stack's label set. */
export function asApp(labels: Labels, app: string, component: string): Labels {
    return { ...labels, [LABEL.name]: app, ...componentLabel(component) };
}

/** The component of the DHCP slot agents' Leases. */
export const DHCP_SLOT_COMPONENT = "dhcp-slot";

/** Labels the DHCP slot agents put on their Leases at run time (`kubectl get leases -l` selects them); no stack state tracks them. */
export function dhcpSlotLeaseLabels(instance: string): Labels {
    return { ...componentLabel(DHCP_SLOT_COMPONENT), [LABEL.instance]: instance, [LABEL.partOf]: "metal3", [LABEL.managedBy]: "dhcp-slot-agent" };
}

/**
 * An EndpointSlice this program writes for `service`, a Service without a selector: the service
 * name ties it to the Service, and a manager other than the EndpointSlice controller's
 * (endpointslice-controller.k8s.io) keeps that controller from touching it.
 */
export function endpointSliceLabels(labels: Labels, service: string): Labels {
    return { ...labels, "kubernetes.io/service-name": service, "endpointslice.kubernetes.io/managed-by": "metal3-ironic.metal3.io" };
}
