/** rules/conductors.ts: each control-plane node once, with its own IP and slot. */
import { conductorsRule } from "../../../../core/config/rules/conductors";
import { devRaw, haRaw, hasIssue, issues, ruleTable } from "../support";

describe("config rule: conductors", function () {
    it("rejects duplicate conductor names and IPs", function () {
        const list = issues({
            ...devRaw,
            topology: "multi",
            database: { kind: "external", host: "db.example", credentialsSecret: "db-creds" },
            conductors: [
                { name: "cp-0", ip: "172.22.0.3" },
                { name: "cp-0", ip: "172.22.0.3" },
            ],
        });
        hasIssue(list, "conductors[1].name", /duplicate name cp-0/);
        hasIssue(list, "conductors[1].ip", /duplicate ip 172\.22\.0\.3/);
    });

    const nodes = (...list: { name: string; ip: string; slot?: number }[]) => ({ ...haRaw, conductors: list });
    ruleTable(conductorsRule, [
        { name: "a name twice", raw: nodes({ name: "cp-0", ip: "172.22.0.2" }, { name: "cp-0", ip: "172.22.0.3" }), key: "conductors[1].name", message: "duplicate name cp-0 (also conductors[0])", reported: true },
        { name: "distinct names", raw: haRaw, key: "conductors[1].name", message: "duplicate name", reported: false },
        { name: "an IP twice", raw: nodes({ name: "cp-0", ip: "172.22.0.2" }, { name: "cp-1", ip: "172.22.0.5" }, { name: "cp-2", ip: "172.22.0.2" }), key: "conductors[2].ip", message: "duplicate ip 172.22.0.2 (also conductors[0])", reported: true },
        { name: "distinct IPs", raw: haRaw, key: "conductors[2].ip", message: "duplicate ip", reported: false },
        { name: "a slot twice", raw: nodes({ name: "cp-0", ip: "172.22.0.2", slot: 1 }, { name: "cp-1", ip: "172.22.0.3", slot: 1 }), key: "conductors[1].slot", message: "duplicate slot 1 (also conductors[0])", reported: true },
        { name: "one pinned slot, one derived", raw: nodes({ name: "cp-0", ip: "172.22.0.2", slot: 1 }, { name: "cp-1", ip: "172.22.0.3" }), key: "conductors[1].slot", message: "duplicate slot", reported: false },
    ]);
});
