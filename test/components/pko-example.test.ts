/**
 * examples/pko/stack.yaml, the Pulumi Kubernetes Operator example: the Stack validated against the
 * operator's CRD schema (test/fixtures/pko/stack-v1.openapi.yaml) with ajv, the other objects
 * against the Kubernetes schema (kubernetes-models), and the example checked against this program:
 * its config renders, and its RBAC grants every kind of object that render creates or reads.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import { ValidateFunction } from "ajv";
import * as YAML from "yaml";

import { PROJECT, RawConfig } from "../../core/config";
import { renderOffline } from "../../tools/render";
import { describeErrors, kubernetesAjv, strictUnknownFields } from "../helpers/crd-schema";

const ROOT = path.join(__dirname, "..", "..");
const EXAMPLE = path.join(ROOT, "examples", "pko", "stack.yaml");
const SCHEMA = path.join(ROOT, "test", "fixtures", "pko", "stack-v1.openapi.yaml");

/** kubernetes-models ships ES modules only; a real dynamic import (not compiled to require). */
const esmImport = new Function("specifier", "return import(specifier)") as (s: string) => Promise<any>;

async function kubernetesSchemaError(o: Record<string, any>): Promise<string | undefined> {
    const Model = (await esmImport(`kubernetes-models/${o.apiVersion}`))[o.kind];
    if (!Model) return `no schema for ${o.apiVersion} ${o.kind}`;
    try {
        new Model(o).validate();
        return undefined;
    } catch (e) {
        return (e as Error).message;
    }
}

/**
 * The CEL rules (x-kubernetes-validations) this test evaluates itself; ajv cannot. A rule not
 * listed here fails the compile, so a new rule in a refreshed fixture cannot be skipped silently.
 */
const CEL_RULES: Record<string, (self: any) => boolean> = {
    "size(self.metadata.name) <= 42": (self) => typeof self?.metadata?.name === "string" && self.metadata.name.length <= 42,
};

function loadExample(): Record<string, any>[] {
    return YAML.parseAllDocuments(fs.readFileSync(EXAMPLE, "utf8"))
        .map((d) => d.toJS())
        .filter((o) => o);
}

/** The program's raw config from the Stack's `config` (keys of this project only). */
function stackConfig(stack: Record<string, any>): RawConfig {
    const raw: RawConfig = {};
    for (const [k, v] of Object.entries<unknown>(stack.spec.config ?? {})) if (k.startsWith(`${PROJECT}:`)) raw[k.slice(PROJECT.length + 1)] = v;
    return raw;
}

/** Lower-case plural resource name of a kind, as RBAC rules name it. */
const resourceOf = (kind: string) => (kind.endsWith("y") ? `${kind.slice(0, -1)}ies` : `${kind}s`).toLowerCase();
const groupOf = (apiVersion: string) => (apiVersion.includes("/") ? apiVersion.split("/")[0] : "");

function grants(rules: any[], group: string, resource: string, verbs: string[]): string[] {
    return verbs.filter((v) => !rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(v)));
}

describe("Pulumi Kubernetes Operator example (examples/pko)", function () {
    this.timeout(60000);
    const objects = loadExample();
    const stack = objects.find((o) => o.kind === "Stack")!;
    const schemaText = fs.readFileSync(SCHEMA, "utf8");
    let validate: ValidateFunction;

    before(function () {
        validate = kubernetesAjv(CEL_RULES).compile(strictUnknownFields(YAML.parse(schemaText)));
    });

    it("the schema fixture names its source (operator repository path and commit)", function () {
        assert.match(schemaText, /^# .*\n(#.*\n)*# Source: github\.com\/pulumi\/pulumi-kubernetes-operator, operator\/config\/crd\/bases\/pulumi\.com_stacks\.yaml/);
        assert.match(schemaText, /commit [0-9a-f]{40}/);
    });

    it("the Stack is valid against the operator's CRD schema (pulumi.com/v1)", function () {
        assert.equal(stack.apiVersion, "pulumi.com/v1");
        const ok = validate(stack);
        assert.deepEqual(describeErrors(validate.errors), []);
        assert.equal(ok, true);
        // What the example is for: refresh, periodic resync, destroy on delete, the token from a Secret.
        assert.equal(stack.spec.refresh, true);
        assert.ok(stack.spec.resyncFrequencySeconds >= 60, "the operator treats less than 60 s as 60 s");
        assert.equal(stack.spec.destroyOnFinalize, true);
        assert.equal(stack.spec.envRefs.PULUMI_ACCESS_TOKEN.type, "Secret");
    });

    it("the check can fail: a misspelt field, a wrong type, a missing required field, a too long name", function () {
        const variant = (change: (s: any) => void) => {
            const s = structuredClone(stack);
            change(s);
            validate(s);
            return describeErrors(validate.errors);
        };
        assert.deepEqual(variant((s) => {
            s.spec.resyncFrequencySecond = s.spec.resyncFrequencySeconds;
            delete s.spec.resyncFrequencySeconds;
        }), ["/spec must NOT have additional properties: resyncFrequencySecond"]);
        assert.deepEqual(variant((s) => (s.spec.refresh = "yes")), ["/spec/refresh must be boolean"]);
        assert.deepEqual(variant((s) => (s.spec.resyncFrequencySeconds = "600")), ["/spec/resyncFrequencySeconds must be integer"]);
        assert.deepEqual(variant((s) => delete s.spec.stack), ["/spec must have required property 'stack'"]);
        assert.deepEqual(variant((s) => delete s.spec.envRefs.PULUMI_ACCESS_TOKEN.secret.key), ["/spec/envRefs/PULUMI_ACCESS_TOKEN/secret must have required property 'key'"]);
        assert.deepEqual(variant((s) => (s.spec.workspaceTemplate.spec.imagePullPolicy = 3)), ["/spec/workspaceTemplate/spec/imagePullPolicy must be string"]);
        const long = variant((s) => (s.metadata.name = "x".repeat(43)));
        assert.ok(long.some((e) => e.includes('must pass "x-kubernetes-validations"')), long.join("\n"));
    });

    it("every other object is valid against the Kubernetes schema", async function () {
        const others = objects.filter((o) => o.kind !== "Stack");
        assert.deepEqual(others.map((o) => o.kind).sort(), ["ClusterRoleBinding", "Namespace", "Namespace", "Role", "RoleBinding", "Secret", "ServiceAccount"]);
        const errors: string[] = [];
        for (const o of others) {
            const e = await kubernetesSchemaError(o);
            if (e) errors.push(`${o.kind}/${o.metadata.name}: ${e}`);
        }
        assert.deepEqual(errors, []);
        const role = structuredClone(others.find((o) => o.kind === "Role")!);
        role.rules[0].verbs = "get";
        assert.match(String(await kubernetesSchemaError(role)), /verbs/, "the Kubernetes check can fail");
    });

    it("the pieces refer to each other: ServiceAccount, bindings, token Secret, target namespace", function () {
        const ns = stack.metadata.namespace;
        const sa = objects.find((o) => o.kind === "ServiceAccount")!;
        assert.deepEqual([sa.metadata.name, sa.metadata.namespace], [stack.spec.serviceAccountName, ns]);
        const bindings = objects.filter((o) => o.kind.endsWith("Binding"));
        for (const b of bindings) assert.deepEqual(b.subjects, [{ kind: "ServiceAccount", name: sa.metadata.name, namespace: ns }], b.metadata.name);
        assert.deepEqual(bindings.map((b) => b.roleRef.name).sort(), ["metal3-ironic-deployer", "system:auth-delegator"]);
        const ref = stack.spec.envRefs.PULUMI_ACCESS_TOKEN.secret;
        const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === ref.name)!;
        assert.equal(secret.metadata.namespace, ns);
        assert.ok(ref.key in secret.stringData);
        // The program's namespace exists before the first update (the Role lives in it).
        const config = stackConfig(stack);
        assert.equal(config.createNamespace, false);
        assert.ok(objects.some((o) => o.kind === "Namespace" && o.metadata.name === config.namespace));
        assert.equal(objects.find((o) => o.kind === "Role")!.metadata.namespace, config.namespace);
    });

    it("its config renders, and its RBAC grants every kind of object the program creates or reads", async function () {
        const config = stackConfig(stack);
        const r = await renderOffline(config, "prod");
        assert.ok(r.objects.length >= 10);
        const role = objects.find((o) => o.kind === "Role")!;
        const missing: string[] = [];
        const manage = ["get", "list", "watch", "create", "update", "patch", "delete"];
        for (const o of r.objects) {
            const [group, resource] = [groupOf(o.apiVersion), resourceOf(o.kind)];
            // Everything is in the program's namespace: nothing cluster-scoped to grant.
            assert.equal(o.metadata.namespace, config.namespace, `${o.kind}/${o.metadata.name}`);
            for (const v of grants(role.rules, group, resource, manage)) missing.push(`${v} ${group || "core"}/${resource}`);
        }
        for (const read of r.reads) {
            const [, groupVersion, kind] = read.type.split(":");
            const group = groupVersion.startsWith("core/") ? "" : groupVersion.split("/")[0];
            for (const v of grants(role.rules, group, resourceOf(kind), ["get"])) missing.push(`${v} ${group || "core"}/${resourceOf(kind)} (read)`);
        }
        assert.deepEqual([...new Set(missing)], []);
        // With the API bound to the conductors' provisioning addresses the program writes the
        // Service's EndpointSlice: a user who turns it on needs no other Role.
        const bound = await renderOffline({ ...config, provisioning: { ...(config.provisioning as Record<string, unknown>), bindInterface: true }, readiness: { mode: "in-cluster" }, conductors: [{ name: "cp-0", ip: "172.22.0.2" }, { name: "cp-1", ip: "172.22.0.3" }] }, "prod");
        const slices = bound.objects.filter((o) => o.kind === "EndpointSlice");
        assert.equal(slices.length, 1, bound.objects.map((o) => o.kind).join(", "));
        assert.deepEqual(grants(role.rules, "discovery.k8s.io", "endpointslices", manage), []);
        assert.equal(config.topology, "multi");
        assert.ok(!r.objects.some((o) => o.kind === "Node"), "multi topology patches no Node: the deployer needs no ClusterRole of its own");
        // The check can fail: a Role without daemonsets does not grant creating the conductors.
        const without = role.rules.map((rule: any) => ({ ...rule, resources: rule.resources.filter((x: string) => x !== "daemonsets") }));
        assert.deepEqual(grants(without, "apps", "daemonsets", ["create"]), ["create"]);
    });
});
