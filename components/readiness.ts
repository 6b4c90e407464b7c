/**
 * The live readiness check after the workload: one @pulumi/command `local.Command` running
 * assets/ironic-readiness.py where `pulumi up` runs (what and why: core/plan/readiness.ts). A thin
 * shell: the environment comes from the plan; the CA and the API credentials from resources, the
 * credentials as secrets (never on a command line). It runs on create and again when the pod
 * template (hash), the image or the conductors change; never in a preview, and nothing in its
 * inputs changes from one run to the next by itself.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { local } from "@pulumi/command";

import { IronicPlan } from "../core/plan";
import { READINESS_COMMAND, parseConductorsAlive, podTemplateHash, readinessPlan } from "../core/plan/readiness";
import { READINESS_ENV } from "../core/scripts";

export interface ReadinessArgs {
    plan: IronicPlan;
    /** The CA that signed the API certificate (PEM). */
    caPem: pulumi.Input<string>;
    username: pulumi.Input<string>;
    password: pulumi.Input<string>;
    /** The Deployment (single) or DaemonSet (multi): its pod template is a trigger. */
    workload: k8s.apps.v1.Deployment | k8s.apps.v1.DaemonSet;
    /** The API Service the check reaches. */
    service: k8s.core.v1.Service;
}

export class Readiness extends pulumi.ComponentResource {
    public readonly command: local.Command;
    /** Hostnames of the conductors alive in GET /v1/conductors when the check passed. */
    public readonly conductorsAlive: pulumi.Output<string[]>;

    /** The check, or undefined with `readiness.enabled: false`. */
    static create(name: string, args: ReadinessArgs, opts?: pulumi.ComponentResourceOptions): Readiness | undefined {
        return readinessPlan(args.plan) ? new Readiness(name, args, opts) : undefined;
    }

    constructor(name: string, args: ReadinessArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:ops:Readiness", name, {}, opts);
        const check = readinessPlan(args.plan);
        if (!check) throw new Error(`${name}: readiness.enabled is false (use Readiness.create)`);
        const templateHash = args.workload.spec.template.apply((t) => podTemplateHash(t));
        this.command = new local.Command(
            `${name}-check`,
            {
                create: READINESS_COMMAND,
                stdin: check.script,
                environment: {
                    ...check.env,
                    [READINESS_ENV.caPem]: args.caPem,
                    [READINESS_ENV.username]: pulumi.secret(args.username),
                    [READINESS_ENV.password]: pulumi.secret(args.password),
                },
                triggers: [...check.triggers, templateHash],
                // The previous run's stdout would only repeat what `conductorsAlive` says.
                addPreviousOutputInEnv: false,
            },
            { parent: this, dependsOn: [args.workload, args.service] },
        );
        this.conductorsAlive = this.command.stdout.apply(parseConductorsAlive);
        this.registerOutputs({ conductorsAlive: this.conductorsAlive });
    }
}
