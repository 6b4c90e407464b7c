/** core/manifests/meta.ts: annotation keys, namespace placement, content hashes, the pod and container baseline. */
import { strict as assert } from "assert";

import { ANNOTATIONS, contentHash, inNamespace, podBase, restrictedSecurityContext, sha256, sortedRecord } from "../../../core/manifests/meta";
import { dev, ha } from "./support";

describe("manifests/meta", function () {
    it("names the three pod-template annotations", function () {
        assert.deepEqual(ANNOTATIONS, {
            dnsmasqConfig: "metal3-ironic.metal3.io/dnsmasq-config-hash",
            tlsCert: "metal3-ironic.metal3.io/tls-cert-hash",
            credentials: "metal3-ironic.metal3.io/credentials-hash",
        });
    });

    it("inNamespace sets metadata.namespace and keeps the rest, without touching the input", function () {
        const o = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: { a: "b" } } };
        const placed = inNamespace(o, "metal3");
        assert.deepEqual(placed, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", labels: { a: "b" }, namespace: "metal3" } });
        assert.deepEqual(o.metadata, { name: "x", labels: { a: "b" } });
    });

    it("sha256 is the hex digest; contentHash hashes sorted `key\\nvalue` pairs, so key order does not matter", function () {
        assert.equal(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert.equal(contentHash({ b: "1", a: "2" }), sha256("a\n2\nb\n1"));
        assert.equal(contentHash({ b: "1", a: "2" }), contentHash({ a: "2", b: "1" }));
        assert.notEqual(contentHash({ a: "1" }), contentHash({ a: "2" }));
    });

    it("sortedRecord orders keys (rendered YAML follows insertion order)", function () {
        assert.deepEqual(Object.entries(sortedRecord({ z: "1", a: "2", m: "3" })), [["a", "2"], ["m", "3"], ["z", "1"]]);
    });

    it("restrictedSecurityContext: no escalation, read-only root, non-root, every capability dropped; a fresh object per call", function () {
        assert.deepEqual(restrictedSecurityContext(), { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ["ALL"] } });
        assert.notEqual(restrictedSecurityContext(), restrictedSecurityContext());
    });

    describe("podBase", function () {
        it("runs as the given uid/gid with RuntimeDefault seccomp, no service-account token and no service links", function () {
            const b = podBase(dev, 997, 994);
            assert.deepEqual(Object.keys(b), ["automountServiceAccountToken", "enableServiceLinks", "securityContext", "nodeSelector", "tolerations"]);
            assert.equal(b.automountServiceAccountToken, false);
            assert.equal(b.enableServiceLinks, false);
            assert.deepEqual(b.securityContext, { runAsUser: 997, runAsGroup: 994, fsGroup: 994, runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
        });

        it("the configured placement: node selector (sorted, extra keys merged in) and tolerations", function () {
            assert.deepEqual(podBase(dev, 1, 1).nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
            const merged = podBase(dev, 1, 1, { "a.example/first": "x" }).nodeSelector as Record<string, string>;
            assert.deepEqual(Object.keys(merged), ["a.example/first", "node-role.kubernetes.io/control-plane"]);
            assert.deepEqual(podBase(dev, 1, 1).tolerations, dev.config.placement.tolerations);
        });

        it("an empty node selector is left out (undefined), not rendered as {}", function () {
            assert.deepEqual(ha.config.placement.nodeSelector, {});
            assert.equal(podBase(ha, 1, 1).nodeSelector, undefined);
            assert.deepEqual(podBase(ha, 1, 1, { k: "v" }).nodeSelector, { k: "v" });
        });
    });
});
