/** core/plan/names.ts: one naming rule for per-node data, in TS and in the shell form the pod resolves. */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";

import { WRAPPER_ENV } from "../../../core/contract";
import { CONDUCTOR_NODE_LABEL, conductorLabelValue, NODE_DNSMASQ_CONF_SHELL, nodeKeys } from "../../../core/plan/names";

describe("core/plan/names", function () {
    it("names a node's entries after the node", function () {
        assert.deepEqual(nodeKeys("cp-0"), { env: "cp-0.env", dnsmasqConf: "cp-0.dnsmasq.conf" });
    });

    it("the shell form resolves, in bash, to the same file nodeKeys names", function () {
        const r = spawnSync("bash", ["-c", `printf %s ${NODE_DNSMASQ_CONF_SHELL}`], {
            encoding: "utf8",
            env: { [WRAPPER_ENV.dataDir]: "/etc/metal3-ironic/conductors", [WRAPPER_ENV.node]: "cp-2" },
        });
        assert.equal(r.stdout, `/etc/metal3-ironic/conductors/${nodeKeys("cp-2").dnsmasqConf}`);
    });

    it("labels conductor nodes per stack, within the 63-character label value limit", function () {
        assert.equal(CONDUCTOR_NODE_LABEL, "metal3-ironic.metal3.io/conductor");
        assert.equal(conductorLabelValue("metal3", "ironic"), "metal3.ironic");
        const long = conductorLabelValue("a".repeat(40), "b".repeat(40));
        assert.ok(long.length <= 63, long);
        assert.match(long, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "a valid label value");
        assert.notEqual(conductorLabelValue("a".repeat(40), "b".repeat(40)), conductorLabelValue("a".repeat(40), "c".repeat(40)), "different stacks, different values");
    });
});
