/** core/plan/admit.ts: the one admission step of the program and `npm run plan`, every problem at once. */
import { strict as assert } from "assert";

import { admitPlan, buildPlan } from "../../../core/plan";
import { configOf, devRaw, withKeys } from "./support";

describe("plan/admit", function () {
    const older = withKeys(devRaw, { database: { kind: "external", host: "db.example", credentialsSecret: "ironic-credentials", caSecret: "db-ca" }, images: { ironic: "quay.io/metal3-io/ironic:v37.0.0" } });

    it("a Secret of yours named like one this program writes and a schema downgrade: both reported in one list, keyed", function () {
        const { plan, issues } = admitPlan(configOf(older), { ironicImage: "quay.io/metal3-io/ironic:v38.0.0" });
        assert.deepEqual(issues.map((i) => i.key), ["database.credentialsSecret", "images.ironic"]);
        assert.match(issues[0].message, /"ironic-credentials" is the name of a Secret this program writes/);
        assert.match(issues[1].message, /v37\.0\.0 is older than the deployed .*v38\.0\.0/);
        assert.deepEqual(plan, buildPlan(configOf(older), { ironicImage: "quay.io/metal3-io/ironic:v38.0.0" }), "the plan is buildPlan's, with the previous run");
    });

    it("nothing to refuse: no issues; a first run knows no previous image", function () {
        assert.deepEqual(admitPlan(configOf(devRaw)).issues, []);
        const renamed = withKeys(older, { database: { kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca" } });
        assert.deepEqual(admitPlan(configOf(renamed)).issues, [], "a first run: no downgrade to refuse");
    });
});
