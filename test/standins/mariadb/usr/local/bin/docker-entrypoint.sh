#!/bin/bash
# Stand-in for the entrypoint of the upstream MariaDB image (docker.io/library/mariadb), the
# documented behaviour our StatefulSet relies on (core/manifests mariadbStatefulSet),
# then Debian's real mariadbd:
#  - "docker-entrypoint.sh mariadbd [args]" (a first argument starting with "-" means mariadbd);
#    anything else is exec'd as is; the arguments after "mariadbd" go to every server it starts:
#    the temporary ones of the first initialisation and of an upgrade too (the image's
#    docker_temp_server_start "$@"), not only the final one;
#  - MARIADB_* settings, each also from a file with the _FILE suffix (never both), MYSQL_* as
#    fallbacks: ROOT_PASSWORD / ALLOW_EMPTY_ROOT_PASSWORD / RANDOM_ROOT_PASSWORD (one required
#    to initialise), ROOT_HOST, DATABASE, USER, PASSWORD, INITDB_SKIP_TZINFO, AUTO_UPGRADE;
#  - on an empty datadir (/var/lib/mysql has no "mysql"): mariadb-install-db, a temporary server
#    on the socket only, root password, a healthcheck@localhost user for healthcheck.sh, the
#    optional database and user, then /docker-entrypoint-initdb.d/*.sh|*.sql(.gz|.xz|.zst) once;
#  - on later starts with MARIADB_AUTO_UPGRADE: mariadb-upgrade when the server version differs
#    from the one recorded in the datadir;
#  - the configuration is /etc/mysql/conf.d/*.cnf, socket /run/mysqld/mysqld.sock, port 3306.
# The server runs as the container's uid (the pod sets 999, the image's mysql user). Debian's
# mariadbd is told to read only a defaults file built here (the host's /etc/mysql is visible under
# the container's /etc and must not leak in).
set -euo pipefail

fatal() {
    echo "FATAL: docker-entrypoint.sh: $*" >&2
    exit 1
}
note() {
    echo "$(date -u +%FT%TZ) [Note] [Entrypoint]: $*"
}

if [[ "${1:-}" == -* ]]; then set -- mariadbd "$@"; fi
case "${1:-}" in
mariadbd | mysqld) shift ;;
*) exec "$@" ;;
esac

DATADIR=/var/lib/mysql
RUNDIR=/run/mysqld
SOCKET=$RUNDIR/mysqld.sock
CNF=$RUNDIR/standin-my.cnf
CLIENT_CNF=$RUNDIR/.standin-root-client.cnf

# MARIADB_X from MARIADB_X, MARIADB_X_FILE, MYSQL_X or MYSQL_X_FILE.
file_env() {
    local name=$1 default=${2:-} v='' src
    for src in "MARIADB_$name" "MYSQL_$name"; do
        local file_var="${src}_FILE"
        if [[ -n "${!src:-}" && -n "${!file_var:-}" ]]; then
            fatal "both $src and $file_var are set (but are exclusive)"
        fi
        if [[ -n "${!src:-}" ]]; then
            v=${!src}
            break
        fi
        if [[ -n "${!file_var:-}" ]]; then
            local f=${!file_var}
            [[ -f "$f" ]] || fatal "$file_var=$f: no such file (is the Secret mounted there?)"
            [[ -r "$f" ]] || fatal "$file_var=$f is not readable by uid $(id -u) gid $(id -g) groups $(id -G | tr ' ' ',') (check the Secret's defaultMode and the pod's fsGroup)"
            v=$(<"$f")
            [[ -n "$v" ]] || fatal "$file_var=$f is empty"
            break
        fi
    done
    printf -v "MARIADB_$name" '%s' "${v:-$default}"
    export "MARIADB_$name"
}

sql_string() {
    local s=${1//\\/\\\\}
    printf "'%s'" "${s//\'/\'\'}"
}

for d in "$DATADIR" "$RUNDIR" /tmp; do
    [[ -d "$d" ]] || fatal "$d does not exist: mount a volume there"
    [[ -w "$d" && -x "$d" ]] || fatal "$d is not writable by uid $(id -u) gid $(id -g) (the root file system is read-only; check the volume and fsGroup)"
done
[[ -d /etc/mysql/conf.d ]] || fatal "/etc/mysql/conf.d does not exist"

file_env ROOT_PASSWORD
file_env ROOT_HOST %
file_env ALLOW_EMPTY_ROOT_PASSWORD
file_env RANDOM_ROOT_PASSWORD
file_env DATABASE
file_env USER
file_env PASSWORD
file_env INITDB_SKIP_TZINFO
file_env AUTO_UPGRADE

# Only these files configure the server (as /etc/mysql/my.cnf does in the image).
cat >"$CNF" <<CNF
# Written by the stand-in docker-entrypoint.sh: the image's my.cnf, nothing of the host's.
[client-server]
socket = $SOCKET
port = 3306

[mariadbd]
datadir = $DATADIR
pid-file = $RUNDIR/mysqld.pid
tmpdir = /tmp
host-cache-size = 0
skip-name-resolve

!includedir /etc/mysql/conf.d/
CNF
chmod 0644 "$CNF"

# What the configuration names must exist and be readable (mariadbd would start without TLS).
while IFS= read -r opt; do
    case "$opt" in
    --ssl[-_]cert=* | --ssl[-_]key=* | --ssl[-_]ca=*)
        f=${opt#*=}
        [[ -r "$f" ]] || fatal "${opt%%=*} names $f, which is not readable by uid $(id -u) (mount the TLS Secret there; defaultMode and fsGroup)"
        ;;
    esac
done < <(my_print_defaults --defaults-file="$CNF" mariadbd mysqld server)

server_version() {
    mariadbd --defaults-file="$CNF" --version | sed -n 's/.*Ver \([^ ]*\).*/\1/p'
}

temp_pid=
temp_start() {
    note "Starting temporary server"
    mariadbd --defaults-file="$CNF" --skip-networking --skip-slave-start --default-time-zone=SYSTEM \
        --loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 "$@" &
    temp_pid=$!
    local i
    for ((i = 1; i <= 60; i++)); do
        # ping succeeds once the server answers (even "access denied" means it is up).
        if mariadb-admin --no-defaults --socket="$SOCKET" --user=root ping >/dev/null 2>&1; then
            note "Temporary server started."
            return 0
        fi
        kill -0 "$temp_pid" 2>/dev/null || fatal "the temporary server exited during start (see above)"
        sleep 1
    done
    fatal "the temporary server did not answer on $SOCKET within 60s"
}
temp_stop() {
    note "Stopping temporary server"
    kill -TERM "$temp_pid"
    wait "$temp_pid" || true
    note "Temporary server stopped"
}

if [[ ! -d "$DATADIR/mysql" ]]; then
    if [[ -z "$MARIADB_ROOT_PASSWORD" && -z "$MARIADB_ALLOW_EMPTY_ROOT_PASSWORD" && -z "$MARIADB_RANDOM_ROOT_PASSWORD" ]]; then
        fatal "Database is uninitialized and password option is not specified: set one of MARIADB_ROOT_PASSWORD(_FILE), MARIADB_ALLOW_EMPTY_ROOT_PASSWORD, MARIADB_RANDOM_ROOT_PASSWORD"
    fi
    if [[ -n "$MARIADB_USER" && "$MARIADB_USER" == root ]]; then
        fatal "MARIADB_USER=root: root is created by the entrypoint; set MARIADB_ROOT_PASSWORD instead"
    fi
    note "Initializing database files"
    mariadb-install-db --defaults-file="$CNF" --auth-root-authentication-method=normal --skip-test-db \
        --skip-name-resolve --default-time-zone=SYSTEM --enforce-storage-engine= --skip-log-bin \
        --loose-innodb_buffer_pool_load_at_startup=0 --loose-innodb_buffer_pool_dump_at_shutdown=0 >/dev/null ||
        fatal "mariadb-install-db failed on $DATADIR"
    note "Database files initialized"
    temp_start "$@"
    client=(mariadb --no-defaults --socket="$SOCKET" --user=root --binary-mode)
    if [[ -z "$MARIADB_INITDB_SKIP_TZINFO" && -d /usr/share/zoneinfo ]]; then
        mariadb-tzinfo-to-sql --skip-write-binlog /usr/share/zoneinfo 2>/dev/null | "${client[@]}" mysql ||
            fatal "loading the time zones failed"
    fi
    if [[ -n "$MARIADB_RANDOM_ROOT_PASSWORD" ]]; then
        MARIADB_ROOT_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
        note "GENERATED ROOT PASSWORD: $MARIADB_ROOT_PASSWORD"
    fi
    hc_password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(24))')
    {
        echo "SET @@SESSION.SQL_LOG_BIN=0;"
        echo "DROP USER IF EXISTS root@'127.0.0.1', root@'::1';"
        printf '%s\n' "EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');"
        if [[ -n "$MARIADB_ROOT_PASSWORD" ]]; then
            echo "SET PASSWORD FOR 'root'@'localhost' = PASSWORD($(sql_string "$MARIADB_ROOT_PASSWORD"));"
        fi
        if [[ -n "$MARIADB_ROOT_HOST" && "$MARIADB_ROOT_HOST" != localhost ]]; then
            echo "CREATE USER 'root'@$(sql_string "$MARIADB_ROOT_HOST") IDENTIFIED BY $(sql_string "$MARIADB_ROOT_PASSWORD");"
            echo "GRANT ALL ON *.* TO 'root'@$(sql_string "$MARIADB_ROOT_HOST") WITH GRANT OPTION;"
            echo "GRANT PROXY ON ''@'%' TO 'root'@$(sql_string "$MARIADB_ROOT_HOST") WITH GRANT OPTION;"
        fi
        for h in 127.0.0.1 ::1 localhost; do
            echo "CREATE USER 'healthcheck'@'$h' IDENTIFIED BY $(sql_string "$hc_password");"
            echo "GRANT USAGE ON *.* TO 'healthcheck'@'$h';"
        done
        if [[ -n "$MARIADB_DATABASE" ]]; then
            echo "CREATE DATABASE IF NOT EXISTS \`${MARIADB_DATABASE//\`/\`\`}\`;"
        fi
        if [[ -n "$MARIADB_USER" ]]; then
            [[ -n "$MARIADB_PASSWORD" ]] || fatal "MARIADB_USER is set without MARIADB_PASSWORD(_FILE)"
            echo "CREATE USER $(sql_string "$MARIADB_USER")@'%' IDENTIFIED BY $(sql_string "$MARIADB_PASSWORD");"
            if [[ -n "$MARIADB_DATABASE" ]]; then
                echo "GRANT ALL ON \`${MARIADB_DATABASE//\`/\`\`}\`.* TO $(sql_string "$MARIADB_USER")@'%';"
            fi
        fi
    } | "${client[@]}" || fatal "setting up root, healthcheck and the optional database/user failed"
    umask 077
    printf '[mariadb-client]\nport=3306\nsocket=%s\nuser=healthcheck\npassword=%s\n' "$SOCKET" "$hc_password" >"$DATADIR/.my-healthcheck.cnf"
    printf '[client]\nuser=root\npassword=%s\nsocket=%s\n' "$MARIADB_ROOT_PASSWORD" "$SOCKET" >"$CLIENT_CNF"
    umask 022
    root_client=(mariadb --defaults-file="$CLIENT_CNF" --binary-mode)
    if [[ -n "$MARIADB_DATABASE" ]]; then root_client+=("$MARIADB_DATABASE"); fi
    for f in /docker-entrypoint-initdb.d/*; do
        [[ -e "$f" ]] || continue
        case "$f" in
        *.sh)
            if [[ -x "$f" ]]; then
                note "$0: running $f"
                "$f"
            else
                note "$0: sourcing $f"
                # shellcheck disable=SC1090
                . "$f"
            fi
            ;;
        *.sql) note "$0: running $f"; [[ -r "$f" ]] || fatal "$f is not readable by uid $(id -u)"; "${root_client[@]}" <"$f" || fatal "$f failed" ;;
        *.sql.gz) note "$0: running $f"; gunzip -c "$f" | "${root_client[@]}" || fatal "$f failed" ;;
        *.sql.xz) note "$0: running $f"; xzcat "$f" | "${root_client[@]}" || fatal "$f failed" ;;
        *.sql.zst) note "$0: running $f"; zstd -dc "$f" | "${root_client[@]}" || fatal "$f failed" ;;
        *) note "$0: ignoring $f" ;;
        esac
    done
    rm -f "$CLIENT_CNF"
    server_version >"$DATADIR/mysql_upgrade_info"
    temp_stop
    note "MariaDB init process done. Ready for start up."
else
    note "MariaDB data directory $DATADIR is initialized: skipping initialization and /docker-entrypoint-initdb.d"
    if [[ -n "$MARIADB_AUTO_UPGRADE" ]]; then
        current=$(server_version)
        recorded=$(cat "$DATADIR/mysql_upgrade_info" 2>/dev/null || echo none)
        if [[ "${recorded%%-*}" != "${current%%-*}" ]]; then
            note "MariaDB upgrade from ${recorded} to ${current}"
            temp_start "$@" --skip-grant-tables
            mariadb-upgrade --no-defaults --socket="$SOCKET" --upgrade-system-tables || fatal "mariadb-upgrade failed"
            temp_stop
            echo "$current" >"$DATADIR/mysql_upgrade_info"
        else
            note "MariaDB upgrade not required (${current})"
        fi
    fi
fi

exec mariadbd --defaults-file="$CNF" "$@"
