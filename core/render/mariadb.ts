/**
 * The MariaDB files this program renders into the deployed server's ConfigMap and init Secret:
 * the server configuration (TLS required for every TCP client) and the first-start SQL.
 */
import { MARIADB } from "../mariadb";

/** MariaDB server configuration: TLS required for every TCP client. */
export function renderMariadbConf(opts: { tlsDir?: string; maxConnections?: number; bufferPool?: string } = {}): string {
    const tls = opts.tlsDir ?? MARIADB.tlsDir;
    return [
        "# Rendered by metal3-ironic.",
        "[mariadbd]",
        "skip-name-resolve",
        `max_connections = ${opts.maxConnections ?? 256}`,
        `innodb_buffer_pool_size = ${opts.bufferPool ?? "256M"}`,
        "character-set-server = utf8mb4",
        `ssl_cert = ${tls}/tls.crt`,
        `ssl_key = ${tls}/tls.key`,
        `ssl_ca = ${tls}/ca.crt`,
        "tls_version = TLSv1.2,TLSv1.3",
        // Plain TCP is refused; the local socket (entrypoint, health check) stays usable.
        "require_secure_transport = ON",
        "",
    ].join("\n");
}

/** First-start SQL: the Ironic database and user, which may only connect over TLS. */
export function renderInitSql(database: string, user: string, password: string): string {
    return [
        `CREATE DATABASE IF NOT EXISTS ${sqlIdent(database)} CHARACTER SET utf8mb3;`,
        `CREATE USER IF NOT EXISTS ${sqlString(user)}@'%' IDENTIFIED BY ${sqlString(password)} REQUIRE SSL;`,
        `GRANT ALL PRIVILEGES ON ${sqlIdent(database)}.* TO ${sqlString(user)}@'%';`,
        "",
    ].join("\n");
}

/**
 * SQL mariadbd runs on every start (`--init-file`): the ironic user and root@localhost get the
 * passwords of the current Secret, so a stack re-created against a kept volume (new generated
 * passwords) opens it, and the old passwords stop working. One compound statement on one line
 * (how mariadbd reads an init file), safe wherever the image's entrypoint starts the server with
 * the same arguments:
 *  - its temporary server on an empty datadir, before the ironic user exists: nothing happens
 *    (root must keep the empty password the entrypoint logs in with; it sets the Secret's itself);
 *  - its temporary upgrade server (`--skip-grant-tables`, ALTER USER fails with 1290): nothing;
 *  - the real server: both passwords are set (unchanged ones are rewritten as they are).
 */
export function renderPasswordsSql(user: string, password: string, rootPassword: string): string {
    const u = `${sqlString(user)}@'%'`;
    return (
        "BEGIN NOT ATOMIC DECLARE EXIT HANDLER FOR 1290 BEGIN END; " +
        `IF EXISTS (SELECT 1 FROM mysql.global_priv WHERE User = ${sqlString(user)} AND Host = '%') THEN ` +
        `ALTER USER ${u} IDENTIFIED BY ${sqlString(password)} REQUIRE SSL; ` +
        `ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY ${sqlString(rootPassword)}; ` +
        "END IF; END;\n"
    );
}

/** A SQL string literal: backslashes doubled (MariaDB's default sql_mode escapes with them), quotes doubled. */
function sqlString(s: string): string {
    return `'${s.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** A SQL identifier in backquotes, backquotes doubled. */
function sqlIdent(s: string): string {
    return "`" + s.replace(/`/g, "``") + "`";
}
