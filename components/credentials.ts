/**
 * Generated API credentials: a random password and a bcrypt htpasswd line, stored in one
 * Secret with the layout both Ironic (`htpasswd`) and baremetal-operator (`username`,
 * `password`) expect. Every value is a Pulumi secret.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

import { sha256 } from "../core/manifests";
import { htpasswdLine } from "../core/render/htpasswd";

export interface CredentialsArgs {
    namespace: pulumi.Input<string>;
    /** Name of the Secret to create. */
    secretName: string;
    username: string;
    labels: Record<string, string>;
}

export class Credentials extends pulumi.ComponentResource {
    public readonly username: string;
    public readonly password: pulumi.Output<string>;
    public readonly secret: k8s.core.v1.Secret;
    public readonly secretName: pulumi.Output<string>;
    /**
     * SHA-256 of the htpasswd line, for a pod-template annotation: the image writes its htpasswd
     * files at start only, so a new password (a replaced RandomPassword) rolls the pods. Not a
     * secret: a hash of a salted bcrypt hash that only the Secret holds.
     */
    public readonly rollHash: pulumi.Output<string>;

    constructor(name: string, args: CredentialsArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:auth:Credentials", name, {}, opts);
        // No special characters: the password travels through htpasswd files, URLs and shell scripts.
        const password = new random.RandomPassword(`${name}-password`, { length: 32, special: false }, { parent: this });
        this.username = args.username;
        this.password = pulumi.secret(password.result);
        const htpasswd = pulumi.secret(pulumi.all([password.bcryptHash]).apply(([hash]) => htpasswdLine(args.username, hash)));
        this.secret = new k8s.core.v1.Secret(
            `${name}-secret`,
            {
                metadata: { name: args.secretName, namespace: args.namespace, labels: args.labels },
                type: "kubernetes.io/basic-auth",
                stringData: { username: args.username, password: this.password, htpasswd },
            },
            { parent: this },
        );
        this.secretName = this.secret.metadata.name;
        this.rollHash = pulumi.unsecret(htpasswd.apply(sha256));
        this.registerOutputs({ secretName: this.secretName });
    }
}
