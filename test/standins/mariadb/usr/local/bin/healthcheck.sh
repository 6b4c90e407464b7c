#!/bin/bash
# Stand-in for the upstream MariaDB image's healthcheck.sh (documented options, used by our
# StatefulSet's probes as "healthcheck.sh --connect --innodb_initialized"). Tests run in order;
# the exit status is 0 only when all pass. Credentials: the healthcheck user written by the
# entrypoint to <datadir>/.my-healthcheck.cnf, or --defaults-file/--defaults-extra-file.
#  --connect               a TCP connection to localhost is accepted by the server (any answer but
#                          "Can't connect": the temporary server of the entrypoint has no network)
#  --innodb_initialized    InnoDB is available
#  --innodb_buffer_pool_loaded   the buffer pool load at start-up is complete
set -uo pipefail
datadir=/var/lib/mysql
defaults=()
tests=()
for a in "$@"; do
    case "$a" in
    --connect | --innodb_initialized | --innodb_buffer_pool_loaded) tests+=("${a#--}") ;;
    --datadir=*) datadir=${a#*=} ;;
    --defaults-file=* | --defaults-extra-file=* | --defaults-group-suffix=* | --no-defaults) defaults+=("$a") ;;
    --su=* | --su-mysql) ;;
    *) echo "healthcheck.sh: unknown option $a" >&2; exit 1 ;;
    esac
done
((${#tests[@]} > 0)) || { echo "healthcheck.sh: no test given (e.g. --connect --innodb_initialized)" >&2; exit 1; }
if ((${#defaults[@]} == 0)); then
    [[ -r "$datadir/.my-healthcheck.cnf" ]] || { echo "healthcheck.sh: $datadir/.my-healthcheck.cnf is missing or unreadable" >&2; exit 1; }
    defaults=(--defaults-file="$datadir/.my-healthcheck.cnf")
fi
client=(mariadb "${defaults[@]}")

for t in "${tests[@]}"; do
    case "$t" in
    connect)
        out=$("${client[@]}" -h localhost --protocol tcp -e 'select 1' 2>&1)
        if grep -qF "Can't connect" <<<"$out"; then
            echo "healthcheck connect failed: $out" >&2
            exit 1
        fi
        ;;
    innodb_initialized)
        out=$("${client[@]}" -B -N -e "select 1 from information_schema.ENGINES where engine='innodb' and support in ('YES','DEFAULT','ENABLED')" 2>&1)
        if [[ "$out" != 1 ]]; then
            echo "healthcheck innodb_initialized failed: $out" >&2
            exit 1
        fi
        ;;
    innodb_buffer_pool_loaded)
        out=$("${client[@]}" -B -N -e "select VARIABLE_VALUE from information_schema.GLOBAL_STATUS where VARIABLE_NAME='INNODB_BUFFER_POOL_LOAD_STATUS'" 2>&1)
        if [[ "$out" != *"load completed"* && "$out" != *"Loading of buffer pool not started"* ]]; then
            echo "healthcheck innodb_buffer_pool_loaded failed: $out" >&2
            exit 1
        fi
        ;;
    esac
done
exit 0
