/** core/manifests/slots.ts: the slot agents' RBAC, environment, token volume and preferences. */
import { strict as assert } from "assert";

import { slotLeaseAccess, slotLeaseRbac, slotPreferences } from "../../../core/manifests/slots";
import { planOf, haRaw, withKeys } from "../plan/support";
import { dev, ha, haNoDhcp, plain } from "./support";

describe("manifests/slots", function () {
    it("RBAC: get/update only on the stack's slot Leases by name, create in the namespace, nothing else (no delete: the agent deletes nothing)", function () {
        const access = slotLeaseAccess(ha)!;
        assert.deepEqual(access.leaseNames, ["ironic-dhcp-slot-0", "ironic-dhcp-slot-1", "ironic-dhcp-slot-2", "ironic-dhcp-slot-3"]);
        const [sa, role, binding] = slotLeaseRbac(access).map(plain);
        assert.deepEqual([sa.kind, sa.metadata.name, sa.metadata.namespace, sa.automountServiceAccountToken], ["ServiceAccount", "ironic-dhcp-slots", "metal3", false]);
        assert.deepEqual(role.rules, [
            { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: access.leaseNames, verbs: ["get", "update"] },
            { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        ]);
        assert.deepEqual(binding.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "ironic-dhcp-slots" });
        assert.deepEqual(binding.subjects, [{ kind: "ServiceAccount", name: "ironic-dhcp-slots", namespace: "metal3" }]);
    });

    it("no slot access without slots: single, or multi without DHCP", function () {
        assert.equal(slotLeaseAccess(dev), undefined);
        assert.equal(slotLeaseAccess(haNoDhcp), undefined);
    });

    it("preferences: a pinned node under pinned (only that slot), every other node's planned slot under remembered, sorted by node", function () {
        const conductors = [
            { name: "cp-2", ip: "172.22.0.4" },
            { name: "cp-0", ip: "172.22.0.2", slot: 3 },
            { name: "cp-1", ip: "172.22.0.3" },
        ];
        const plan = planOf(withKeys(haRaw, { conductors }));
        const text = slotPreferences(plan);
        assert.equal(text, JSON.stringify({ pinned: { "cp-0": 3 }, remembered: { "cp-1": 1, "cp-2": 0 } }, null, 2) + "\n");
        const reordered = planOf(withKeys(haRaw, { conductors: [conductors[2], conductors[1], conductors[0]] }));
        assert.deepEqual(JSON.parse(slotPreferences(reordered)), { pinned: { "cp-0": 3 }, remembered: { "cp-1": 0, "cp-2": 1 } }, "first-fit follows config order on a first run");
    });
});
