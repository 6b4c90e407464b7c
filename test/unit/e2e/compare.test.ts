/** The render-vs-deployed comparison of the e2e tier (test/e2e/compare.ts) finds differences both ways. */
import { strict as assert } from "assert";

import { compareObject, compareStack } from "../../e2e/compare";
import { REDACTED } from "../../../tools/offline";

const render = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "x", namespace: "ns", labels: { a: "1" } },
    data: { "k.conf": "port=1\n" },
};

function deployedFrom(r: Record<string, any>, fields: Record<string, any>, extra: Record<string, any> = {}) {
    return {
        ...JSON.parse(JSON.stringify(r)),
        ...extra,
        metadata: { ...r.metadata, uid: "u", resourceVersion: "1", managedFields: [{ manager: "pulumi-kubernetes-abc", operation: "Apply", fieldsV1: fields }] },
    };
}
const FIELDS = { "f:data": { "f:k.conf": {} }, "f:metadata": { "f:labels": { "f:a": {} } } };

describe("e2e comparison of the offline render with deployed objects", function () {
    it("accepts an object deployed as rendered, with server-added fields", function () {
        assert.deepEqual(compareObject(render, deployedFrom(render, FIELDS, { immutable: false })), []);
    });

    it("finds a value deployed differently", function () {
        const d = deployedFrom(render, FIELDS);
        d.data["k.conf"] = "port=2\n";
        assert.deepEqual(compareObject(render, d), ['.data.k.conf: render "port=1\\n", deployed "port=2\\n"']);
    });

    it("finds a field the engine applied that the render does not show", function () {
        const d = deployedFrom(render, { ...FIELDS, "f:data": { "f:k.conf": {}, "f:other": {} } });
        d.data.other = "y";
        assert.deepEqual(compareObject(render, d), [".data.other: applied by pulumi-kubernetes-abc, missing from the render"]);
    });

    it("finds list elements by their keys, and an object no Pulumi manager applied", function () {
        const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "i" }] } };
        const fields = { "f:spec": { "f:containers": { 'k:{"name":"a"}': { ".": {}, "f:image": {}, "f:name": {} }, 'k:{"name":"b"}': { "f:name": {} } } } };
        const d = deployedFrom(pod, fields);
        assert.deepEqual(compareObject(pod, d), ['.spec.containers[k:{"name":"b"}]: applied by pulumi-kubernetes-abc, missing from the render']);
        const kubectl = { ...d, metadata: { ...d.metadata, managedFields: [{ manager: "kubectl", operation: "Apply", fieldsV1: fields }] } };
        assert.match(compareObject(pod, kubectl).join("\n"), /no server-side-apply entry/);
    });

    it("compares a Secret's rendered stringData with the data the server keeps, by key", function () {
        const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, stringData: { "tls.key": REDACTED } };
        const d = deployedFrom({ ...secret, stringData: undefined, data: { "tls.key": "a2V5" } }, { "f:data": { "f:tls.key": {} } });
        assert.deepEqual(compareObject(secret, d), []);
        const other = deployedFrom({ ...secret, stringData: undefined, data: { "tls.crt": "Y3J0" } }, { "f:data": { "f:tls.crt": {} } });
        assert.equal(compareObject(secret, other).length, 2);
    });
});

describe("e2e comparison: hashes of generated certificates", function () {
    it("compares the certificate-hash annotations by presence only, and nothing else that way", function () {
        const dep = (hash: string, other: string) => ({
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name: "d" },
            spec: { template: { metadata: { annotations: { "metal3-ironic.metal3.io/tls-cert-hash": hash, "metal3-ironic.metal3.io/config-hash": other } } } },
        });
        const fields = { "f:spec": { "f:template": { "f:metadata": { "f:annotations": { "f:metal3-ironic.metal3.io/tls-cert-hash": {}, "f:metal3-ironic.metal3.io/config-hash": {} } } } } };
        const withManager = (o: any) => ({ ...o, metadata: { ...o.metadata, managedFields: [{ manager: "pulumi-kubernetes-1", operation: "Apply", fieldsV1: fields }] } });
        assert.deepEqual(compareObject(dep("aaa", "c1"), withManager(dep("bbb", "c1"))), []);
        assert.equal(compareObject(dep("aaa", "c1"), withManager(dep("aaa", "c2"))).length, 1);
    });

    it("finds a port the render gives without protocol under the key server-side apply gives it (protocol TCP, the API server's default), and no other", function () {
        const svc = (ports: any[]) => ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { ports } });
        const fields = { "f:spec": { "f:ports": { 'k:{"port":8443,"protocol":"TCP"}': { ".": {}, "f:port": {} } } } };
        const withManager = (o: any) => ({ ...o, metadata: { ...o.metadata, managedFields: [{ manager: "pulumi-kubernetes-1", operation: "Apply", fieldsV1: fields }] } });
        const deployed = withManager(svc([{ port: 8443, protocol: "TCP" }]));
        assert.deepEqual(compareObject(svc([{ port: 8443 }]), deployed), []);
        assert.equal(compareObject(svc([{ port: 8443, protocol: "UDP" }]), deployed).length > 0, true, "another protocol is another port");
        assert.equal(compareObject(svc([{ port: 9443 }]), deployed).length > 0, true, "another port");
    });

    it("compares a webhook's caBundle (BMO's, a certificate the stack generates) by presence only, not the rest of its clientConfig", function () {
        const vwc = (ca: string | undefined, path: string) => ({
            apiVersion: "admissionregistration.k8s.io/v1",
            kind: "ValidatingWebhookConfiguration",
            metadata: { name: "w" },
            webhooks: [{ name: "h.metal3.io", clientConfig: { ...(ca !== undefined ? { caBundle: ca } : {}), service: { name: "s", namespace: "n", path } } }],
        });
        const fields = { "f:webhooks": { 'k:{"name":"h.metal3.io"}': { "f:clientConfig": { "f:caBundle": {}, "f:service": { "f:name": {}, "f:namespace": {}, "f:path": {} } } } } };
        const withManager = (o: any) => ({ ...o, metadata: { ...o.metadata, managedFields: [{ manager: "pulumi-kubernetes-1", operation: "Apply", fieldsV1: fields }] } });
        assert.deepEqual(compareObject(vwc("c3RhbmQtaW4=", "/v"), withManager(vwc("cmVhbA==", "/v"))), []);
        assert.equal(compareObject(vwc("c3RhbmQtaW4=", "/v"), withManager(vwc("cmVhbA==", "/other"))).length, 1);
        assert.equal(compareObject(vwc("c3RhbmQtaW4=", "/v"), withManager(vwc(undefined, "/v"))).length, 1, "absent when deployed");
    });

    it("a whole stack: an object the provider applied that the render lacks is found; one someone else made is not ours", function () {
        const ours = deployedFrom(render, FIELDS);
        const leftover = deployedFrom({ ...render, metadata: { ...render.metadata, name: "old-scripts" } }, FIELDS);
        const users = { ...JSON.parse(JSON.stringify(render)), metadata: { name: "user-cm", namespace: "ns", managedFields: [{ manager: "kubectl-create", operation: "Update" }] } };
        const asked: string[][] = [];
        const get = (args: string[]) => {
            asked.push(args);
            return args[1] === "-A" ? { items: [ours, leftover, users] } : [ours, leftover, users].find((o) => o.metadata.name === args[1]);
        };
        assert.deepEqual(compareStack([render], get), ["ConfigMap ns/old-scripts: deployed by pulumi-kubernetes, missing from the render"]);
        assert.deepEqual(asked, [["configmap", "x", "-n", "ns"], ["configmap", "-A"]], "one read per rendered object, one list of the rendered kinds");
        assert.deepEqual(compareStack([render], (args) => (args[1] === "-A" ? { items: [ours, users] } : ours)), []);
    });
});
