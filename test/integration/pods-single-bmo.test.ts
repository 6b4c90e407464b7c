/**
 * The provisioning tier of the `single` topology: the dev stack (Pulumi.dev.yaml, one Ironic,
 * SQLite, its own dnsmasq) with bmo.enabled and httpd bound to provisioning.ip
 * (provisioning.bindInterface: BMO dials the API Service's EndpointSlice address), its Ironic pod and baremetal-operator's pod started
 * as declared (test/helpers/pod-runner.ts) on the local cluster's kube-apiserver, and two VMs with
 * real firmware behind a Redfish BMC: a legacy BIOS host and a UEFI host, driven by BMO at once
 * from registering to provisioned and back to available, BMO's status the oracle. The `multi`
 * scenarios (a conductor's loss, owners) are in pods.test.ts.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { bmoLogProblems } from "../helpers/bmo";
import { OperatorPod, provisioningHooks, provisioningPrerequisites, startOperator } from "../helpers/bmo-pod";
import { assertEspLoader, assertImageWritten, BIOS_DISK_BOOT_MARKER, biosWholeDiskImage, BmhWatch, ImageServer, readAt, UEFI_DISK_BOOT_MARKER, uefiWholeDiskImage } from "../helpers/bmh";
import { credentialLeaks } from "../helpers/credential-leaks";
import { HaPodLab, LabNode } from "../helpers/ha-pod-lab";
import { AGENT_DISK_MIB, IpaRamdisk, ipaRamdisk } from "../helpers/ipa";
import { until } from "../helpers/ironic-lab";
import { tail } from "../helpers/pod-runner";
import { renderStack, ROOT, Stack } from "../helpers/pod-stacks";
import { RedfishHost, RedfishHosts } from "../helpers/redfish-hosts";
import { requireOrSkip } from "../helpers/sys";
import { requireToolchain, toolchainGoProxy } from "../e2e/toolchain";

describe("pods as declared: dev stack (single), baremetal-operator provisions hosts through its Ironic (pod runner)", function () {
    this.timeout(300000);
    const lab = new HaPodLab<LabNode>();
    let s: Stack;
    let ipa: IpaRamdisk | string = "";
    let operator: OperatorPod | undefined;
    const { stopAfter } = provisioningHooks(lab);
    const BMO_IP = "172.22.0.248";

    before(async function () {
        requireToolchain(this, "cluster");
        provisioningPrerequisites(this);
        this.timeout(600000);
        lab.makeWork("pods-sb");
        process.env.METAL3_IRONIC_CACHE = path.join(lab.work, "cache");
        // The dev example as a user enables BMO in it; its release from the toolchain's Go module cache.
        // httpd bound to provisioning.ip (provisioning.bindInterface; the readiness check, which would
        // port-forward to the node's loopback, off): BMO reaches the API at the Service's EndpointSlice.
        s = await renderStack(path.join(ROOT, "Pulumi.dev.yaml"), "dev", (raw) => ({
            ...raw,
            provisioning: { ...(raw.provisioning as object), bindInterface: true },
            readiness: { enabled: false },
            bmo: { enabled: true, goproxy: toolchainGoProxy() },
        }));
        assert.deepEqual(s.plan.apiBind, [s.plan.provisioning.ip], "httpd bound to the provisioning address");
        assert.equal(s.plan.database.kind, "sqlite", "the dev example keeps Ironic's database in its pod");
        ipa = await ipaRamdisk(240000);
        requireOrSkip(this, typeof ipa !== "string", typeof ipa === "string" ? ipa : "");
        const prov = s.plan.provisioning;
        await lab.setUp({ tag: "d", plan: s.plan, rendered: s.rendered, cluster: s.cluster, nodes: [{ node: "cp-0", ip: prov.ip, interface: prov.interface! }], adminIp: "172.22.0.253", dbIp: "172.22.0.250", kubeApi: { bridgeIp: "172.22.0.249" }, ipa: ipa as IpaRamdisk });
        // The Ironic pod (every container of the Deployment), then BMO's, its API Service resolving to
        // the one address of the Service's EndpointSlice, as kube-proxy forwards it.
        const { pod, ns } = lab.pods[0];
        await lab.cache.serve(ns);
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 240000);
        const slice = s.rendered.objects.find((o) => o.kind === "EndpointSlice" && o.metadata.labels?.["kubernetes.io/service-name"] === s.plan.names.service);
        assert.ok(slice, "the bound API Service's EndpointSlice is rendered");
        operator = await startOperator(lab, { ip: BMO_IP, apiIp: slice.endpoints[0].addresses[0] });
    });

    it("a legacy BIOS host and a UEFI host at once: registering → inspecting (the agent's inventory) → available → provisioning a raw image with its checksum → provisioned (the image on each disk; the UEFI host boots its own boot loader from it) → deprovisioning (the agent cleans each disk) → available; every DHCP and HTTP request answered by the one conductor; BMO's log has no TLS, auth or API-version error", async function () {
        // Above the sum of its waits (1500 + 180 + 900 + 300 s): a slow run fails on the wait that says what did not happen.
        this.timeout(3000000);
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        const conductor = lab.pods[0];
        const bios: RedfishHost = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000c0b1", name: "dev-bios", mac: "52:54:00:00:07:01", firmware: "bios", diskMiB: AGENT_DISK_MIB };
        const uefi: RedfishHost = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000c0b2", name: "dev-uefi", mac: "52:54:00:00:07:02", firmware: "uefi", diskMiB: AGENT_DISK_MIB };
        const hosts = new RedfishHosts({ lab: lab.net, ns: lab.adminNs, ip: lab.o.adminIp, port: 8004, switchNs: lab.sw, bridge: lab.br, work: lab.work, hosts: [bios, uefi], memoryMiB: 2048 });
        stopAfter.push(() => hosts.stop());
        // The images, served over HTTP from the admin namespace: for the BIOS host a GPT whose one
        // partition holds bytes no disk starts with, and a boot sector that prints a marker; for the
        // UEFI host one with an EFI system partition and a boot loader that prints one (test/helpers/bmh.ts).
        const imageDir = path.join(lab.work, "images");
        fs.mkdirSync(imageDir, { recursive: true });
        const images = { [bios.uuid]: biosWholeDiskImage(path.join(imageDir, "bios.raw"), "dev "), [uefi.uuid]: uefiWholeDiskImage(path.join(imageDir, "uefi.raw")) };
        const server = new ImageServer({ ns: lab.adminNs, ip: lab.o.adminIp, port: 8084, dir: imageDir, work: lab.work });
        stopAfter.push(() => server.stop());
        const bmh = (h: RedfishHost, file: string, bootMode: string) => ({
            apiVersion: "metal3.io/v1alpha1",
            kind: "BareMetalHost",
            metadata: { name: h.name, namespace: ns },
            // Its disk is virtio (BMO's default hint is /dev/sda); cleaning wipes the disk's metadata when the host is deprovisioned.
            spec: {
                online: true,
                bootMACAddress: h.mac,
                bootMode,
                automatedCleaningMode: "metadata",
                rootDeviceHints: { deviceName: "/dev/vda" },
                bmc: { address: hosts.address(h), credentialsName: `${h.name}-bmc` },
                image: { url: `http://${lab.o.adminIp}:8084/${file}`, checksum: createHash("sha256").update(images[h.uuid]).digest("hex"), checksumType: "sha256", format: "raw" },
            },
        });
        const secret = (h: RedfishHost) => ({ apiVersion: "v1", kind: "Secret", metadata: { name: `${h.name}-bmc`, namespace: ns }, stringData: { username: "admin", password: "password" } });
        const context = (h: RedfishHost) => () => `VM:\n${tail(hosts.output(h), 3000)}\nBMO:\n${tail(operator!.pod.logs("manager"), 3000)}`;
        const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
        await hosts.start();
        const t0 = Date.now();
        kube.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: [secret(bios), secret(uefi), bmh(bios, "bios.raw", "legacy"), bmh(uefi, "uefi.raw", "UEFI")] }) });
        const watches = [bios, uefi].map((h) => new BmhWatch(kube, ns, h.name, t0, context(h)));
        // Both at once: each watch polls until its host is provisioned.
        await Promise.all(watches.map((w) => w.until("provisioned", 1500000)));
        for (const [i, h] of [bios, uefi].entries()) {
            const w = watches[i];
            assert.equal(w.bmh.status?.errorMessage ?? "", "", JSON.stringify(w.bmh.status));
            // BMO's own record of each operation (the 1 s polls can miss a short state such as available, which BMO leaves at once for an image it has).
            const history = w.bmh.status.operationHistory ?? {};
            const at = (op: string, end: "start" | "end") => Date.parse(history[op]?.[end] ?? "");
            assert.ok(at("register", "end") <= at("inspect", "start") && at("inspect", "end") <= at("provision", "start") && at("provision", "end") >= at("provision", "start"), `${h.name}: registered, then inspected, then provisioned: ${JSON.stringify(history)}`);
            for (const st of ["inspecting", "provisioning"]) assert.ok(w.at(st) !== undefined, `${h.name} went through ${st}: ${w.format()}`);
            // Inspected: the agent's inventory, as BMO reports it.
            const hw = w.bmh.status.hardware;
            assert.ok(hw?.nics?.some((n: any) => n.mac === h.mac), `${h.name}'s inspected NICs: ${JSON.stringify(hw?.nics)}`);
            assert.ok(hw?.storage?.some((d: any) => d.sizeBytes === h.diskMiB * 1024 * 1024), `${h.name}'s inspected disks: ${JSON.stringify(hw?.storage)}`);
            const node = lab.nodeState(`${ns}~${h.name}`);
            assert.match(JSON.stringify(node.properties?.capabilities ?? ""), new RegExp(`boot_mode:${h.firmware === "bios" ? "bios" : "uefi"}`), JSON.stringify(node.properties));
        }
        assertImageWritten(hosts.disk(bios), images[bios.uuid]);
        await until(() => hosts.output(bios).includes(BIOS_DISK_BOOT_MARKER), 180000, `${bios.name} boots the image's boot sector from its disk`, 1000).catch((e) => assert.fail(`${e.message}:\n${tail(hosts.output(bios), 3000)}`));
        // The UEFI host: the image's EFI system partition and boot loader on its disk, byte for byte,
        // and the firmware boots it (\EFI\BOOT\BOOTX64.EFI prints the marker).
        assertEspLoader(hosts.disk(uefi), lab.work, "the ESP on the UEFI host's disk holds the image's boot loader");
        await until(() => hosts.output(uefi).includes(UEFI_DISK_BOOT_MARKER), 180000, `${uefi.name} boots its disk's boot loader`, 1000).catch((e) => assert.fail(`${e.message}:\n${tail(hosts.output(uefi), 3000)}`));
        assert.match(conductor.pod.logs("ironic"), new RegExp(`Local boot successfully configured for node ${lab.nodeState(`${ns}~${uefi.name}`).uuid}`), "Ironic configured the UEFI host's local boot");
        // One conductor served both: its dnsmasq acknowledged each MAC from the range, its httpd served the agent's boot.
        const range = s.plan.provisioning.dhcp!;
        for (const h of [bios, uefi]) {
            const acks = [...conductor.pod.logs("dnsmasq").matchAll(new RegExp(`DHCPACK\\(\\S+\\) (\\S+) ${h.mac}`, "g"))].map((m) => m[1]);
            assert.ok(acks.length > 0, `dnsmasq acknowledged ${h.mac}`);
            console.log(`      ${h.name}: ${watches[[bios, uefi].indexOf(h)].format()}; DHCP acks ${acks.length} (${[...new Set(acks)].join(", ")}, range ${range.rangeStart}-${range.rangeEnd})`);
        }
        for (const h of [bios, uefi]) {
            const uuid = lab.nodeState(`${ns}~${h.name}`).uuid;
            assert.ok(conductor.pod.logs("httpd").includes(`GET /${uuid}/deploy_kernel`), `httpd served ${h.name}'s deploy kernel`);
        }
        console.log(`      power: ${hosts.events.map((e) => `${e.host} ${e.what} at ${secs(e.ms)}`).join(", ")}`);
        // Deprovisioned: the image removed, BMO deprovisions (cleaning through the agent) back to available.
        const from = watches.map((w) => w.timeline.length);
        for (const h of [bios, uefi]) kube.kubectl(["patch", "baremetalhost", h.name, "-n", ns, "--type", "json", "-p", JSON.stringify([{ op: "remove", path: "/spec/image" }])]);
        await Promise.all(watches.map((w) => w.until("available", 900000)));
        for (const [i, h] of [bios, uefi].entries()) {
            const w = watches[i];
            assert.equal(w.bmh.status?.errorMessage ?? "", "", JSON.stringify(w.bmh.status));
            assert.ok(w.at("deprovisioning", from[i]) !== undefined, `${h.name} deprovisioned: ${w.format(from[i])}`);
            assert.ok(readAt(hosts.disk(h), 0, 512).every((b) => b === 0), `cleaning wiped ${h.name}'s first sector`);
            console.log(`      ${h.name} deprovisioned: ${w.format(from[i])}`);
        }
        assert.deepEqual(bmoLogProblems(operator!.pod.logs("manager")).slice(0, 5), [], "BMO's log has no TLS, auth or API-version error");
        // The image's scripts trace every step (set -x) and read the htpasswd while tracing: none of it in a log or a probe's output.
        const { leaks, credentials } = credentialLeaks(conductor.pod, { probes: true });
        assert.ok(credentials.includes(`${s.plan.names.credentialsSecret}/htpasswd hash`), credentials.join(", "));
        assert.deepEqual(leaks, [], "no credential in the Ironic pod's logs or probe output");
        // Deleted: BMO deletes its nodes.
        for (const h of [bios, uefi]) kube.kubectl(["delete", "baremetalhost", h.name, "-n", ns, "--wait=false"]);
        await Promise.all(watches.map((w) => w.until("(deleted)", 300000)));
        for (const h of [bios, uefi]) assert.equal(lab.api(s.plan.provisioning.ip, `/v1/nodes/${ns}~${h.name}`).code, 404, `BMO deleted ${h.name}'s node`);
    });
});
