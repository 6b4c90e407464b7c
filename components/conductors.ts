/**
 * The multi-conductor workload: one Ironic (+ httpd, dnsmasq) on every node the placement selects
 * (by default the control-plane nodes); a node that joins gets one with no change here.
 *
 * Per-node data (environment, dnsmasq slice config) lives in per-node entries of one ConfigMap;
 * the DaemonSet's pod template is the same for every node. Each conductor mints its certificate at
 * start from the conductor CA, and finds its address on the node unless its conductors[] entry
 * names it. Listing a node only overrides; nothing of another node changes.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { Credentials } from "./credentials";
import { conductorDaemonSet, inNamespace, nodeDataConfigMapData, scriptsConfigMapData, scriptsConfigMapName, tlsSecretBody } from "../core/manifests";
import { apiService, rollAnnotations } from "./ironic";
import { slotLeaseAccess, slotRole, slotRoleBinding, slotServiceAccount } from "../core/manifests/slots";
import { StackPki } from "./pki";
import { IronicPlan } from "../core/plan";
import { WORKLOAD_IDENTITY, switchOptions } from "./topology-switch";
import { stackMeta } from "../core/manifests/meta";

export interface ConductorsArgs {
    plan: IronicPlan;
    namespace: pulumi.Input<string>;
    /**
     * tls.mode "generate": signs the conductor CA, from which each conductor mints its certificate
     * (API on its IP, JSON-RPC). Unused otherwise (plan.conductorCa says where that CA comes from).
     */
    pki?: StackPki;
    /** With tls.mode "existing": the user's API certificate; its hash rolls the pods when it changes. */
    tlsCertPem?: pulumi.Input<string>;
    /** Hash of the API credentials (Credentials.rollHash): the pods roll when the password changes. */
    credentialsHash?: pulumi.Input<string>;
    /** The IPA cache's own root (imageCacheForStack): its hash rolls the pods when it is re-issued. */
    cacheCaPem?: pulumi.Input<string>;
    /** Objects the pods mount; the DaemonSet waits for them. */
    dependsOn: pulumi.Input<pulumi.Resource>[];
}

export class Conductors extends pulumi.ComponentResource {
    public readonly daemonSet: k8s.apps.v1.DaemonSet;
    public readonly service: k8s.core.v1.Service;
    /** provisioning.bindInterface: the Service's endpoints, the listed conductors' addresses. */
    public readonly endpointSlice?: k8s.discovery.v1.EndpointSlice;

    constructor(name: string, args: ConductorsArgs, opts?: pulumi.ComponentResourceOptions) {
        super(WORKLOAD_IDENTITY.multi.component, name, {}, opts);
        // A switch from single keeps the Service and replaces the Deployment, deleting it first.
        const fromSingle = switchOptions(name, "multi", opts?.parent);
        const { plan, namespace, pki } = args;
        
        // JSON-RPC has its own credentials; the image reads username, password and htpasswd.
        const rpc = new Credentials(
            `${name}-rpc-credentials`,
            { namespace, secretName: plan.names.rpcCredentialsSecret, username: "ironic-rpc", labels: plan.labels },
            { parent: this },
        );

        // The conductor CA: each conductor mints its own certificate from it at start (for an
        // address no one needs to configure); only the ironic and httpd containers mount its key.
        // With tls.mode "existing" it is the user's Secret (tls.conductorCaSecret): mounted by
        // name, never read, so its key never passes through Pulumi; without one, a root of the
        // stack's that only the JSON-RPC peers trust.
        const source = plan.conductorCa?.source;
        const caSecret = source === "stack-root" ? this.conductorRoot(name, plan, namespace) : source === "stack-intermediate" && pki ? this.conductorCa(name, plan, namespace, pki) : undefined;
        const nodeData = new k8s.core.v1.ConfigMap(
            `${name}-conductors`,
            { metadata: stackMeta(plan, plan.names.nodeDataConfigMap, { namespace }), data: nodeDataConfigMapData(plan) },
            { parent: this },
        );
        const scripts = new k8s.core.v1.ConfigMap(
            `${name}-scripts`,
            { metadata: stackMeta(plan, scriptsConfigMapName(plan), { namespace }), immutable: true, data: scriptsConfigMapData(plan) },
            { parent: this },
        );

        // With DHCP: the slot agents' ServiceAccount and a Role reaching only this stack's slot Leases.
        const access = slotLeaseAccess(plan);
        const slotRbac: pulumi.Resource[] = [];
        if (access) {
            const sa = new k8s.core.v1.ServiceAccount(`${name}-dhcp-slots`, inNamespace(slotServiceAccount(access), namespace), { parent: this });
            const role = new k8s.rbac.v1.Role(`${name}-dhcp-slots`, inNamespace(slotRole(access), namespace), { parent: this });
            const binding = new k8s.rbac.v1.RoleBinding(`${name}-dhcp-slots`, inNamespace(slotRoleBinding(access), namespace), { parent: this, dependsOn: [sa, role] });
            slotRbac.push(sa, role, binding);
        }

        this.daemonSet = new k8s.apps.v1.DaemonSet(
            `${name}${WORKLOAD_IDENTITY.multi.workload}`,
            inNamespace(conductorDaemonSet(plan, rollAnnotations(args)), namespace),
            { parent: this, dependsOn: [...args.dependsOn, rpc.secret, ...(caSecret ? [caSecret] : []), nodeData, scripts, ...slotRbac], ...fromSingle.workload },
        );
        ({ service: this.service, endpointSlice: this.endpointSlice } = apiService(this, name, plan, namespace, fromSingle));
        this.registerOutputs({ daemonSet: this.daemonSet.metadata.name, service: this.service.metadata.name });
    }

    /** An intermediate of the stack CA in the conductor CA Secret (tls.mode "generate"). */
    private conductorCa(name: string, plan: IronicPlan, namespace: pulumi.Input<string>, pki: StackPki): k8s.core.v1.Secret {
        const ca = pki.issueIntermediate(`${name}-conductor-ca`, { commonName: `${plan.namespace}/${plan.name} conductor CA` }, this);
        return this.caSecret(name, plan, namespace, ca);
    }

    /**
     * tls.mode "existing" without tls.conductorCaSecret: a root of its own, trusted by the JSON-RPC
     * peers only (core/plan/certificates.ts conductorCaPlan), so its key can sign nothing that the API's
     * clients, MariaDB's or the IPA cache's would accept. Not protected: losing it costs one rollout
     * (the conductors mint anew from its successor), not a re-distributed CA.
     */
    private conductorRoot(name: string, plan: IronicPlan, namespace: pulumi.Input<string>): k8s.core.v1.Secret {
        const root = new StackPki(
            `${name}-conductor-root`,
            { commonName: `${plan.namespace}/${plan.name} conductor CA`, ...plan.tls.validity, protectKey: false },
            { parent: this },
        );
        return this.caSecret(name, plan, namespace, { certPem: root.caCertPem, keyPem: pulumi.secret(root.caKey.privateKeyPem) });
    }

    private caSecret(name: string, plan: IronicPlan, namespace: pulumi.Input<string>, ca: { certPem: pulumi.Input<string>; keyPem: pulumi.Input<string> }): k8s.core.v1.Secret {
        return new k8s.core.v1.Secret(
            `${name}-conductor-ca`,
            tlsSecretBody(stackMeta(plan, plan.names.conductorCaSecret, { namespace }), { cert: ca.certPem, key: ca.keyPem }),
            { parent: this },
        );
    }
}
