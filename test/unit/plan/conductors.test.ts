/** The conductors of each topology and their dnsmasq options (core/plan/conductors.ts). */
import { strict as assert } from "assert";

import { cidrParts, dnsmasqStartScript, planTopology } from "../../../core/plan/conductors";
import type { TopologyPlan } from "../../../core/plan/types";
import { planDhcpSlots } from "../../../core/plan/slots";
import { configOf, devNoDhcpRaw, devRaw, haNoDhcpRaw, haRaw, withKeys } from "./support";

const HA_PROVIDER = {
    knownHostsOnly: { hostsDir: "/shared/dnsmasq/hostsdir.d", optsDir: "/shared/dnsmasq/optsdir.d" },
    leaseFile: "/shared/dnsmasq/dnsmasq.leases",
};

/** The topology plan of a config (a first run). */
const single = (raw: Record<string, unknown>) => {
    const t = planTopology(configOf(raw));
    assert.equal(t.kind, "single");
    return t as Extract<TopologyPlan, { kind: "single" }>;
};
const multi = (raw: Record<string, unknown>) => {
    const t = planTopology(configOf(raw));
    assert.equal(t.kind, "multi");
    return t as Extract<TopologyPlan, { kind: "multi" }>;
};

describe("plan/conductors: single", function () {
    it("one conductor, not pinned to a node, serving the whole DHCP range; no node, slot or entry exists in its type", function () {
        const t = single(devRaw);
        assert.deepEqual(Object.keys(t).sort(), ["conductor", "kind"], "no keepalived without provisioning.keepalived");
        const c = t.conductor;
        const range = { start: "172.22.0.10", end: "172.22.0.100", prefixLength: 24, leaseTime: "1h", size: 91 };
        assert.deepEqual({ ...c, dhcp: { ...c.dhcp!, dnsmasqConf: undefined } }, {
            ip: "172.22.0.2",
            interface: "eth1",
            dhcp: {
                range,
                dnsmasqOptions: {
                    header: "dnsmasq for metal3/ironic (topology single)",
                    interface: "eth1",
                    serverIp: "172.22.0.2",
                    httpUrl: "http://172.22.0.2:6180",
                    range,
                    gateway: "172.22.0.1",
                    dns: undefined,
                    extraRanges: [],
                },
                dnsmasqConf: undefined,
            },
        });
        assert.match(c.dhcp!.dnsmasqConf, /^dhcp-range=172\.22\.0\.10,172\.22\.0\.100,/m);
        assert.doesNotMatch(c.dhcp!.dnsmasqConf, /dhcp-ignore=tag:!known/);
    });

    it("without DHCP: no dhcp part at all", function () {
        const c = single(devNoDhcpRaw).conductor;
        assert.deepEqual(c, { ip: "172.22.0.2", interface: "eth1" });
    });

    it("keepalived: the VIP, its interface and the prefix, on the single topology only", function () {
        const prov = devRaw.provisioning as Record<string, unknown>;
        assert.equal(single(withKeys(devRaw, { provisioning: { ...prov, keepalived: true } })).keepalivedVirtualIps, "172.22.0.2,eth1,24");
    });
});

describe("plan/conductors: multi", function () {
    it("one entry per listed node, in config order, each with its preferred slot's slice of the range", function () {
        const config = configOf(haRaw);
        const t = multi(haRaw);
        assert.deepEqual(
            t.conductors.map((c) => [c.node, c.ip, c.slot?.index, c.slot?.source, c.slot && `${c.slot.range.start}-${c.slot.range.end}/${c.slot.range.size}`]),
            [
                ["cp-0", "172.22.0.2", 0, "new", "172.22.0.10-172.22.0.59/50"],
                ["cp-1", "172.22.0.3", 1, "new", "172.22.0.60-172.22.0.109/50"],
                ["cp-2", "172.22.0.4", 2, "new", "172.22.0.110-172.22.0.159/50"],
            ],
        );
        // The slices are the slot planner's (a first run), unchanged, and the layout is the plan's.
        const plan = planDhcpSlots(config.provisioning.dhcp!, config.conductors);
        assert.deepEqual(t.dhcpSlots, plan);
        for (const c of t.conductors) {
            const s = plan.slices.find((x) => x.node === c.node)!;
            assert.deepEqual([c.slot!.range.start, c.slot!.range.end, c.slot!.index], [s.start, s.end, s.slot]);
        }
        // Nobody listed: nothing known per node, the layout all the same.
        const bare = multi({ ...haRaw, conductors: [] });
        assert.deepEqual(bare.conductors, []);
        assert.equal(bare.dhcpSlots!.slots, 4);
    });

    it("each listed node's entry: only its overrides; with its address known, the image's environment it resolves to", function () {
        const [cp0] = multi(haRaw).conductors;
        assert.deepEqual(cp0.entry, {
            CONDUCTOR_NODE_IP: "172.22.0.2",
            // conductors[].external: the node's own URLs for BMCs, and their host for its certificate.
            CONDUCTOR_NODE_SANS: "IP:10.20.0.12",
            IRONIC_EXTERNAL_IP: "10.20.0.12",
            IRONIC_EXTERNAL_HTTP_URL: "https://10.20.0.12:6183",
            IRONIC_EXTERNAL_CALLBACK_URL: "https://10.20.0.12:6385",
        });
        assert.deepEqual(cp0.resolved!.env, { PROVISIONING_IP: "172.22.0.2", IRONIC_CONDUCTOR_HOST: "172.22.0.2", PROVISIONING_INTERFACE: "eth1" });
        // Name only: the pod finds the address; nothing is known before it starts but the slot.
        const [bare] = multi({ ...haRaw, conductors: [{ name: "cp-9" }] }).conductors;
        assert.deepEqual([bare.node, bare.ip, bare.entry, bare.resolved, bare.slot?.index], ["cp-9", undefined, {}, undefined, 0]);
    });

    it("dnsmasq answers known hosts only, from the provider's dirs; its range is the held slot's file", function () {
        const cp2 = multi(haRaw).conductors.find((c) => c.node === "cp-2")!;
        const dnsmasq = cp2.resolved!.dnsmasq!;
        assert.deepEqual(dnsmasq.dnsmasqOptions, {
            header: "dnsmasq for a conductor of metal3/ironic on 172.22.0.4 (eth1)",
            interface: "eth1",
            serverIp: "172.22.0.4",
            family: 4,
            httpUrl: "http://172.22.0.4:6180",
            range: { start: "172.22.0.110", end: "172.22.0.159", prefixLength: 24, leaseTime: "1h", size: 50 },
            rangeFromSlot: "in slot-<k>.dnsmasq.conf of the DHCP slot k this pod holds (a Lease, claimed at start by dhcp-slot-agent.py)",
            gateway: "172.22.0.1",
            dns: undefined,
            // The ha stack's relayed rack: its whole range here (options only); the slot file has the slice.
            extraRanges: [{ tag: "relayed-0", start: "172.23.0.10", end: "172.23.0.209", prefixLength: 24, leaseTime: "1h", gateway: "172.23.0.1" }],
            ...HA_PROVIDER,
        });
        assert.deepEqual(dnsmasq.range, cp2.slot!.range);
        assert.doesNotMatch(dnsmasq.dnsmasqConf, /^dhcp-range=/m);
        assert.match(dnsmasq.dnsmasqConf, /^# dhcp-range: in slot-<k>\.dnsmasq\.conf of the DHCP slot k this pod holds/m);
        assert.match(dnsmasq.dnsmasqConf, /^dhcp-ignore=tag:!known$/m);
        assert.match(dnsmasq.dnsmasqConf, /^dhcp-hostsdir=\/shared\/dnsmasq\/hostsdir\.d$/m);
    });

    it("without DHCP: no slot, no layout, no dnsmasq; a node's own interface wins over provisioning.interface", function () {
        const t = multi(haNoDhcpRaw);
        assert.equal(t.dhcpSlots, undefined);
        assert.deepEqual(
            t.conductors.map((c) => [c.node, c.interface, c.slot, c.resolved?.dnsmasq, c.entry]),
            [
                ["cp-0", "eth1", undefined, undefined, { CONDUCTOR_NODE_IP: "172.22.0.2" }],
                ["cp-1", "eno2", undefined, undefined, { CONDUCTOR_NODE_IP: "172.22.0.3", CONDUCTOR_INTERFACE: "eno2" }],
            ],
        );
    });

    it("the DNS server reaches every conductor's dnsmasq", function () {
        const prov = haRaw.provisioning as Record<string, any>;
        const raw = withKeys(haRaw, { provisioning: { ...prov, dhcp: { ...prov.dhcp, dns: "172.22.0.53" } } });
        for (const c of multi(raw).conductors) assert.equal(c.resolved!.dnsmasq!.dnsmasqOptions.dns, "172.22.0.53", c.node);
    });
});

describe("plan/conductors: dnsmasqStartScript, cidrParts", function () {
    it("single starts dnsmasq on the ConfigMap's file; multi on the node's file the wrapper rendered, with the provider's lease file", function () {
        const single = dnsmasqStartScript(configOf(devRaw));
        assert.ok(single.includes("/etc/metal3-ironic/dnsmasq/dnsmasq.conf"), single);
        assert.ok(!single.includes("NODE_NAME"), single);
        const multi = dnsmasqStartScript(configOf(haRaw));
        assert.ok(multi.includes(`"$CONDUCTOR_RUN_DIR/dnsmasq.conf"`), multi);
        assert.ok(multi.includes("/shared/dnsmasq/dnsmasq.leases"), multi);
    });

    it("cidrParts: network and prefix length", function () {
        assert.deepEqual(cidrParts("172.22.0.0/24"), { network: "172.22.0.0", prefixLength: 24, family: 4 });
        assert.deepEqual(cidrParts("10.1.2.0/23"), { network: "10.1.2.0", prefixLength: 23, family: 4 });
        assert.deepEqual(cidrParts("fd00:1::/64"), { network: "fd00:1::", prefixLength: 64, family: 6 });
    });
});
