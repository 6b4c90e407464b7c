/**
 * The user's own TLS Secret (tls.mode "existing"), read at deploy time through the explicit
 * provider and never registered: this program neither writes, replaces nor deletes it.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import { existingTlsError } from "../core/plan/secrets";

/** The public parts of the user's TLS Secret, read at deploy time. */
export interface ExistingTls {
    caCertPem: pulumi.Output<string>;
    tlsCertPem: pulumi.Output<string>;
}

/**
 * An error about something the program found at deploy time, reported like a config error: no
 * stack trace, and the message as written. (The SDK prefixes the message of an error thrown in an
 * apply with the property path of every resource that awaited it: `error serializing property
 * "stringData": ...`.)
 */
class DeployTimeError extends pulumi.ResourceError {
    constructor(message: string, resource: pulumi.Resource) {
        super(message, resource, true);
        Object.defineProperty(this, "message", { get: () => message, set: () => undefined, enumerable: false, configurable: true });
    }
}

/**
 * Read the user's Secret `namespace/secretName` through the parent's (explicit) provider. A read
 * registers nothing: the object is neither managed, replaced nor deleted by this stack.
 */
export function readExistingTls(name: string, namespace: string, secretName: string, parent: pulumi.Resource): ExistingTls {
    const secret = k8s.core.v1.Secret.get(name, `${namespace}/${secretName}`, { parent });
    const decode = (v: string) => Buffer.from(v, "base64").toString("utf8");
    // `data` is a secret output (it holds tls.key); the certificates taken from it are public.
    const pems = secret.data.apply((data) => {
        const ca = data?.["ca.crt"] ? decode(data["ca.crt"]) : undefined;
        const error = existingTlsError(namespace, secretName, data, ca);
        if (error) throw new DeployTimeError(error, parent);
        return { ca: ca!, cert: decode(data["tls.crt"]) };
    });
    return { caCertPem: pulumi.unsecret(pems.apply((p) => p.ca)), tlsCertPem: pulumi.unsecret(pems.apply((p) => p.cert)) };
}
