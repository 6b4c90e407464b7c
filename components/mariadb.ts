/**
 * MariaDB for Ironic: StatefulSet (1 replica) on a PersistentVolumeClaim that outlives it, a
 * Service, server TLS from the stack CA, generated root and ironic passwords, and the ironic
 * database and user created on first start, the current passwords applied on every start. The
 * volume is protected (database.protect) and kept on `pulumi destroy` unless
 * `database.retainOnDelete` is false.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

import { MARIADB } from "../core/mariadb";
import { databaseOf } from "../core/plan/read";
import { renderInitSql, renderMariadbConf, renderPasswordsSql } from "../core/render/mariadb";
import { contentHash, inNamespace, mariadbNetworkPolicy, mariadbPvc, mariadbService, mariadbStatefulSet, sha256 } from "../core/manifests";
import { StackPki, serverTlsSecret } from "./pki";
import { IronicPlan } from "../core/plan";
import { stackMeta } from "../core/manifests/meta";

export interface MariaDBArgs {
    plan: IronicPlan;
    namespace: pulumi.Input<string>;
    /** Signs the server certificate; absent with tls.mode "cert-manager" (a Certificate of the stack's issuer). */
    pki?: StackPki;
}

/** User Ironic connects as. */
export const IRONIC_DB_USER = "ironic";

/**
 * The generated root and ironic passwords and the credentials Secret (root password, username,
 * password) both database kinds deploy: resources named `<name>-root-password`,
 * `<name>-ironic-password` and `<name>-credentials` under `parent`.
 */
export function databaseCredentials(parent: pulumi.Resource, name: string, plan: IronicPlan, namespace: pulumi.Input<string>, username: string) {
    const pwOpts = { length: 32, special: false };
    const root = new random.RandomPassword(`${name}-root-password`, pwOpts, { parent });
    const ironic = new random.RandomPassword(`${name}-ironic-password`, pwOpts, { parent });
    const secret = new k8s.core.v1.Secret(
        `${name}-credentials`,
        {
            metadata: stackMeta(plan, plan.database.names.credentialsSecret, { namespace }),
            stringData: { [MARIADB.rootPasswordKey]: pulumi.secret(root.result), username, password: pulumi.secret(ironic.result) },
        },
        { parent },
    );
    return { root, ironic, secret };
}

export class MariaDB extends pulumi.ComponentResource {
    public readonly statefulSet: k8s.apps.v1.StatefulSet;
    public readonly service: k8s.core.v1.Service;
    public readonly pvc: k8s.core.v1.PersistentVolumeClaim;
    public readonly credentials: k8s.core.v1.Secret;

    constructor(name: string, args: MariaDBArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:database:MariaDB", name, {}, opts);
        const { plan, namespace, pki } = args;
        const n = plan.database.names;
        const db = databaseOf(plan.database, "mariadb");

        const { root, ironic, secret } = databaseCredentials(this, name, plan, namespace, IRONIC_DB_USER);
        this.credentials = secret;
        const init = new k8s.core.v1.Secret(
            `${name}-init`,
            {
                metadata: stackMeta(plan, n.initSecret, { namespace }),
                stringData: {
                    // First start (empty volume): the database and user.
                    [MARIADB.initFile]: pulumi.secret(ironic.result.apply((pw) => renderInitSql(plan.database.database, IRONIC_DB_USER, pw))),
                    // Every start: this stack's passwords, also on a volume kept from an earlier stack.
                    [MARIADB.passwordsFile]: pulumi.secret(pulumi.all([ironic.result, root.result]).apply(([pw, rootPw]) => renderPasswordsSql(IRONIC_DB_USER, pw, rootPw))),
                },
            },
            { parent: this },
        );

        // Ironic verifies it with the CA in ca.crt (the stack CA, or the issuer's).
        const request = { commonName: plan.database.serviceDnsNames[2], dnsNames: plan.database.serviceDnsNames, ipAddresses: [] };
        const tls = serverTlsSecret(pki, name, request, stackMeta(plan, n.tlsSecret, { namespace }), { issue: pki ?? this, secret: this });
        const configData = { [MARIADB.confFile]: renderMariadbConf() };
        const config = new k8s.core.v1.ConfigMap(`${name}-config`, { metadata: stackMeta(plan, n.configMap, { namespace }), data: configData }, { parent: this });

        // The data volume: never replaced, and kept on destroy unless the user opts out.
        // protect: Pulumi refuses to delete or replace it (unprotect first to destroy the stack).
        this.pvc = new k8s.core.v1.PersistentVolumeClaim(`${name}-data`, inNamespace(mariadbPvc(plan), namespace), {
            parent: this,
            retainOnDelete: db.retainOnDelete,
            protect: db.protect,
        });
        this.service = new k8s.core.v1.Service(`${name}-service`, inNamespace(mariadbService(plan), namespace), { parent: this });
        // Only Ironic and the schema Jobs reach the database (docs/database.md: the CNI caveat for host-network pods).
        if (db.networkPolicy.enabled) {
            new k8s.networking.v1.NetworkPolicy(`${name}-networkpolicy`, inNamespace(mariadbNetworkPolicy(plan), namespace), { parent: this });
        }
        const sts = mariadbStatefulSet(plan, {
            "metal3-ironic.metal3.io/config-hash": contentHash(configData),
            ...(tls ? { "metal3-ironic.metal3.io/tls-cert-hash": tls.certPem.apply(sha256) } : {}),
        });
        this.statefulSet = new k8s.apps.v1.StatefulSet(`${name}-statefulset`, inNamespace(sts, namespace), {
            parent: this,
            dependsOn: [this.credentials, init, ...(tls ? [tls.secret] : []), config, this.pvc],
        });
        this.registerOutputs({ service: this.service.metadata.name });
    }
}
