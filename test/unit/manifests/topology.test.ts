/** core/manifests/topology.ts: how containers start and where the pod runs, per topology. */
import { strict as assert } from "assert";

import { multiTopology, podTopology, SINGLE } from "../../../core/manifests/topology";
import { dev, ha, vmedia } from "./support";

const WRAPPER_ENV = [
    { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    { name: "CONDUCTOR_NAMESPACE", value: "metal3" },
    { name: "CONDUCTOR_CONFIGMAP", value: "ironic-conductors" },
    { name: "CONDUCTOR_DATA_DIR", value: "/etc/metal3-ironic/conductors" },
];

describe("manifests/topology", function () {
    it("picks the strategy from config.topology", function () {
        assert.equal(podTopology(dev), SINGLE);
        assert.equal(podTopology(vmedia), SINGLE);
        assert.notEqual(podTopology(ha), SINGLE);
        assert.deepEqual(podTopology(ha).nodeSelector, multiTopology(ha).nodeSelector);
    });

    it("single: commands as they are, no wrapper environment, no extra node selector", function () {
        assert.deepEqual(SINGLE.command(["/bin/runironic"]), ["/bin/runironic"]);
        assert.deepEqual(SINGLE.wrapperEnv(["/certs/ironic"]), []);
        assert.deepEqual(SINGLE.nodeSelector, {});
    });

    it("multi: every command runs through the conductor start wrapper", function () {
        assert.deepEqual(multiTopology(ha).command(["/bin/runironic"]), ["/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh", "/bin/runironic"]);
        assert.deepEqual(multiTopology(ha).command(["/bin/bash", "/x.sh"]), ["/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh", "/bin/bash", "/x.sh"]);
    });

    it("multi: the node name from the downward API and the wrapper's settings; certificate dirs only when asked", function () {
        assert.deepEqual(multiTopology(ha).wrapperEnv([]), WRAPPER_ENV);
        // Certificate dirs: the minter's settings, and the SANs every conductor shares (the Service names).
        assert.deepEqual(multiTopology(ha).wrapperEnv(["/certs/ironic", "/certs/vmedia"]), [
            ...WRAPPER_ENV,
            { name: "CONDUCTOR_CERT_DIRS", value: "/certs/ironic /certs/vmedia" },
            { name: "CONDUCTOR_CA_DIR", value: "/etc/metal3-ironic/conductor-ca" },
            { name: "CONDUCTOR_SCRIPTS_DIR", value: "/etc/metal3-ironic/scripts" },
            { name: "CONDUCTOR_PYTHON", value: "python3.12" },
            { name: "CONDUCTOR_CERT_SANS", value: "DNS:ironic DNS:ironic.metal3 DNS:ironic.metal3.svc DNS:ironic.metal3.svc.cluster.local" },
        ]);
    });

    it("multi: runs only on the nodes labelled for this stack", function () {
        assert.deepEqual(multiTopology(ha).nodeSelector, { "metal3-ironic.metal3.io/conductor": "metal3.ironic" });
    });
});
