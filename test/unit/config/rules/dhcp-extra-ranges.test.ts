/** rules/dhcp-extra-ranges.ts: each relayed subnet's range is checked like the main one, and subnets never overlap. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../../core/config";
import { dhcpExtraRangesRule } from "../../../../core/config/rules/dhcp-extra-ranges";
import { devRaw, haRaw, listing, ruleTable, withDhcp } from "../support";
import { planOf } from "../../../helpers/plan";

const rack = { subnet: "172.23.0.0/24", rangeStart: "172.23.0.10", rangeEnd: "172.23.0.209", gateway: "172.23.0.1" };
const extra = (over: Record<string, unknown>[], base = devRaw) => withDhcp({ extraRanges: over.map((o) => ({ ...rack, ...o })) }, base);
const K = "provisioning.dhcp.extraRanges";

describe("config rule: relayed subnets (provisioning.dhcp.extraRanges)", function () {
    ruleTable(dhcpExtraRangesRule, [
        { name: "a valid rack subnet (single)", raw: extra([{}]), key: `${K}[0].subnet`, message: "", reported: false },
        { name: "a valid rack subnet (multi)", raw: extra([{}], haRaw), key: `${K}[0]`, message: "", reported: false },
        { name: "host bits in the subnet", raw: extra([{ subnet: "172.23.0.5/24" }]), key: `${K}[0].subnet`, message: "has host bits set; did you mean 172.23.0.0/24?", reported: true },
        { name: "a /31", raw: extra([{ subnet: "172.23.0.0/31" }]), key: `${K}[0].subnet`, message: "a /31 network has no room for hosts", reported: true },
        { name: "the provisioning network itself", raw: extra([{ subnet: "172.22.0.0/25", rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100", gateway: "172.22.0.1" }]), key: `${K}[0].subnet`, message: "overlaps provisioning.cidr 172.22.0.0/24", reported: true },
        { name: "a supernet of the provisioning network", raw: extra([{ subnet: "172.16.0.0/12", rangeStart: "172.23.0.10", rangeEnd: "172.23.0.209", gateway: "172.23.0.1" }]), key: `${K}[0].subnet`, message: "overlaps provisioning.cidr", reported: true },
        { name: "two entries for one subnet", raw: extra([{}, { subnet: "172.23.0.128/25", rangeStart: "172.23.0.130", rangeEnd: "172.23.0.200", gateway: "172.23.0.129" }]), key: `${K}[1].subnet`, message: "overlaps provisioning.dhcp.extraRanges[0].subnet 172.23.0.0/24", reported: true },
        { name: "two distinct racks", raw: extra([{}, { subnet: "172.24.0.0/24", rangeStart: "172.24.0.10", rangeEnd: "172.24.0.209", gateway: "172.24.0.1" }]), key: `${K}[1].subnet`, message: "overlaps", reported: false },
        { name: "rangeStart outside the subnet", raw: extra([{ rangeStart: "172.24.0.10" }]), key: `${K}[0].rangeStart`, message: "172.24.0.10 is not a usable host address of provisioning.dhcp.extraRanges[0].subnet 172.23.0.0/24", reported: true },
        { name: "rangeEnd the broadcast address", raw: extra([{ rangeEnd: "172.23.0.255" }]), key: `${K}[0].rangeEnd`, message: "is not a usable host address", reported: true },
        { name: "a reversed range", raw: extra([{ rangeStart: "172.23.0.209", rangeEnd: "172.23.0.10" }]), key: `${K}[0]`, message: "range is reversed: rangeStart 172.23.0.209 comes after rangeEnd 172.23.0.10; swap them", reported: true },
        { name: "a gateway outside the subnet", raw: extra([{ gateway: "172.22.0.1" }]), key: `${K}[0].gateway`, message: "172.22.0.1 is not inside provisioning.dhcp.extraRanges[0].subnet 172.23.0.0/24", reported: true },
        { name: "the subnet's broadcast address as gateway", raw: extra([{ gateway: "172.23.0.255" }]), key: `${K}[0].gateway`, message: "172.23.0.255 is the network or broadcast address of provisioning.dhcp.extraRanges[0].subnet", reported: true },
        { name: "a gateway inside the range", raw: extra([{ gateway: "172.23.0.50" }]), key: `${K}[0].gateway`, message: "lies inside the range 172.23.0.10-172.23.0.209", reported: true },
        { name: "a range smaller than minSize (single)", raw: extra([{ rangeStart: "172.23.0.10", rangeEnd: "172.23.0.12" }]), key: `${K}[0]`, message: "offers only 3 addresses; at least 8 are needed", reported: true },
    ]);

    it("the valid examples are valid as a whole: no issue of any key", function () {
        for (const raw of [extra([{}]), extra([{}], haRaw), extra([{}, { subnet: "172.24.0.0/24", rangeStart: "172.24.0.10", rangeEnd: "172.24.0.209", gateway: "172.24.0.1" }])]) {
            const r = validateConfig(raw);
            assert.ok(r.ok, r.ok ? "" : listing(r.issues));
        }
    });

    it("a missing gateway, subnet or range end is named by the schema, with the entry's index", function () {
        const r = validateConfig(withDhcp({ extraRanges: [{ subnet: "172.23.0.0/24", rangeStart: "172.23.0.10" }] }));
        assert.equal(r.ok, false);
        const keys = (r as { issues: { key: string }[] }).issues.map((i) => i.key);
        assert.ok(keys.includes(`${K}[0].rangeEnd`), keys.join(", "));
        assert.ok(keys.includes(`${K}[0].gateway`), keys.join(", "));
    });

    it("multi: a range whose slices would be smaller than minSize is refused by the planner once the slot count is known", function () {
        // 20 addresses in the default 4 slots: 5 each, below the default minimum of 8.
        const slots = planOf(extra([{ rangeStart: "172.23.0.10", rangeEnd: "172.23.0.29" }], haRaw)).topology;
        assert.equal(slots.kind, "multi");
        const issues = slots.kind === "multi" ? slots.dhcpSlots!.issues : [];
        assert.deepEqual(
            issues.map((i) => i.key),
            [`${K}[0]`],
        );
        assert.match(issues[0].message, /range 172\.23\.0\.10-172\.23\.0\.29 \(20 addresses\) cut into 4 slots \(4 slots, the default\) gives 5 per conductor; at least 8 are needed/);
    });

    it("the lease time defaults to the main range's; each entry's own wins", function () {
        const r = validateConfig(extra([{}, { subnet: "172.24.0.0/24", rangeStart: "172.24.0.10", rangeEnd: "172.24.0.209", gateway: "172.24.0.1", leaseTime: "2h", dns: "172.24.0.53" }]));
        assert.ok(r.ok, r.ok ? "" : listing(r.issues));
        assert.deepEqual(
            r.config.provisioning.dhcp!.extraRanges.map((x) => [x.leaseTime, x.dns]),
            [
                [r.config.provisioning.dhcp!.leaseTime, undefined],
                ["2h", "172.24.0.53"],
            ],
        );
    });
});
