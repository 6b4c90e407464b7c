/** core/manifests/networkpolicy.ts: only Ironic (pod labels and host addresses) and the schema Jobs reach MariaDB. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";

import { dbJob, mariadbSelector, mariadbStatefulSet } from "../../../core/manifests/mariadb";
import { mariadbNetworkPolicy } from "../../../core/manifests/networkpolicy";
import { databaseOf } from "../../../core/plan/read";
import { conductorDaemonSet, ironicDeployment } from "../../../core/manifests/ironic";
import { haRaw, planOf, withKeys } from "../plan/support";
import { ha, plain, tlsExisting } from "./support";

/** Does a NetworkPolicy podSelector (matchLabels + In expressions) select these labels? */
function selects(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] }, labels: Record<string, string>): boolean {
    const byLabels = Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
    const byExpr = (sel.matchExpressions ?? []).every((e) => e.operator === "In" && e.values.includes(labels[e.key]));
    return byLabels && byExpr;
}
const podLabels = (o: unknown) => plain(o).spec.template.metadata.labels as Record<string, string>;

describe("manifests/networkpolicy", function () {
    it("selects the MariaDB pods and restricts ingress to TCP 3306", function () {
        const np = plain(mariadbNetworkPolicy(ha));
        assert.equal(np.apiVersion, "networking.k8s.io/v1");
        assert.deepEqual(np.metadata, { name: "ironic-mariadb", namespace: "metal3", labels: ha.labels });
        assert.deepEqual(np.spec.podSelector, { matchLabels: mariadbSelector(ha) });
        assert.ok(selects(np.spec.podSelector, podLabels(mariadbStatefulSet(ha))), "the policy applies to the MariaDB pod");
        assert.deepEqual(np.spec.policyTypes, ["Ingress"]);
        assert.equal(np.spec.ingress.length, 1);
        assert.deepEqual(np.spec.ingress[0].ports, [{ protocol: "TCP", port: 3306 }]);
    });

    it("admits the Ironic pods and both schema Jobs by their labels, and no MariaDB pod", function () {
        const peers = plain(mariadbNetworkPolicy(ha)).spec.ingress[0].from as any[];
        const pods = peers.filter((p) => p.podSelector).map((p) => p.podSelector);
        const admitted = (labels: Record<string, string>) => pods.some((s) => selects(s, labels));
        assert.ok(admitted(podLabels(conductorDaemonSet(ha))), "multi conductors");
        assert.ok(admitted(podLabels(ironicDeployment(tlsExisting))), "single Deployment");
        assert.ok(admitted(podLabels(dbJob(ha, "upgrade"))), "dbsync upgrade Job");
        assert.ok(admitted(podLabels(dbJob(ha, "migrate"))), "online data migrations Job");
        assert.ok(!admitted(podLabels(mariadbStatefulSet(ha))), "not MariaDB itself");
        assert.ok(!admitted({ "app.kubernetes.io/name": "other", "app.kubernetes.io/instance": "ironic" }), "not another app");
        assert.ok(peers.every((p) => !p.namespaceSelector), "no namespace-wide peer");
    });

    it("admits the host-network Ironic pods only from the named host sources (none by default: the policy is off then)", function () {
        const blocks = (p: typeof ha) => (plain(mariadbNetworkPolicy(p)).spec.ingress[0].from as any[]).filter((x) => x.ipBlock).map((x) => x.ipBlock.cidr);
        assert.deepEqual(blocks(ha), [], "no guessed address");
        assert.equal(databaseOf(ha.database, "mariadb", "mariadb-operator").networkPolicy.enabled, false);
        const custom = planOf(withKeys(haRaw, { database: { kind: "mariadb", networkPolicy: { hostSources: ["10.0.0.0/24", "10.244.0.0/16"] } } }));
        assert.deepEqual(blocks(custom), ["10.0.0.0/24", "10.244.0.0/16"]);
        assert.equal(databaseOf(custom.database, "mariadb", "mariadb-operator").networkPolicy.enabled, true);
    });

    it("enabled without host sources is refused, naming the key and how to find the addresses", function () {
        const r = validateConfig(withKeys(haRaw, { database: { kind: "mariadb", networkPolicy: { enabled: true } } }));
        assert.equal(r.ok, false);
        const issue = (r as { issues: { key: string; message: string }[] }).issues.find((i) => i.key === "database.networkPolicy.hostSources");
        assert.ok(issue, JSON.stringify(r));
        assert.match(issue!.message, /kubectl get nodes -o wide/);
        assert.equal(validateConfig(withKeys(haRaw, { database: { kind: "mariadb", networkPolicy: { enabled: true, hostSources: [] } } })).ok, true, "[] on purpose: label matching only");
    });
});
