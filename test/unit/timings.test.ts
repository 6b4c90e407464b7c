/** core/timings.ts: the pruner's timings are chosen against Ironic's failover settings; the slot agent's fencing and takeover bound. */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";

import { FAILOVER_SETTINGS, PRUNER_TIMINGS, SLOT_TIMINGS, slotCreateDelay, slotTakeoverBound } from "../../core/timings";

const setting = (group: string, option: string) => Number(FAILOVER_SETTINGS.find(([g, o]) => g === group && o === option)![2]);

describe("core/timings", function () {
    const heartbeat = setting("conductor", "heartbeat_interval");
    const timeout = setting("conductor", "heartbeat_timeout");
    const sync = setting("conductor", "sync_local_state_interval");
    const ringReset = setting("default", "hash_ring_reset_interval");

    it("bounds a dead conductor's takeover well under the 30 s target, without flapping a healthy one", function () {
        assert.ok(timeout + heartbeat + ringReset + sync <= 20, "takeover bound (s)");
        assert.ok(timeout / heartbeat >= 4, "a healthy conductor may miss several heartbeats before it is dropped");
    });

    it("the pruner's grace exceeds how long the API's view of the ring can lag, and polls often enough", function () {
        assert.ok(PRUNER_TIMINGS.grace > ringReset, "grace > hash_ring_reset_interval");
        assert.ok(PRUNER_TIMINGS.interval * 2 < PRUNER_TIMINGS.grace, "a verdict is confirmed by two polls within the grace");
    });

    it("on a rebalance the new owner gets a local-state sync and a heartbeat timeout before the old entry goes", function () {
        assert.ok(PRUNER_TIMINGS.rebalanceDelay >= sync + timeout, `${PRUNER_TIMINGS.rebalanceDelay} >= ${sync} + ${timeout}`);
    });

    it("slot fencing: a fenced holder's dnsmasq is gone before anyone may serve its slice, by takeover or by a create, with clock rates 7 % apart", function () {
        const t = SLOT_TIMINGS;
        const fenced = (t.renewDeadline + t.stopGrace) * 1.07;
        assert.ok(fenced < (t.leaseDuration + t.claimMargin) * 0.93, "takeover of a held Lease");
        assert.ok(fenced < slotCreateDelay() * 0.93, "a Lease created anew (deleted while held)");
        assert.ok(t.retryPeriod < t.renewDeadline / 2, "a holder renews more than once before it is fenced");
    });

    it("the slot takeover bound docs/topologies.md states is the one the timings give (19 s; 16 s after a delete; 14 s to serve a created Lease)", function () {
        assert.equal(slotTakeoverBound(), 19);
        assert.equal(slotCreateDelay(), 14);
        const docs = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "topologies.md"), "utf8");
        assert.match(docs, new RegExp(`taken at most \\*\\*${slotTakeoverBound()} s\\*\\* after its last renewal`));
        assert.match(docs, new RegExp(`at most ${SLOT_TIMINGS.retryPeriod + slotCreateDelay()} s \\(${SLOT_TIMINGS.retryPeriod} \\+ ${slotCreateDelay()}\\) after the\\s+delete`));
        assert.match(docs, new RegExp(`it serves only ${slotCreateDelay()} s \\(${SLOT_TIMINGS.renewDeadline} \\+ ${SLOT_TIMINGS.stopGrace} \\+ ${SLOT_TIMINGS.claimMargin}\\) after the create's\\s+answer`));
    });
});
