/** Database: what `external` needs (TLS unless refused on purpose), and keys that only mean something for one kind. */
import type { Rule } from "./rule";

/** Each database key, and the kinds it is used with. */
const USED_WITH: Record<string, string[]> = {
    host: ["external"],
    port: ["external"],
    credentialsSecret: ["external"],
    caSecret: ["external"],
    tls: ["external"],
    name: ["external", "mariadb", "mariadb-operator"],
    storageSize: ["mariadb", "mariadb-operator"],
    storageClass: ["mariadb", "mariadb-operator"],
    retainOnDelete: ["mariadb", "mariadb-operator"],
    protect: ["mariadb", "mariadb-operator"],
    allowDowngrade: ["external", "mariadb", "mariadb-operator"],
    networkPolicy: ["mariadb", "mariadb-operator"],
    replicas: ["mariadb-operator"],
    operator: ["mariadb-operator"],
    allowKindChange: ["mariadb-operator"],
};

export const databaseRule: Rule = ({ config: c, parsed }, add) => {
    const db = parsed.database;
    if (!db) return;
    if (db.kind === "external") {
        if (!c.database.host) add("database.host", 'required with database.kind "external" (host name or IP of the MariaDB server)');
        if (!c.database.credentialsSecret) add("database.credentialsSecret", 'required with database.kind "external": a Secret with keys username and password');
        // The database credentials and every node's data cross the network: plain text only when stated.
        if (c.database.tls && !c.database.caSecret) {
            add("database.caSecret", 'required with database.kind "external": a Secret with key ca.crt, the CA of the database server\'s certificate; or set database.tls: false to connect without TLS');
        }
        if (!c.database.tls && c.database.caSecret) {
            add("database.tls", "is false but database.caSecret is set: remove database.caSecret to connect without TLS, or remove database.tls to connect with TLS");
        }
    }
    const np = db.networkPolicy;
    if ((db.kind === "mariadb" || db.kind === "mariadb-operator") && np?.enabled === true && np.hostSources === undefined) {
        add(
            "database.networkPolicy.hostSources",
            "required with database.networkPolicy.enabled: Ironic runs on the host network, so name the addresses its connections reach MariaDB from as your CNI sees them " +
                "(node addresses from `kubectl get nodes -o wide`, and the CNI's tunnel addresses, e.g. 10.244.0.0/16); [] admits only what the CNI attributes to the Ironic pods by label",
        );
    }
    for (const [k, kinds] of Object.entries(USED_WITH)) {
        if ((db as Record<string, unknown>)[k] !== undefined && !kinds.includes(db.kind)) {
            add(`database.${k}`, `only used with database.kind ${kinds.map((x) => `"${x}"`).join(" or ")}`);
        }
    }
};
