/** Validation (core/config/validate.ts): every problem at once, in a stable order, formatted for the user. */
import { strict as assert } from "assert";

import { formatIssues, validateConfig } from "../../../core/config";
import { ED25519, devRaw, haRaw, hasIssue, issues } from "./support";

describe("stack config validation", function () {
    it("requires the provisioning network", function () {
        const raw = { ...devRaw };
        delete raw.provisioning;
        hasIssue(issues(raw), "provisioning", /required/);
    });

    it("accepts the example stacks", function () {
        for (const raw of [devRaw, haRaw]) {
            const r = validateConfig(raw);
            assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
        }
    });

    it("reports every problem at once, across sections", function () {
        const list = issues({ ...devRaw, topology: "triple", namespace: "Bad_NS", ports: { api: -1 }, provisioning: { ...(devRaw.provisioning as object), ip: "1.2.3.4" }, bogus: 1 });
        const keys = list.map((i) => i.key);
        for (const k of ["topology", "namespace", "ports.api", "provisioning.ip", "bogus"]) assert.ok(keys.includes(k), `missing ${k} in ${keys.join(", ")}`);
    });

    it("reports unknown keys, then each section's structure, then every rule in the order of rules/index.ts", function () {
        // One problem for each rule file; the order is the one users have always seen.
        const raw = {
            ...haRaw,
            bogus: 1,
            namespace: "Bad_NS",
            ports: { http: 6183, api: 67 },
            provisioning: { cidr: "172.22.0.5/24", ip: "172.22.0.250", keepalived: true, dhcp: { rangeStart: "172.22.0.3", rangeEnd: "172.22.0.209", gateway: "172.22.0.2", slots: 8 } },
            tls: { mode: "existing", validityDays: 30, renewBeforeDays: 30 },
            conductors: [
                { name: "cp-0", ip: "172.22.0.2" },
                { name: "cp-0", ip: "172.22.0.3" },
                { name: "cp-2", ip: "10.0.0.4", slot: 9 },
            ],
            database: { kind: "external", storageSize: "1Gi" },
            // Each valid alone; together more kernel command line than fits beside Ironic's own.
            ironic: { config: { "json_rpc.port": 1 }, kernelParams: `a=${"x".repeat(1500)}`, ramdiskSshKey: ED25519 },
        };
        assert.deepEqual(
            issues(raw).map((i) => i.key),
            [
                "bogus", // unknown key
                "namespace", // schema
                "ports.api", // rules/ports
                "ports.vmediaTls",
                "provisioning.cidr", // rules/provisioning
                "provisioning.ip",
                "conductors[2].ip",
                "provisioning.interface",
                "conductors[1].ip", // rules/dhcp-range
                "conductors[2].slot", // rules/dhcp-size
                "provisioning.dhcp.gateway", // rules/dhcp-gateway
                "tls.existingSecret", // rules/tls
                "tls.renewBeforeDays",
                "conductors[1].name", // rules/conductors
                "provisioning.interface", // rules/topology
                "provisioning.keepalived",
                "ironic.config.json_rpc.port",
                "database.host", // rules/database
                "database.credentialsSecret",
                "database.caSecret",
                "database.storageSize",
                "ironic.kernelParams", // rules/kernel
            ],
        );
    });

    it("formats the issues one per line, with their key and a count", function () {
        assert.equal(formatIssues([{ key: "a", message: "b" }]), "invalid stack configuration (1 problem):\n  - a: b");
        assert.equal(
            formatIssues([
                { key: "ports.api", message: "must be between 1 and 65535" },
                { key: "namespace", message: "must be a DNS label" },
            ]),
            "invalid stack configuration (2 problems):\n  - ports.api: must be between 1 and 65535\n  - namespace: must be a DNS label",
        );
    });
});
