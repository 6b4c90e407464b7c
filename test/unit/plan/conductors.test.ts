/** The conductors of each topology and their dnsmasq options (core/plan/conductors.ts). */
import { strict as assert } from "assert";

import { cidrParts, dnsmasqStartScript, planConductors } from "../../../core/plan/conductors";
import { planDhcpSlots } from "../../../core/plan/slots";
import { configOf, devNoDhcpRaw, devRaw, haNoDhcpRaw, haRaw, withKeys } from "./support";

const HA_PROVIDER = {
    knownHostsOnly: { hostsDir: "/shared/dnsmasq/hostsdir.d", optsDir: "/shared/dnsmasq/optsdir.d" },
    leaseFile: "/shared/dnsmasq/dnsmasq.leases",
};

describe("plan/conductors: single", function () {
    it("one conductor, not pinned to a node, serving the whole DHCP range", function () {
        const [c, ...rest] = planConductors(configOf(devRaw));
        assert.equal(rest.length, 0);
        const range = { start: "172.22.0.10", end: "172.22.0.100", prefixLength: 24, leaseTime: "1h", size: 91 };
        assert.deepEqual({ ...c, dnsmasqConf: undefined }, {
            node: "",
            ip: "172.22.0.2",
            interface: "eth1",
            range,
            dnsmasqOptions: {
                header: "dnsmasq for metal3/ironic (topology single)",
                interface: "eth1",
                serverIp: "172.22.0.2",
                httpUrl: "http://172.22.0.2:6180",
                range,
                gateway: "172.22.0.1",
                dns: undefined,
            },
            dnsmasqConf: undefined,
        });
        assert.equal(c.slot, undefined);
        assert.equal(c.env, undefined, "single: the env is the pod's own (commonEnv), not a per-node file");
        assert.match(c.dnsmasqConf!, /^dhcp-range=172\.22\.0\.10,172\.22\.0\.100,/m);
        assert.doesNotMatch(c.dnsmasqConf!, /dhcp-ignore=tag:!known/);
    });

    it("without DHCP: no range, no dnsmasq options, no dnsmasq.conf", function () {
        const [c] = planConductors(configOf(devNoDhcpRaw));
        assert.equal(c.ip, "172.22.0.2");
        assert.equal(c.range, undefined);
        assert.equal(c.dnsmasqOptions, undefined);
        assert.equal(c.dnsmasqConf, undefined);
    });
});

describe("plan/conductors: multi", function () {
    it("one conductor per configured node, in config order, each with its slot's slice of the range", function () {
        const config = configOf(haRaw);
        const cs = planConductors(config);
        assert.deepEqual(
            cs.map((c) => [c.node, c.ip, c.slot, c.slotSource, c.range && `${c.range.start}-${c.range.end}/${c.range.size}`]),
            [
                ["cp-0", "172.22.0.2", 0, "new", "172.22.0.10-172.22.0.59/50"],
                ["cp-1", "172.22.0.3", 1, "new", "172.22.0.60-172.22.0.109/50"],
                ["cp-2", "172.22.0.4", 2, "new", "172.22.0.110-172.22.0.159/50"],
            ],
        );
        // The slices are the slot planner's (a first run), unchanged.
        const plan = planDhcpSlots(config.provisioning.dhcp!, config.conductors);
        for (const c of cs) {
            const s = plan.slices.find((x) => x.node === c.node)!;
            assert.deepEqual([c.range!.start, c.range!.end, c.slot], [s.start, s.end, s.slot]);
        }
    });

    it("each listed node's entry: only its overrides; with its address known, the image's environment it resolves to", function () {
        const [cp0] = planConductors(configOf(haRaw));
        assert.deepEqual(cp0.env, { CONDUCTOR_NODE_IP: "172.22.0.2" });
        assert.deepEqual(cp0.resolvedEnv, { PROVISIONING_IP: "172.22.0.2", IRONIC_CONDUCTOR_HOST: "172.22.0.2", PROVISIONING_INTERFACE: "eth1" });
        // Name only: the pod finds the address; nothing is known before it starts but the slot.
        const [bare] = planConductors(configOf({ ...haRaw, conductors: [{ name: "cp-9" }] }));
        assert.deepEqual([bare.node, bare.ip, bare.env, bare.resolvedEnv, bare.dnsmasqConf, bare.slot], ["cp-9", undefined, {}, undefined, undefined, 0]);
    });

    it("dnsmasq answers known hosts only, from the provider's dirs; its range is the held slot's file", function () {
        const cp2 = planConductors(configOf(haRaw)).find((c) => c.node === "cp-2")!;
        assert.deepEqual(cp2.dnsmasqOptions, {
            header: "dnsmasq for a conductor of metal3/ironic on 172.22.0.4 (eth1)",
            interface: "eth1",
            serverIp: "172.22.0.4",
            httpUrl: "http://172.22.0.4:6180",
            range: { start: "172.22.0.110", end: "172.22.0.159", prefixLength: 24, leaseTime: "1h", size: 50 },
            rangeFromSlot: "in slot-<k>.dnsmasq.conf of the DHCP slot k this pod holds (a Lease, claimed at start by dhcp-slot-agent.py)",
            gateway: "172.22.0.1",
            dns: undefined,
            ...HA_PROVIDER,
        });
        assert.doesNotMatch(cp2.dnsmasqConf!, /^dhcp-range=/m);
        assert.match(cp2.dnsmasqConf!, /^# dhcp-range: in slot-<k>\.dnsmasq\.conf of the DHCP slot k this pod holds/m);
        assert.match(cp2.dnsmasqConf!, /^dhcp-ignore=tag:!known$/m);
        assert.match(cp2.dnsmasqConf!, /^dhcp-hostsdir=\/shared\/dnsmasq\/hostsdir\.d$/m);
    });

    it("without DHCP: no slot, no range, no dnsmasq; a node's own interface wins over provisioning.interface", function () {
        const cs = planConductors(configOf(haNoDhcpRaw));
        assert.deepEqual(
            cs.map((c) => [c.node, c.interface, c.slot, c.range, c.dnsmasqConf, c.env]),
            [
                ["cp-0", "eth1", undefined, undefined, undefined, { CONDUCTOR_NODE_IP: "172.22.0.2" }],
                ["cp-1", "eno2", undefined, undefined, undefined, { CONDUCTOR_NODE_IP: "172.22.0.3", CONDUCTOR_INTERFACE: "eno2" }],
            ],
        );
    });

    it("the DNS server reaches every conductor's dnsmasq", function () {
        const prov = haRaw.provisioning as Record<string, any>;
        const raw = withKeys(haRaw, { provisioning: { ...prov, dhcp: { ...prov.dhcp, dns: "172.22.0.53" } } });
        for (const c of planConductors(configOf(raw))) assert.equal(c.dnsmasqOptions!.dns, "172.22.0.53", c.node);
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
        assert.deepEqual(cidrParts("172.22.0.0/24"), { network: "172.22.0.0", prefixLength: 24 });
        assert.deepEqual(cidrParts("10.1.2.0/23"), { network: "10.1.2.0", prefixLength: 23 });
    });
});
