/**
 * Dual-stack (provisioning.ipv6): what each Ironic serves on its IPv6 side, in both topologies
 * (core/plan/dual-stack.ts, core/plan/conductors.ts, core/render/dnsmasq.ts), and that a one-family
 * stack renders as before.
 */
import { strict as assert } from "assert";
import * as path from "path";

import { ipToBigInt } from "../../../core/ip";
import { buildPlan, listedConductors } from "../../../core/plan";
import { apiCertificate, nodeCertificateSans } from "../../../core/plan/certificates";
import { fillNodeTemplate, planTopology } from "../../../core/plan/conductors";
import { multiOf } from "../../helpers/plan";
import { defaultNoProxy } from "../../../core/plan/downloads";
import { ironicEnv } from "../../../core/plan/env";
import { topologySummary } from "../../../core/plan/summary";
import { dhcpLines } from "../../../tools/plan-summary";
import { slotConfKey } from "../../../core/names";
import { planDhcpSlots } from "../../../core/plan/slots";
import { renderDnsmasqConf } from "../../../core/render/dnsmasq";
import { readStackConfig } from "../../../tools/render";
import { configOf, devRaw } from "./support";

const dualRaw = readStackConfig(path.join(__dirname, "..", "..", "fixtures", "Pulumi.dualstack.yaml"));
const V6 = { cidr: "fd00:1:2:3::/64", ip: "fd00:1:2:3::2", dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::10ff", dns: "fd00:1:2:3::53" } };
const singleRaw = { ...devRaw, provisioning: { ...(devRaw.provisioning as object), ipv6: V6 } };
const lines = (conf: string, re: RegExp) => conf.split("\n").filter((l) => re.test(l));

describe("plan: dual-stack, single", function () {
    const config = configOf(singleRaw);
    const t = planTopology(config);
    const conf = t.kind === "single" ? t.conductor.dhcp!.dnsmasqConf : "";

    it("dnsmasq serves DHCPv4 and DHCPv6: both ranges, the IPv4 boot options on the IPv4 address, option 59 URLs on the IPv6 address in brackets", function () {
        assert.deepEqual(lines(conf, /^dhcp-range=/), ["dhcp-range=172.22.0.10,172.22.0.100,255.255.255.0,1h", "dhcp-range=fd00:1:2:3::1000,fd00:1:2:3::10ff,64,1h"]);
        assert.match(conf, /^dhcp-boot=tag:ipxe,http:\/\/172\.22\.0\.2:6180\/boot\.ipxe$/m);
        assert.match(conf, /^dhcp-option=tag:ipxe6,option6:bootfile-url,http:\/\/\[fd00:1:2:3::2\]:6180\/boot\.ipxe$/m);
        assert.match(conf, /^dhcp-option=tag:efi6,tag:!efi6-arm64,tag:!ipxe6,option6:bootfile-url,tftp:\/\/\[fd00:1:2:3::2\]\/snponly-x86_64\.efi$/m);
        assert.match(conf, /^dhcp-option=option6:dns-server,\[fd00:1:2:3::53\]$/m);
        assert.match(conf, /^enable-ra$/m);
        assert.match(conf, /^ra-param=eth1,0,0$/m, "router lifetime 0: never the hosts' default router");
        assert.match(conf, /^dhcp-option=option:router,172\.22\.0\.1$/m, "the IPv4 router option stays");
    });

    it("Ironic learns its IPv6 address as [DEFAULT]my_ipv6; the API certificate names both addresses", function () {
        const plan = buildPlan(config);
        assert.equal(ironicEnv(config, plan.database).OS_DEFAULT__MY_IPV6, "fd00:1:2:3::2");
        assert.deepEqual(apiCertificate(config, []).ipAddresses, ["172.22.0.2", "fd00:1:2:3::2"]);
    });

    it("without an interface dnsmasq listens on both addresses", function () {
        const o = t.kind === "single" ? t.conductor.dhcp!.dnsmasqOptions : undefined;
        const c = renderDnsmasqConf({ ...o!, interface: undefined });
        assert.deepEqual(lines(c, /^listen-address=/), ["listen-address=172.22.0.2", "listen-address=fd00:1:2:3::2"]);
    });

    it("a one-family stack has none of it: no DHCPv6 lines, no my_ipv6", function () {
        const plain = configOf(devRaw);
        const p = planTopology(plain);
        const c = p.kind === "single" ? p.conductor.dhcp!.dnsmasqConf : "";
        assert.doesNotMatch(c, /option6|enable-ra|fd00/);
        assert.equal(ironicEnv(plain, buildPlan(plain).database).OS_DEFAULT__MY_IPV6, undefined);
    });
});

describe("plan: dual-stack, multi (the dual-stack example stack)", function () {
    const plan = buildPlan(configOf(dualRaw));
    const conductors = listedConductors(plan);

    it("each conductor serves the same slot k of both ranges; the IPv6 slices are disjoint and inside the range", function () {
        const slots = multiOf(plan).slotDnsmasqConfs;
        let prevEnd = -1n;
        for (const c of conductors) {
            const s = c.slot!;
            assert.ok(s.range6, `${c.node} has an IPv6 slice`);
            const file = slots[slotConfKey(s.index)];
            assert.deepEqual(lines(file, /^dhcp-range=/), [`dhcp-range=${s.range.start},${s.range.end},255.255.255.0,1h`, `dhcp-range=${s.range6!.start},${s.range6!.end},64,1h`]);
            assert.ok(ipToBigInt(s.range6!.start) > prevEnd && ipToBigInt(s.range6!.end) <= ipToBigInt("fd00:1:2:3::1fff"));
            prevEnd = ipToBigInt(s.range6!.end);
        }
        assert.deepEqual(conductors.map((c) => [c.slot!.index, c.slot!.range6!.start]), [[0, "fd00:1:2:3::1000"], [1, "fd00:1:2:3::1400"], [2, "fd00:1:2:3::1800"]]);
    });

    it("each node's files: my_ipv6, and IPv6 boot URLs on its own IPv6 address; the template filled in by the wrapper is the resolved file", function () {
        const cp1 = conductors.find((c) => c.node === "cp-1")!;
        assert.equal(cp1.entry.CONDUCTOR_NODE_IPV6, "fd00:1:2:3::3");
        assert.equal(cp1.resolved!.env.OS_DEFAULT__MY_IPV6, "fd00:1:2:3::3");
        const conf = cp1.resolved!.dnsmasq!.dnsmasqConf;
        assert.match(conf, /^dhcp-option=tag:ipxe6,option6:bootfile-url,http:\/\/\[fd00:1:2:3::3\]:6180\/boot\.ipxe$/m);
        assert.match(conf, /^dhcp-boot=tag:ipxe,http:\/\/172\.22\.0\.3:6180\/boot\.ipxe$/m);
        assert.equal(lines(conf, /^dhcp-ignore=tag:!known$/).length, 1, "known hosts only, once for both families");
        const t = multiOf(plan).nodeTemplates;
        assert.equal(fillNodeTemplate(t.dnsmasqConf!, "172.22.0.3", "eth1", "fd00:1:2:3::3"), conf);
        assert.deepEqual(nodeCertificateSans(plan, "cp-1", "172.22.0.3", "fd00:1:2:3::3").ipAddresses.slice(0, 2), ["172.22.0.3", "fd00:1:2:3::3"], "its certificate names both of its addresses");
    });

    it("a node without conductors[].ipv6 is not resolved before deployment (the pod finds its IPv6 address)", function () {
        const raw = { ...dualRaw, conductors: (dualRaw.conductors as Record<string, unknown>[]).map((c) => (c.name === "cp-2" ? { name: "cp-2", ip: "172.22.0.4" } : c)) };
        const cp2 = listedConductors(buildPlan(configOf(raw))).find((c) => c.node === "cp-2")!;
        assert.equal(cp2.resolved, undefined);
        assert.equal(cp2.entry.CONDUCTOR_NODE_IPV6, undefined);
    });

    it("the planner refuses an IPv6 range too small for the resolved slot count (the previous run's)", function () {
        const config = configOf(dualRaw);
        const small = { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::103f" };
        const ok = planDhcpSlots(config.provisioning.dhcp!, config.conductors, undefined, small);
        assert.deepEqual(ok.issues, [], "64 addresses in 4 slots: 16 each");
        const prev = { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.209", slots: 16, nodes: { "cp-0": 0, "cp-1": 1, "cp-2": 2 } };
        const r = planDhcpSlots({ ...config.provisioning.dhcp! }, config.conductors, prev, small);
        const i = r.issues.find((x) => x.key === "provisioning.ipv6.dhcp");
        assert.ok(i, JSON.stringify(r.issues));
        assert.match(i!.message, /cut into 16 slots \(16 slots, the previous run's count\) gives 4 per conductor; at least 8/);
    });
});

describe("plan: dual-stack, the proxy bypass", function () {
    it("the IPv6 provisioning prefix (and, single, Ironic's IPv6 address) bypass the proxy like the IPv4 ones", function () {
        assert.deepEqual(defaultNoProxy(configOf(singleRaw)).slice(-4), ["172.22.0.0/24", "fd00:1:2:3::/64", "172.22.0.2", "fd00:1:2:3::2"]);
        assert.deepEqual(defaultNoProxy(configOf(dualRaw)).slice(-2), ["172.22.0.0/24", "fd00:1:2:3::/64"]);
        assert.ok(!defaultNoProxy(configOf(devRaw)).some((x) => x.includes(":")), "a one-family stack: as before");
    });
});

describe("plan: dual-stack, what the plan shows", function () {
    it("the topology output gives each conductor's IPv6 address and DHCPv6 slice; npm run plan says both ranges share the slots", function () {
        const plan = buildPlan(configOf(dualRaw));
        assert.deepEqual(topologySummary(plan).conductors[1], { node: "cp-1", ip: "172.22.0.3", slot: 1, dhcpRange: "172.22.0.60-172.22.0.109 (50 addresses)", ipv6: "fd00:1:2:3::3", dhcpRange6: "fd00:1:2:3::1400-fd00:1:2:3::17ff (1024 addresses)" });
        assert.deepEqual(topologySummary(buildPlan(configOf(singleRaw))).conductors[0].dhcpRange6, "fd00:1:2:3::1000-fd00:1:2:3::10ff (256 addresses)");
        assert.ok(dhcpLines(plan).includes("  dual-stack: the IPv6 range fd00:1:2:3::1000-fd00:1:2:3::1fff is cut into the same 4 slots of 1024 addresses; slot k's holder serves slot k of both"), dhcpLines(plan).join("\n"));
        assert.equal(topologySummary(buildPlan(configOf(devRaw))).conductors[0].ipv6, undefined, "one family: as before");
    });
});
