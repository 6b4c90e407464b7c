/**
 * The provisioning tier of virtual media: the vmedia example stack (test/fixtures/Pulumi.vmedia.yaml:
 * single, no dnsmasq, keepalived holding the provisioning IP and the out-of-band address BMCs
 * reach, TLS 1.3 only) with bmo.enabled, its Ironic pod and baremetal-operator's pod started as
 * declared (test/helpers/pod-runner.ts) on the local cluster's kube-apiserver, and a UEFI VM behind
 * a Redfish BMC on the out-of-band network. BMO drives the host from registering to provisioned and
 * back: Ironic builds the boot ISO (the IPA cache's kernel and ramdisk, the image's ESP, BMO's
 * preprovisioning network data as config-2), the BMC downloads it from the TLS virtual-media port
 * (verifying it against the stack CA alone) and boots the VM from it; the agent takes its address
 * from the ISO and calls back on the external URL. Nothing on the network answers DHCP.
 */
import { strict as assert } from "assert";
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { bmoLogProblems } from "../helpers/bmo";
import { OperatorPod, provisioningHooks, provisioningPrerequisites, startOperator } from "../helpers/bmo-pod";
import { assertEspLoader, BmhWatch, ImageServer, readAt, UEFI_DISK_BOOT_MARKER, uefiWholeDiskImage } from "../helpers/bmh";
import { credentialLeaks } from "../helpers/credential-leaks";
import { HaPodLab, LabNode } from "../helpers/ha-pod-lab";
import { AGENT_DISK_MIB, IpaRamdisk, ipaRamdisk } from "../helpers/ipa";
import { until } from "../helpers/ironic-lab";
import { makeCa } from "../helpers/openssl-ca";
import { tail } from "../helpers/pod-runner";
import { dhcpListener, renderStack, ROOT, Stack } from "../helpers/pod-stacks";
import { singleOf } from "../helpers/plan";
import { RedfishHost, RedfishHosts } from "../helpers/redfish-hosts";
import { debianKeepalivedImage, ESP_TEMPLATE } from "../helpers/standins";
import { Daemon, requireOrSkip, run, which } from "../helpers/sys";
import { requireToolchain, toolchainGoProxy } from "../e2e/toolchain";

describe("pods as declared: vmedia stack (single, no DHCP), baremetal-operator provisions a UEFI host booted from Ironic's ISO over TLS virtual media (pod runner)", function () {
    this.timeout(300000);
    const lab = new HaPodLab<LabNode>();
    let s: Stack;
    let operator: OperatorPod | undefined;
    const { stopAfter } = provisioningHooks(lab);
    const BMO_IP = "172.22.0.248";
    /** The node's own addresses; keepalived adds provisioning.ip (172.22.0.5) and external.ip (10.20.0.5). */
    const NODE_IP = "172.22.0.2";
    const NODE_OOB_IP = "10.20.0.2";
    const BMC_IP = "10.20.0.100";
    /** The host's address on the provisioning network, from its preprovisioning network data. */
    const HOST_IP = "172.22.0.30";
    let bmcNs = "";

    before(async function () {
        requireToolchain(this, "cluster");
        provisioningPrerequisites(this);
        requireOrSkip(this, ["keepalived", "tcpdump", "xorriso", "grub-mkimage", "mkfs.vfat"].every((c) => !!which(c, "/usr/sbin:/usr/bin:/sbin:/bin")), "Debian's keepalived, tcpdump, xorriso, grub-common and dosfstools (.ci/run installs them)");
        this.timeout(600000);
        lab.makeWork("pods-vmedia");
        process.env.METAL3_IRONIC_CACHE = path.join(lab.work, "cache");
        s = await renderStack(path.join(ROOT, "test", "fixtures", "Pulumi.vmedia.yaml"), "vmedia", (raw) => ({ ...raw, bmo: { enabled: true, goproxy: toolchainGoProxy() } }));
        const prov = s.plan.provisioning;
        assert.equal(prov.dhcp, undefined, "the vmedia example serves no DHCP");
        // The user's objects the example names (trust.bmcCa, trust.trustedCa, keepalived.passwordSecret), created before the deploy as the docs say.
        const pem = (name: string) => fs.readFileSync(path.join(makeCa(path.join(lab.work, name)), "ca.crt"), "utf8");
        s.cluster.configMaps["bmc-ca"] = { "ca.crt": pem("bmc-ca") };
        s.cluster.secrets["corp-pki"] = { "bundle.pem": pem("corp-pki") };
        s.cluster.secrets["ironic-vrrp"] = { password: "Vr7p.x9Q" };
        const ipa = await ipaRamdisk(240000);
        requireOrSkip(this, typeof ipa !== "string", typeof ipa === "string" ? ipa : "");
        await lab.setUp({ tag: "m", plan: s.plan, rendered: s.rendered, cluster: s.cluster, nodes: [{ node: "cp-0", ip: NODE_IP, interface: prov.interface! }], adminIp: "172.22.0.253", dbIp: "172.22.0.250", kubeApi: { bridgeIp: "172.22.0.249" }, ipa: ipa as IpaRamdisk });
        // keepalived is Debian's real keepalived behind the image's script, as the pod declares it.
        lab.images[s.plan.images.keepalived] = debianKeepalivedImage(lab.work);
        // The out-of-band network (eth2 of the node) with the BMC on it.
        const oob = lab.net.addBridge(lab.sw, "mob");
        lab.net.plug(lab.pods[0].ns, "mo0", lab.sw, oob, { cidr: `${NODE_OOB_IP}/24`, rename: "eth2" });
        bmcNs = lab.net.addNamespace("mbmc");
        lab.net.plug(bmcNs, "mbm", lab.sw, oob, { cidr: `${BMC_IP}/24` });
        const { pod, ns } = lab.pods[0];
        assert.ok(fs.existsSync(path.join(lab.images[s.plan.images.ironic].layer, ESP_TEMPLATE)), `the image's ESP (${ESP_TEMPLATE})`);
        await lab.cache.serve(ns);
        await pod.runInitContainers();
        pod.startContainers();
        for (const c of pod.spec.containers) await pod.waitReady(c.name, 240000);
        const addrs = run("ip", ["-n", ns, "-o", "-4", "addr", "show"]).stdout;
        for (const vip of [prov.ip, singleOf(s.plan).conductor.external!.ip!]) assert.match(addrs, new RegExp(`inet ${vip.replace(/\./g, "\\.")}/24`), `keepalived holds ${vip}`);
        operator = await startOperator(lab, { ip: BMO_IP, apiIp: prov.ip });
    });

    it("a UEFI host: registering → inspecting → available → provisioning → provisioned (the image on its disk, which it boots) → deprovisioning → available, each agent boot from Ironic's ISO fetched over TLS by the BMC, the agent's address from BMO's network data in that ISO, no DHCP answer on the network; BMO's log has no TLS, auth or API-version error", async function () {
        this.timeout(3000000);
        const kube = lab.kube!;
        const ns = s.plan.namespace;
        const conductor = lab.pods[0];
        const external = singleOf(s.plan).conductor.external!.ip!;
        const host: RedfishHost = { uuid: "7b1b4c9e-1d7a-4c1e-9a52-00000000c0c1", name: "vm-uefi", mac: "52:54:00:00:08:01", firmware: "uefi", diskMiB: AGENT_DISK_MIB };
        const hosts = new RedfishHosts({ lab: lab.net, ns: bmcNs, ip: BMC_IP, port: 8005, switchNs: lab.sw, bridge: lab.br, work: lab.work, hosts: [host], memoryMiB: 2048, virtualMedia: { caFile: lab.caFile } });
        stopAfter.push(() => hosts.stop());
        // Every DHCP and DHCPv6 packet on the provisioning network, from the start.
        const pcap = path.join(lab.work, "dhcp.pcap");
        const capture = new Daemon("ip", ["netns", "exec", lab.sw, "tcpdump", "-i", lab.br, "-n", "-U", "-w", pcap, "udp port 67 or udp port 68 or udp port 546 or udp port 547"], path.join(lab.work, "tcpdump.log"));
        stopAfter.push(() => capture.stop());
        const imageDir = path.join(lab.work, "images");
        fs.mkdirSync(imageDir, { recursive: true });
        const image = uefiWholeDiskImage(path.join(imageDir, "uefi.raw"));
        const server = new ImageServer({ ns: lab.adminNs, ip: lab.o.adminIp, port: 8084, dir: imageDir, work: lab.work });
        stopAfter.push(() => server.stop());
        // BMO's preprovisioning network data: a static address on the provisioning network and the
        // route to the out-of-band network, where Ironic's callback URL is (through the node).
        const networkData = {
            links: [{ id: "prov0", type: "phy", ethernet_mac_address: host.mac }],
            networks: [{ id: "prov", network_id: "provisioning", type: "ipv4", link: "prov0", ip_address: HOST_IP, netmask: "255.255.255.0", routes: [{ network: "10.20.0.0", netmask: "255.255.255.0", gateway: s.plan.provisioning.ip }] }],
            services: [],
        };
        const objects = [
            { apiVersion: "v1", kind: "Secret", metadata: { name: `${host.name}-bmc`, namespace: ns }, stringData: { username: "admin", password: "password" } },
            { apiVersion: "v1", kind: "Secret", metadata: { name: `${host.name}-network`, namespace: ns }, stringData: { networkData: JSON.stringify(networkData) } },
            {
                apiVersion: "metal3.io/v1alpha1",
                kind: "BareMetalHost",
                metadata: { name: host.name, namespace: ns },
                spec: {
                    online: true,
                    bootMACAddress: host.mac,
                    bootMode: "UEFI",
                    automatedCleaningMode: "metadata",
                    rootDeviceHints: { deviceName: "/dev/vda" },
                    bmc: { address: hosts.address(host), credentialsName: `${host.name}-bmc` },
                    preprovisioningNetworkDataName: `${host.name}-network`,
                    image: { url: `http://${lab.o.adminIp}:8084/uefi.raw`, checksum: createHash("sha256").update(image).digest("hex"), checksumType: "sha256", format: "raw" },
                },
            },
        ];
        const context = () => `VM:\n${tail(hosts.output(host), 3000)}\nBMC:\n${tail(fs.readFileSync(path.join(lab.work, "sushy-8005.log"), "utf8"), 2000)}\nBMO:\n${tail(operator!.pod.logs("manager"), 3000)}`;
        await hosts.start();
        const t0 = Date.now();
        kube.kubectl(["apply", "-f", "-"], { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: objects }) });
        const watch = new BmhWatch(kube, ns, host.name, t0, context);
        await watch.until("provisioned", 1500000);
        assert.equal(watch.bmh.status?.errorMessage ?? "", "", JSON.stringify(watch.bmh.status));
        for (const st of ["inspecting", "provisioning"]) assert.ok(watch.at(st) !== undefined, `${host.name} went through ${st}: ${watch.format()}`);
        const hw = watch.bmh.status.hardware;
        assert.ok(hw?.nics?.some((n: any) => n.mac === host.mac && n.ip === HOST_IP), `the agent's inventory: the NIC with the address from the network data: ${JSON.stringify(hw?.nics)}`);
        // The API at the provisioning IP (the VIP, in the certificate; the node's own address is not).
        const node = JSON.parse(lab.api(s.plan.provisioning.ip, `/v1/nodes/${ns}~${host.name}`).body);
        assert.equal(node.boot_interface, "redfish-virtual-media", JSON.stringify(node));
        // The image on the disk: its ESP holds the image's boot loader, and the firmware boots it.
        assertEspLoader(hosts.disk(host), lab.work, "the ESP on the host's disk holds the image's boot loader");
        await until(() => hosts.output(host).includes(UEFI_DISK_BOOT_MARKER), 180000, `${host.name} boots its disk's boot loader`, 1000).catch((e) => assert.fail(`${e.message}:\n${tail(hosts.output(host), 3000)}`));
        console.log(`      ${host.name}: ${watch.format()}`);

        // Deprovisioned: the agent boots from a new ISO and cleans the disk's metadata.
        const from = watch.timeline.length;
        const isosBefore = hosts.isos.length;
        kube.kubectl(["patch", "baremetalhost", host.name, "-n", ns, "--type", "json", "-p", JSON.stringify([{ op: "remove", path: "/spec/image" }])]);
        await watch.until("available", 900000);
        assert.equal(watch.bmh.status?.errorMessage ?? "", "", JSON.stringify(watch.bmh.status));
        assert.ok(watch.at("deprovisioning", from) !== undefined, `${host.name} deprovisioned: ${watch.format(from)}`);
        assert.ok(readAt(hosts.disk(host), 0, 512).every((b) => b === 0), `cleaning wiped ${host.name}'s first sector`);
        assert.ok(hosts.isos.length > isosBefore, `the agent booted from a new ISO to clean: ${JSON.stringify(hosts.isos)}`);
        console.log(`      ${host.name} deprovisioned: ${watch.format(from)}`);
        console.log(`      power: ${hosts.events.map((e) => `${e.what} at ${(e.ms / 1000).toFixed(0)} s`).join(", ")}`);

        // Every agent boot was from an ISO Ironic built: config-2 with BMO's network data, the
        // agent told to call back on the external URL; the BMC fetched each over TLS from the
        // virtual-media port, verified against the stack CA (a failed check would have failed the insert).
        assert.ok(hosts.isos.length >= 2, JSON.stringify(hosts.isos));
        for (const { file } of hosts.isos) {
            assert.equal(run("blkid", ["-o", "value", "-s", "LABEL", file]).stdout.trim(), "config-2", `${file}: the volume label of an ISO with network data`);
            const nd = path.join(lab.work, "network_data.json");
            fs.rmSync(nd, { force: true });
            run("xorriso", ["-osirrox", "on", "-indev", file, "-extract", "/openstack/latest/network_data.json", nd]);
            assert.deepEqual(JSON.parse(fs.readFileSync(nd, "utf8")), networkData, "BMO's network data, as Ironic injected it");
            const cfg = path.join(lab.work, "grub.cfg");
            fs.rmSync(cfg, { force: true });
            run("xorriso", ["-osirrox", "on", "-indev", file, "-extract", "/EFI/centos/grub.cfg", cfg]);
            const grub = fs.readFileSync(cfg, "utf8");
            assert.match(grub, /boot_method=vmedia/);
            // (The kernel command line holds the agent's token: never in a message.)
            assert.match(grub, new RegExp(`ipa-api-url=https://${external.replace(/\./g, "\\.")}:${s.plan.ports.api}`), grub.replace(/ipa-agent-token=\S+/g, "ipa-agent-token=(redacted)"));
        }
        // Ironic's InsertMedia requests (sushy logs them), each answered 204 by the BMC once its download checked out.
        const inserted = [...conductor.pod.logs("ironic").matchAll(/VirtualMedia\.InsertMedia; headers: .*?body: \{'Image': '([^']+)'/g)].map((m) => m[1]);
        assert.ok(inserted.length >= 2 && inserted.every((u) => u.startsWith(`https://${external}:${s.plan.ports.vmediaTls}/redfish/boot-`)), `Ironic inserted ISOs from the TLS virtual-media port: ${JSON.stringify(inserted)}`);
        const sushyLog = fs.readFileSync(path.join(lab.work, "sushy-8005.log"), "utf8");
        assert.ok([...sushyLog.matchAll(/POST \/redfish\/v1\/Systems\/\S+\/VirtualMedia\/Cd\/Actions\/VirtualMedia\.InsertMedia HTTP\/1\.1\S*" 204/g)].length >= 2, tail(sushyLog, 2000));
        const httpd = conductor.pod.logs("httpd");
        const isoGets = httpd.split("\n").filter((l) => /vmedia \S*10\.20\.0\.100 - "GET \/redfish\/boot-[0-9a-f-]+\.iso HTTP\/1\.1" 200/.test(l));
        assert.ok(isoGets.length >= 2, `httpd's virtual-media vhost served each ISO to the BMC:\n${tail(httpd, 2000)}`);
        const callbacks = httpd.split("\n").filter((l) => l.includes(HOST_IP) && /\/v1\/(lookup|heartbeat)/.test(l));
        assert.ok(callbacks.length > 0, `the agent called back from ${HOST_IP}:\n${tail(httpd, 2000)}`);
        // The agent's address came from the ISO, and nothing answered DHCP.
        assert.match(hosts.output(host), /network data from \/dev\/sr0 \(config-2\): no DHCP/);
        assert.equal(dhcpListener(conductor.ns), undefined, "nothing listens on the DHCP port on the node");
        // The capture's control: one client-to-server datagram from the admin namespace, which it must hold.
        run("ip", ["netns", "exec", lab.adminNs, "python3", "-c", "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1); s.bind(('', 68)); s.sendto(b'm3i capture control', ('172.22.0.255', 67))"]);
        await new Promise((r) => setTimeout(r, 1000));
        await capture.stop();
        const packets = run("tcpdump", ["-n", "-r", pcap], { allowFail: true }).stdout.split("\n").filter(Boolean);
        assert.ok(packets.some((l) => l.includes(`${lab.o.adminIp}.68 > 172.22.0.255.67`)), `the capture holds its control packet: ${JSON.stringify(packets)}`);
        const answers = packets.filter((l) => /\.(67|547) > /.test(l));
        assert.deepEqual(answers, [], "no DHCP answer on the provisioning network");
        assert.equal(packets.length, 1, `no DHCP request either, the control's aside: ${JSON.stringify(packets)}`);
        console.log(`      ISOs ${hosts.isos.length} (${inserted.length} inserted over TLS), httpd ISO GETs ${isoGets.length}, agent callbacks ${callbacks.length}, DHCP packets ${packets.length} (the control's included; answers ${answers.length})`);
        assert.deepEqual(bmoLogProblems(operator!.pod.logs("manager")).slice(0, 5), [], "BMO's log has no TLS, auth or API-version error");
        const { leaks } = credentialLeaks(conductor.pod, { probes: true });
        assert.deepEqual(leaks, [], "no credential in the Ironic pod's logs or probe output");
        kube.kubectl(["delete", "baremetalhost", host.name, "-n", ns, "--wait=false"]);
        await watch.until("(deleted)", 300000);
        // The BMC itself verifies what it downloads: an insert from the node's own out-of-band
        // address (served by the same httpd, not in the certificate) is refused for the certificate.
        const wrong = `https://${NODE_OOB_IP}:${s.plan.ports.vmediaTls}/redfish/boot-not-in-the-certificate.iso`;
        const insert = run("ip", ["netns", "exec", bmcNs, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json", "-d", JSON.stringify({ Image: wrong }), `http://${BMC_IP}:8005/redfish/v1/Systems/${host.uuid}/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia`], { allowFail: true }).stdout;
        assert.notEqual(insert, "204", "the BMC refused the insert");
        const refusal = fs.readFileSync(path.join(lab.work, "sushy-8005.log"), "utf8").split("\n").filter((l) => l.includes(wrong));
        assert.ok(refusal.some((l) => /CERTIFICATE_VERIFY_FAILED/.test(l)), `the BMC's refusal names the certificate, not the missing file:\n${refusal.join("\n")}`);
        assert.deepEqual(hosts.problems, [], "the VM followed every power-on of the BMC");
        assert.equal(lab.api(s.plan.provisioning.ip, `/v1/nodes/${ns}~${host.name}`).code, 404, `BMO deleted ${host.name}'s node`);
    });
});
