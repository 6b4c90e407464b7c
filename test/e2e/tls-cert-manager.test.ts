/**
 * tls.mode "cert-manager" against the real kube-apiserver of the local cluster (tools/cluster.sh):
 * cert-manager's own CRDs (from its Go module, test/helpers/cert-manager.ts) installed as
 * cert-manager installs them, then every Certificate the example stack renders
 * (test/fixtures/Pulumi.cert-manager.yaml, and a single stack) created with strict field
 * validation: the API server accepts each and stores it unchanged; a wrong one is refused. No
 * cert-manager controller runs here: what it does with them is cert-manager's. On the cluster the
 * suites that deploy no stack share (shared-cluster.ts): its objects in namespaces of its own.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { Rendered, readStackConfig, renderOffline } from "../../tools/render";
import { CERT_MANAGER_VERSION, certManagerCrd } from "../helpers/cert-manager";
import { Cluster, ROOT } from "./harness";
import { sharedCluster } from "./shared-cluster";
import { requireToolchain } from "./toolchain";

const CRDS = ["cert-manager.io_certificates.yaml", "cert-manager.io_issuers.yaml", "cert-manager.io_clusterissuers.yaml"];

describe(`e2e: cert-manager ${CERT_MANAGER_VERSION} CRDs on the local cluster accept the rendered Certificates`, function () {
    this.timeout(20 * 60 * 1000);
    let cluster: Cluster | undefined;
    const renders: Record<string, Rendered> = {};

    before(async function () {
        requireToolchain(this);
        const multi = readStackConfig(path.join(ROOT, "test", "fixtures", "Pulumi.cert-manager.yaml"));
        renders.multi = await renderOffline(multi, "cert-manager");
        const dev = readStackConfig(path.join(ROOT, "Pulumi.dev.yaml"));
        renders.single = await renderOffline({ ...dev, namespace: "metal3-single", tls: { mode: "cert-manager", issuer: { name: "metal3-ca" } }, database: { kind: "mariadb" }, readiness: { enabled: false } }, "dev");
        const crds = CRDS.map((f) => certManagerCrd(f).crd);
        cluster = sharedCluster();
        cluster.kubectl(["apply", "--server-side", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: crds }) });
        for (const c of crds) cluster.kubectl(["wait", "--for=condition=Established", "--timeout=120s", `crd/${c.metadata.name}`]);
    });
    for (const which of ["multi", "single"]) {
        it(`${which}: every rendered Certificate is created with strict field validation and stored as rendered`, function () {
            const certs = renders[which].objects.filter((o) => o.kind === "Certificate");
            assert.ok(certs.length >= 4, `${which} renders its Certificates`);
            const ns = certs[0].metadata.namespace;
            cluster!.kubectl(["create", "namespace", ns]);
            for (const c of certs) {
                const r = cluster!.kubectl(["create", "--validate=strict", "-f", "-"], { input: JSON.stringify(c), allowFail: true });
                assert.equal(r.status, 0, `${c.metadata.name}: ${r.stderr}`);
                assert.doesNotMatch(r.stderr, /Warning/, `${c.metadata.name}: no warning (unknown or duplicate fields): ${r.stderr}`);
                const stored = cluster!.get(["certificate", c.metadata.name, "-n", ns]);
                assert.deepEqual(stored.spec, c.spec, `${c.metadata.name}: the API server stored the spec as rendered (nothing pruned or defaulted away)`);
            }
        });
    }

    it("the API server refuses a Certificate the schema forbids (the check can fail)", function () {
        const c = structuredClone(renders.multi.objects.find((o) => o.kind === "Certificate")!);
        c.metadata.name = "broken";
        c.spec.privateKey.size = "3072";
        c.spec.usages = ["server-auth"];
        const r = cluster!.kubectl(["create", "--validate=strict", "-f", "-"], { input: JSON.stringify(c), allowFail: true });
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /spec\.privateKey\.size: Invalid value: "string": spec\.privateKey\.size in body must be of type integer/);
        assert.match(r.stderr, /spec\.usages\[0\]: Unsupported value: "server-auth"/);
    });
});
