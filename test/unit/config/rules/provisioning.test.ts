/** rules/provisioning.ts: the provisioning network, Ironic's addresses in it, keepalived's interface. */
import { provisioningRule } from "../../../../core/config/rules/provisioning";
import { devRaw, haRaw, hasIssue, issues, ruleTable, withProvisioning, withoutProvisioning } from "../support";

describe("config rule: provisioning network", function () {
    it("rejects a CIDR with host bits set and suggests the network", function () {
        hasIssue(issues(withProvisioning({ cidr: "172.22.0.5/24" })), "provisioning.cidr", /did you mean 172\.22\.0\.0\/24/);
    });

    it("rejects a provisioning IP outside the CIDR", function () {
        hasIssue(issues(withProvisioning({ ip: "10.0.0.2" })), "provisioning.ip", /not inside provisioning.cidr/);
    });

    it("requires an interface with keepalived", function () {
        const prov: Record<string, unknown> = { ...(devRaw.provisioning as Record<string, unknown>), keepalived: true };
        delete prov.interface;
        hasIssue(issues({ ...devRaw, provisioning: prov }), "provisioning.interface", /keepalived/);
    });

    ruleTable(provisioningRule, [
        { name: "host bits set", raw: withProvisioning({ cidr: "172.22.0.5/24" }), key: "provisioning.cidr", message: "has host bits set; did you mean 172.22.0.0/24?", reported: true },
        { name: "a network address", raw: devRaw, key: "provisioning.cidr", message: "has host bits set", reported: false },
        { name: "a /31", raw: withProvisioning({ cidr: "172.22.0.0/31" }), key: "provisioning.cidr", message: "a /31 network has no room for hosts", reported: true },
        { name: "a /30", raw: withProvisioning({ cidr: "172.22.0.0/30" }), key: "provisioning.cidr", message: "no room for hosts", reported: false },
        { name: "single without provisioning.ip", raw: withoutProvisioning("ip"), key: "provisioning.ip", message: "required with topology single", reported: true },
        { name: "multi without provisioning.ip", raw: haRaw, key: "provisioning.ip", message: "required with topology single", reported: false },
        { name: "multi with provisioning.ip", raw: withProvisioning({ ip: "172.22.0.250" }, haRaw), key: "provisioning.ip", message: 'not used with topology "multi"', reported: true },
        { name: "single with provisioning.ip", raw: devRaw, key: "provisioning.ip", message: 'not used with topology "multi"', reported: false },
        { name: "outside the CIDR", raw: withProvisioning({ ip: "10.0.0.2" }), key: "provisioning.ip", message: "10.0.0.2 is not inside provisioning.cidr 172.22.0.0/24", reported: true },
        { name: "the broadcast address", raw: withProvisioning({ ip: "172.22.0.255" }), key: "provisioning.ip", message: "is the network or broadcast address of 172.22.0.0/24", reported: true },
        { name: "the last host address", raw: withProvisioning({ ip: "172.22.0.254" }), key: "provisioning.ip", message: "network or broadcast", reported: false },
        {
            name: "a conductor outside the CIDR",
            raw: { ...haRaw, conductors: [{ name: "cp-0", ip: "10.0.0.3" }] },
            key: "conductors[0].ip",
            message: "10.0.0.3 is not inside provisioning.cidr",
            reported: true,
        },
        { name: "a conductor on the network address", raw: { ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.0" }] }, key: "conductors[0].ip", message: "network or broadcast address", reported: true },
        { name: "conductors inside the CIDR", raw: haRaw, key: "conductors[0].ip", message: "provisioning.cidr", reported: false },
        {
            name: "keepalived without an interface",
            raw: withProvisioning({ keepalived: true }, withoutProvisioning("interface")),
            key: "provisioning.interface",
            message: "required with provisioning.keepalived: true",
            reported: true,
        },
        { name: "keepalived with an interface", raw: withProvisioning({ keepalived: true }), key: "provisioning.interface", message: "required with provisioning.keepalived", reported: false },
    ]);
});
