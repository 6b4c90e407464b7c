/**
 * core/render/dnsmasq.ts as text (real dnsmasq reads it in test/integration/dnsmasq.test.ts): the
 * lines each topology depends on, in the order dnsmasq needs them.
 */
import { strict as assert } from "assert";

import { IPXE_FILES, PATHS } from "../../../core/contract";
import { readAsset } from "../../../core/render/assets";
import { DnsmasqOptions, netmaskOf, renderDnsmasqConf, renderDnsmasqSlotConf, renderDnsmasqStartScript } from "../../../core/render/dnsmasq";

const base: DnsmasqOptions = {
    serverIp: "172.22.0.2",
    httpUrl: "http://172.22.0.2:6180",
    interface: "eth1",
    range: { start: "172.22.0.10", end: "172.22.0.100", prefixLength: 24, leaseTime: "1h" },
};

describe("core/render/dnsmasq", function () {
    it("serves DHCP and TFTP only, on the provisioning interface, with the range and netmask", function () {
        const conf = renderDnsmasqConf(base);
        assert.match(conf, /^port=0$/m, "no DNS");
        assert.match(conf, /^interface=eth1$/m);
        assert.match(conf, /^dhcp-range=172\.22\.0\.10,172\.22\.0\.100,255\.255\.255\.0,1h$/m);
        assert.equal(netmaskOf(26), "255.255.255.192");
        assert.doesNotMatch(conf, /dhcp-ignore|dhcp-hostsdir/, "single answers every host");
    });

    it("sends PXE ROMs the iPXE binary for their architecture and iPXE the boot script, from this server", function () {
        const conf = renderDnsmasqConf(base);
        for (const f of Object.values(IPXE_FILES)) assert.match(conf, new RegExp(`^dhcp-boot=tag:!ipxe,.*/${f.replace(".", "\\.")},,172\\.22\\.0\\.2$`, "m"));
        assert.match(conf, /^dhcp-boot=tag:ipxe,http:\/\/172\.22\.0\.2:6180\/boot\.ipxe$/m);
    });

    it("multi: answers only hosts in the conductor's own directories, and knows the iPXE tag Ironic's provider relies on", function () {
        const conf = renderDnsmasqConf({ ...base, knownHostsOnly: { hostsDir: "/h", optsDir: "/o" } });
        assert.match(conf, /^dhcp-hostsdir=\/h$/m);
        assert.match(conf, /^dhcp-optsdir=\/o$/m);
        assert.match(conf, /^dhcp-ignore=tag:!known$/m);
        assert.match(conf, /^dhcp-match=set:ipxe,175$/m);
        // Hosts booting together are answered at once, not one address-in-use ping (3 s) after another.
        assert.match(conf, /^no-ping$/m);
        assert.doesNotMatch(renderDnsmasqConf(base), /no-ping/, "single: the image's behaviour");
    });

    it("relayed subnets: each range tagged, with its own router and DNS options (tagged options win over the main range's for its hosts)", function () {
        const rack = { tag: "relayed-0", start: "172.23.0.10", end: "172.23.0.209", prefixLength: 24, leaseTime: "2h", gateway: "172.23.0.1" };
        const conf = renderDnsmasqConf({ ...base, gateway: "172.22.0.1", extraRanges: [rack, { ...rack, tag: "relayed-1", start: "10.9.0.10", end: "10.9.0.20", prefixLength: 16, gateway: "10.9.0.1", dns: "10.9.0.53" }] });
        const lines = conf.split("\n");
        const at = (l: string) => lines.indexOf(l);
        assert.ok(at("dhcp-range=set:relayed-0,172.23.0.10,172.23.0.209,255.255.255.0,2h") > at("dhcp-option=option:router,172.22.0.1"));
        assert.ok(at("dhcp-option=tag:relayed-0,option:router,172.23.0.1") > 0);
        assert.ok(at("dhcp-option=tag:relayed-0,option:dns-server") > 0, "no DNS server for the rack: the option suppressed for its tag");
        assert.ok(at("dhcp-range=set:relayed-1,10.9.0.10,10.9.0.20,255.255.0.0,2h") > 0);
        assert.ok(at("dhcp-option=tag:relayed-1,option:dns-server,10.9.0.53") > 0);
        assert.equal(renderDnsmasqConf({ ...base, extraRanges: [] }), renderDnsmasqConf(base), "no relayed subnets: the file of earlier releases, byte for byte");
    });

    it("multi: a relayed range's slice is in the slot file, after the main one; the node file names it and keeps its options", function () {
        const range = { start: "172.22.0.60", end: "172.22.0.109", prefixLength: 24, leaseTime: "1h" };
        const slot = renderDnsmasqSlotConf(range, "slot 1", [{ tag: "relayed-0", start: "172.23.0.60", end: "172.23.0.109", prefixLength: 24, leaseTime: "1h" }]);
        assert.deepEqual(slot.split("\n").slice(2), ["dhcp-range=172.22.0.60,172.22.0.109,255.255.255.0,1h", "dhcp-range=set:relayed-0,172.23.0.60,172.23.0.109,255.255.255.0,1h", ""]);
        const node = renderDnsmasqConf({ ...base, rangeFromSlot: "in the slot file", extraRanges: [{ tag: "relayed-0", ...range, gateway: "172.23.0.1" }] });
        assert.doesNotMatch(node, /^dhcp-range=/m);
        assert.match(node, /^# dhcp-range of relayed-0: in the slot file$/m);
        assert.match(node, /^dhcp-option=tag:relayed-0,option:router,172\.23\.0\.1$/m);
    });

    it("without a range: TFTP only, no DHCP lines at all", function () {
        const conf = renderDnsmasqConf({ ...base, range: undefined });
        assert.doesNotMatch(conf, /^(dhcp-range|dhcp-option|dhcp-boot|dhcp-match|dhcp-ignore|log-dhcp)/m);
        assert.match(conf, /^enable-tftp$/m);
    });

    it("the start script refuses a missing config and runs dnsmasq on exactly the given file (single: no slot file)", function () {
        const s = renderDnsmasqStartScript("/etc/x/dnsmasq.conf");
        assert.match(s, /^conf=\/etc\/x\/dnsmasq\.conf$/m);
        assert.match(s, /^slot_conf=""$/m);
        assert.match(s, /FATAL: dnsmasq configuration \$conf not found/);
        assert.match(s, /^confs=\("--conf-file=\$conf"\)$/m);
        assert.match(s, /exec \/usr\/sbin\/dnsmasq --keep-in-foreground --log-facility=- "\$\{confs\[@\]\}"$/m);
    });

    it("multi: the start script adds the held slot's file, named by DHCP_SLOT, and refuses to run without a slot", function () {
        const s = renderDnsmasqStartScript("/etc/x/node.conf", { slotConf: '"/etc/s/slot-$DHCP_SLOT.dnsmasq.conf"' });
        assert.match(s, /^slot_conf="\/etc\/s\/slot-\$DHCP_SLOT\.dnsmasq\.conf"$/m);
        assert.match(s, /FATAL: DHCP_SLOT is empty/);
        assert.match(s, /confs\+=\("--conf-file=\$slot_conf"\)/);
    });

    it("a slot file is one dhcp-range line of its slice; the node file of multi names it instead of a range", function () {
        const range = { start: "172.22.0.60", end: "172.22.0.109", prefixLength: 24, leaseTime: "1h" };
        assert.equal(renderDnsmasqSlotConf(range, "slot 1"), "# slot 1\n# Rendered by metal3-ironic. Change the stack configuration, not this file.\ndhcp-range=172.22.0.60,172.22.0.109,255.255.255.0,1h\n");
        const node = renderDnsmasqConf({ ...base, rangeFromSlot: "in the slot file" });
        assert.doesNotMatch(node, /^dhcp-range=/m);
        assert.match(node, /^# dhcp-range: in the slot file$/m);
        assert.match(node, /^dhcp-boot=tag:ipxe,/m, "every other DHCP line stays");
    });

    it("the start script file (assets/start-dnsmasq.sh) names the image's paths and firmware as the contract does, and every blank is filled", function () {
        const file = readAsset("start-dnsmasq.sh");
        for (const p of [PATHS.tftpRoot, PATHS.ipxeFirmware, PATHS.ipxeCustomFirmware]) assert.ok(file.includes(p), `${p} in start-dnsmasq.sh`);
        assert.ok(file.includes(`for f in ${Object.values(IPXE_FILES).join(" ")}; do`), "the iPXE binaries of the contract");
        const s = renderDnsmasqStartScript("/c.conf", { leaseFile: "/l/d.leases" });
        assert.doesNotMatch(s, /__[A-Z_]+__/, "no blank left");
        assert.match(s, /^mkdir -p .* \/l$/m);
        assert.match(s, /^touch \/l\/d\.leases$/m);
    });
    describe("IPv6 (DHCPv6)", function () {
        const v6: DnsmasqOptions = {
            serverIp: "fd00:1::2",
            httpUrl: "http://[fd00:1::2]:6180",
            interface: "eth1",
            range: { start: "fd00:1::1000", end: "fd00:1::1fff", prefixLength: 64, leaseTime: "1h" },
        };

        it("a stateful range with a prefix length, RA with the managed flag and router lifetime 0, no router option", function () {
            const conf = renderDnsmasqConf(v6);
            assert.match(conf, /^dhcp-range=fd00:1::1000,fd00:1::1fff,64,1h$/m);
            assert.match(conf, /^enable-ra$/m);
            assert.match(conf, /^ra-param=eth1,0,0$/m);
            // Not even an empty option 23: OVMF's PXEv6 rejects a zero-length DNS server option (PXE-E07).
            assert.doesNotMatch(conf, /dns-server/, "no resolver unless provisioning.dhcp.dns");
            assert.match(renderDnsmasqConf({ ...v6, dns: "fd00:1::53" }), /^dhcp-option=option6:dns-server,\[fd00:1::53\]$/m);
            assert.doesNotMatch(conf, /option:router|dhcp-boot|netmask|255\./, "no DHCPv4 lines");
            assert.match(renderDnsmasqConf({ ...v6, interface: undefined }), /^ra-param=\*,0,0$/m, "without an interface: every interface dnsmasq serves");
        });

        it("boot files as option 59 URLs with the server bracketed: PXE ROMs by vendor class or option 61, iPXE by user class", function () {
            const conf = renderDnsmasqConf(v6);
            assert.match(conf, /^dhcp-vendorclass=set:pxe6,enterprise:343,PXEClient$/m);
            assert.match(conf, /^dhcp-userclass=set:ipxe6,iPXE$/m);
            for (const a of [7, 9]) assert.match(conf, new RegExp(`^dhcp-match=set:efi6,option6:61,${a}$`, "m"));
            assert.match(conf, /^dhcp-match=set:efi6-arm64,option6:61,11$/m);
            assert.match(conf, /^dhcp-option=tag:efi6,tag:!efi6-arm64,tag:!ipxe6,option6:bootfile-url,tftp:\/\/\[fd00:1::2\]\/snponly-x86_64\.efi$/m);
            assert.match(conf, /^dhcp-option=tag:efi6-arm64,tag:!ipxe6,option6:bootfile-url,tftp:\/\/\[fd00:1::2\]\/snponly-arm64\.efi$/m);
            assert.match(conf, /^dhcp-option=tag:ipxe6,option6:bootfile-url,http:\/\/\[fd00:1::2\]:6180\/boot\.ipxe$/m);
        });

        it("multi: known hosts only, as on IPv4; a slot file carries the slice with the prefix length; a placeholder server is bracketed", function () {
            const conf = renderDnsmasqConf({ ...v6, serverIp: "__CONDUCTOR_IP__", family: 6, rangeFromSlot: "slot", knownHostsOnly: { hostsDir: "/h", optsDir: "/o" } });
            assert.match(conf, /^dhcp-ignore=tag:!known$/m);
            assert.match(conf, /^dhcp-hostsdir=\/h$/m);
            assert.match(conf, /tftp:\/\/\[__CONDUCTOR_IP__\]\//);
            assert.match(conf, /^enable-ra$/m);
            const slot = renderDnsmasqSlotConf({ start: "fd00:1::1400", end: "fd00:1::17ff", prefixLength: 64, leaseTime: "1h" }, "slot 1");
            assert.match(slot, /^dhcp-range=fd00:1::1400,fd00:1::17ff,64,1h$/m);
        });
    });
});

describe("core/render/dnsmasq: dual-stack", function () {
    const v6 = { serverIp: "fd00:1:2:3::2", httpUrl: "http://[fd00:1:2:3::2]:6180", range: { start: "fd00:1:2:3::1000", end: "fd00:1:2:3::1fff", prefixLength: 64, leaseTime: "1h" } };

    it("adds the DHCPv6 range and its options after the DHCPv4 ones; the known-hosts lines once", function () {
        const conf = renderDnsmasqConf({ ...base, ipv6: v6, knownHostsOnly: { hostsDir: "/h", optsDir: "/o" } });
        const i4 = conf.indexOf("dhcp-range=172.22.0.10");
        const i6 = conf.indexOf("dhcp-range=fd00:1:2:3::1000,fd00:1:2:3::1fff,64,1h");
        assert.ok(i4 >= 0 && i6 > i4, conf);
        assert.equal(conf.split("\n").filter((l) => l === "dhcp-ignore=tag:!known").length, 1);
        assert.match(conf, /^dhcp-option=tag:ipxe6,option6:bootfile-url,http:\/\/\[fd00:1:2:3::2\]:6180\/boot\.ipxe$/m);
    });

    it("multi: both ranges come from the slot file, which carries slot k of each", function () {
        const conf = renderDnsmasqConf({ ...base, ipv6: v6, rangeFromSlot: "slot file" });
        assert.doesNotMatch(conf, /^dhcp-range=/m);
        assert.match(conf, /^# dhcp-range \(IPv6\): slot file$/m);
        const slot = renderDnsmasqSlotConf(base.range!, "slot 0", [], v6.range);
        assert.deepEqual(slot.split("\n").filter((l) => l.startsWith("dhcp-range=")), ["dhcp-range=172.22.0.10,172.22.0.100,255.255.255.0,1h", "dhcp-range=fd00:1:2:3::1000,fd00:1:2:3::1fff,64,1h"]);
    });

    it("an IPv6 side without a range (no DHCPv6) adds no DHCPv6 line", function () {
        assert.equal(renderDnsmasqConf({ ...base, ipv6: { serverIp: v6.serverIp, httpUrl: v6.httpUrl } }), renderDnsmasqConf(base));
    });
});
