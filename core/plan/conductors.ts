/**
 * The conductors of a topology and what their dnsmasq serves. Single: one conductor on the
 * provisioning IP, not pinned to a node, handing out the whole DHCP range. Multi: one conductor per
 * configured control-plane node, each with its own environment and its own slice of the range
 * (core/plan/slices.ts), answering only the hosts Ironic's dnsmasq provider wrote for it.
 */
import * as ipaddr from "ipaddr.js";

import type { StackConfig } from "../config";
import { DHCP_PROVIDER_PATHS, DNSMASQ_CONFIG_DIR, DNSMASQ_CONFIG_FILE, ENV, WRAPPER_ENV } from "../contract";
import { ipToNumber } from "../ip";
import { DhcpRange, DnsmasqOptions, renderDnsmasqConf, renderDnsmasqSlotConf, renderDnsmasqStartScript } from "../render/dnsmasq";
import { renderEnvFile } from "../render/envfile";
import { NODE_DNSMASQ_CONF_SHELL, SLOT_DNSMASQ_CONF_SHELL, slotConfKey } from "./names";
import { sliceBounds } from "./slices";
import { type DhcpSlotPlan, planDhcpSlots } from "./slots";
import type { ConductorPlan, EnvMap, IronicPlan } from "./types";

export function cidrParts(cidr: string): { network: string; prefixLength: number } {
    const [addr, prefixLength] = ipaddr.parseCIDR(cidr);
    return { network: addr.toString(), prefixLength };
}

/**
 * One entry per conductor: `[one]` for single, one per `conductors[]` entry (in config order) for
 * multi, with the slices of `dhcpSlots` (default: those of a first run, no previous state).
 */
export function planConductors(config: StackConfig, dhcpSlots?: DhcpSlotPlan): ConductorPlan[] {
    switch (config.topology) {
        case "single":
            return [singleConductor(config)];
        case "multi":
            return multiConductors(config, dhcpSlots ?? (config.provisioning.dhcp ? planDhcpSlots(config.provisioning.dhcp, config.conductors) : undefined));
    }
}

/** The dnsmasq start script: single reads the one ConfigMap file, multi its node's file (resolved in the pod). */
export function dnsmasqStartScript(config: StackConfig): string {
    switch (config.topology) {
        case "single":
            return renderDnsmasqStartScript(`${DNSMASQ_CONFIG_DIR}/${DNSMASQ_CONFIG_FILE}`);
        case "multi":
            return renderDnsmasqStartScript(NODE_DNSMASQ_CONF_SHELL, { leaseFile: DHCP_PROVIDER_PATHS.leaseFile, slotConf: SLOT_DNSMASQ_CONF_SHELL });
    }
}

/** Multi: the claimed slot's file names it; the node's own file carries every other DHCP line. */
const RANGE_FROM_SLOT = `in ${slotConfKey("<k>")} of the DHCP slot k this pod holds (a Lease, claimed at start by dhcp-slot-agent.py)`;

/**
 * Multi with DHCP: one dnsmasq file per slot of the layout, keyed by slotConfKey: its slice of the
 * range. Every pod gets all of them; dnsmasq reads the one of the slot its agent holds.
 */
export function slotDnsmasqConfs(plan: IronicPlan): Record<string, string> {
    const sp = plan.dhcpSlots;
    const dhcp = plan.config.provisioning.dhcp;
    if (!sp || !dhcp) return {};
    const { prefixLength } = cidrParts(plan.config.provisioning.cidr);
    const out: Record<string, string> = {};
    for (let k = 0; k < sp.slots; k++) {
        const b = sliceBounds(sp.rangeStart, sp.rangeEnd, sp.slots, k);
        out[slotConfKey(k)] = renderDnsmasqSlotConf(
            { start: b.start, end: b.end, prefixLength, leaseTime: dhcp.leaseTime },
            `DHCP slot ${k} of ${sp.slots} of ${plan.namespace}/${plan.name}: ${b.size} addresses`,
        );
    }
    return out;
}

function singleConductor(config: StackConfig): ConductorPlan {
    const { name, namespace, ports, provisioning } = config;
    const dhcp = provisioning.dhcp;
    const ip = provisioning.ip;
    const range = dhcp
        ? {
              start: dhcp.rangeStart,
              end: dhcp.rangeEnd,
              prefixLength: cidrParts(provisioning.cidr).prefixLength,
              leaseTime: dhcp.leaseTime,
              size: ipToNumber(dhcp.rangeEnd) - ipToNumber(dhcp.rangeStart) + 1,
          }
        : undefined;
    const opts: DnsmasqOptions = {
        header: `dnsmasq for ${namespace}/${name} (topology single)`,
        interface: provisioning.interface,
        serverIp: ip,
        httpUrl: `http://${ip}:${ports.http}`,
        range,
        gateway: dhcp?.gateway,
        dns: dhcp?.dns,
    };
    return {
        node: "",
        ip,
        interface: provisioning.interface,
        range,
        dnsmasqOptions: range ? opts : undefined,
        dnsmasqConf: range ? renderDnsmasqConf(opts) : undefined,
    };
}

/** What the start wrapper fills in the per-node templates with: the node's address and interface. */
export const NODE_PLACEHOLDERS = { ip: "__CONDUCTOR_IP__", interface: "__CONDUCTOR_INTERFACE__" } as const;

/** A per-node template filled in, as the start wrapper does at container start. */
export function fillNodeTemplate(template: string, ip: string, iface: string): string {
    return template.split(NODE_PLACEHOLDERS.ip).join(ip).split(NODE_PLACEHOLDERS.interface).join(iface);
}

/** The image's environment of a conductor on address `ip` and interface `iface`. */
function nodeEnv(ip: string, iface: string): EnvMap {
    return { [ENV.provisioningIp]: ip, [ENV.conductorHost]: ip, [ENV.provisioningInterface]: iface };
}

/** The dnsmasq options of a conductor on `ip`/`iface` (its range comes from the slot it holds). */
function nodeDnsmasqOptions(config: StackConfig, ip: string, iface: string, range: DhcpRange & { size: number }): DnsmasqOptions {
    const dhcp = config.provisioning.dhcp;
    return {
        header: `dnsmasq for a conductor of ${config.namespace}/${config.name} on ${ip} (${iface})`,
        interface: iface,
        serverIp: ip,
        httpUrl: `http://${ip}:${config.ports.http}`,
        range,
        rangeFromSlot: RANGE_FROM_SLOT,
        gateway: dhcp?.gateway,
        dns: dhcp?.dns,
        knownHostsOnly: { hostsDir: DHCP_PROVIDER_PATHS.hostsDir, optsDir: DHCP_PROVIDER_PATHS.optsDir },
        leaseFile: DHCP_PROVIDER_PATHS.leaseFile,
    };
}

/**
 * Multi: the per-node files every pod renders at start from its node's address and interface
 * (found on the node, or its conductors[] entry's): the image's environment and, with DHCP, the
 * node's dnsmasq file (everything but the range, which its slot's file holds).
 */
export function nodeTemplates(config: StackConfig): { env: string; dnsmasqConf?: string } {
    const { ip, interface: iface } = NODE_PLACEHOLDERS;
    const dhcp = config.provisioning.dhcp;
    const placeholderRange = { start: ip, end: ip, prefixLength: cidrParts(config.provisioning.cidr).prefixLength, leaseTime: dhcp?.leaseTime ?? "", size: 0 };
    return {
        env: renderEnvFile(nodeEnv(ip, iface)),
        ...(dhcp ? { dnsmasqConf: renderDnsmasqConf(nodeDnsmasqOptions(config, ip, iface, placeholderRange)) } : {}),
    };
}

function multiConductors(config: StackConfig, slices: DhcpSlotPlan | undefined): ConductorPlan[] {
    const { provisioning } = config;
    const dhcp = provisioning.dhcp;
    const { prefixLength } = cidrParts(provisioning.cidr);
    return config.conductors.map((c) => {
        const iface = c.interface ?? provisioning.interface;
        const slice = slices?.slices.find((x) => x.node === c.name);
        const range = slice && dhcp ? { start: slice.start, end: slice.end, prefixLength, leaseTime: dhcp.leaseTime, size: slice.size } : undefined;
        // Known before deployment only when the entry names the address; else the pod finds it.
        const opts = range && c.ip && iface ? nodeDnsmasqOptions(config, c.ip, iface, range) : undefined;
        // The node's entry: only what overrides what the pod would find itself.
        const env: EnvMap = {};
        if (c.ip) env[WRAPPER_ENV.nodeIp] = c.ip;
        if (c.interface) env[WRAPPER_ENV.nodeInterface] = c.interface;
        return {
            node: c.name,
            ...(c.ip ? { ip: c.ip } : {}),
            interface: iface,
            slot: slice?.slot,
            slotSource: slice?.source,
            env,
            ...(c.ip && iface ? { resolvedEnv: nodeEnv(c.ip, iface) } : {}),
            range,
            dnsmasqOptions: opts,
            dnsmasqConf: opts ? renderDnsmasqConf(opts) : undefined,
        };
    });
}
