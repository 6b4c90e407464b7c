/**
 * The MariaDB side's contract, as constants: the upstream MariaDB image's paths, ids and port and
 * our mounts in it, and the MariaDB operator release the `mariadb-operator` kind is written for.
 * The plan (core/plan/database.ts), the renders and the manifests read them here.
 */

/** Paths inside the upstream MariaDB image (docker.io/library/mariadb) and our mounts. */
export const MARIADB = {
    port: 3306,
    uid: 999,
    gid: 999,
    dataDir: "/var/lib/mysql",
    /** Read by the image's entrypoint and mariadbd: extra server configuration. */
    confDir: "/etc/mysql/conf.d",
    confFile: "metal3-ironic.cnf",
    /** Executed by the image's entrypoint on first start only (empty data dir). */
    initDir: "/docker-entrypoint-initdb.d",
    initFile: "10-ironic.sql",
    /**
     * Run by mariadbd on every start (`--init-file`, passed through by the image's entrypoint):
     * the current Secret's passwords. A key of the init Secret, mounted here (a Secret volume: tmpfs).
     */
    passwordsDir: "/etc/mysql/passwords",
    passwordsFile: "apply-passwords.sql",
    tlsDir: "/etc/mysql/tls",
    credentialsDir: "/etc/mysql/credentials",
    /** The entrypoint reads the root password from this file (MARIADB_ROOT_PASSWORD_FILE). */
    rootPasswordKey: "root-password",
    runDir: "/run/mysqld",
    healthcheck: "healthcheck.sh",
} as const;

/**
 * The MariaDB operator this program's `mariadb-operator` kind is written for: the API it creates
 * objects of, the release it was validated with (its CRDs from the operator's Go module, the Helm
 * charts `database.operator.install` deploys) and the range it documents as supported.
 */
export const MARIADB_OPERATOR = {
    apiVersion: "k8s.mariadb.com/v1alpha1",
    /** Go module and chart release; the CRDs of this version validate what we render (test/components/mariadb-operator.test.ts). */
    module: "github.com/mariadb-operator/mariadb-operator",
    version: "0.38.1",
    supportedRange: ">= 0.38.0, < 0.39.0",
    chartRepo: "https://helm.mariadb.com/mariadb-operator",
    charts: { crds: "mariadb-operator-crds", operator: "mariadb-operator" },
    /** Galera replication, incremental (IST) and snapshot (SST) transfer; the operator's agent and its probe port. */
    galeraPorts: [4567, 4568, 4444],
    agentPorts: [5555, 5566],
} as const;
