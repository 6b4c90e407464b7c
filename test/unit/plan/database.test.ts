/** core/plan/database.ts: the downgrade guard with tags, tagged digests and bare digests with a stated version; the database plan by kind. */
import { strict as assert } from "assert";

import { downgradeError, effectiveIronicVersion } from "../../../core/plan/database";
import { databaseOf } from "../../../core/plan/read";
import { devRaw, haRaw, planOf, withKeys } from "./support";

const D1 = `sha256:${"a".repeat(64)}`;
const D2 = `sha256:${"b".repeat(64)}`;
const R = "quay.io/metal3-io/ironic";

describe("plan: downgrade guard", function () {
    it("keeps what tags did: older refused, same/newer allowed, unnamed versions not compared", function () {
        assert.match(String(downgradeError(`${R}:release-38.0`, `${R}:release-37.0`, false)), /37\.0 < 38\.0/);
        assert.equal(downgradeError(`${R}:release-37.0`, `${R}:release-38.0`, false), undefined);
        assert.equal(downgradeError(`${R}:release-38.0`, `${R}:latest`, false), undefined);
        assert.equal(downgradeError(`${R}:main`, `${R}:release-37.0`, false), undefined);
        assert.equal(downgradeError(undefined, `${R}:release-37.0`, false), undefined);
        assert.equal(downgradeError(`${R}:release-38.0`, `${R}:release-37.0`, true), undefined, "allowDowngrade");
    });

    it("compares tag@digest pins by their tags", function () {
        const err = downgradeError(`${R}:release-38.0@${D1}`, `${R}:v37.0.2@${D2}`, false);
        assert.match(String(err), /37\.0\.2 < 38\.0/);
        assert.match(String(err), /database\.allowDowngrade/);
        assert.equal(downgradeError(`${R}:release-37.0@${D1}`, `${R}:release-38.0@${D2}`, false), undefined);
    });

    it("compares bare digests by the version stated for them (images.ironicVersion, kept in the stack outputs)", function () {
        assert.match(String(downgradeError({ image: `${R}@${D1}`, version: "38.0" }, { image: `${R}@${D2}`, version: "37.0" }, false)), /37\.0 < 38\.0/);
        assert.match(String(downgradeError(`${R}:release-38.0`, { image: `${R}@${D2}`, version: "35.0" }, false)), /35\.0 < 38\.0/);
        assert.match(String(downgradeError({ image: `${R}@${D1}`, version: "38.1" }, `${R}:release-38.0`, false)), /38\.0 < 38\.1/);
        assert.equal(downgradeError({ image: `${R}@${D1}`, version: "37.0" }, { image: `${R}@${D2}`, version: "38.0" }, false), undefined);
        // A bare digest deployed before images.ironicVersion existed names nothing: not compared.
        assert.equal(downgradeError(`${R}@${D1}`, { image: `${R}@${D2}`, version: "37.0" }, false), undefined);
    });

    it("the stated version wins over the tag; none is stated for tags", function () {
        assert.deepEqual(effectiveIronicVersion({ image: `${R}@${D1}`, version: "38.0.1" }), [38, 0, 1]);
        assert.deepEqual(effectiveIronicVersion({ image: `${R}:release-38.0` }), [38, 0]);
        assert.equal(effectiveIronicVersion({ image: `${R}@${D1}` }), undefined);
    });
});

describe("plan: the database by kind (databaseOf)", function () {
    const keys = (o: object) => Object.entries(o).filter(([, v]) => v !== undefined).map(([k]) => k).sort();
    const common = ["allowDowngrade", "database", "env", "hostForIronic", "jobs", "names", "serviceDnsNames"];
    const deployed = ["networkPolicy", "protect", "retainOnDelete", "storageSize"];
    it("each kind carries what it is deployed or reached with, and nothing of another kind", function () {
        assert.deepEqual(keys(planOf(haRaw).database), [...common, ...deployed, "kind"].sort());
        assert.deepEqual(keys(planOf(devRaw).database), ["allowDowngrade", "database", "env", "kind", "names", "serviceDnsNames"], "sqlite: no host, no schema Jobs, nothing deployed");
        assert.deepEqual(planOf(devRaw).database.env, { IRONIC_USE_MARIADB: "false" });
        assert.deepEqual(planOf(haRaw).database.env, { IRONIC_USE_MARIADB: "true", MARIADB_HOST: "ironic-mariadb.metal3.svc", MARIADB_DATABASE: "ironic" });
        const galera = planOf(withKeys(haRaw, { database: { kind: "mariadb-operator", storageClass: "local", replicas: 5 } })).database;
        assert.deepEqual(keys(galera), [...common, ...deployed, "allowKindChange", "kind", "operator", "replicas", "storageClass"].sort());
        assert.deepEqual([databaseOf(galera, "mariadb-operator").replicas, databaseOf(galera, "mariadb-operator").storageClass], [5, "local"]);
        const external = planOf(withKeys(devRaw, { database: { kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca" } })).database;
        assert.deepEqual(keys(external), [...common, "caSecret", "credentialsSecret", "kind"].sort());
        assert.equal(databaseOf(external, "external").credentialsSecret, "db-creds");
    });
    it("a database object built for another kind is a bug of the program, said as one", function () {
        assert.throws(() => databaseOf(planOf(haRaw).database, "mariadb-operator"), /^Error: a mariadb-operator database object was built for database.kind mariadb$/);
        assert.equal(databaseOf(planOf(haRaw).database, "mariadb", "mariadb-operator").kind, "mariadb");
    });
});
