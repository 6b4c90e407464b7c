import { strict as assert } from "assert";

import { type LeaseLike, formatSlotTable, slotRows } from "../../tools/slots";

describe("slot table (npm run slots)", () => {
    const now = Date.parse("2026-11-24T10:00:30Z");
    const lease = (name: string, holder: string | undefined, renewed: string, node?: string): LeaseLike => ({
        metadata: { name, annotations: node ? { "metal3-ironic.metal3.io/node": node } : {} },
        spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: renewed },
    });

    it("orders by slot, works out held/expired/released and ignores other Leases", () => {
        const rows = slotRows(
            [
                lease("ironic-dhcp-slot-10", "ironic-zz", "2026-11-24T10:00:29.000000Z", "cp-9"),
                lease("ironic-dhcp-slot-2", "ironic-b", "2026-11-24T10:00:00.000000Z", "cp-1"),
                lease("ironic-dhcp-slot-0", "ironic-a", "2026-11-24T10:00:28.500000Z", "cp-0"),
                lease("ironic-dhcp-slot-1", undefined, "2026-11-24T10:00:00.000000Z"),
                lease("other-dhcp-slot-3", "x", "2026-11-24T10:00:29.000000Z"),
                lease("ironic-dhcp-slot-x", "x", "2026-11-24T10:00:29.000000Z"),
            ],
            "ironic-dhcp-slot-",
            now,
        );
        assert.deepEqual(
            rows.map((r) => [r.slot, r.node, r.holder, r.renewed, r.state]),
            [
                [0, "cp-0", "ironic-a", "2s ago", "held"],
                [1, "-", "-", "30s ago", "released"],
                [2, "cp-1", "ironic-b", "30s ago", "expired"],
                [10, "cp-9", "ironic-zz", "1s ago", "held"],
            ],
        );
        assert.equal(
            formatSlotTable(rows.slice(0, 2)),
            ["SLOT  NODE  HOLDER    RENEWED  STATE     LEASE", "0     cp-0  ironic-a  2s ago   held      ironic-dhcp-slot-0", "1     -     -         30s ago  released  ironic-dhcp-slot-1"].join("\n"),
        );
    });
});
