/**
 * database.kind mariadb-operator: a Galera cluster run by the MariaDB operator (k8s.mariadb.com).
 * This component registers the operator's objects (core/manifests/mariadb-operator.ts) on this
 * stack's own Secrets: generated root and ironic passwords, and a server certificate from the
 * stack CA whose CA Ironic verifies. The operator itself is a prerequisite, or, with
 * `database.operator.install`, its two Helm charts at the pinned release, installed first.
 *
 * The MariaDB object owns the data: it is `protect`ed (database.protect) and kept on `pulumi destroy`
 * unless `database.retainOnDelete` is false; the Database, User and Grant never drop anything when
 * they go (cleanupPolicy Skip).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { MARIADB_OPERATOR } from "../core/mariadb";
import { databaseOf } from "../core/plan/read";
import { inNamespace } from "../core/manifests";
import { OPERATOR_IRONIC_USER, operatorMariadb, operatorNetworkPolicy, operatorSqlObjects } from "../core/manifests/mariadb-operator";
import { IronicPlan } from "../core/plan";
import { StackPki, serverTlsSecret } from "./pki";
import { databaseCredentials } from "./mariadb";
import { stackMeta } from "../core/manifests/meta";

export interface MariaDBOperatorArgs {
    plan: IronicPlan;
    namespace: pulumi.Input<string>;
    /** Issues the server certificate; Ironic verifies it with this CA. */
    pki: StackPki;
}

export class MariaDBOperatorCluster extends pulumi.ComponentResource {
    public readonly mariadb: k8s.apiextensions.CustomResource;
    public readonly credentials: k8s.core.v1.Secret;
    /** The Database, User and Grant: Ironic's schema Job runs once all are Ready. */
    public readonly sqlObjects: k8s.apiextensions.CustomResource[];

    constructor(name: string, args: MariaDBOperatorArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:database:MariaDBOperatorCluster", name, {}, opts);
        const { plan, namespace, pki } = args;
        const n = plan.database.names;
        const db = databaseOf(plan.database, "mariadb-operator");

        const { secret } = databaseCredentials(this, name, plan, namespace, OPERATOR_IRONIC_USER);
        this.credentials = secret;
        // The operator reads tls.crt/tls.key (serverCertSecretRef) and ca.crt (serverCASecretRef, trust only: no ca.key).
        const request = { commonName: plan.database.serviceDnsNames[2], dnsNames: plan.database.serviceDnsNames, ipAddresses: [] };
        const { secret: tls } = serverTlsSecret(pki, name, request, stackMeta(plan, n.tlsSecret, { namespace }), { issue: pki, secret: this })!;
        const operator = db.operator.install ? installOperator(name, plan, this) : [];

        const keep = { retainOnDelete: db.retainOnDelete };
        this.mariadb = new k8s.apiextensions.CustomResource(`${name}-mariadb`, inNamespace(operatorMariadb(plan), namespace), {
            parent: this,
            dependsOn: [this.credentials, tls, ...operator],
            protect: db.protect,
            ...keep,
        });
        if (!db.operator.install) {
            pulumi.log.info(
                `database.kind mariadb-operator: the MariaDB operator (${MARIADB_OPERATOR.supportedRange}, API ${MARIADB_OPERATOR.apiVersion}) must run in the cluster; ` +
                    "this stack does not install it unless database.operator.install is true (docs/database.md)",
                this.mariadb,
            );
        }
        this.sqlObjects = operatorSqlObjects(plan).map(
            (o) => new k8s.apiextensions.CustomResource(`${name}-${o.kind.toLowerCase()}`, inNamespace(o, namespace), { parent: this, dependsOn: [this.mariadb], ...keep }),
        );
        if (db.networkPolicy.enabled) {
            new k8s.networking.v1.NetworkPolicy(`${name}-networkpolicy`, inNamespace(operatorNetworkPolicy(plan), namespace), { parent: this });
        }
        this.registerOutputs({ primaryService: n.primaryService });
    }
}

/**
 * The operator's CRDs chart, then the operator chart, both at the pinned release, in
 * `database.operator.namespace`. Only when `database.operator.install` asks for it.
 */
function installOperator(name: string, plan: IronicPlan, parent: pulumi.Resource): pulumi.Resource[] {
    const ns = databaseOf(plan.database, "mariadb-operator").operator.namespace;
    const release = (suffix: string, chart: string, dependsOn: pulumi.Resource[]) =>
        new k8s.helm.v3.Release(
            `${name}-${suffix}`,
            {
                name: chart,
                chart,
                version: MARIADB_OPERATOR.version,
                repositoryOpts: { repo: MARIADB_OPERATOR.chartRepo },
                namespace: ns,
                createNamespace: true,
            },
            { parent, dependsOn },
        );
    const crds = release("operator-crds", MARIADB_OPERATOR.charts.crds, []);
    return [release("operator", MARIADB_OPERATOR.charts.operator, [crds])];
}
