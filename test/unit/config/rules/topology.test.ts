/** rules/topology.ts: what single must not have and what multi needs. */
import { RESERVED_MULTI_OPTIONS } from "../../../../core/config";
import { topologyRule } from "../../../../core/config/rules/topology";
import { devRaw, haRaw, hasIssue, issues, ruleTable, withProvisioning, withoutProvisioning } from "../support";

/** The ha stack with conductors[2] pinned to slot 0. */
const pinned = { ...haRaw, conductors: (haRaw.conductors as object[]).map((c, i) => (i === 2 ? { ...c, slot: 0 } : c)) };

describe("config rule: topology", function () {
    it("rejects multi with SQLite, and conductors with single", function () {
        hasIssue(issues({ ...devRaw, topology: "multi", conductors: [{ name: "cp-0", ip: "172.22.0.3" }] }), "database.kind", /shared database/);
        hasIssue(issues({ ...devRaw, conductors: [{ name: "cp-0", ip: "172.22.0.3" }] }), "conductors", /only used with topology "multi"/);
    });

    ruleTable(topologyRule, [
        { name: "single with conductors", raw: { ...devRaw, conductors: [{ name: "cp-0", ip: "172.22.0.3" }] }, key: "conductors", message: 'only used with topology "multi"', reported: true },
        { name: "single with an empty list", raw: { ...devRaw, conductors: [] }, key: "conductors", message: "only used with", reported: false },
        // Zero-touch: no entries at all; every node finds its address on provisioning.interface.
        { name: "multi without conductors", raw: { ...haRaw, conductors: [] }, key: "conductors", message: "", reported: false },
        { name: "multi without an interface", raw: withProvisioning({ interface: undefined }, haRaw), key: "provisioning.interface", message: 'topology "multi" needs the provisioning network\'s interface', reported: true },
        {
            // A replacement node joins with no entry and must find its address somewhere.
            name: "multi without an interface, every entry naming address and interface",
            raw: withProvisioning({ interface: undefined }, { ...haRaw, conductors: [{ name: "cp-0", ip: "172.22.0.2", interface: "eno1" }] }),
            key: "provisioning.interface",
            message: "listed in conductors[] or not",
            reported: true,
        },
        { name: "single with a conductor node selector", raw: { ...devRaw, placement: { conductorNodeSelector: { "example.com/ironic": "yes" } } }, key: "placement.conductorNodeSelector", message: 'only used with topology "multi"', reported: true },
        { name: "multi with a conductor node selector", raw: { ...haRaw, placement: { conductorNodeSelector: {} } }, key: "placement.conductorNodeSelector", message: "only used with", reported: false },
        {
            name: "multi: one key with two values in the two selectors",
            raw: { ...haRaw, placement: { nodeSelector: { "example.com/pool": "a" }, conductorNodeSelector: { "example.com/pool": "b" } } },
            key: "placement.conductorNodeSelector.example.com/pool",
            message: 'contradicts placement.nodeSelector.example.com/pool "a"',
            reported: true,
        },
        { name: "multi: one key with one value in both selectors", raw: { ...haRaw, placement: { nodeSelector: { "example.com/pool": "a" }, conductorNodeSelector: { "example.com/pool": "a" } } }, key: "placement.conductorNodeSelector.example.com/pool", message: "contradicts", reported: false },
        { name: "multi on SQLite", raw: { ...haRaw, database: { kind: "sqlite" } }, key: "database.kind", message: 'topology "multi" needs a shared database', reported: true },
        { name: "single on SQLite", raw: devRaw, key: "database.kind", message: "needs a shared database", reported: false },
        { name: "multi with keepalived", raw: withProvisioning({ keepalived: true }, haRaw), key: "provisioning.keepalived", message: 'not used with topology "multi"', reported: true },
        { name: "single with keepalived", raw: withProvisioning({ keepalived: true }), key: "provisioning.keepalived", message: "not used with", reported: false },
        // Corporate PKI in multi: the topology no longer refuses tls.mode existing (rules/tls.ts asks for the conductor CA).
        { name: "multi with existing TLS", raw: { ...haRaw, tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "my-ca" } }, key: "tls.mode", message: "", reported: false },
        { name: "multi overriding json_rpc", raw: { ...haRaw, ironic: { config: { "json_rpc.port": 1 } } }, key: "ironic.config.json_rpc.port", message: 'set by this program in topology "multi"', reported: true },
        { name: "multi overriding default.host", raw: { ...haRaw, ironic: { config: { "default.host": "x" } } }, key: "ironic.config.default.host", message: "set by this program", reported: true },
        { name: "multi setting default.debug", raw: { ...haRaw, ironic: { config: { "default.debug": true } } }, key: "ironic.config.default.debug", message: "set by this program", reported: false },
        { name: "single setting json_rpc", raw: { ...devRaw, ironic: { config: { "json_rpc.port": 1 } } }, key: "ironic.config.json_rpc.port", message: "set by this program", reported: false },
        { name: "multi: a pinned slot without DHCP", raw: withoutProvisioning("dhcp", pinned), key: "conductors[2].slot", message: "only used with provisioning.dhcp", reported: true },
        { name: "multi: a pinned slot with DHCP", raw: pinned, key: "conductors[2].slot", message: "only used with provisioning.dhcp", reported: false },
    ]);

    it("reserves the DHCP, dnsmasq and JSON-RPC groups and the conductor's identity in multi", function () {
        const reserved = (k: string) => RESERVED_MULTI_OPTIONS.some((re) => re.test(k));
        for (const k of ["dhcp.dhcp_provider", "dnsmasq.dhcp_hostsdir", "json_rpc.port", "default.host", "default.rpc_transport", "default.my_ip"]) {
            if (!reserved(k)) throw new Error(`${k} should be reserved`);
        }
        for (const k of ["default.debug", "conductor.deploy_callback_timeout", "pxe.boot_retry_timeout", "default.hostname"]) {
            if (reserved(k)) throw new Error(`${k} should not be reserved`);
        }
    });
});
