/** Ports: they all bind on the host network of the same node. */
import { PORTS } from "../../contract";
import type { Rule } from "./rule";

export const portsRule: Rule = ({ config: c }, add) => {
    const seenPorts = new Map<number, string>();
    for (const [k, v] of Object.entries(c.ports)) {
        const other = seenPorts.get(v);
        if (other) add(`ports.${k}`, `port ${v} is already used by ports.${other}; every Ironic port must be different (they share the node's host network)`);
        else seenPorts.set(v, k);
        if (v === PORTS.dhcp || v === PORTS.tftp) add(`ports.${k}`, `port ${v} is taken by dnsmasq (DHCP/TFTP); choose another port`);
    }
};
