/** Database: what `external` needs, and keys that only mean something for one kind. */
import type { Rule } from "./rule";

/** Each database key, and the kinds it is used with. */
const USED_WITH: Record<string, string[]> = {
    host: ["external"],
    port: ["external"],
    credentialsSecret: ["external"],
    caSecret: ["external"],
    name: ["external", "mariadb"],
    storageSize: ["mariadb"],
    storageClass: ["mariadb"],
    retainOnDelete: ["mariadb"],
    protect: ["mariadb"],
    allowDowngrade: ["external", "mariadb"],
};

export const databaseRule: Rule = ({ config: c, parsed }, add) => {
    const db = parsed.database;
    if (!db) return;
    if (db.kind === "external") {
        if (!c.database.host) add("database.host", 'required with database.kind "external" (host name or IP of the MariaDB server)');
        if (!c.database.credentialsSecret) add("database.credentialsSecret", 'required with database.kind "external": a Secret with keys username and password');
    }
    for (const [k, kinds] of Object.entries(USED_WITH)) {
        if ((db as Record<string, unknown>)[k] !== undefined && !kinds.includes(db.kind)) {
            add(`database.${k}`, `only used with database.kind ${kinds.map((x) => `"${x}"`).join(" or ")}`);
        }
    }
};
