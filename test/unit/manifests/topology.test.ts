/** core/manifests/topology.ts: how containers start and where the pod runs, per topology. */
import { strict as assert } from "assert";

import { multiTopology, podTopology, SINGLE } from "../../../core/manifests/topology";
import { nodeDataReadersHash } from "../../../core/plan/conductor";
import { dev, ha, haNoDhcp, vmedia } from "./support";

/** What every container's wrapper gets: its node, the entries, the scripts, its own run dir, where to find the address (without DHCP). */
const wrapperEnvNoDhcp = (container: string) => [
    { name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    { name: "CONDUCTOR_NAMESPACE", value: "metal3" },
    { name: "CONDUCTOR_CONFIGMAP", value: `ironic-conductors-${nodeDataReadersHash()}` },
    { name: "CONDUCTOR_DATA_DIR", value: "/etc/metal3-ironic/conductors" },
    { name: "CONDUCTOR_SCRIPTS_DIR", value: "/etc/metal3-ironic/scripts" },
    { name: "CONDUCTOR_RUN_DIR", value: `/run/metal3-ironic/${container}` },
    { name: "CONDUCTOR_PYTHON", value: "python3.12" },
    { name: "CONDUCTOR_DEFAULT_INTERFACE", value: "eth1" },
    { name: "CONDUCTOR_CIDR", value: "172.22.0.0/24" },
];
/** With DHCP (the ha stack): the range and the gateway a found address must stay off. */
const wrapperEnv = (container: string) => [
    ...wrapperEnvNoDhcp(container),
    { name: "CONDUCTOR_DHCP_RANGE", value: "172.22.0.10-172.22.0.209" },
    { name: "CONDUCTOR_GATEWAY", value: "172.22.0.1" },
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
        assert.deepEqual(SINGLE.wrapperEnv("ironic", { dirs: ["/certs/ironic"] }), []);
        assert.deepEqual(SINGLE.nodeSelector, {});
    });

    it("multi: every command runs through the conductor start wrapper", function () {
        assert.deepEqual(multiTopology(ha).command(["/bin/runironic"]), ["/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh", "/bin/runironic"]);
        assert.deepEqual(multiTopology(ha).command(["/bin/bash", "/x.sh"]), ["/bin/bash", "/etc/metal3-ironic/scripts/conductor-start.sh", "/bin/bash", "/x.sh"]);
    });

    it("multi: the node name from the downward API and the wrapper's settings; certificate dirs only when asked; the conductor CA only where the certificate is minted", function () {
        assert.deepEqual(multiTopology(ha).wrapperEnv("dnsmasq"), wrapperEnv("dnsmasq"));
        const sans = { name: "CONDUCTOR_CERT_SANS", value: "DNS:ironic DNS:ironic.metal3 DNS:ironic.metal3.svc DNS:ironic.metal3.svc.cluster.local" };
        // Copied: where from, and the SANs every conductor shares (the Service names), which the minted pair must name.
        assert.deepEqual(multiTopology(ha).wrapperEnv("ironic", { dirs: ["/certs/ironic", "/certs/vmedia"] }), [
            ...wrapperEnv("ironic"),
            { name: "CONDUCTOR_CERT_DIRS", value: "/certs/ironic /certs/vmedia" },
            sans,
            { name: "CONDUCTOR_MINTED_DIR", value: "/etc/metal3-ironic/minted" },
        ]);
        // Minted: the conductor CA, no minted dir to wait for.
        assert.deepEqual(multiTopology(ha).wrapperEnv("conductor-certs", { dirs: ["/etc/metal3-ironic/minted"], mint: true }), [
            ...wrapperEnv("conductor-certs"),
            { name: "CONDUCTOR_CERT_DIRS", value: "/etc/metal3-ironic/minted" },
            sans,
            { name: "CONDUCTOR_CA_DIR", value: "/etc/metal3-ironic/conductor-ca" },
        ]);
    });

    it("multi: the DHCP range and gateway only with provisioning.dhcp, the gateway only when set", function () {
        assert.deepEqual(multiTopology(haNoDhcp).wrapperEnv("ironic"), wrapperEnvNoDhcp("ironic"));
        const dhcp = ha.provisioning.dhcp!;
        const noGateway = { ...ha, provisioning: { ...ha.provisioning, dhcp: { ...dhcp, gateway: undefined } } };
        assert.deepEqual(multiTopology(noGateway).wrapperEnv("ironic"), [...wrapperEnvNoDhcp("ironic"), { name: "CONDUCTOR_DHCP_RANGE", value: "172.22.0.10-172.22.0.209" }]);
    });

    it("multi: runs on every control-plane node unless placement.conductorNodeSelector picks others; placement.nodeSelector does not drop the role", function () {
        assert.deepEqual(multiTopology(ha).nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        const placed = { ...ha, placement: { ...ha.placement, nodeSelector: { "kubernetes.io/os": "linux" } } };
        assert.deepEqual(multiTopology(placed).nodeSelector, { "node-role.kubernetes.io/control-plane": "" }, "added to the stack-wide selector by podBase");
        const picked = { ...ha, placement: { ...ha.placement, conductorNodeSelector: { "example.com/ironic": "yes" } } };
        assert.deepEqual(multiTopology(picked).nodeSelector, { "example.com/ironic": "yes" });
    });
});
