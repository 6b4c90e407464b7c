/**
 * The Secret `<name>-config-secrets`: every value set with `pulumi config set --secret` that a
 * workload of the stack would carry in its environment is moved there, and the workload reads it
 * through `secretKeyRef` (core/manifests/secret-env.ts). Registered first, filled once the whole
 * tree is registered (`finish`), and every workload that reads it depends on it. The pods roll when
 * a value they read changes: their template carries an HMAC of those values, keyed with a random
 * salt that only the state holds (a plain hash would let a short secret be guessed).
 */
import { createHmac } from "crypto";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

import { SECRET_ENV_HASH_ANNOTATION, WORKLOAD_TYPES, moveSecretEnv } from "../core/manifests/secret-env";
import { IronicPlan } from "../core/plan";
import { secretMask } from "./args";
import { stackMeta } from "../core/manifests/meta";

/**
 * The component's transformations for secret config: a workload's env entries move into the
 * ConfigSecrets `holder()` returns (once made), then whatever still carries a secret value (a
 * ConfigMap, the provider's args) is masked as a whole property. None without secret values.
 */
export function secretTransformations(needles: string[], holder: () => ConfigSecrets | undefined): pulumi.ResourceTransformation[] {
    if (needles.length === 0) return [];
    return [(a) => holder()?.transformation(needles)(a), secretMask(needles)];
}

export class ConfigSecrets {
    readonly secret: k8s.core.v1.Secret;
    private readonly data: Record<string, string> = {};
    private resolve!: (data: Record<string, string>) => void;
    private finished = false;
    private readonly salt: pulumi.Output<string>;

    constructor(
        name: string,
        private readonly plan: IronicPlan,
        namespace: pulumi.Input<string>,
        private readonly parent: pulumi.Resource,
    ) {
        const data = new Promise<Record<string, string>>((resolve) => (this.resolve = resolve));
        // The component calls finish() once its tree is registered; should its constructor throw
        // first, this still fills the Secret after the current tick, so the run ends with that
        // error instead of waiting forever on this input.
        setImmediate(() => this.finish());
        this.salt = new random.RandomPassword(`${name}-config-secrets-salt`, { length: 32, special: false }, { parent }).result;
        this.secret = new k8s.core.v1.Secret(
            `${name}-config-secrets`,
            { metadata: stackMeta(plan, plan.names.configSecrets, { namespace }), type: "Opaque", stringData: pulumi.secret(pulumi.output(data)) },
            { parent },
        );
    }

    /** A transformation for the component's tree: a workload's env entries that carry a needle read this Secret instead. */
    transformation(needles: string[]): pulumi.ResourceTransformation {
        return (a) => {
            const template = WORKLOAD_TYPES.includes(a.type) ? a.props?.spec?.template : undefined;
            if (!template) return undefined;
            const moved = moveSecretEnv(template, needles, this.plan.names.configSecrets, this.data);
            if (!moved) return undefined;
            if (this.finished) throw new pulumi.ResourceError(`${a.name} carries a secret config value in its environment but was registered after ${this.plan.names.configSecrets} was filled (a bug of this program)`, this.parent);
            const read = JSON.stringify(moved.keys.map((k) => [k, this.data[k]]));
            const hash = pulumi.unsecret(this.salt.apply((salt) => createHmac("sha256", salt).update(read).digest("hex")));
            const metadata = { ...(moved.template.metadata ?? {}), annotations: { ...(moved.template.metadata?.annotations ?? {}), [SECRET_ENV_HASH_ANNOTATION]: hash } };
            const deps = a.opts.dependsOn;
            const dependsOn = deps === undefined ? [this.secret] : Array.isArray(deps) ? [...deps, this.secret] : [deps as pulumi.Input<pulumi.Resource>, this.secret];
            return { props: { ...a.props, spec: { ...a.props.spec, template: { ...moved.template, metadata } } }, opts: { ...a.opts, dependsOn } };
        };
    }

    /** Every workload is registered: the Secret gets the values they read. */
    finish(): void {
        if (this.finished) return;
        this.finished = true;
        this.resolve(Object.fromEntries(Object.keys(this.data).sort().map((k) => [k, this.data[k]])));
    }
}
