/** core/plan/timings.ts: the pruner's timings are chosen against Ironic's failover settings. */
import { strict as assert } from "assert";

import { FAILOVER_SETTINGS, PRUNER_TIMINGS } from "../../../core/plan/timings";

const setting = (group: string, option: string) => Number(FAILOVER_SETTINGS.find(([g, o]) => g === group && o === option)![2]);

describe("core/plan/timings", function () {
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
});
