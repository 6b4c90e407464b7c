/** rules/ports.ts: distinct ports, none of dnsmasq's. */
import { portsRule } from "../../../../core/config/rules/ports";
import { devRaw, hasIssue, issues, ruleTable } from "../support";

describe("config rule: ports", function () {
    it("rejects duplicate ports", function () {
        const dup = issues({ ...devRaw, ports: { http: 6183 } });
        hasIssue(dup, "ports.vmediaTls", /already used by ports.http/);
    });

    ruleTable(portsRule, [
        { name: "http set to the vmediaTls default", raw: { ...devRaw, ports: { http: 6183 } }, key: "ports.vmediaTls", message: "already used by ports.http", reported: true },
        { name: "the default ports", raw: devRaw, key: "ports.vmediaTls", message: "already used by", reported: false },
        { name: "api on DHCP's port 67", raw: { ...devRaw, ports: { api: 67 } }, key: "ports.api", message: "port 67 is taken by dnsmasq", reported: true },
        { name: "http on TFTP's port 69", raw: { ...devRaw, ports: { http: 69 } }, key: "ports.http", message: "port 69 is taken by dnsmasq", reported: true },
        { name: "api on port 68", raw: { ...devRaw, ports: { api: 68 } }, key: "ports.api", message: "taken by dnsmasq", reported: false },
    ]);
});
