# shellcheck shell=bash
# Sourced by the ironic image stand-in entrypoints (never run alone). What the image's
# ironic-common.sh / tls-common.sh / auth-common.sh establish, per the runtime contract
# (ironic-image-contract.md §2, §4, §6, §7), each step checked with a FATAL message instead of a
# silent misconfiguration: port defaults, TLS detection from the fixed /certs paths, the wait for
# the provisioning IP, the derived URLs, and the htpasswd sources.
#
# Written for this repository's tests; no code of the image is copied.

# As the image's scripts: every step traced (`set -x`, ironic-image-contract.md §2), the reads of
# the mounted credentials included (read_auth_files), so a container started without its trace
# discarded writes them to its log as the image would.
set -euxo pipefail

STANDIN_NAME=$(basename "$0")

# The image's Python environment: Ironic 38.0.0 (the image's release) with sushy, PyMySQL,
# ironic-prometheus-exporter and gunicorn, from PyPI in the venv .ci/run creates, which the pod
# runner mounts read-only at the same path as part of the image (test/helpers/standins.ts:
# IMAGE_VENV). The image installs the same programs under /usr; here they come first on PATH.
IMAGE_VENV=/var/cache/metal3-ironic-pypi/ironic-38-exporter

fatal() {
    echo "FATAL: ${STANDIN_NAME}: $*" >&2
    exit 1
}

warn() {
    echo "WARNING: ${STANDIN_NAME}: $*" >&2
}

info() {
    echo "${STANDIN_NAME}: $*"
}

[[ -x "$IMAGE_VENV/bin/ironic" ]] || fatal "no Ironic in $IMAGE_VENV: the image's Python environment (bash .ci/run creates the pinned venv; the pod runner mounts it)"
export PATH="$IMAGE_VENV/bin:$PATH"

whoami_ids() {
    echo "uid $(id -u) gid $(id -g) groups $(id -G | tr ' ' ',')"
}

# Directories the image expects to be writable volumes (read-only root file system).
require_writable_dirs() {
    local d
    for d in "$@"; do
        [[ -d "$d" ]] || fatal "$d does not exist: mount a writable volume (e.g. an emptyDir) there"
        if [[ ! -w "$d" || ! -x "$d" ]]; then
            fatal "$d is not writable by $(whoami_ids): mount a writable volume there (the root file system is read-only)"
        fi
    done
}

# A mounted file the contract names: it must be a readable file for the image's user.
require_readable_file() {
    local f=$1 what=$2
    [[ -e "$f" ]] || fatal "$what: $f does not exist"
    [[ -f "$f" ]] || fatal "$what: $f is not a regular file"
    [[ -r "$f" ]] || fatal "$what: $f is not readable by $(whoami_ids) (check the Secret's defaultMode and the pod's fsGroup)"
    [[ -s "$f" ]] || fatal "$what: $f is empty"
}

require_port() {
    local name=$1 value=$2
    if [[ ! "$value" =~ ^[0-9]+$ ]] || ((value < 1 || value > 65535)); then
        fatal "$name=$value is not a TCP port (1-65535)"
    fi
}

is_true() {
    [[ "${1,,}" == "true" ]]
}

# ---------------------------------------------------------------------------------------------
# Ports and switches (contract §4.3, §4.5, §4.9)
# ---------------------------------------------------------------------------------------------
setup_ports() {
    export IRONIC_ACCESS_PORT=${IRONIC_ACCESS_PORT:-6385}
    export IRONIC_LISTEN_PORT=${IRONIC_LISTEN_PORT:-$IRONIC_ACCESS_PORT}
    export IRONIC_PRIVATE_PORT=${IRONIC_PRIVATE_PORT:-unix}
    export IRONIC_JSON_RPC_PORT=${IRONIC_JSON_RPC_PORT:-6189}
    export LISTEN_ALL_INTERFACES=${LISTEN_ALL_INTERFACES:-true}
    export IRONIC_REVERSE_PROXY_SETUP=${IRONIC_REVERSE_PROXY_SETUP:-false}
    require_port IRONIC_ACCESS_PORT "$IRONIC_ACCESS_PORT"
    require_port IRONIC_LISTEN_PORT "$IRONIC_LISTEN_PORT"
    require_port IRONIC_JSON_RPC_PORT "$IRONIC_JSON_RPC_PORT"
    if [[ "$IRONIC_PRIVATE_PORT" != unix ]]; then
        require_port IRONIC_PRIVATE_PORT "$IRONIC_PRIVATE_PORT"
    fi
    if [[ -n "${HTTP_PORT:-}" ]]; then require_port HTTP_PORT "$HTTP_PORT"; fi
    if [[ -n "${VMEDIA_TLS_PORT:-}" ]]; then require_port VMEDIA_TLS_PORT "$VMEDIA_TLS_PORT"; fi
}

# ---------------------------------------------------------------------------------------------
# TLS (contract §6): fixed paths; a certificate without its key (or the reverse) is fatal; the
# Ironic CA alone switches TLS on.
# ---------------------------------------------------------------------------------------------
check_pair() {
    local crt=$1 key=$2 what=$3
    if [[ -e "$crt" && ! -e "$key" ]]; then fatal "$what: certificate $crt is mounted without its key $key"; fi
    if [[ ! -e "$crt" && -e "$key" ]]; then fatal "$what: key $key is mounted without its certificate $crt"; fi
    if [[ -e "$crt" ]]; then
        require_readable_file "$crt" "$what certificate"
        require_readable_file "$key" "$what key"
    fi
}

setup_tls() {
    export IRONIC_CERT_FILE=/certs/ironic/tls.crt
    export IRONIC_KEY_FILE=/certs/ironic/tls.key
    export IRONIC_VMEDIA_CERT_FILE=/certs/vmedia/tls.crt
    export IRONIC_VMEDIA_KEY_FILE=/certs/vmedia/tls.key
    export IPXE_CERT_FILE=/certs/ipxe/tls.crt
    export IPXE_KEY_FILE=/certs/ipxe/tls.key
    export MARIADB_CACERT_FILE=/certs/ca/mariadb/tls.crt
    export BMC_CACERTS_PATH=/certs/ca/bmc
    export IRONIC_CACERT_FILE=${IRONIC_CACERT_FILE:-/certs/ca/ironic/tls.crt}
    export IRONIC_INSECURE=${IRONIC_INSECURE:-false}
    export RESTART_CONTAINER_CERTIFICATE_UPDATED=${RESTART_CONTAINER_CERTIFICATE_UPDATED:-false}
    export IPXE_TLS_PORT=${IPXE_TLS_PORT:-8084}

    check_pair "$IRONIC_CERT_FILE" "$IRONIC_KEY_FILE" "API TLS (/certs/ironic)"
    check_pair "$IRONIC_VMEDIA_CERT_FILE" "$IRONIC_VMEDIA_KEY_FILE" "virtual media TLS (/certs/vmedia)"
    check_pair "$IPXE_CERT_FILE" "$IPXE_KEY_FILE" "iPXE TLS (/certs/ipxe)"

    if [[ -e "$IRONIC_CERT_FILE" || -e "$IRONIC_CACERT_FILE" ]]; then
        export IRONIC_TLS_SETUP=true IRONIC_SCHEME=https
        if [[ -e "$IRONIC_CACERT_FILE" ]]; then
            require_readable_file "$IRONIC_CACERT_FILE" "Ironic CA (IRONIC_CACERT_FILE)"
        else
            # No CA mounted: the certificate itself is the CA clients use, copied to a writable path.
            export IRONIC_CACERT_FILE=/conf/certs/ca/ironic/tls.crt
            mkdir -p "$(dirname "$IRONIC_CACERT_FILE")" || fatal "cannot create $(dirname "$IRONIC_CACERT_FILE") (is /conf writable?)"
            cp "$IRONIC_CERT_FILE" "$IRONIC_CACERT_FILE"
        fi
    else
        export IRONIC_TLS_SETUP=false IRONIC_SCHEME=http
    fi
    if [[ -e "$IRONIC_VMEDIA_CERT_FILE" ]]; then export IRONIC_VMEDIA_TLS_SETUP=true; else export IRONIC_VMEDIA_TLS_SETUP=false; fi
    if [[ -e "$IPXE_CERT_FILE" ]]; then
        export IPXE_TLS_SETUP=true IPXE_SCHEME=https
    else
        export IPXE_TLS_SETUP=false IPXE_SCHEME=http
    fi
    if [[ -e "$MARIADB_CACERT_FILE" ]]; then
        require_readable_file "$MARIADB_CACERT_FILE" "database CA (/certs/ca/mariadb, key tls.crt)"
        export MARIADB_TLS_ENABLED=true
    else
        export MARIADB_TLS_ENABLED=false
        if [[ -d /certs/ca/mariadb ]] && compgen -G "/certs/ca/mariadb/*" >/dev/null; then
            warn "/certs/ca/mariadb is mounted but has no tls.crt (the image reads only that key): TLS to the database stays off"
        fi
    fi
}

# ---------------------------------------------------------------------------------------------
# IP selection (contract §4.2): IRONIC_IP as is; else wait for PROVISIONING_IP on an interface;
# else wait for a global address on PROVISIONING_INTERFACE (from PROVISIONING_MACS, else the
# literal "provisioning"). Bounded by IRONIC_IP_WAIT_TIMEOUT (<= 0: forever).
# ---------------------------------------------------------------------------------------------
valid_ip() {
    python3 -c 'import ipaddress, sys; ipaddress.ip_address(sys.argv[1])' "$1" 2>/dev/null
}

interface_of_mac() {
    local mac line
    for mac in ${PROVISIONING_MACS//,/ }; do
        line=$(ip -br link show up | grep -i -- " ${mac} " | head -n 1 || true)
        if [[ -n "$line" ]]; then
            echo "${line%% *}" | cut -d@ -f1
            return 0
        fi
    done
    return 1
}

wait_for_ip() {
    local timeout=${IRONIC_IP_WAIT_TIMEOUT:-1200} interval=${IRONIC_IP_WAIT_INTERVAL:-1} start=$SECONDS line
    [[ "$timeout" =~ ^-?[0-9]+$ ]] || fatal "IRONIC_IP_WAIT_TIMEOUT=$timeout is not a number of seconds"
    timed_out() { ((timeout > 0 && SECONDS - start >= timeout)); }

    if [[ -n "${IRONIC_IP:-}" ]]; then
        valid_ip "$IRONIC_IP" || fatal "IRONIC_IP=$IRONIC_IP is not an IP address"
    elif [[ -n "${PROVISIONING_IP:-}" ]]; then
        local want=${PROVISIONING_IP%%/*}
        valid_ip "$want" || fatal "PROVISIONING_IP=$PROVISIONING_IP is not an IP address (optionally with a prefix)"
        want=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]))' "$want")
        until line=$(ip -br addr show | grep -F " ${want}/" | head -n 1); do
            timed_out && fatal "PROVISIONING_IP $want did not appear on any interface within ${timeout}s (IRONIC_IP_WAIT_TIMEOUT)"
            info "waiting for $want to be configured on an interface"
            sleep "$interval"
        done
        export IRONIC_IP=$want
        if [[ -z "${PROVISIONING_INTERFACE:-}" ]]; then
            PROVISIONING_INTERFACE=$(echo "${line%% *}" | cut -d@ -f1)
            export PROVISIONING_INTERFACE
        fi
    else
        if [[ -z "${PROVISIONING_INTERFACE:-}" ]]; then
            PROVISIONING_INTERFACE=$(interface_of_mac || echo provisioning)
            export PROVISIONING_INTERFACE
        fi
        IRONIC_IP=
        until [[ -n "$IRONIC_IP" ]]; do
            IRONIC_IP=$(ip -br addr show scope global up dev "$PROVISIONING_INTERFACE" 2>/dev/null | awk '{print $3}' | sed -e 's%/.*%%' | head -n 1 || true)
            [[ -n "$IRONIC_IP" ]] && break
            timed_out && fatal "no global address on interface $PROVISIONING_INTERFACE within ${timeout}s (set PROVISIONING_IP, PROVISIONING_INTERFACE or IRONIC_IP)"
            info "waiting for interface $PROVISIONING_INTERFACE to be configured"
            sleep "$interval"
        done
        export IRONIC_IP
    fi
    if [[ "$IRONIC_IP" == *:* ]]; then
        export IPV=6 IRONIC_URL_HOST="[$IRONIC_IP]"
    else
        export IPV=4 IRONIC_URL_HOST="$IRONIC_IP"
    fi
    info "using IP $IRONIC_IP${PROVISIONING_INTERFACE:+ (interface $PROVISIONING_INTERFACE)}"
}

# URLs derived from the IP (contract §4.3); each may be overridden by the environment.
setup_urls() {
    export HTTP_PORT=${HTTP_PORT:-80}
    export IRONIC_HTTP_URL=${IRONIC_HTTP_URL:-http://${IRONIC_URL_HOST}:${HTTP_PORT}}
    export IRONIC_TFTP_URL=${IRONIC_TFTP_URL:-tftp://${IRONIC_URL_HOST}}
    export IRONIC_BASE_URL=${IRONIC_BASE_URL:-${IRONIC_SCHEME}://${IRONIC_URL_HOST}:${IRONIC_ACCESS_PORT}}
    if is_true "$IPXE_TLS_SETUP"; then
        export IRONIC_IPA_BASE_URL=${IRONIC_IPA_BASE_URL:-${IPXE_SCHEME}://${IRONIC_URL_HOST}:${IPXE_TLS_PORT}}
    else
        export IRONIC_IPA_BASE_URL=${IRONIC_IPA_BASE_URL:-$IRONIC_HTTP_URL}
    fi
}

# ---------------------------------------------------------------------------------------------
# Authentication sources (contract §7): the mounted file wins over the environment.
# ---------------------------------------------------------------------------------------------
setup_htpasswd_sources() {
    if [[ -e /auth/ironic/htpasswd ]]; then
        require_readable_file /auth/ironic/htpasswd "API htpasswd (/auth/ironic)"
        IRONIC_HTPASSWD=$(</auth/ironic/htpasswd)
    fi
    export IRONIC_HTPASSWD=${IRONIC_HTPASSWD:-${HTTP_BASIC_HTPASSWD:-}}
    if [[ -e /auth/ironic-rpc/htpasswd ]]; then
        require_readable_file /auth/ironic-rpc/htpasswd "JSON-RPC htpasswd (/auth/ironic-rpc)"
        IRONIC_RPC_HTPASSWD=$(</auth/ironic-rpc/htpasswd)
    fi
    export IRONIC_RPC_HTPASSWD=${IRONIC_RPC_HTPASSWD:-$IRONIC_HTPASSWD}
}

# What the image's auth-common.sh reads when it is sourced (by runironic, runhttpd, the schema Jobs'
# scripts, the exporter and the probes), traced: both htpasswd files, the MariaDB password and user.
read_auth_files() {
    setup_htpasswd_sources
    if [[ -z "${MARIADB_PASSWORD:-}" && -f /auth/mariadb/password ]]; then
        MARIADB_PASSWORD=$(</auth/mariadb/password)
    fi
    if [[ -z "${MARIADB_USER:-}" && -f /auth/mariadb/username ]]; then
        MARIADB_USER=$(</auth/mariadb/username)
    fi
}

# Every htpasswd entry must be "user:<bcrypt hash>": Ironic's basic-auth middleware accepts only
# bcrypt (ironic-on-debian.md §6.3); $3 says who rejects anything else.
check_bcrypt() {
    local what=$1 content=$2 who=$3 line
    while IFS= read -r line; do
        [[ -z "$line" ]] && continue
        if [[ ! "$line" =~ ^[^:]+:\$2[aby]\$[0-9]{2}\$ ]]; then
            fatal "$what: the entry for user '${line%%:*}' is not a bcrypt hash (\$2a\$, \$2b\$ or \$2y\$): $who"
        fi
    done <<<"$content"
}
