/** core/names.ts: one naming rule for per-node data, in TS and in the shell form the pod resolves. */
import { strict as assert } from "assert";
import { spawnSync } from "child_process";

import { WRAPPER_ENV } from "../../core/contract";
import { NODE_DNSMASQ_CONF_SHELL, nodeKeys } from "../../core/names";
import { readAsset } from "../../core/render/assets";

describe("core/names", function () {
    it("names a node's entry after the node", function () {
        assert.deepEqual(nodeKeys("cp-0"), { env: "cp-0.env" });
    });

    it("the node's dnsmasq file resolves, in bash, to the file the start wrapper renders in the container's run dir", function () {
        const r = spawnSync("bash", ["-c", `printf %s ${NODE_DNSMASQ_CONF_SHELL}`], {
            encoding: "utf8",
            env: { [WRAPPER_ENV.runDir]: "/run/metal3-ironic/dnsmasq", [WRAPPER_ENV.node]: "cp-2" },
        });
        assert.equal(r.stdout, "/run/metal3-ironic/dnsmasq/dnsmasq.conf");
        // The wrapper writes exactly that file.
        assert.ok(readAsset("conductor-start.sh").includes('>"$run_dir/dnsmasq.conf"'));
    });
});
