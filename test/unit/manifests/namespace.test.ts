/** core/manifests/namespace.ts: the namespace states the Pod Security level its pods need. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { namespaceManifest, namespaceNotCreatedNote } from "../../../core/manifests";
import { buildPlan } from "../../../core/plan";
import { devRaw } from "../config/support";

describe("manifests/namespace", function () {
    const r = validateConfig(devRaw);
    if (!r.ok) throw new Error("dev stack invalid");
    const plan = buildPlan(r.config);

    it("labels the namespace privileged for enforce, audit and warn, next to the stack's own labels", function () {
        const ns = namespaceManifest(plan);
        assert.equal(ns.metadata.name, "metal3");
        assert.deepEqual(
            Object.entries(ns.metadata.labels).filter(([k]) => k.startsWith("pod-security.kubernetes.io/")),
            [
                ["pod-security.kubernetes.io/audit", "privileged"],
                ["pod-security.kubernetes.io/enforce", "privileged"],
                ["pod-security.kubernetes.io/warn", "privileged"],
            ],
        );
        assert.equal(ns.metadata.labels["app.kubernetes.io/managed-by"], "metal3-ironic");
    });

    it("a namespace made elsewhere: says what it must admit, and the command that labels it", function () {
        const note = namespaceNotCreatedNote(plan);
        assert.match(note, /^namespace metal3 is not created by this stack \(createNamespace: false\): it must admit privileged pods/);
        assert.match(note, /kubectl label namespace metal3 pod-security\.kubernetes\.io\/enforce=privileged pod-security\.kubernetes\.io\/audit=privileged pod-security\.kubernetes\.io\/warn=privileged/);
    });
});
