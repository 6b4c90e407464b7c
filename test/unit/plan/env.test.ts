/** The containers' environment (core/plan/env.ts): per topology, DHCP and database kind. */
import { strict as assert } from "assert";

import { sortedEnv } from "../../../core/manifests/meta";
import { commonEnv, ipaDownloaderEnv, ironicEnv, osloSettings } from "../../../core/plan/env";
import { databaseEnv } from "../../../core/plan/database";
import { databasePlan } from "../../../core/plan/database";
import { FAILOVER_SETTINGS } from "../../../core/timings";
import { ED25519 } from "../config/support";
import { configOf, devNoDhcpRaw, devRaw, haNoDhcpRaw, haRaw, withKeys } from "./support";

const SHARED_ENV = {
    LISTEN_ALL_INTERFACES: "true",
    HTTP_PORT: "6180",
    IRONIC_ACCESS_PORT: "6385",
    IRONIC_LISTEN_PORT: "6385",
    IRONIC_REVERSE_PROXY_SETUP: "true",
    IRONIC_PRIVATE_PORT: "unix",
    VMEDIA_TLS_PORT: "6183",
    IRONIC_ENABLE_VLAN_INTERFACES: "all",
    RESTART_CONTAINER_CERTIFICATE_UPDATED: "true",
    // TLS 1.2+ on both vhosts with tls.minVersion unset (the image's virtual-media default is ALL).
    IRONIC_SSL_PROTOCOL: "-ALL +TLSv1.2 +TLSv1.3",
    IRONIC_VMEDIA_SSL_PROTOCOL: "-ALL +TLSv1.2 +TLSv1.3",
};

const FAILOVER_ENV = {
    OS_CONDUCTOR__HEARTBEAT_INTERVAL: "2",
    OS_CONDUCTOR__HEARTBEAT_TIMEOUT: "10",
    OS_CONDUCTOR__PERIODIC_MAX_WORKERS: "64",
    OS_CONDUCTOR__SYNC_LOCAL_STATE_INTERVAL: "3",
    OS_DEFAULT__HASH_RING_RESET_INTERVAL: "3",
};

const DHCP_PROVIDER_ENV = {
    OS_DHCP__DHCP_PROVIDER: "dnsmasq",
    OS_DNSMASQ__DHCP_HOSTSDIR: "/shared/dnsmasq/hostsdir.d",
    OS_DNSMASQ__DHCP_LEASEFILE: "/shared/dnsmasq/dnsmasq.leases",
    OS_DNSMASQ__DHCP_OPTSDIR: "/shared/dnsmasq/optsdir.d",
    OS_PXE__IPXE_BOOTFILE_NAME: "undionly.kpxe",
    OS_PXE__UEFI_IPXE_BOOTFILE_NAME: "snponly-x86_64.efi",
    OS_PXE__IPXE_BOOTFILE_NAME_BY_ARCH: "aarch64:snponly-arm64.efi",
};

const ironicEnvOf = (raw: Parameters<typeof configOf>[0]) => {
    const config = configOf(raw);
    return ironicEnv(config, databasePlan(config));
};

describe("plan/env: commonEnv", function () {
    it("single: the ports, the reverse proxy on a unix socket, the provisioning IP and interface, the kernel parameters", function () {
        assert.deepEqual(commonEnv(configOf(devRaw)), {
            ...SHARED_ENV,
            PROVISIONING_IP: "172.22.0.2",
            PROVISIONING_INTERFACE: "eth1",
            IRONIC_KERNEL_PARAMS: "console=ttyS0",
        });
    });

    it("multi: no provisioning IP or interface (each node's env file carries its own)", function () {
        assert.deepEqual(commonEnv(configOf(haRaw)), SHARED_ENV);
    });

    it("single without an interface and with a ramdisk SSH key", function () {
        const raw = withKeys(devNoDhcpRaw, {
            provisioning: { ip: "172.22.0.2", cidr: "172.22.0.0/24" },
            ironic: { apiUsername: "metal3", ramdiskSshKey: ED25519 },
        });
        assert.deepEqual(commonEnv(configOf(raw)), { ...SHARED_ENV, PROVISIONING_IP: "172.22.0.2", IRONIC_RAMDISK_SSH_KEY: ED25519 });
    });

    it("provisioning.bindInterface: ironic and httpd get LISTEN_ALL_INTERFACES=false (the image's httpd binds the API and boot-file ports to provisioning.ip)", function () {
        const raw = withKeys(devRaw, { provisioning: { ...(devRaw.provisioning as object), bindInterface: true }, readiness: { enabled: false } });
        assert.deepEqual(commonEnv(configOf(raw)), { ...commonEnv(configOf(devRaw)), LISTEN_ALL_INTERFACES: "false" });
    });
});

/** The default image cache (mode deploy, x86_64): Ironic's deploy images and the CA bundle that verifies them. */
const CACHE = "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64";
const CACHE_SETTINGS: [string, string, string][] = [
    ["conductor", "deploy_kernel", `${CACHE}.kernel`],
    ["conductor", "deploy_ramdisk", `${CACHE}.initramfs`],
    ["conductor", "deploy_kernel_by_arch", `x86_64:${CACHE}.kernel`],
    ["conductor", "deploy_ramdisk_by_arch", `x86_64:${CACHE}.initramfs`],
    ["DEFAULT", "webserver_verify_ca", "/certs/ipa-cache/ca-bundle.crt"],
];
const CACHE_ENV = Object.fromEntries(CACHE_SETTINGS.map(([g, o, v]) => [`OS_${g.toUpperCase()}__${o.toUpperCase()}`, v]));

describe("plan/env: ironicEnv and the OS_* settings", function () {
    it("single, SQLite: automated cleaning, no MariaDB, no dbsync skip, no JSON-RPC; the user's settings sorted by key", function () {
        assert.deepEqual(ironicEnvOf(devRaw), {
            IRONIC_AUTOMATED_CLEAN: "true",
            IRONIC_USE_MARIADB: "false",
            ...CACHE_ENV,
            OS_AGENT__DEPLOY_LOGS_COLLECT: "on_failure",
            OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT: "3600",
            OS_PXE__BOOT_RETRY_TIMEOUT: "1800",
        });
    });

    it("multi with DHCP and MariaDB: JSON-RPC on the conductor's provisioning address only, the failover timings, the dnsmasq DHCP provider and the image's iPXE files", function () {
        assert.deepEqual(ironicEnvOf(haRaw), {
            IRONIC_AUTOMATED_CLEAN: "true",
            IRONIC_USE_MARIADB: "true",
            MARIADB_HOST: "ironic-mariadb.metal3.svc",
            MARIADB_DATABASE: "ironic",
            IRONIC_SKIP_DBSYNC: "true",
            IRONIC_EXPOSE_JSON_RPC: "true",
            IRONIC_JSON_RPC_PORT: "6189",
            // [json_rpc]host_ip = IRONIC_IP in the image's template; httpd keeps SHARED_ENV's "true".
            LISTEN_ALL_INTERFACES: "false",
            ...FAILOVER_ENV,
            ...DHCP_PROVIDER_ENV,
            ...CACHE_ENV,
            OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOUT: "3600",
            // The ha example collects sensor data for its exporters (metrics.enabled).
            SEND_SENSOR_DATA: "true",
            OS_SENSOR_DATA__INTERVAL: "160",
        });
    });

    it("multi without DHCP: the failover timings, but no DHCP provider (nothing to write host files for)", function () {
        const env = ironicEnvOf(haNoDhcpRaw);
        for (const [k, v] of Object.entries(FAILOVER_ENV)) assert.equal(env[k], v, k);
        for (const k of Object.keys(DHCP_PROVIDER_ENV)) assert.equal(env[k], undefined, k);
        assert.equal(env.IRONIC_EXPOSE_JSON_RPC, "true");
        assert.equal(env.LISTEN_ALL_INTERFACES, "false");
    });

    it("osloSettings: the program's settings first (failover, then DHCP provider, then the deploy images), then the user's, sorted; booleans as True/False", function () {
        assert.deepEqual(osloSettings(configOf(devRaw)), [
            ...CACHE_SETTINGS,
            ["agent", "deploy_logs_collect", "on_failure"],
            ["conductor", "deploy_callback_timeout", "3600"],
            ["pxe", "boot_retry_timeout", "1800"],
        ]);
        const ha = osloSettings(configOf(haRaw));
        const F = FAILOVER_SETTINGS.length;
        assert.deepEqual(ha.slice(0, F), FAILOVER_SETTINGS);
        assert.deepEqual(ha[F], ["dhcp", "dhcp_provider", "dnsmasq"]);
        assert.deepEqual(ha.slice(F + 7, F + 7 + 5), CACHE_SETTINGS);
        // metrics.enabled: the sensor interval, after the program's other settings and before the user's.
        assert.deepEqual(ha[ha.length - 2], ["sensor_data", "interval", "160"]);
        assert.deepEqual(ha[ha.length - 1], ["conductor", "deploy_callback_timeout", "3600"]);
        assert.equal(ha.length, F + 7 + 5 + 1 + 1);
        const flags = withKeys(devRaw, { ironic: { apiUsername: "metal3", automatedClean: false, config: { "pxe.ipxe_enabled": true, "agent.verify_ca": false } } });
        assert.deepEqual(osloSettings(configOf(flags)), [
            ...CACHE_SETTINGS,
            ["agent", "verify_ca", "False"],
            ["pxe", "ipxe_enabled", "True"],
        ]);
        assert.equal(ironicEnvOf(flags).IRONIC_AUTOMATED_CLEAN, "false");
    });

    it("every OS_* variable of ironicEnv is one of osloSettings, and every setting is in ironicEnv", function () {
        for (const raw of [devRaw, haRaw, haNoDhcpRaw]) {
            const env = ironicEnvOf(raw);
            const settings = osloSettings(configOf(raw));
            const fromSettings = settings.map(([g, o]) => `OS_${g.toUpperCase()}__${o.toUpperCase()}`).sort();
            assert.deepEqual(Object.keys(env).filter((k) => k.startsWith("OS_")).sort(), fromSettings);
        }
    });
});

describe("plan/env: ipaDownloaderEnv, databaseEnv, sortedEnv", function () {
    it("ipaDownloaderEnv: the shared dir, plus the IPA source when configured", function () {
        assert.deepEqual(ipaDownloaderEnv(configOf(devRaw)), { SHARED_DIR: "/shared" });
        const raw = withKeys(devRaw, { ironic: { apiUsername: "metal3", ipa: { baseUri: "https://mirror.example/ipa", branch: "stable-2025.1", flavor: "centos9" } } });
        assert.deepEqual(ipaDownloaderEnv(configOf(raw)), { SHARED_DIR: "/shared", IPA_BASEURI: "https://mirror.example/ipa", IPA_BRANCH: "stable-2025.1", IPA_FLAVOR: "centos9" });
    });

    it("databaseEnv: SQLite, deployed MariaDB, external MariaDB with a port", function () {
        assert.deepEqual(databaseEnv(databasePlan(configOf(devRaw))), { IRONIC_USE_MARIADB: "false" });
        assert.deepEqual(databaseEnv(databasePlan(configOf(haRaw))), { IRONIC_USE_MARIADB: "true", MARIADB_HOST: "ironic-mariadb.metal3.svc", MARIADB_DATABASE: "ironic" });
        const external = withKeys(haRaw, { database: { kind: "external", host: "db.example.com", port: 3307, name: "ironic_prod", credentialsSecret: "db-creds", caSecret: "db-ca" } });
        assert.deepEqual(databaseEnv(databasePlan(configOf(external))), { IRONIC_USE_MARIADB: "true", MARIADB_HOST: "db.example.com:3307", MARIADB_DATABASE: "ironic_prod" });
    });

    it("sortedEnv: name/value pairs in name order, whatever the insertion order", function () {
        assert.deepEqual(sortedEnv({ b: "2", A: "1", a: "3" }), [
            { name: "A", value: "1" },
            { name: "a", value: "3" },
            { name: "b", value: "2" },
        ]);
        assert.deepEqual(sortedEnv({}), []);
    });
});
