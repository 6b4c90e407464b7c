/**
 * Naming rules of per-node data, in one place: the keys of a node's entries in the per-node
 * ConfigMap and Secret (and the same rule in the shell form the pod's scripts resolve at start),
 * and the dnsmasq files the pods resolve at start.
 */
import { CONDUCTOR_PATHS, WRAPPER_ENV } from "./contract";
import { SLOT_AGENT_ENV } from "./slot-agent";

/** Key of a node's entry (its conductors[] overrides) in the per-node ConfigMap. */
export const nodeKeys = (node: string) => ({
    env: `${node}.env`,
});

/**
 * The node's dnsmasq config file as a shell word, resolved in the pod: the start wrapper renders it
 * from the scripts ConfigMap's template into the container's run dir.
 */
export const NODE_DNSMASQ_CONF_SHELL = `"$${WRAPPER_ENV.runDir}/dnsmasq.conf"`;

/** Multi: key of DHCP slot k's dnsmasq file (its slice of the range) in the scripts ConfigMap. */
export const slotConfKey = (slot: number | string) => `slot-${slot}.dnsmasq.conf`;

/** The held slot's dnsmasq file as a shell word, resolved in the pod from DHCP_SLOT (set by the slot agent). */
export const SLOT_DNSMASQ_CONF_SHELL = `"${CONDUCTOR_PATHS.scripts}/${slotConfKey(`$${SLOT_AGENT_ENV.slot}`)}"`;

/** Multi: key of the slot agents' preferences (pins, remembered slots) in the per-node ConfigMap. */
export const SLOT_PREFERENCES_KEY = "slot-preferences.json";
