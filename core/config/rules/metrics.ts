/**
 * metrics.*: settings that only mean something with the exporter on; its port against the other
 * host-network ports of the node; and the Ironic options it owns, which ironic.config would
 * silently override (the user's overrides come last).
 */
import { EXPORTER, PORTS } from "../../contract";
import type { Rule } from "./rule";

export const metricsRule: Rule = ({ config: c, parsed }, add) => {
    const m = c.metrics;
    const set = parsed.metrics ?? {};
    if (!m.enabled) {
        for (const k of ["sensorInterval", "port"] as const) {
            if (set[k] !== undefined) add(`metrics.${k}`, "has no effect while metrics.enabled is false (no exporter, no sensor collection): set metrics.enabled: true, or remove it");
        }
        if (set.serviceMonitor?.enabled) add("metrics.serviceMonitor.enabled", "needs metrics.enabled: true (without the exporter there is nothing to scrape): set metrics.enabled: true, or remove it");
        return;
    }
    for (const [k, v] of Object.entries(c.ports)) {
        if (v === m.port) add("metrics.port", `port ${v} is already used by ports.${k}; the exporter shares the node's host network with Ironic: choose another port`);
    }
    if (m.port === PORTS.dhcp || m.port === PORTS.tftp) add("metrics.port", `port ${m.port} is taken by dnsmasq (DHCP/TFTP); choose another port`);
    for (const k of Object.keys(c.ironic.config)) {
        const group = k.split(".")[0].toLowerCase();
        if ((EXPORTER.ownedGroups as readonly string[]).includes(group)) {
            const by = k.toLowerCase() === EXPORTER.sensorInterval.join(".") ? "metrics.sensorInterval" : "metrics.enabled (the image's sensor data and notification settings, which the exporter reads)";
            add(`ironic.config.${k}`, `set by ${by}; remove it from ironic.config`);
        }
    }
};
