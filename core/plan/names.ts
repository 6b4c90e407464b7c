/**
 * Naming rules of per-node data, in one place: the keys of a node's entries in the per-node
 * ConfigMap and Secret (and the same rule in the shell form the pod's scripts resolve at start),
 * and the label that selects the conductor nodes.
 */
import { CONDUCTOR_PATHS, WRAPPER_ENV } from "../contract";
import { SLOT_AGENT_ENV } from "../slot-agent";

/** Key of a node's entries in the per-node ConfigMap. */
export const nodeKeys = (node: string) => ({
    env: `${node}.env`,
    dnsmasqConf: `${node}.dnsmasq.conf`,
});

/**
 * The node's dnsmasq config file as a shell word, resolved in the pod from the wrapper's env:
 * the same rule as nodeKeys, applied to the node name the pod only knows at start.
 */
export const NODE_DNSMASQ_CONF_SHELL = `"$${WRAPPER_ENV.dataDir}/${nodeKeys(`$${WRAPPER_ENV.node}`).dnsmasqConf}"`;

/** Label the program puts on exactly the configured control-plane nodes; the DaemonSet selects it. */
export const CONDUCTOR_NODE_LABEL = "metal3-ironic.metal3.io/conductor";

export function conductorLabelValue(namespace: string, name: string): string {
    const v = `${namespace}.${name}`;
    return v.length <= 63 ? v : `${name}.${namespace}`.slice(0, 63).replace(/[-.]+$/, "");
}

/** Multi: key of DHCP slot k's dnsmasq file (its slice of the range) in the scripts ConfigMap. */
export const slotConfKey = (slot: number | string) => `slot-${slot}.dnsmasq.conf`;

/** The held slot's dnsmasq file as a shell word, resolved in the pod from DHCP_SLOT (set by the slot agent). */
export const SLOT_DNSMASQ_CONF_SHELL = `"${CONDUCTOR_PATHS.scripts}/${slotConfKey(`$${SLOT_AGENT_ENV.slot}`)}"`;

/** Multi: key of the slot agents' preferences (pins, remembered slots) in the per-node ConfigMap. */
export const SLOT_PREFERENCES_KEY = "slot-preferences.json";
