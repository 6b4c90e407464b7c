/** rules/database.ts: what `external` needs (TLS unless database.tls: false), and keys used with one kind only. */
import { databaseRule } from "../../../../core/config/rules/database";
import { devRaw, ruleTable } from "../support";

const db = (database: Record<string, unknown>) => ({ ...devRaw, database });

describe("config rule: database", function () {
    ruleTable(databaseRule, [
        { name: "external without host", raw: db({ kind: "external", credentialsSecret: "db-creds" }), key: "database.host", message: 'required with database.kind "external"', reported: true },
        { name: "external with host", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds" }), key: "database.host", message: "required", reported: false },
        { name: "external without credentials", raw: db({ kind: "external", host: "db.example" }), key: "database.credentialsSecret", message: 'required with database.kind "external"', reported: true },
        { name: "mariadb without credentials", raw: db({ kind: "mariadb" }), key: "database.credentialsSecret", message: "required", reported: false },
        { name: "sqlite with a host", raw: db({ kind: "sqlite", host: "db.example" }), key: "database.host", message: 'only used with database.kind "external"', reported: true },
        { name: "mariadb with a CA Secret", raw: db({ kind: "mariadb", caSecret: "db-ca" }), key: "database.caSecret", message: 'only used with database.kind "external"', reported: true },
        { name: "external with a CA Secret", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca" }), key: "database.caSecret", message: "only used with", reported: false },
        { name: "external with a storage size", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", storageSize: "1Gi" }), key: "database.storageSize", message: 'only used with database.kind "mariadb"', reported: true },
        { name: "mariadb with a storage size", raw: db({ kind: "mariadb", storageSize: "1Gi" }), key: "database.storageSize", message: "only used with", reported: false },
        { name: "sqlite with a database name", raw: db({ kind: "sqlite", name: "ironic" }), key: "database.name", message: 'only used with database.kind "external" or "mariadb"', reported: true },
        { name: "mariadb with a database name", raw: db({ kind: "mariadb", name: "ironic" }), key: "database.name", message: "only used with", reported: false },
        { name: "sqlite allowing downgrades", raw: db({ kind: "sqlite", allowDowngrade: true }), key: "database.allowDowngrade", message: 'only used with database.kind "external" or "mariadb"', reported: true },
        { name: "external without a CA Secret", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds" }), key: "database.caSecret", message: "or set database.tls: false to connect without TLS", reported: true },
        { name: "external without a CA Secret, tls: false stated", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", tls: false }), key: "database.caSecret", message: "required", reported: false },
        { name: "external with a CA Secret and tls: false", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca", tls: false }), key: "database.tls", message: "is false but database.caSecret is set", reported: true },
        { name: "external with a CA Secret and tls: true", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca", tls: true }), key: "database.tls", message: "is false", reported: false },
        { name: "mariadb with tls: false", raw: db({ kind: "mariadb", tls: false }), key: "database.tls", message: 'only used with database.kind "external"', reported: true },
        { name: "external allowing downgrades", raw: db({ kind: "external", host: "db.example", credentialsSecret: "db-creds", allowDowngrade: true }), key: "database.allowDowngrade", message: "only used with", reported: false },
    ]);
});
