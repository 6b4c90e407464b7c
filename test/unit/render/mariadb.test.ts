/** The MariaDB server configuration, first-start SQL and every-start password SQL (core/render/mariadb.ts), as text. */
import { strict as assert } from "assert";

import { renderInitSql, renderMariadbConf, renderPasswordsSql } from "../../../core/render/mariadb";

describe("render/mariadb: renderMariadbConf", function () {
    it("defaults: the mounted TLS dir, TLS required for every TCP client", function () {
        assert.equal(
            renderMariadbConf(),
            [
                "# Rendered by metal3-ironic.",
                "[mariadbd]",
                "skip-name-resolve",
                "max_connections = 256",
                "innodb_buffer_pool_size = 256M",
                "character-set-server = utf8mb4",
                "ssl_cert = /etc/mysql/tls/tls.crt",
                "ssl_key = /etc/mysql/tls/tls.key",
                "ssl_ca = /etc/mysql/tls/ca.crt",
                "tls_version = TLSv1.2,TLSv1.3",
                "require_secure_transport = ON",
                "",
            ].join("\n"),
        );
    });

    it("options: TLS dir, connection limit and buffer pool", function () {
        const conf = renderMariadbConf({ tlsDir: "/tmp/tls", maxConnections: 32, bufferPool: "64M" });
        assert.match(conf, /^ssl_cert = \/tmp\/tls\/tls\.crt$/m);
        assert.match(conf, /^ssl_ca = \/tmp\/tls\/ca\.crt$/m);
        assert.match(conf, /^max_connections = 32$/m);
        assert.match(conf, /^innodb_buffer_pool_size = 64M$/m);
    });
});

describe("render/mariadb: renderInitSql", function () {
    it("the database, and a user that may only connect over TLS", function () {
        assert.equal(
            renderInitSql("ironic", "ironic", "s3cret"),
            [
                "CREATE DATABASE IF NOT EXISTS `ironic` CHARACTER SET utf8mb3;",
                "CREATE USER IF NOT EXISTS 'ironic'@'%' IDENTIFIED BY 's3cret' REQUIRE SSL;",
                "GRANT ALL PRIVILEGES ON `ironic`.* TO 'ironic'@'%';",
                "",
            ].join("\n"),
        );
    });

    it("quotes identifiers and strings: backquotes, quotes and backslashes doubled", function () {
        assert.equal(
            renderInitSql("iro`nic", "u'ser", "p'a\\ss"),
            [
                "CREATE DATABASE IF NOT EXISTS `iro``nic` CHARACTER SET utf8mb3;",
                "CREATE USER IF NOT EXISTS 'u''ser'@'%' IDENTIFIED BY 'p''a\\\\ss' REQUIRE SSL;",
                "GRANT ALL PRIVILEGES ON `iro``nic`.* TO 'u''ser'@'%';",
                "",
            ].join("\n"),
        );
    });
});

describe("render/mariadb: renderPasswordsSql (mariadbd --init-file on every start)", function () {
    it("one compound statement on one line: sets both passwords only once the ironic user exists, and does nothing under --skip-grant-tables", function () {
        assert.equal(
            renderPasswordsSql("ironic", "pw", "rootpw"),
            "BEGIN NOT ATOMIC DECLARE EXIT HANDLER FOR 1290 BEGIN END; " +
                "IF EXISTS (SELECT 1 FROM mysql.global_priv WHERE User = 'ironic' AND Host = '%') THEN " +
                "ALTER USER 'ironic'@'%' IDENTIFIED BY 'pw' REQUIRE SSL; " +
                "ALTER USER IF EXISTS 'root'@'localhost' IDENTIFIED BY 'rootpw'; END IF; END;\n",
        );
    });

    it("quotes every value: a password with quotes, backslashes and a newline stays one string on one line", function () {
        const sql = renderPasswordsSql("u'ser", "p'a\\ss", "r\\'");
        assert.match(sql, /WHERE User = 'u''ser' AND/);
        assert.match(sql, /ALTER USER 'u''ser'@'%' IDENTIFIED BY 'p''a\\\\ss' REQUIRE SSL;/);
        assert.match(sql, /IDENTIFIED BY 'r\\\\''';/);
        assert.equal(sql.split("\n").length, 2, "a single line (and the final newline)");
    });
});
