/** core/plan/previous.ts: what one run of a stack exports for the next, and how the next reads it. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/read";

import { buildPlan } from "../../../core/plan";
import { PREVIOUS_OUTPUTS, parsePreviousState, persistedState, previousStateIssues } from "../../../core/plan/previous";
import { configOf, devRaw, haRaw, planOf, withKeys } from "./support";

describe("plan/previous: the stack's own outputs, read back by its next run", function () {
    it("persists topology, the database volume's class and (multi) every node's DHCP slot, nodes sorted", function () {
        const ha = persistedState(planOf(haRaw));
        assert.equal(ha.topology, "multi");
        const dhcp = configOf(haRaw).provisioning.dhcp!;
        assert.deepEqual(Object.keys(ha.dhcpSlots!), ["rangeStart", "rangeEnd", "slots", "nodes"]);
        assert.equal(ha.dhcpSlots!.rangeStart, dhcp.rangeStart);
        assert.equal(dhcp.slots, undefined, "the ha example leaves the count to the planner");
        assert.equal(ha.dhcpSlots!.slots, 4, "the resolved count is persisted: the default for 3 conductors");
        const plan = planOf(haRaw);
        assert.deepEqual(Object.keys(ha.dhcpSlots!.nodes), listedConductors(plan).map((c) => c.node).sort());
        for (const c of listedConductors(plan)) assert.equal(ha.dhcpSlots!.nodes[c.node], c.slot?.index);

        const dev = persistedState(planOf(devRaw));
        assert.equal(dev.topology, "single");
        assert.equal(dev.dhcpSlots, undefined, "single has no slots");
        const mdb = persistedState(planOf(withKeys(devRaw, { database: { kind: "mariadb", storageClass: "fast-ssd" } })));
        assert.deepEqual(mdb.database, { kind: "mariadb", storageClass: "fast-ssd" });
        const mdbDefault = persistedState(planOf(withKeys(devRaw, { database: { kind: "mariadb" } })));
        assert.deepEqual(mdbDefault.database, { kind: "mariadb", storageClass: "" }, "the cluster default class is recorded as \"\"");
    });

    it("reads back exactly what it wrote", function () {
        for (const raw of [haRaw, devRaw, withKeys(devRaw, { database: { kind: "mariadb", storageClass: "fast-ssd" } })]) {
            const plan = planOf(raw);
            const outputs = JSON.parse(JSON.stringify({ [PREVIOUS_OUTPUTS.ironicImage]: plan.images.ironic, [PREVIOUS_OUTPUTS.state]: persistedState(plan) }));
            const previous = parsePreviousState(outputs);
            const state = persistedState(plan);
            assert.deepEqual(previous, { ironicImage: plan.images.ironic, ...state });
        }
    });

    it("a first run, an older program's outputs or malformed values mean: nothing known", function () {
        assert.deepEqual(parsePreviousState({}), {});
        assert.deepEqual(parsePreviousState({ ironicImage: "quay.io/metal3-io/ironic:release-38.0" }), { ironicImage: "quay.io/metal3-io/ironic:release-38.0" });
        assert.deepEqual(parsePreviousState({ ironicImage: 3, state: "multi" }), {});
        assert.deepEqual(parsePreviousState({ state: { topology: "ha", database: { kind: 1 }, dhcpSlots: { rangeStart: "a", rangeEnd: "b", slots: "8", nodes: {} } } }), {});
        // A slot that is not a whole non-negative number is dropped; the others are kept.
        const p = parsePreviousState({ state: { topology: "multi", dhcpSlots: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100", slots: 4, nodes: { a: 0, b: -1, c: 1.5, d: "2", e: 3 } } } });
        assert.deepEqual(p.dhcpSlots!.nodes, { a: 0, e: 3 });
    });

    it("refuses a schema downgrade against the previous image, names images.ironic, and allows it when told", function () {
        const raw = withKeys(devRaw, { database: { kind: "mariadb" }, images: { ironic: "quay.io/metal3-io/ironic:release-37.0" } });
        const issues = previousStateIssues(planOf(raw), { ironicImage: "quay.io/metal3-io/ironic:release-38.0" });
        assert.equal(issues.length, 1);
        assert.equal(issues[0].key, "images.ironic");
        assert.match(issues[0].message, /^quay\.io\/metal3-io\/ironic:release-37\.0 is older than the deployed .*release-38\.0/);
        assert.deepEqual(previousStateIssues(planOf(raw), {}), [], "first run");
        const allowed = withKeys(raw, { database: { kind: "mariadb", allowDowngrade: true } });
        assert.deepEqual(previousStateIssues(buildPlan(configOf(allowed)), { ironicImage: "quay.io/metal3-io/ironic:release-38.0" }), []);
    });

    it("buildPlan keeps the previous run's DHCP slots, and previousStateIssues reports what the slots forbid", function () {
        const config = configOf(haRaw);
        const dhcpSlots = { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 4, nodes: { "cp-0": 3, "cp-2": 1, gone: 0 } };
        const plan = buildPlan(config, { dhcpSlots });
        assert.deepEqual(listedConductors(plan).map((c) => [c.node, c.slot?.index, c.slot?.source, c.slot!.range.start]), [
            ["cp-0", 3, "kept", "172.22.0.160"],
            ["cp-1", 0, "new", "172.22.0.10"],
            ["cp-2", 1, "kept", "172.22.0.60"],
        ]);
        assert.deepEqual(previousStateIssues(plan, { dhcpSlots }), []);
        assert.deepEqual(persistedState(plan).dhcpSlots, { ...dhcpSlots, nodes: { "cp-0": 3, "cp-1": 0, "cp-2": 1 } }, "the removed node's slot is forgotten");
        // The previous run had 8 slots over a shorter range: both changes are named, with the downgrade check's issues in one list.
        const older = { ironicImage: "quay.io/metal3-io/ironic:release-39.0", dhcpSlots: { ...dhcpSlots, rangeEnd: "172.22.0.200", slots: 8 } };
        assert.deepEqual(previousStateIssues(buildPlan(config, older), older).map((i) => i.key), ["images.ironic", "provisioning.dhcp.rangeEnd"]);
        const explicit = withKeys(haRaw, { provisioning: { ...(haRaw.provisioning as object), dhcp: { ...(haRaw.provisioning as any).dhcp, slots: 6 } } });
        const issues = previousStateIssues(buildPlan(configOf(explicit), { dhcpSlots }), { dhcpSlots });
        assert.deepEqual(issues.map((i) => i.key), ["provisioning.dhcp.slots"]);
        assert.match(issues[0].message, /^was 4 in the previous run, now 6; re-slicing/);
    });
});

describe("plan/previous: the database volume's storage class", function () {
    const mdb = (storageClass?: string) => planOf(withKeys(devRaw, { database: { kind: "mariadb", ...(storageClass === undefined ? {} : { storageClass }) } }));
    const was = (storageClass: string) => ({ database: { kind: "mariadb", storageClass } });

    it("refuses a change of class (to, from and between classes) with the key, both classes and the migration steps", function () {
        for (const [now, before] of [
            ["fast-ssd", ""],
            [undefined, "fast-ssd"],
            ["slow", "fast-ssd"],
        ] as const) {
            const issues = previousStateIssues(mdb(now), was(before));
            assert.equal(issues.length, 1, `${before} → ${now}`);
            assert.equal(issues[0].key, "database.storageClass");
            assert.match(issues[0].message, /volume ironic-mariadb-data is on .* cannot change: the volume and its data would be replaced/);
            assert.match(issues[0].message, /mariadb-dump.*restore the dump/);
        }
        assert.match(previousStateIssues(mdb("fast-ssd"), was(""))[0].message, /is on the cluster default class, this run asks for storage class "fast-ssd".*To keep it, remove database\.storageClass\./);
        assert.match(previousStateIssues(mdb(undefined), was("fast-ssd"))[0].message, /is on storage class "fast-ssd", this run asks for the cluster default class.*To keep it, set it back to "fast-ssd"\./);
    });

    it("allows the same class, a first run, an older program's state without a class, and other database kinds", function () {
        assert.deepEqual(previousStateIssues(mdb("fast-ssd"), was("fast-ssd")), []);
        assert.deepEqual(previousStateIssues(mdb(undefined), was("")), []);
        assert.deepEqual(previousStateIssues(mdb("fast-ssd"), {}), []);
        assert.deepEqual(previousStateIssues(mdb("fast-ssd"), { database: { kind: "mariadb" } }), []);
        assert.deepEqual(previousStateIssues(mdb("fast-ssd"), { database: { kind: "sqlite" } }), [], "a new MariaDB (from sqlite) gets a new volume");
        assert.deepEqual(previousStateIssues(planOf(devRaw), was("fast-ssd")), [], "leaving MariaDB is not this check's business");
    });
});
