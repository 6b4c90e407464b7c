/**
 * The topology plan and what each dnsmasq serves. Single: one conductor on the provisioning IP,
 * not pinned to a node, handing out the whole DHCP range. Multi: a conductor on every selected
 * node; the plan knows the nodes conductors[] lists (their overrides and preferred slots, see
 * core/plan/slices.ts), each pod its own slice of the range by the slot it holds, answering only
 * the hosts Ironic's dnsmasq provider wrote for it.
 */
import type { StackConfig } from "../config";
import { DHCP_PROVIDER_PATHS, DNSMASQ_CONFIG_DIR, DNSMASQ_CONFIG_FILE, ENV, WRAPPER_ENV } from "../contract";
import { cidrParts, rangeSize, sizeNumber, urlOf } from "../ip";
import { DnsmasqOptions, ExtraDhcpRange, renderDnsmasqConf, renderDnsmasqSlotConf, renderDnsmasqStartScript } from "../render/dnsmasq";
import { renderEnvFile } from "../render/envfile";
import { externalEnv, planExternal, sanWords } from "./external";
import { NODE_DNSMASQ_CONF_SHELL, SLOT_DNSMASQ_CONF_SHELL, slotConfKey } from "../names";
import { sliceBounds } from "./slices";
import { ipv6Env, ipv6Range, ipv6Side } from "./dual-stack";
import { type DhcpSlotPlan, type DhcpSlotsState, planDhcpSlots } from "./slots";
import type { EnvMap, ListedConductor, SingleConductor, SizedRange, TopologyPlan } from "./types";

export { cidrParts } from "../ip";

/**
 * Single: its one conductor (and keepalived's VIP). Multi: one entry per `conductors[]` entry (in
 * config order), with its preferred slot of the layout planned from `previousSlots` (the previous
 * run's; absent: a first run).
 */
export function planTopology(config: StackConfig, previousSlots?: DhcpSlotsState): TopologyPlan {
    const { provisioning } = config;
    switch (config.topology) {
        case "single":
            return {
                kind: "single",
                conductor: singleConductor(config),
                ...(provisioning.keepalived ? { keepalivedVirtualIps: keepalivedVirtualIps(config) } : {}),
            };
        case "multi": {
            const slots = provisioning.dhcp ? planDhcpSlots(provisioning.dhcp, config.conductors, previousSlots, provisioning.ipv6?.dhcp) : undefined;
            return {
                kind: "multi",
                conductors: planListed(config, slots),
                ...(slots ? { dhcpSlots: slots } : {}),
                nodeTemplates: nodeTemplates(config),
                slotDnsmasqConfs: slotDnsmasqConfs(config, slots),
            };
        }
    }
}

/** KEEPALIVED_VIRTUAL_IPS: provisioning.ip with the CIDR's prefix first (the image takes its interface for the VRRP instance), then keepalived.extraVips. */
export function keepalivedVirtualIps(config: StackConfig): string {
    const { provisioning } = config;
    const extra = config.keepalived.extraVips.map((v) => [v.ip, v.interface ?? provisioning.interface, ...(v.prefix !== undefined ? [v.prefix] : [])].join(","));
    return [`${provisioning.ip},${provisioning.interface},${cidrParts(provisioning.cidr).prefixLength}`, ...extra].join(" ");
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
export function slotDnsmasqConfs(at: Pick<StackConfig, "name" | "namespace" | "provisioning">, sp: DhcpSlotPlan | undefined): Record<string, string> {
    const dhcp = at.provisioning.dhcp;
    if (!sp || !dhcp) return {};
    const { prefixLength } = cidrParts(at.provisioning.cidr);
    const out: Record<string, string> = {};
    const extra = extraDhcpRanges(at);
    for (let k = 0; k < sp.slots; k++) {
        const b = sliceBounds(sp.rangeStart, sp.rangeEnd, sp.slots, k);
        // The same slot k of every relayed subnet's range: a conductor's share is one slot everywhere.
        const extraSlices = extra.map((x) => ({ ...x, ...sliceBounds(x.start, x.end, sp.slots, k) }));
        const extraText = extraSlices.map((x) => `, ${x.size} in ${x.tag}`).join("");
        // Dual-stack: slot k of the IPv6 range too.
        const v6 = ipv6Range(at, { slots: sp.slots, k });
        out[slotConfKey(k)] = renderDnsmasqSlotConf(
            { start: b.start, end: b.end, prefixLength, leaseTime: dhcp.leaseTime },
            `DHCP slot ${k} of ${sp.slots} of ${at.namespace}/${at.name}: ${b.size} addresses${extraText}${v6 ? `, ${v6.start}-${v6.end} (IPv6)` : ""}`,
            extraSlices,
            v6 && { start: v6.start, end: v6.end, prefixLength: v6.prefixLength, leaseTime: v6.leaseTime },
        );
    }
    return out;
}

/** The tag of relayed subnet i's range in every dnsmasq file (dhcp-range set:, dhcp-option tag:). */
export const relayedRangeTag = (i: number) => `relayed-${i}`;

/** The relayed subnets' whole ranges, each with its tag, router and DNS server (config order). Takes the config or the plan. */
export function extraDhcpRanges({ provisioning }: Pick<StackConfig, "provisioning">): ExtraDhcpRange[] {
    return (provisioning.dhcp?.extraRanges ?? []).map((r, i) => ({
        tag: relayedRangeTag(i),
        start: r.rangeStart,
        end: r.rangeEnd,
        prefixLength: cidrParts(r.subnet).prefixLength,
        leaseTime: r.leaseTime,
        gateway: r.gateway,
        ...(r.dns !== undefined ? { dns: r.dns } : {}),
    }));
}

function singleConductor(config: StackConfig): SingleConductor {
    const { name, namespace, ports, provisioning } = config;
    const dhcp = provisioning.dhcp;
    // Validation requires provisioning.ip with topology single.
    const ip = provisioning.ip!;
    const external = planExternal(config, config.external);
    const conductor: SingleConductor = { ip, ...(provisioning.interface ? { interface: provisioning.interface } : {}), ...(external ? { external } : {}) };
    if (!dhcp) return conductor;
    const range: SizedRange = {
        start: dhcp.rangeStart,
        end: dhcp.rangeEnd,
        prefixLength: cidrParts(provisioning.cidr).prefixLength,
        leaseTime: dhcp.leaseTime,
        size: sizeNumber(rangeSize(dhcp.rangeStart, dhcp.rangeEnd)),
    };
    const dnsmasqOptions: DnsmasqOptions = {
        header: `dnsmasq for ${namespace}/${name} (topology single)`,
        interface: provisioning.interface,
        serverIp: ip,
        httpUrl: urlOf("http", ip, ports.http),
        range,
        gateway: dhcp.gateway,
        dns: dhcp.dns,
        extraRanges: extraDhcpRanges(config),
        ...v6Of(config, provisioning.ipv6?.ip, ipv6Range(config)),
    };
    return { ...conductor, dhcp: { range, dnsmasqOptions, dnsmasqConf: renderDnsmasqConf(dnsmasqOptions) } };
}

/** What the start wrapper fills in the per-node templates with: the node's address, interface and (dual-stack) IPv6 address. */
export const NODE_PLACEHOLDERS = { ip: "__CONDUCTOR_IP__", interface: "__CONDUCTOR_INTERFACE__", ipv6: "__CONDUCTOR_IPV6__" } as const;

/** A per-node template filled in, as the start wrapper does at container start. */
export function fillNodeTemplate(template: string, ip: string, iface: string, ipv6 = ""): string {
    return template.split(NODE_PLACEHOLDERS.ip).join(ip).split(NODE_PLACEHOLDERS.interface).join(iface).split(NODE_PLACEHOLDERS.ipv6).join(ipv6);
}

/** The dnsmasq options' IPv6 side (dual-stack, with the address known), as a spread. */
function v6Of(config: StackConfig, ip: string | undefined, range: SizedRange | undefined): Pick<DnsmasqOptions, "ipv6"> {
    const side = ip !== undefined ? ipv6Side(config, ip, range) : undefined;
    return side ? { ipv6: side } : {};
}

/** The image's environment of a conductor on address `ip` and interface `iface` (and `ipv6`, dual-stack). */
function nodeEnv(config: StackConfig, ip: string, iface: string, ipv6: string | undefined): EnvMap {
    // Not bracketed on IPv6 (the image's own default is): Ironic's JSON-RPC client brackets the
    // host itself (oslo netutils.escape_ipv6; 21.4 and 38), and the conductor's hostname stays the
    // plain address the readiness check and the DHCP pruner compare with.
    return { [ENV.provisioningIp]: ip, [ENV.conductorHost]: ip, [ENV.provisioningInterface]: iface, ...ipv6Env(config, ipv6) };
}

/** The dnsmasq options of a conductor on `ip`/`iface` (its range comes from the slot it holds). */
function nodeDnsmasqOptions(config: StackConfig, ip: string, iface: string, range: SizedRange, ipv6?: string, range6?: SizedRange): DnsmasqOptions {
    const dhcp = config.provisioning.dhcp;
    const { family } = cidrParts(config.provisioning.cidr);
    return {
        header: `dnsmasq for a conductor of ${config.namespace}/${config.name} on ${ip} (${iface})`,
        interface: iface,
        serverIp: ip,
        family,
        httpUrl: urlOf("http", ip, config.ports.http, family),
        range,
        rangeFromSlot: RANGE_FROM_SLOT,
        gateway: dhcp?.gateway,
        dns: dhcp?.dns,
        extraRanges: extraDhcpRanges(config),
        knownHostsOnly: { hostsDir: DHCP_PROVIDER_PATHS.hostsDir, optsDir: DHCP_PROVIDER_PATHS.optsDir },
        leaseFile: DHCP_PROVIDER_PATHS.leaseFile,
        ...v6Of(config, ipv6, range6),
    };
}

/**
 * Multi: the per-node files every pod renders at start from its node's address and interface
 * (found on the node, or its conductors[] entry's): the image's environment and, with DHCP, the
 * node's dnsmasq file (everything but the range, which its slot's file holds).
 */
export function nodeTemplates(config: StackConfig): { env: string; dnsmasqConf?: string } {
    const { ip, interface: iface, ipv6 } = NODE_PLACEHOLDERS;
    const dhcp = config.provisioning.dhcp;
    const placeholderRange = { start: ip, end: ip, prefixLength: cidrParts(config.provisioning.cidr).prefixLength, leaseTime: dhcp?.leaseTime ?? "", size: 0 };
    // Dual-stack: the IPv6 range comes from the slot file too; only its presence matters here.
    const range6 = ipv6Range(config, { slots: 1, k: 0 });
    return {
        env: renderEnvFile(nodeEnv(config, ip, iface, ipv6)),
        ...(dhcp ? { dnsmasqConf: renderDnsmasqConf(nodeDnsmasqOptions(config, ip, iface, placeholderRange, ipv6, range6)) } : {}),
    };
}

function planListed(config: StackConfig, slices: DhcpSlotPlan | undefined): ListedConductor[] {
    const { provisioning } = config;
    const dhcp = provisioning.dhcp;
    const { prefixLength } = cidrParts(provisioning.cidr);
    return config.conductors.map((c) => {
        // Validation requires provisioning.interface with topology multi.
        const iface = c.interface ?? provisioning.interface!;
        const slice = slices?.slices.find((x) => x.node === c.name);
        const range6 = slice && slices ? ipv6Range(config, { slots: slices.slots, k: slice.slot }) : undefined;
        const slot = slice && dhcp ? { index: slice.slot, source: slice.source, range: { start: slice.start, end: slice.end, prefixLength, leaseTime: dhcp.leaseTime, size: slice.size }, ...(range6 ? { range6 } : {}) } : undefined;
        // The node's entry: only what overrides what the pod would find itself.
        const entry: EnvMap = {};
        if (c.ip) entry[WRAPPER_ENV.nodeIp] = c.ip;
        if (c.ipv6) entry[WRAPPER_ENV.nodeIpv6] = c.ipv6;
        if (c.interface) entry[WRAPPER_ENV.nodeInterface] = c.interface;
        // BMCs on another network: this node's URLs (the image's variables) and their hosts in its certificate.
        const ext = planExternal(config, c.external);
        if (ext) Object.assign(entry, externalEnv(ext), { [WRAPPER_ENV.nodeSans]: sanWords(ext.sans).join(" ") });
        // Known before deployment only when the entry names the address (dual-stack: both); else the pod finds it.
        const known = c.ip !== undefined && (!provisioning.ipv6 || c.ipv6 !== undefined);
        const dnsmasqOptions = slot && known ? nodeDnsmasqOptions(config, c.ip!, iface, slot.range, c.ipv6, range6) : undefined;
        const resolved = known
            ? { env: nodeEnv(config, c.ip!, iface, c.ipv6), ...(dnsmasqOptions && slot ? { dnsmasq: { range: slot.range, dnsmasqOptions, dnsmasqConf: renderDnsmasqConf(dnsmasqOptions) } } : {}) }
            : undefined;
        return { node: c.name, ...(c.ip ? { ip: c.ip } : {}), ...(c.ipv6 ? { ipv6: c.ipv6 } : {}), interface: iface, entry, ...(resolved ? { resolved } : {}), ...(slot ? { slot } : {}), ...(ext ? { external: ext } : {}) };
    });
}
