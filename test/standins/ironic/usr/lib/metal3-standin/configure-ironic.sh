# shellcheck shell=bash
# Sourced by runironic, rundatabase-upgrade and runonline-data-migrations: the stand-in for the
# image's configure-ironic.sh (ironic-image-contract.md §2, §4, §6-§11) for the image's release,
# Ironic 38 (PyPI's, from the image's Python environment: common.sh), writing
# /conf/ironic/ironic.conf with the options of the image's ironic.conf.j2 (§11). OS_<GROUP>__<OPTION>
# variables are left in the environment: oslo.config applies them on top of the file, as in the
# image (§10).

# shellcheck source=common.sh
. /usr/lib/metal3-standin/common.sh

IRONIC_CONF_DIR=/conf/ironic
IRONIC_CONF=$IRONIC_CONF_DIR/ironic.conf
IRONIC_HTPASSWD_FILE=$IRONIC_CONF_DIR/htpasswd
IRONIC_RPC_HTPASSWD_FILE=$IRONIC_CONF_DIR/htpasswd-rpc
IRONIC_GEN_CERT_DIR=/data/auto_gen_certs
LOCAL_DB_DIR=/data/db
LOCAL_DB_URI="sqlite:///${LOCAL_DB_DIR}/ironic.sqlite"

# oslo.config interpolates "$name": a literal "$" is written as "$$".
ini_value() {
    local v=$1
    printf '%s' "${v//\$/\$\$}"
}

# Percent-encoding for the user and password of the database URL.
url_quote() {
    python3 -c 'import sys, urllib.parse; sys.stdout.write(urllib.parse.quote(sys.argv[1], safe=""))' "$1"
}

setup_database() {
    export IRONIC_USE_MARIADB=${IRONIC_USE_MARIADB:-false}
    if ! is_true "$IRONIC_USE_MARIADB"; then
        mkdir -p "$LOCAL_DB_DIR"
        # The image re-copies an empty template on every start: Ironic's state is ephemeral.
        rm -f "$LOCAL_DB_DIR/ironic.sqlite" "$LOCAL_DB_DIR/ironic.sqlite-wal" "$LOCAL_DB_DIR/ironic.sqlite-shm"
        DB_CONNECTION=$LOCAL_DB_URI
        return
    fi
    local user password
    if [[ -n "${MARIADB_USER:-}" ]]; then
        user=$MARIADB_USER
    elif [[ -e /auth/mariadb/username ]]; then
        require_readable_file /auth/mariadb/username "database user (/auth/mariadb/username)"
        user=$(</auth/mariadb/username)
    else
        user=ironic
    fi
    if [[ -e /auth/mariadb/password ]]; then
        require_readable_file /auth/mariadb/password "database password (/auth/mariadb/password)"
        password=$(</auth/mariadb/password)
    elif [[ -n "${MARIADB_PASSWORD:-}" ]]; then
        warn "MARIADB_PASSWORD from the environment is deprecated: mount the password at /auth/mariadb/password"
        password=$MARIADB_PASSWORD
    else
        fatal "IRONIC_USE_MARIADB=true but no database password: mount it at /auth/mariadb/password (or set MARIADB_PASSWORD)"
    fi
    export MARIADB_HOST=${MARIADB_HOST:-127.0.0.1}
    export MARIADB_DATABASE=${MARIADB_DATABASE:-ironic}
    # Untraced, as the image builds the URL (it turns the trace off around it).
    set +x
    DB_CONNECTION="mysql+pymysql://$(url_quote "$user"):$(url_quote "$password")@${MARIADB_HOST}/${MARIADB_DATABASE}?charset=utf8"
    set -x
    if is_true "$MARIADB_TLS_ENABLED"; then
        DB_CONNECTION+="&ssl=on&ssl_ca=${MARIADB_CACERT_FILE}"
    fi
    info "database: MariaDB ${user}@${MARIADB_HOST}/${MARIADB_DATABASE} (TLS: ${MARIADB_TLS_ENABLED})"
}

# JSON-RPC between conductors (contract §8): client credentials are mandatory.
setup_json_rpc() {
    if [[ "${IRONIC_DEPLOYMENT:-}" == Conductor ]]; then
        export IRONIC_EXPOSE_JSON_RPC=true
    fi
    export IRONIC_EXPOSE_JSON_RPC=${IRONIC_EXPOSE_JSON_RPC:-false}
    is_true "$IRONIC_EXPOSE_JSON_RPC" || return 0
    if [[ -e /auth/ironic-rpc/username && -e /auth/ironic-rpc/password ]]; then
        require_readable_file /auth/ironic-rpc/username "JSON-RPC client user (/auth/ironic-rpc/username)"
        require_readable_file /auth/ironic-rpc/password "JSON-RPC client password (/auth/ironic-rpc/password)"
        RPC_USERNAME=$(</auth/ironic-rpc/username)
        RPC_PASSWORD=$(</auth/ironic-rpc/password)
    else
        fatal "IRONIC_EXPOSE_JSON_RPC=true but no client-side credentials for JSON-RPC: mount username and password at /auth/ironic-rpc"
    fi
    if [[ -n "$IRONIC_RPC_HTPASSWD" ]]; then
        check_bcrypt "JSON-RPC htpasswd" "$IRONIC_RPC_HTPASSWD" "Ironic's JSON-RPC server would reject every call"
        printf '%s\n' "$IRONIC_RPC_HTPASSWD" >"$IRONIC_RPC_HTPASSWD_FILE"
    else
        # As the image does with htpasswd -B: a server entry from the client credentials (the
        # image passes the password on stdin, out of the trace).
        set +x
        python3 -c 'import bcrypt, sys; print(sys.argv[1] + ":" + bcrypt.hashpw(sys.argv[2].encode(), bcrypt.gensalt()).decode())' \
            "$RPC_USERNAME" "$RPC_PASSWORD" >"$IRONIC_RPC_HTPASSWD_FILE"
        set -x
    fi
    chmod 0600 "$IRONIC_RPC_HTPASSWD_FILE"
    # A conductor is dialled at <[DEFAULT]host>:<port>: it must be routable, and with TLS covered by the certificate.
    if is_true "$IRONIC_TLS_SETUP"; then
        local host=${IRONIC_CONDUCTOR_HOST#[}
        host=${host%]}
        if valid_ip "$host"; then
            openssl x509 -in "$IRONIC_CERT_FILE" -noout -checkip "$host" 2>/dev/null | grep -q "does match" ||
                warn "the certificate $IRONIC_CERT_FILE does not cover the conductor host $host: peers will fail to verify its JSON-RPC endpoint"
        fi
    fi
}

# URLs handed to BMCs and agents (contract §4.2, §6, §11).
setup_external_urls() {
    if [[ -n "${IRONIC_EXTERNAL_IP:-}" ]]; then
        export IRONIC_EXTERNAL_CALLBACK_URL=${IRONIC_EXTERNAL_CALLBACK_URL:-${IRONIC_SCHEME}://${IRONIC_EXTERNAL_IP}:${IRONIC_ACCESS_PORT}}
        if is_true "$IRONIC_VMEDIA_TLS_SETUP"; then
            [[ -n "${VMEDIA_TLS_PORT:-}" ]] || fatal "VMEDIA_TLS_PORT: unbound variable (IRONIC_EXTERNAL_IP with /certs/vmedia mounted: the image aborts here under set -u; pass VMEDIA_TLS_PORT to the ironic container)"
            export IRONIC_EXTERNAL_HTTP_URL=${IRONIC_EXTERNAL_HTTP_URL:-https://${IRONIC_EXTERNAL_IP}:${VMEDIA_TLS_PORT}}
        else
            export IRONIC_EXTERNAL_HTTP_URL=${IRONIC_EXTERNAL_HTTP_URL:-http://${IRONIC_EXTERNAL_IP}:${HTTP_PORT}}
        fi
    fi
    EXTERNAL_HTTP_URL=${IRONIC_EXTERNAL_HTTP_URL:-}
    if [[ -z "$EXTERNAL_HTTP_URL" ]] && is_true "$IRONIC_VMEDIA_TLS_SETUP"; then
        [[ -n "${VMEDIA_TLS_PORT:-}" ]] || fatal "VMEDIA_TLS_PORT: unbound variable (/certs/vmedia is mounted, so the virtual-media URL is https://${IRONIC_URL_HOST}:\${VMEDIA_TLS_PORT}; the image aborts here under set -u)"
        EXTERNAL_HTTP_URL="https://${IRONIC_URL_HOST}:${VMEDIA_TLS_PORT}"
    fi
}

# IPA kernel/ramdisk (contract §4.10): only when the downloader's files exist at start.
setup_deploy_images() {
    local img=/shared/html/images
    if [[ -z "${DEPLOY_KERNEL_URL:-}" && -z "${DEPLOY_RAMDISK_URL:-}" && -e "$img/ironic-python-agent.kernel" && -e "$img/ironic-python-agent.initramfs" ]]; then
        export DEPLOY_KERNEL_URL=file://$img/ironic-python-agent.kernel
        export DEPLOY_RAMDISK_URL=file://$img/ironic-python-agent.initramfs
    fi
    if [[ -z "${DEPLOY_KERNEL_URL:-}" ]]; then
        warn "no IPA images under $img (is the ipa-downloader init container there?): nodes need driver_info deploy_kernel/deploy_ramdisk"
    fi
    if [[ -z "${BOOTLOADER:-}" && -e "/templates/uefi_esp_$(uname -m).img" ]]; then
        BOOTLOADER="file:///templates/uefi_esp_$(uname -m).img"
        export BOOTLOADER
    fi
}

setup_ipa_ca() {
    IPA_CACERT_FILE=
    if [[ -n "${WEBSERVER_CACERT_FILE:-}" ]]; then
        require_readable_file "$WEBSERVER_CACERT_FILE" "WEBSERVER_CACERT_FILE"
        IPA_CACERT_FILE=/conf/ipa-tls.pem
        cat "$WEBSERVER_CACERT_FILE" >"$IPA_CACERT_FILE"
        if is_true "$IRONIC_TLS_SETUP"; then cat "$IRONIC_CACERT_FILE" >>"$IPA_CACERT_FILE"; fi
    fi
    BMC_CACERT_FILE=
    if compgen -G "$BMC_CACERTS_PATH/*" >/dev/null; then
        BMC_CACERT_FILE=/conf/bmc-tls.pem
        cat "$BMC_CACERTS_PATH"/* >"$BMC_CACERT_FILE"
    fi
}

kernel_append_params() {
    local p="nofb nomodeset vga=normal ipa-insecure=${IRONIC_IPA_INSECURE:-1}"
    local fips=0
    if [[ -r /proc/sys/crypto/fips_enabled ]]; then fips=$(</proc/sys/crypto/fips_enabled); fi
    p+=" fips=${ENABLE_FIPS_IPA:-$fips}"
    if [[ -n "${IRONIC_RAMDISK_SSH_KEY:-}" ]]; then p+=" sshkey=\"${IRONIC_RAMDISK_SSH_KEY}\""; fi
    if [[ -n "${IRONIC_KERNEL_PARAMS:-}" ]]; then p+=" ${IRONIC_KERNEL_PARAMS}"; fi
    p+=" systemd.journald.forward_to_console=${IPA_FORWARD_CONSOLE:-yes}"
    printf '%s' "$p"
}

write_ironic_conf() {
    local host_ip=::
    if ! is_true "$LISTEN_ALL_INTERFACES"; then host_ip=$IRONIC_IP; fi
    local kparams
    kparams=$(ini_value "$(kernel_append_params)")
    {
        echo "# Rendered by the ironic image stand-in (test/standins/ironic) for Ironic 38."
        echo "[DEFAULT]"
        echo "auth_strategy = noauth"
        echo "debug = true"
        echo "use_stderr = true"
        echo "host = $(ini_value "$IRONIC_CONDUCTOR_HOST")"
        if [[ "$IPV" == 4 ]]; then echo "my_ip = $IRONIC_IP"; else echo "my_ipv6 = $IRONIC_IP"; fi
        if is_true "$IRONIC_EXPOSE_JSON_RPC"; then echo "rpc_transport = json-rpc"; else echo "rpc_transport = none"; fi
        echo "hash_ring_algorithm = sha256"
        echo "tempdir = /shared/tmp"
        echo "grub_config_path = EFI/centos/grub.cfg"
        echo "isolinux_bin = /usr/share/syslinux/isolinux.bin"
        if [[ -n "${WEBSERVER_CACERT_FILE:-}" ]]; then
            echo "webserver_verify_ca = $WEBSERVER_CACERT_FILE"
        elif is_true "$IRONIC_INSECURE"; then
            echo "webserver_verify_ca = false"
        fi
        # The image's interfaces, less iRMC: its hardware type needs python-scciclient, which the
        # image installs for it and the test environment does not (nothing here drives an iRMC).
        echo "enabled_hardware_types = ipmi,idrac,fake-hardware,redfish,manual-management"
        echo "enabled_bios_interfaces = no-bios,redfish,idrac-redfish"
        echo "enabled_boot_interfaces = ipxe,pxe,fake,redfish-virtual-media,idrac-redfish-virtual-media,redfish-https"
        echo "enabled_deploy_interfaces = direct,fake,ramdisk,custom-agent,bootc"
        echo "default_deploy_interface = direct"
        echo "enabled_firmware_interfaces = no-firmware,fake,redfish"
        echo "enabled_inspect_interfaces = agent,fake,redfish"
        echo "default_inspect_interface = agent"
        echo "enabled_management_interfaces = ipmitool,fake,redfish,idrac-redfish,noop"
        echo "enabled_network_interfaces = noop"
        echo "default_network_interface = noop"
        echo "enabled_power_interfaces = ipmitool,fake,redfish,idrac-redfish"
        echo "enabled_raid_interfaces = no-raid,agent,fake,redfish,idrac-redfish"
        echo "enabled_vendor_interfaces = no-vendor,ipmitool,idrac-redfish,redfish,fake"
        echo
        echo "[agent]"
        echo "deploy_logs_collect = always"
        echo "deploy_logs_local_path = /shared/log/ironic/deploy"
        echo "max_command_attempts = 30"
        echo "certificates_path = $IRONIC_GEN_CERT_DIR"
        if [[ -n "$IPA_CACERT_FILE" ]]; then echo "api_ca_file = $IPA_CACERT_FILE"; fi
        echo
        echo "[api]"
        if is_true "$IRONIC_REVERSE_PROXY_SETUP"; then
            if [[ "$IRONIC_PRIVATE_PORT" == unix ]]; then
                echo "unix_socket = /shared/ironic.sock"
                echo "unix_socket_mode = 0666"
            else
                echo "host_ip = 127.0.0.1"
                echo "port = $IRONIC_PRIVATE_PORT"
            fi
            echo "public_endpoint = $(ini_value "$IRONIC_BASE_URL")"
        else
            echo "host_ip = $host_ip"
            echo "port = $IRONIC_LISTEN_PORT"
            if is_true "$IRONIC_TLS_SETUP"; then echo "enable_ssl_api = true"; fi
        fi
        echo "api_workers = ${NUMWORKERS:-0}"
        echo
        echo "[conductor]"
        echo "automated_clean = ${IRONIC_AUTOMATED_CLEAN:-true}"
        echo "deploy_callback_timeout = 4800"
        echo "power_state_change_timeout = 120"
        echo "node_history = False"
        echo "file_url_allowed_paths = /shared/html/images,/templates"
        echo "verify_step_priority_override = management.clear_job_queue:90"
        if [[ -n "${BOOTLOADER:-}" ]]; then echo "bootloader = $BOOTLOADER"; fi
        if [[ -n "${BOOTLOADER_BY_ARCH:-}" ]]; then echo "bootloader_by_arch = $(ini_value "$BOOTLOADER_BY_ARCH")"; fi
        if [[ -n "${DEPLOY_KERNEL_URL:-}" ]]; then echo "deploy_kernel = $(ini_value "$DEPLOY_KERNEL_URL")"; fi
        if [[ -n "${DEPLOY_KERNEL_BY_ARCH:-}" ]]; then echo "deploy_kernel_by_arch = $(ini_value "$DEPLOY_KERNEL_BY_ARCH")"; fi
        if [[ -n "${DEPLOY_RAMDISK_URL:-}" ]]; then echo "deploy_ramdisk = $(ini_value "$DEPLOY_RAMDISK_URL")"; fi
        if [[ -n "${DEPLOY_RAMDISK_BY_ARCH:-}" ]]; then echo "deploy_ramdisk_by_arch = $(ini_value "$DEPLOY_RAMDISK_BY_ARCH")"; fi
        if is_true "${DISABLE_DEEP_IMAGE_INSPECTION:-false}"; then echo "disable_deep_image_inspection = True"; fi
        echo
        echo "[database]"
        echo "connection = $(ini_value "$DB_CONNECTION")"
        if ! is_true "$IRONIC_USE_MARIADB"; then echo "sqlite_synchronous = False"; fi
        echo
        echo "[deploy]"
        echo "http_root = /shared/html/"
        echo "http_url = $(ini_value "$IRONIC_HTTP_URL")"
        echo "fast_track = ${IRONIC_FAST_TRACK:-true}"
        echo "iso_master_path = /shared/html/master_iso_images"
        echo "erase_devices_metadata_priority = 10"
        echo "erase_devices_priority = 0"
        if [[ -n "${IRONIC_BOOT_ISO_SOURCE:-}" ]]; then echo "ramdisk_image_download_source = $IRONIC_BOOT_ISO_SOURCE"; fi
        if [[ -n "$EXTERNAL_HTTP_URL" ]]; then echo "external_http_url = $(ini_value "$EXTERNAL_HTTP_URL")"; fi
        if [[ -n "${IRONIC_EXTERNAL_CALLBACK_URL:-}" ]]; then echo "external_callback_url = $(ini_value "$IRONIC_EXTERNAL_CALLBACK_URL")"; fi
        echo
        echo "[dhcp]"
        echo "dhcp_provider = none"
        echo
        echo "[inspector]"
        if is_true "${IRONIC_FAST_TRACK:-true}"; then echo "power_off = false"; else echo "power_off = true"; fi
        echo "extra_kernel_params = ipa-inspection-collectors=${IRONIC_IPA_COLLECTORS:-default,logs} ipa-enable-vlan-interfaces=${IRONIC_ENABLE_VLAN_INTERFACES:-all} ipa-inspection-dhcp-all-interfaces=1 ipa-collect-lldp=1"
        echo "require_managed_boot = False"
        echo "hooks = \$default_hooks,parse-lldp"
        echo "add_ports = all"
        echo "keep_ports = present"
        echo
        echo "[auto_discovery]"
        echo "enabled = ${IRONIC_ENABLE_DISCOVERY:-false}"
        echo "driver = ipmi"
        echo
        echo "[ipmi]"
        echo "use_ipmitool_retries = false"
        echo "min_command_interval = 5"
        echo "command_retry_timeout = 60"
        echo "cipher_suite_versions = 3,17"
        echo
        if is_true "$IRONIC_EXPOSE_JSON_RPC"; then
            echo "[json_rpc]"
            echo "auth_strategy = http_basic"
            echo "http_basic_auth_user_file = $IRONIC_RPC_HTPASSWD_FILE"
            echo "auth_type = http_basic"
            echo "username = $(ini_value "$RPC_USERNAME")"
            echo "password = $(ini_value "$RPC_PASSWORD")"
            echo "host_ip = $host_ip"
            echo "port = $IRONIC_JSON_RPC_PORT"
            if is_true "$IRONIC_TLS_SETUP"; then
                echo "use_ssl = true"
                echo "cafile = $IRONIC_CACERT_FILE"
                echo "insecure = $IRONIC_INSECURE"
            fi
            echo
        fi
        echo "[nova]"
        echo "send_power_notifications = false"
        echo
        # SEND_SENSOR_DATA=true (metrics.enabled): the sections ironic-prometheus-exporter needs.
        if is_true "${SEND_SENSOR_DATA:-false}"; then
            echo "[oslo_messaging_notifications]"
            echo "driver = prometheus_exporter"
            echo "location = /shared/ironic_prometheus_exporter"
            echo "transport_url = fake://"
            echo
            echo "[sensor_data]"
            echo "send_sensor_data = true"
            echo "interval = 160"
            echo
            echo "[metrics]"
            echo "backend = collector"
            echo
        fi
        echo "[pxe]"
        echo "boot_retry_timeout = 1200"
        echo "images_path = /shared/html/tmp"
        echo "instance_master_path = /shared/html/master_images"
        echo "tftp_master_path = /shared/tftpboot/master_images"
        echo "tftp_root = /shared/tftpboot"
        echo "kernel_append_params = $kparams"
        echo "enable_netboot_fallback = true"
        echo "ipxe_fallback_script = inspector.ipxe"
        if is_true "${IPXE_TLS_SETUP:-false}"; then echo "ipxe_config_template = /templates/ipxe_config.template"; fi
        echo
        echo "[redfish]"
        echo "use_swift = false"
        echo "kernel_append_params = $kparams"
        if [[ -n "$BMC_CACERT_FILE" ]]; then echo "verify_ca = $BMC_CACERT_FILE"; fi
        echo
        echo "[service_catalog]"
        echo "endpoint_override = $(ini_value "$IRONIC_BASE_URL")"
        if is_true "$IRONIC_TLS_SETUP" && [[ -e "$IRONIC_CERT_FILE" ]]; then
            # Read by oslo.service for the API (enable_ssl_api) and the JSON-RPC server (use_ssl).
            echo
            echo "[ssl]"
            echo "cert_file = $IRONIC_CERT_FILE"
            echo "key_file = $IRONIC_KEY_FILE"
        fi
        if [[ -n "${IRONIC_OCI_AUTH_CONFIG:-}" ]]; then
            echo
            echo "[oci]"
            echo "authentication_config = $IRONIC_OCI_AUTH_CONFIG"
        fi
    } >"$IRONIC_CONF.tmp"
    chmod 0600 "$IRONIC_CONF.tmp"
    mv "$IRONIC_CONF.tmp" "$IRONIC_CONF"
}

configure_ironic() {
    require_writable_dirs /conf /data /tmp /shared
    mkdir -p "$IRONIC_CONF_DIR" "$IRONIC_GEN_CERT_DIR"
    setup_ports
    setup_tls
    if is_true "$IRONIC_REVERSE_PROXY_SETUP" && ! is_true "$IRONIC_TLS_SETUP"; then
        warn "IRONIC_REVERSE_PROXY_SETUP=true without TLS: the API listens only on the unix socket and httpd (which proxies only with TLS) will not expose it"
    fi
    read_auth_files
    wait_for_ip
    setup_urls
    export IRONIC_CONDUCTOR_HOST=${IRONIC_CONDUCTOR_HOST:-$IRONIC_URL_HOST}
    setup_json_rpc
    setup_external_urls
    setup_database
    setup_deploy_images
    setup_ipa_ca
    # As the image prints them (configure-ironic.sh): every value in clear, passwords included.
    echo "Options set from environment variables (they override ironic.conf):"
    env | grep '^OS_' || true
    mkdir -p /shared/html /shared/tmp /shared/ironic_prometheus_exporter
    # Untraced: the image renders ironic.conf with Jinja (one traced command, no value in the trace).
    set +x
    write_ironic_conf
    set -x
    export NO_PROXY="${NO_PROXY:-},$IRONIC_IP"
    info "wrote $IRONIC_CONF"
}

# The image's API auth step (runironic): without the reverse proxy Ironic enforces the htpasswd
# itself; with it, httpd does (contract §7). No htpasswd: the API is unauthenticated.
configure_ironic_auth() {
    if [[ -z "$IRONIC_HTPASSWD" ]]; then
        warn "no htpasswd (/auth/ironic/htpasswd or IRONIC_HTPASSWD): the API is unauthenticated (noauth)"
        return 0
    fi
    printf '%s\n' "$IRONIC_HTPASSWD" >"$IRONIC_HTPASSWD_FILE"
    chmod 0600 "$IRONIC_HTPASSWD_FILE"
    if is_true "$IRONIC_REVERSE_PROXY_SETUP"; then
        info "API basic auth is enforced by httpd (reverse proxy)"
        return 0
    fi
    check_bcrypt "API htpasswd" "$IRONIC_HTPASSWD" "Ironic's basic-auth middleware would reject every request"
    python3 - "$IRONIC_CONF" "$IRONIC_HTPASSWD_FILE" <<'EOF'
import sys
conf, htpasswd = sys.argv[1], sys.argv[2]
lines = open(conf).read().split("\n")
out = []
for line in lines:
    out.append("auth_strategy = http_basic" if line == "auth_strategy = noauth" else line)
    if line == "[DEFAULT]":
        out.append("http_basic_auth_user_file = " + htpasswd)
open(conf, "w").write("\n".join(out))
EOF
    info "API basic auth enforced by Ironic ($IRONIC_HTPASSWD_FILE)"
}

# Schema: SQLite gets create_schema (a fresh file on every start), MariaDB "upgrade", retried
# while the database comes up (IRONIC_DBSYNC_TIMEOUT / IRONIC_DBSYNC_INTERVAL).
run_ironic_dbsync() {
    if is_true "$IRONIC_USE_MARIADB"; then
        local timeout=${IRONIC_DBSYNC_TIMEOUT:-600} interval=${IRONIC_DBSYNC_INTERVAL:-1} start=$SECONDS
        until ironic-dbsync --config-file "$IRONIC_CONF" upgrade; do
            if ((SECONDS - start >= timeout)); then
                fatal "ironic-dbsync upgrade kept failing for ${timeout}s (IRONIC_DBSYNC_TIMEOUT): is the database at ${MARIADB_HOST} reachable with these credentials?"
            fi
            warn "ironic-dbsync upgrade failed, retrying"
            sleep "$interval"
        done
    else
        local version
        version=$(ironic-dbsync --config-file "$IRONIC_CONF" version 2>/dev/null | tail -n 1)
        if [[ "$version" == None || -z "$version" ]]; then
            ironic-dbsync --config-file "$IRONIC_CONF" create_schema || fatal "ironic-dbsync create_schema failed on $LOCAL_DB_URI"
        fi
    fi
}
