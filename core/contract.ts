/**
 * The runtime contract of the Metal3 Ironic image (quay.io/metal3-io/ironic) and its
 * companion images: entrypoints, environment variable names, fixed paths and ports.
 *
 * Every other module takes these names from here, so a change of the image contract is a
 * change of this one file. docs/ironic-image-contract.md states these facts in prose (read from
 * ironic-image main as of 2026-08; IrSO v0.11 for the deployer conventions).
 */
import { BMO_PINNED } from "./bmo-release";

/** Entrypoint scripts: the image has no ENTRYPOINT/CMD, every container sets `command`. */
export const COMMANDS = {
    ironic: "/bin/runironic",
    httpd: "/bin/runhttpd",
    ramdiskLogs: "/bin/runlogwatch.sh",
    dbUpgrade: "/bin/rundatabase-upgrade",
    onlineDataMigrations: "/bin/runonline-data-migrations",
    readiness: "/bin/ironic-readiness",
    liveness: "/bin/ironic-liveness",
    /** The dnsmasq binary; we run it on our own rendered config instead of /bin/rundnsmasq. */
    dnsmasqBinary: "/usr/sbin/dnsmasq",
    /** The image's shell (scripts are bash). */
    shell: "/bin/bash",
    /** The image's Python (hard-coded by its own scripts). */
    python: "python3.12",
} as const;

/** uid/gid of the `ironic` user baked into the image. */
export const IRONIC_UID = 997;
export const IRONIC_GID = 994;

/** Linux capabilities the dnsmasq binary carries as file capabilities in the image. */
export const DNSMASQ_CAPABILITIES = ["NET_ADMIN", "NET_BIND_SERVICE", "NET_RAW"] as const;

/** Capabilities keepalived needs: add the VIP (NET_ADMIN), VRRP raw sockets and broadcast. */
export const KEEPALIVED_CAPABILITIES = ["NET_ADMIN", "NET_BROADCAST", "NET_RAW"] as const;

/** Ports. Defaults follow BMO/IrSO where they differ from the image's own defaults. */
export const PORTS = {
    api: 6385,
    jsonRpc: 6189,
    /** httpd plain port (image default 80; BMO and IrSO use 6180). */
    http: 6180,
    /** httpd virtual-media TLS port (image default 8083; IrSO and CBO use 6183). */
    vmediaTls: 6183,
    dhcp: 67,
    tftp: 69,
} as const;

/** Fixed paths inside the ironic image. */
export const PATHS = {
    shared: "/shared",
    sharedHtml: "/shared/html",
    sharedImages: "/shared/html/images",
    tftpRoot: "/shared/tftpboot",
    deployLogs: "/shared/log/ironic/deploy",
    conf: "/conf",
    /** IRONIC_CONF_DIR: runironic starts `ironic --config-dir` on it (every *.conf, sorted; later files win). */
    confIronic: "/conf/ironic",
    data: "/data",
    tmp: "/tmp",
    dnsmasqLeaseFile: "/data/dnsmasq/dnsmasq.leases",
    /** Where the image keeps its iPXE binaries. */
    ipxeFirmware: "/tftpboot",
    /** Optional user-provided iPXE binaries (preferred when readable). */
    ipxeCustomFirmware: "/shared/custom_ipxe_firmware",
    /** API and JSON-RPC server certificate: tls.crt + tls.key. */
    certsIronic: "/certs/ironic",
    /** CA for Ironic's own TLS clients: tls.crt. Its presence switches TLS mode on. */
    certsIronicCa: "/certs/ca/ironic",
    /** Virtual-media HTTPS vhost certificate: tls.crt + tls.key. */
    certsVmedia: "/certs/vmedia",
    /** Database CA: key must be tls.crt. */
    certsMariadbCa: "/certs/ca/mariadb",
    /** API htpasswd (file `htpasswd`). */
    authIronic: "/auth/ironic",
    /** JSON-RPC client credentials and server htpasswd (username, password, htpasswd). */
    authIronicRpc: "/auth/ironic-rpc",
    /** Database credentials (username, password). */
    authMariadb: "/auth/mariadb",
} as const;

/**
 * Ironic's `dnsmasq` DHCP provider's per-host and per-node files (the conductor's dnsmasq reads them
 * through inotify) and lease file. Multi: their directory is the node's (hostPath NODE_STATE_DIR/
 * <namespace>/<name>/dnsmasq), not the pod's: Ironic writes a node's files only when it deploys the
 * node or takes it over, so a conductor pod replaced with a fresh one would leave its hosts unanswered.
 */
export const DHCP_PROVIDER_DIR = "/shared/dnsmasq";
export const NODE_STATE_DIR = "/var/lib/metal3-ironic";
export const DHCP_PROVIDER_PATHS = { hostsDir: `${DHCP_PROVIDER_DIR}/hostsdir.d`, optsDir: `${DHCP_PROVIDER_DIR}/optsdir.d`, leaseFile: `${DHCP_PROVIDER_DIR}/dnsmasq.leases` } as const;

/** Our multi-conductor start wrapper's own contract (core/conductor-wrapper.ts), re-exported for its importers. */
export { CONDUCTOR_PATHS, WRAPPER_ENV } from "./conductor-wrapper";

/** httpd's TLS policy per vhost (tls-common.sh and the vhost templates; unset: the image's defaults). */
export const HTTPD_TLS_ENV = {
    api: { protocol: "IRONIC_SSL_PROTOCOL", ciphers12: "IRONIC_TLS_12_CIPHERS", ciphers13: "IRONIC_TLS_13_CIPHERS", curves: "IRONIC_TLS_CURVES" },
    vmedia: { protocol: "IRONIC_VMEDIA_SSL_PROTOCOL", ciphers12: "IRONIC_VMEDIA_TLS_12_CIPHERS", ciphers13: "IRONIC_VMEDIA_TLS_13_CIPHERS", curves: "IRONIC_VMEDIA_CURVES" },
} as const;

/** Re-exported for their importers: the keepalived image's contract and our start script's (core/keepalived.ts),
 * the ironic image's exporter (core/exporter.ts), our DHCP pruner sidecar's variables (core/pruner.ts). Our
 * scripts' file names and what each reads: core/scripts.ts. */
export { KEEPALIVED_IMAGE, KEEPALIVED_START } from "./keepalived";
export { EXPORTER } from "./exporter";
export { PRUNER_ENV } from "./pruner";

/** Where our own rendered dnsmasq configuration is mounted in the dnsmasq container. */
export const DNSMASQ_CONFIG_DIR = "/etc/metal3-ironic/dnsmasq";
export const DNSMASQ_CONFIG_FILE = "dnsmasq.conf";

/** iPXE firmware file names the image ships (SNP_BASENAME=snponly). */
export const IPXE_FILES = {
    bios: "undionly.kpxe",
    efiX86_64: "snponly-x86_64.efi",
    efiArm64: "snponly-arm64.efi",
} as const;

/** Environment variable names read by the image's scripts. */
export const ENV = {
    provisioningIp: "PROVISIONING_IP",
    provisioningInterface: "PROVISIONING_INTERFACE",
    ironicIp: "IRONIC_IP",
    listenAllInterfaces: "LISTEN_ALL_INTERFACES",
    httpPort: "HTTP_PORT",
    accessPort: "IRONIC_ACCESS_PORT",
    listenPort: "IRONIC_LISTEN_PORT",
    privatePort: "IRONIC_PRIVATE_PORT",
    reverseProxySetup: "IRONIC_REVERSE_PROXY_SETUP",
    vmediaTlsPort: "VMEDIA_TLS_PORT",
    jsonRpcPort: "IRONIC_JSON_RPC_PORT",
    exposeJsonRpc: "IRONIC_EXPOSE_JSON_RPC",
    conductorHost: "IRONIC_CONDUCTOR_HOST",
    useMariadb: "IRONIC_USE_MARIADB",
    mariadbHost: "MARIADB_HOST",
    mariadbDatabase: "MARIADB_DATABASE",
    skipDbsync: "IRONIC_SKIP_DBSYNC",
    kernelParams: "IRONIC_KERNEL_PARAMS",
    ramdiskSshKey: "IRONIC_RAMDISK_SSH_KEY",
    externalIp: "IRONIC_EXTERNAL_IP",
    externalHttpUrl: "IRONIC_EXTERNAL_HTTP_URL",
    externalCallbackUrl: "IRONIC_EXTERNAL_CALLBACK_URL",
    enableVlanInterfaces: "IRONIC_ENABLE_VLAN_INTERFACES",
    ipWaitTimeout: "IRONIC_IP_WAIT_TIMEOUT",
    restartOnCertUpdate: "RESTART_CONTAINER_CERTIFICATE_UPDATED",
    automatedClean: "IRONIC_AUTOMATED_CLEAN",
    keepalivedVirtualIps: "KEEPALIVED_VIRTUAL_IPS",
    // ironic-ipa-downloader (IPA_DOWNLOADER below)
    ipaBaseUri: "IPA_BASEURI",
    ipaBranch: "IPA_BRANCH",
    ipaFlavor: "IPA_FLAVOR",
    ipaArch: "IPA_ARCH",
    ipaFilename: "IPA_FILENAME",
    sharedDir: "SHARED_DIR",
} as const;

/**
 * ironic-ipa-downloader (metal3-io/ironic-ipa-downloader `get-resource.sh`, commit 854d640): the
 * image's ENTRYPOINT (shell form, so `args` are ignored) downloads `<IPA_BASEURI>/<IPA_FILENAME>`
 * (default `ipa-<IPA_FLAVOR>-<IPA_BRANCH with / → ->.tar.gz`) with curl into a mktemp dir under
 * `<SHARED_DIR>/tmp`, dumping the response headers to `<IPA_FILENAME>.headers`, extracts it
 * (`tar -xaf`), renames the dir to `<SHARED_DIR>/html/images/<IPA_FILENAME>-<ETag>` and points
 * `ironic-python-agent[_<IPA_ARCH>].{kernel,initramfs,headers}` at `<base>.kernel`,
 * `<base>.initramfs` and the headers in it (`<base>` = the file name without `.tar.gz`).
 * Skip rule: when `ironic-python-agent[_<arch>].headers` exists it sends `If-None-Match: <ETag>`;
 * nothing received → the links stay. It verifies no checksum; the main GET has no `--fail`, and
 * an interrupted transfer exits non-zero (set -e) before any link changes. Also read:
 * `CACHEURL`, `CURL_INSECURE`, `CURL_VERBOSE`, `EXTENSIONS`, `http(s)_proxy`/`no_proxy` and their
 * upper-case forms. The base image (CentOS Stream 9) has bash, coreutils, curl and tar.
 *
 * Proxy and CA: its ENTRYPOINT runs `get-resource.sh`, which downloads with curl. The script
 * copies HTTP_PROXY/HTTPS_PROXY/NO_PROXY into the lower-case names when those are unset; curl
 * reads `http_proxy` only in lower case, `https_proxy`/`no_proxy` in either. curl takes its CA
 * bundle from CURL_CA_BUNDLE (else SSL_CERT_FILE), which replaces its built-in bundle; the
 * image's base (CentOS Stream 9) keeps the system bundle at /etc/pki/tls/certs/ca-bundle.crt
 * (Debian, which the tests' stand-ins run on, at /etc/ssl/certs/ca-certificates.crt).
 */
export const IPA_DOWNLOADER = {
    entrypoint: "/usr/local/bin/get-resource.sh",
    imagesDir: "html/images",
    tmpDir: "tmp",
    /** Link names without and with the `_<IPA_ARCH>` suffix. */
    linkBase: "ironic-python-agent",
    /** Proxy variables, both spellings (curl, Python and Go each read one or both). */
    proxyEnv: { http: ["HTTP_PROXY", "http_proxy"], https: ["HTTPS_PROXY", "https_proxy"], no: ["NO_PROXY", "no_proxy"] },
    /** CA bundle variables: curl's own, OpenSSL's default file, Python requests'. Each replaces the default bundle. */
    caBundleEnv: ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"],
    systemCaBundles: ["/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/certs/ca-certificates.crt"],
} as const;

/** CPU architectures Ironic and BMO name deploy images by (Ironic `cpu_arch`, BMO `DEPLOY_*_URL_<ARCH>`). */
export const IPA_ARCHITECTURES = ["x86_64", "aarch64"] as const;
export type IpaArchitecture = (typeof IPA_ARCHITECTURES)[number];

/**
 * Deploy images as the ironic image and Ironic read them. `[conductor]deploy_kernel`/`deploy_ramdisk`
 * (StrOpt) and `deploy_kernel_by_arch`/`deploy_ramdisk_by_arch` (DictOpt, `arch:url,arch:url`, split at
 * the first ':'); http(s) URLs are fetched by the conductor itself (HttpImageService, requests) into
 * its image cache and served to hosts from its own httpd, verified with `[DEFAULT]webserver_verify_ca`
 * (a bool or a CA bundle path, requests' `verify`). runhttpd writes inspector.ipxe against the files
 * `ironic-python-agent[_<arch>].{kernel,initramfs}` in /shared/html/images, and the httpd readiness
 * probe of the deployers asks for `/images/ironic-python-agent.kernel`.
 */
export const DEPLOY_IMAGE_OPTIONS = {
    kernel: ["conductor", "deploy_kernel"],
    ramdisk: ["conductor", "deploy_ramdisk"],
    kernelByArch: ["conductor", "deploy_kernel_by_arch"],
    ramdiskByArch: ["conductor", "deploy_ramdisk_by_arch"],
    verifyCa: ["DEFAULT", "webserver_verify_ca"],
} as const;

/**
 * The CAs Ironic verifies TLS peers with (docs/ironic-image-contract.md, TLS). BMC drivers (redfish,
 * and idrac-redfish, which parses its driver_info the same way) take `[redfish]verify_ca` unless a
 * node's `driver_info.redfish_verify_ca` says otherwise; Ironic's own HTTPS downloads (deploy
 * images, image sources, checksum files) take `[DEFAULT]webserver_verify_ca`. Both are requests'
 * `verify`: a bool or one bundle file, which **replaces** requests' default bundle. The image
 * concatenates the files in `/certs/ca/bmc/` into /conf/bmc-tls.pem and sets `[redfish]verify_ca` to
 * it (the mounted CAs alone: a BMC with a public CA then fails); IrSO mounts its trusted CA under
 * `/certs/ca/trusted/`. The OS_* overrides win over the image's file.
 */
export const IRONIC_TRUST = {
    bmcCaDir: "/certs/ca/bmc",
    trustedCaDir: "/certs/ca/trusted",
    bmcVerifyCa: ["redfish", "verify_ca"],
    webserverVerifyCa: ["DEFAULT", "webserver_verify_ca"],
} as const;

/** BMO (docs/ironic-image-contract.md, Deploy images): per-arch `DEPLOY_KERNEL_URL_<ARCH upper>` wins over the base variable. */
export const BMO_DEPLOY_ENV = { kernel: "DEPLOY_KERNEL_URL", ramdisk: "DEPLOY_RAMDISK_URL" } as const;

/** Prefix of oslo.config environment overrides: OS_<GROUP>__<OPTION>. */
export const OSLO_ENV_PREFIX = "OS_";

/** Name of an oslo.config environment override for `[group]option`. */
export function osloEnvName(group: string, option: string): string {
    return `${OSLO_ENV_PREFIX}${group.toUpperCase()}__${option.toUpperCase()}`;
}

/** Default images (contract doc, Default images): Ironic's version tag v38.0.0, not release-38.0 (moves with its branch). */
export const DEFAULT_IMAGES = {
    ironic: "quay.io/metal3-io/ironic:v38.0.0",
    ipaDownloader: "quay.io/metal3-io/ironic-ipa-downloader:latest",
    keepalived: "quay.io/metal3-io/keepalived:latest",
    mariadb: "docker.io/library/mariadb:11.4.5",
    /** The pinned release's (BMO_PINNED); bmo.version moves the tag with it. */
    baremetalOperator: `quay.io/metal3-io/baremetal-operator:${BMO_PINNED.version}`,
} as const;
