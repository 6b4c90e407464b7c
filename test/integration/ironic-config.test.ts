/**
 * The OS_<GROUP>__<OPTION> settings the program puts into the ironic container, read back by the
 * configuration loader of the image's Ironic, 38.0.0 from PyPI (oslo.config with Ironic's
 * registered options; test/helpers/standins.ts IMAGE_VENV).
 */
import { strict as assert } from "assert";
import * as path from "path";

import { RawConfig } from "../../core/config";
import { IPXE_FILES } from "../../core/contract";
import { renderOffline, readStackConfig } from "../../tools/render";
import { IMAGE_VENV, IMAGE_VENV_NEEDED, imageVenvReady } from "../helpers/standins";
import { requireOrSkip, run } from "../helpers/sys";

const PROBE = path.join(__dirname, "..", "helpers", "ironic_conf_probe.py");
const PYTHON = path.join(IMAGE_VENV, "bin", "python");

/** The environment of the rendered ironic container. */
async function ironicContainerEnv(raw: RawConfig): Promise<Record<string, string>> {
    const rendered = await renderOffline(raw);
    const workload = rendered.objects.find((o) => (o.kind === "Deployment" || o.kind === "DaemonSet") && o.metadata.labels?.["app.kubernetes.io/name"] === "ironic");
    const container = workload!.spec.template.spec.containers.find((c: any) => c.name === "ironic");
    return Object.fromEntries(container.env.filter((e: any) => e.value !== undefined).map((e: any) => [e.name, e.value]));
}

/** Read options back through Ironic's loader, with exactly `env` as the OS_* environment. */
function loadWithIronic(env: Record<string, string>, options: [string, string][]): Record<string, { value?: unknown; error?: string }> {
    const clean: NodeJS.ProcessEnv = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", ...env };
    const r = run(PYTHON, [PROBE, JSON.stringify(options)], { env: clean });
    return JSON.parse(r.stdout);
}

function osloOptions(env: Record<string, string>): [string, string][] {
    return Object.keys(env)
        .filter((k) => /^OS_[A-Z0-9_]+__[A-Z0-9_]+$/.test(k))
        .map((k) => {
            const [group, option] = k.slice(3).split("__");
            return [group.toLowerCase(), option.toLowerCase()];
        });
}

describe("Ironic OS_* settings (the config loader of Ironic 38, the image's release)", function () {
    // Each check starts Python and imports Ironic: allow for a second suite on the same cores.
    this.timeout(180000);
    const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));

    before(function () {
        requireOrSkip(this, imageVenvReady(), IMAGE_VENV_NEEDED);
    });

    it("reads back every OS_* setting of the dev stack with its type and value", async function () {
        const env = await ironicContainerEnv(devRaw);
        const options = osloOptions(env);
        assert.deepEqual(options.map((o) => o.join(".")).sort(), [
            "agent.deploy_logs_collect",
            "conductor.deploy_callback_timeout",
            "conductor.deploy_kernel",
            "conductor.deploy_kernel_by_arch",
            "conductor.deploy_ramdisk",
            "conductor.deploy_ramdisk_by_arch",
            "default.webserver_verify_ca",
            "pxe.boot_retry_timeout",
        ]);
        const osEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("OS_")));
        const got = loadWithIronic(osEnv, options);
        assert.deepEqual(got["conductor.deploy_callback_timeout"], { value: 3600 });
        assert.deepEqual(got["pxe.boot_retry_timeout"], { value: 1800 });
        assert.deepEqual(got["agent.deploy_logs_collect"], { value: "on_failure" });
        assert.deepEqual(got["default.webserver_verify_ca"], { value: "/certs/ipa-cache/ca-bundle.crt" });
    });

    it("reads back the deploy images of both cached architectures; the by-arch values parse as oslo's DictOpt (arch:url split at the first ':')", async function () {
        const env = await ironicContainerEnv({ ...devRaw, imageCache: { ipa: [{ architecture: "x86_64" }, { architecture: "aarch64" }] } });
        const got = loadWithIronic(Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("OS_"))), osloOptions(env));
        const url = (a: string, k: string) => `https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_${a}.${k}`;
        assert.deepEqual(got["conductor.deploy_kernel"], { value: url("x86_64", "kernel") });
        assert.deepEqual(got["conductor.deploy_ramdisk"], { value: url("x86_64", "initramfs") });
        // [conductor]deploy_*_by_arch: DictOpts of Ironic 38, read as Ironic reads them.
        assert.deepEqual(got["conductor.deploy_kernel_by_arch"], { value: { x86_64: url("x86_64", "kernel"), aarch64: url("aarch64", "kernel") } });
        assert.deepEqual(got["conductor.deploy_ramdisk_by_arch"], { value: { x86_64: url("x86_64", "initramfs"), aarch64: url("aarch64", "initramfs") } });
    });

    it("booleans and strings of ironic.config arrive typed (True/False, not 'true')", async function () {
        const raw = { ...devRaw, ironic: { config: { "conductor.automated_clean": false, "deploy.fast_track": true, "default.host": "conductor-a" } } };
        const env = await ironicContainerEnv(raw);
        assert.equal(env.OS_CONDUCTOR__AUTOMATED_CLEAN, "False");
        const got = loadWithIronic(
            Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("OS_"))),
            osloOptions(env),
        );
        assert.deepEqual(got["conductor.automated_clean"], { value: false });
        assert.deepEqual(got["deploy.fast_track"], { value: true });
        assert.deepEqual(got["default.host"], { value: "conductor-a" });
    });

    it("reads back the multi-conductor settings: failover timing, dnsmasq DHCP provider, its directories and the iPXE firmware names", async function () {
        const haRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));
        const env = await ironicContainerEnv(haRaw);
        const osEnv = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith("OS_")));
        const got = loadWithIronic(osEnv, osloOptions(env));
        assert.deepEqual(got, {
            "conductor.deploy_callback_timeout": { value: 3600 },
            "conductor.deploy_kernel": { value: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.kernel" },
            "conductor.deploy_kernel_by_arch": { value: { x86_64: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.kernel" } },
            "conductor.deploy_ramdisk": { value: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.initramfs" },
            "conductor.deploy_ramdisk_by_arch": { value: { x86_64: "https://ironic-ipa-cache.metal3.svc:6186/images/ironic-python-agent_x86_64.initramfs" } },
            "default.webserver_verify_ca": { value: "/certs/ipa-cache/ca-bundle.crt" },
            "conductor.heartbeat_interval": { value: 2 },
            "conductor.heartbeat_timeout": { value: 10 },
            "conductor.periodic_max_workers": { value: 64 },
            "conductor.sync_local_state_interval": { value: 3 },
            "default.hash_ring_reset_interval": { value: 3 },
            "dhcp.dhcp_provider": { value: "dnsmasq" },
            "dnsmasq.dhcp_hostsdir": { value: "/shared/dnsmasq/hostsdir.d" },
            "dnsmasq.dhcp_leasefile": { value: "/shared/dnsmasq/dnsmasq.leases" },
            "dnsmasq.dhcp_optsdir": { value: "/shared/dnsmasq/optsdir.d" },
            // Firmware the provider's DHCP options name: files the TFTP root really holds (the DictOpt parsed to a dict).
            "pxe.ipxe_bootfile_name": { value: IPXE_FILES.bios },
            "pxe.ipxe_bootfile_name_by_arch": { value: { aarch64: IPXE_FILES.efiArm64 } },
            "pxe.uefi_ipxe_bootfile_name": { value: IPXE_FILES.efiX86_64 },
            // metal3-ironic:metrics (sensorInterval 160): how often each conductor reads its nodes' sensors.
            "sensor_data.interval": { value: 160 },
        });
    });

    it("an option Ironic does not know is reported by the loader (the check can fail)", async function () {
        const raw = { ...devRaw, ironic: { config: { "conductor.deploy_callback_timeot": 10 } } };
        const env = await ironicContainerEnv(raw);
        const got = loadWithIronic({ OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOT: env.OS_CONDUCTOR__DEPLOY_CALLBACK_TIMEOT }, osloOptions(env));
        assert.match(String(got["conductor.deploy_callback_timeot"].error), /NoSuchOpt/);
    });
});
