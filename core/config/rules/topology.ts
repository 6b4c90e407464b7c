/** Topology: what `single` must not have, and what `multi` needs (nodes, a shared database). */
import type { Rule } from "./rule";

/**
 * ironic.conf options the multi-conductor topology sets itself: overriding them through
 * `ironic.config` would break DHCP ownership or JSON-RPC.
 */
export const RESERVED_MULTI_OPTIONS = [/^dhcp\./, /^dnsmasq\./, /^json_rpc\./, /^default\.(host|rpc_transport|my_ip)$/];

export const topologyRule: Rule = ({ config: c, parsed, failed }, add) => {
    if (c.topology === "single") {
        if (parsed.conductors && parsed.conductors.length > 0) {
            add("conductors", 'only used with topology "multi"; remove it or set topology to "multi"');
        }
        if (parsed.placement?.conductorNodeSelector !== undefined) {
            add("placement.conductorNodeSelector", 'only used with topology "multi" (which nodes run a conductor); use placement.nodeSelector for the single Ironic pod');
        }
        return;
    }
    // Any selected node runs a conductor, listed or not (a replacement node joins with no entry),
    // and finds its address on this interface: required even when every listed node names its own.
    if (!failed.has("provisioning") && !c.provisioning.interface) {
        add("provisioning.interface", 'topology "multi" needs the provisioning network\'s interface on the conductor nodes: any node the placement selects runs a conductor, listed in conductors[] or not, and finds its address there (conductors[].interface overrides it for one node)');
    }
    // Both selectors apply to the conductor pods: one key with two values selects no node at all.
    if (!failed.has("placement")) {
        for (const [key, value] of Object.entries(c.placement.conductorNodeSelector)) {
            const stackWide = c.placement.nodeSelector[key];
            if (stackWide !== undefined && stackWide !== value) {
                add(`placement.conductorNodeSelector.${key}`, `"${value}" contradicts placement.nodeSelector.${key} "${stackWide}": the conductor pods need both to match, so no node would run one; drop the key from one of them`);
            }
        }
    }
    if (!failed.has("database") && c.database.kind === "sqlite") {
        add("database.kind", 'topology "multi" needs a shared database: SQLite is per pod and reset on every start; set database.kind to "mariadb-operator" (a replicated Galera cluster that survives a node loss), "external", or "mariadb" (one pod: lost with its node)');
    }
    if (c.provisioning.keepalived) add("provisioning.keepalived", 'not used with topology "multi": every conductor serves on its own node IP');
    for (const key of Object.keys(c.ironic.config)) {
        if (RESERVED_MULTI_OPTIONS.some((re) => re.test(key))) {
            add(`ironic.config.${key}`, 'set by this program in topology "multi" (DHCP ownership and JSON-RPC depend on it); remove it');
        }
    }
    (parsed.conductors ?? []).forEach((cd, i) => {
        if (cd.slot !== undefined && !c.provisioning.dhcp) add(`conductors[${i}].slot`, "only used with provisioning.dhcp (slots are slices of the DHCP range)");
    });
};
