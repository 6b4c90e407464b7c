/**
 * assets/provisioning-ip-check.sh (the single topology's first init container without keepalived)
 * run by bash against real `ip` in a network namespace this test creates: the address found on
 * the named interface or on any, the answer when the address is elsewhere, and when the named
 * interface does not exist on the node. The pod as declared runs it in test/integration/pods-single.test.ts.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { canUseNetns, NetnsLab, requireOrSkip, run } from "../helpers/sys";

const SCRIPT = path.join(__dirname, "..", "..", "assets", "provisioning-ip-check.sh");

describe("provisioning-ip-check.sh with real ip in a network namespace", function () {
    this.timeout(60000);
    const lab = new NetnsLab();
    let ns = "";

    before(function () {
        requireOrSkip(this, canUseNetns(), "root and iproute2 for network namespaces");
        ns = lab.addNamespace("pic");
        run("ip", ["-n", ns, "link", "add", "eth1", "type", "veth", "peer", "name", "eth1peer"]);
        run("ip", ["-n", ns, "addr", "add", "172.22.0.2/24", "dev", "eth1"]);
        for (const l of ["eth1", "eth1peer"]) run("ip", ["-n", ns, "link", "set", l, "up"]);
    });

    after(() => lab.destroy());

    const check = (args: string[]) => run("ip", ["netns", "exec", ns, "env", "WAIT=1", "NODE_NAME=cp-7", "bash", SCRIPT, ...args], { allowFail: true });

    it("finds the address on the named interface, or on any interface when none is named", function () {
        const named = check(["172.22.0.2", "eth1"]);
        assert.equal(named.status, 0, named.stderr);
        assert.match(named.stdout, /^provisioning\.ip 172\.22\.0\.2 is on eth1 of node cp-7$/m);
        const any = check(["172.22.0.2"]);
        assert.equal(any.status, 0, any.stderr);
        assert.match(any.stdout, /is on any interface of node cp-7/);
    });

    it("an address the node does not hold: fails after the wait, saying to pin the pod or use keepalived", function () {
        const r = check(["172.22.0.3", "eth1"]);
        assert.equal(r.status, 1);
        assert.match(r.stderr, /^FATAL: provisioning\.ip 172\.22\.0\.3 is not an address of eth1 on node cp-7 \(waited 1 s\)\. .*placement\.nodeSelector .*provisioning\.keepalived: true/m);
        assert.match(r.stdout, /waiting up to 1 s/);
    });

    it("the address on another interface than the named one is not enough", function () {
        const r = check(["127.0.0.1", "eth1"]);
        assert.equal(r.status, 1, "127.0.0.1 is on lo, not on eth1");
    });

    it("a named interface the node lacks: says so (provisioning.interface), not 'wrong node'", function () {
        const r = check(["172.22.0.2", "eth7"]);
        assert.equal(r.status, 1);
        assert.match(r.stderr, /^FATAL: node cp-7 has no interface eth7 \(provisioning\.interface; waited 1 s\)\. Set provisioning\.interface/m);
    });
});
