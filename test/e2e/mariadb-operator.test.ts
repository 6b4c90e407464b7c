/**
 * The MariaDB operator's objects of the multi fixture (test/fixtures/Pulumi.ha-galera.yaml,
 * database.kind mariadb-operator) against the local cluster's real kube-apiserver: the CRDs of
 * the pinned operator release (its Go module, test/helpers/operator-crds.ts) are installed, and
 * every operator object the program renders is created with strict field validation (an unknown
 * field is an error, not pruned), the CRDs' CEL rules included, then read back unchanged. No
 * operator runs here: what it does with the objects is docs/database.md's and the failover test's
 * (test/integration/galera-failover.test.ts) subject. On the cluster the suites that deploy no
 * stack share (shared-cluster.ts): the objects in a namespace of this suite's own.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { readStackConfig, renderOffline } from "../../tools/render";
import { OPERATOR_KINDS, operatorCrds } from "../helpers/operator-crds";
import { Cluster, ROOT } from "./harness";
import { sharedCluster } from "./shared-cluster";
import { requireToolchain } from "./toolchain";

describe("e2e: the real API server accepts the MariaDB operator objects of the multi fixture", function () {
    this.timeout(10 * 60 * 1000);
    let kube: Cluster | undefined;

    before(function () {
        requireToolchain(this);
        // Fails, naming why, when the CRDs cannot be fetched.
        operatorCrds();
        kube = sharedCluster();
    });

    it("installs the operator's CRDs, creates every rendered operator object as is, and refuses a misspelt one", async function () {
        const crds = operatorCrds();
        for (const crd of Object.values(crds)) {
            // Server-side: the MariaDB CRD is too large for the last-applied annotation of a client-side apply.
            kube!.kubectl(["apply", "--server-side", "-f", crd.file]);
        }
        const names = Object.values(crds).map((c) => `crd/${c.doc.metadata.name}`);
        kube!.kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...names]);

        const r = await renderOffline(readStackConfig(path.join(ROOT, "test", "fixtures", "Pulumi.ha-galera.yaml")), "ha-galera");
        const objs = r.objects.filter((o) => o.apiVersion.startsWith("k8s.mariadb.com/"));
        assert.deepEqual(objs.map((o) => o.kind).sort(), Object.keys(OPERATOR_KINDS).sort());
        // The stack's namespace is the cert-manager suite's too on the shared cluster: the objects go
        // to one of this suite's own, the rest of each as rendered.
        const ns = "metal3-mariadb-operator";
        const inNs = (o: any) => ({ ...o, metadata: { ...o.metadata, namespace: ns } });
        kube!.kubectl(["create", "namespace", ns]);
        const policy = inNs(r.objects.find((o) => o.kind === "NetworkPolicy")!);
        for (const o of [...objs.map(inNs), policy]) {
            const created = kube!.kubectl(["create", "--validate=strict", "-f", "-"], { input: JSON.stringify(o), allowFail: true });
            assert.equal(created.status, 0, `${o.kind}/${o.metadata.name} created: ${created.stderr}`);
            assert.doesNotMatch(created.stderr, /unknown field|Warning/, `${o.kind}/${o.metadata.name}: no field dropped`);
            const back = kube!.get([`${o.kind.toLowerCase()}.${o.apiVersion.split("/")[0]}`, o.metadata.name, "-n", ns]);
            assert.deepEqual(pick(back.spec, o.spec), o.spec, `${o.kind}/${o.metadata.name} stored as rendered`);
        }

        // The server's own checks can fail: a misspelt field (strict validation) and a wrong type.
        const m = inNs(JSON.parse(JSON.stringify(objs.find((o) => o.kind === "MariaDB"))));
        m.metadata.name = "misspelt";
        m.spec.galera.enabeld = true;
        const refused = kube!.kubectl(["create", "--validate=strict", "-f", "-"], { input: JSON.stringify(m), allowFail: true });
        assert.notEqual(refused.status, 0);
        assert.match(refused.stderr, /unknown field "spec\.galera\.enabeld"/);
        const t = inNs(JSON.parse(JSON.stringify(objs.find((o) => o.kind === "MariaDB"))));
        t.metadata.name = "wrong-type";
        t.spec.replicas = "three";
        const wrong = kube!.kubectl(["create", "-f", "-"], { input: JSON.stringify(t), allowFail: true });
        assert.notEqual(wrong.status, 0);
        assert.match(wrong.stderr, /spec\.replicas/);
    });
});

/** The part of `stored` that `rendered` names (the server adds defaults). */
function pick(stored: any, rendered: any): any {
    if (Array.isArray(rendered)) return Array.isArray(stored) ? rendered.map((x, i) => pick(stored[i], x)) : stored;
    if (rendered && typeof rendered === "object") {
        if (!stored || typeof stored !== "object") return stored;
        return Object.fromEntries(Object.keys(rendered).map((k) => [k, pick(stored[k], rendered[k])]));
    }
    return stored;
}
