/**
 * `provisioning`: the provisioning network: Ironic's address and CIDR (single), the interface,
 * keepalived, DHCP (ranges, slots of multi, relayed subnets) and the IPv6 side of a dual-stack
 * network. Its schema, defaults, resolved type and documentation in one place (core/config/section.ts).
 */
import { z } from "zod";

import { cidr, ipAddress, relayIpv4 } from "./addresses";
import type { SectionBlocks, SectionDocs } from "./section";

/** Upper bound of `provisioning.dhcp.extraRanges` (relayed subnets): each is a dnsmasq tag and a few lines per file. */
export const MAX_EXTRA_DHCP_RANGES = 32;
/** Upper bound of `provisioning.dhcp.slots` (and so of any DHCP slot number + 1). */
export const MAX_DHCP_SLOTS = 64;

/** The DHCP range (single) or each slice (multi) must offer at least this many addresses unless `provisioning.dhcp.minSize` says otherwise. */
export const DEFAULT_MIN_DHCP_RANGE = 8;
/**
 * Slot count of a multi-conductor range whose `provisioning.dhcp.slots` is unset, on the stack's
 * first run: 4, for a three-node control plane plus one node a rolling replacement adds before it
 * removes one (any node the placement selects runs a conductor, listed or not); one more than the
 * listed conductors when more are listed (at most MAX_DHCP_SLOTS). Later runs keep the count they
 * find in the previous run's state (core/plan/slots.ts).
 */
export const DEFAULT_DHCP_SLOTS = 4;

export function defaultDhcpSlots(conductors: number): number {
    return Math.min(MAX_DHCP_SLOTS, Math.max(DEFAULT_DHCP_SLOTS, conductors + 1));
}

/** dnsmasq lease time: seconds, or a number with m/h/d/w, or "infinite". */
const leaseTime = z
    .string()
    .regex(/^(infinite|[0-9]+[smhdw]?)$/, "must be a dnsmasq lease time such as 3600, 45m, 1h, 1d or infinite");

/** The `provisioning` section; `ifname` is the schema's Linux interface name (schema.ts). */
export function provisioningSection({ strict, ifname }: SectionBlocks & { ifname: z.ZodString }) {
    return strict({
        interface: ifname.optional(),
        ip: ipAddress.optional(),
        cidr: cidr,
        keepalived: z.boolean().optional(),
        bindInterface: z.boolean().optional(),
        dhcp: strict({
            rangeStart: ipAddress,
            rangeEnd: ipAddress,
            gateway: ipAddress.optional(),
            dns: ipAddress.optional(),
            leaseTime: leaseTime.optional(),
            minSize: z.number().int().min(1).optional(),
            slots: z.number().int().min(1).max(MAX_DHCP_SLOTS).optional(),
            reslice: z.boolean().optional(),
            extraRanges: z
                .array(strict({ subnet: cidr, rangeStart: relayIpv4, rangeEnd: relayIpv4, gateway: relayIpv4, dns: relayIpv4.optional(), leaseTime: leaseTime.optional() }))
                .max(MAX_EXTRA_DHCP_RANGES)
                .optional(),
        }).optional(),
        /** Dual-stack: the IPv6 side of an IPv4 provisioning network (rules/dual-stack.ts). */
        ipv6: strict({
            cidr: cidr,
            ip: ipAddress.optional(),
            dhcp: strict({ rangeStart: ipAddress, rangeEnd: ipAddress, dns: ipAddress.optional(), leaseTime: leaseTime.optional() }).optional(),
        }).optional(),
    });
}

type Parsed = z.infer<ReturnType<typeof provisioningSection>> | undefined;
type ParsedDhcp = NonNullable<NonNullable<Parsed>["dhcp"]>;

/** A relayed subnet's DHCP range: dnsmasq answers requests a relay forwards with a giaddr in `subnet`. */
export interface ExtraDhcpRangeConfig {
    subnet: string;
    rangeStart: string;
    rangeEnd: string;
    /** The subnet's router (usually the relay itself): how its hosts reach the conductors. */
    gateway: string;
    dns?: string;
    /** Default: the main range's lease time. */
    leaseTime: string;
}

/** The range, its options, lease time and size floor; multi: its slots and whether this run may re-slice. */
export interface DhcpConfig {
    rangeStart: string;
    rangeEnd: string;
    gateway?: string;
    dns?: string;
    leaseTime: string;
    /** Smallest acceptable range (single) or slice (multi). */
    minSize: number;
    /**
     * Number of equal slices the range is cut into (multi), when set. Unset, the planner resolves
     * it: the previous run's count, else one per conductor plus one (core/plan/slots.ts).
     */
    slots?: number;
    /** Multi: allow this run to cut the range anew when the range or slot count changed. */
    reslice: boolean;
    /** Relayed subnets (hosts behind a DHCP relay), each with its own range; in multi sliced like the main range. */
    extraRanges: ExtraDhcpRangeConfig[];
}

function resolveDhcp(dhcp: ParsedDhcp): DhcpConfig {
    return {
        rangeStart: dhcp.rangeStart,
        rangeEnd: dhcp.rangeEnd,
        gateway: dhcp.gateway,
        dns: dhcp.dns,
        leaseTime: dhcp.leaseTime ?? "1h",
        minSize: dhcp.minSize ?? DEFAULT_MIN_DHCP_RANGE,
        slots: dhcp.slots,
        reslice: dhcp.reslice ?? false,
        extraRanges: (dhcp.extraRanges ?? []).map((r) => ({
            subnet: r.subnet,
            rangeStart: r.rangeStart,
            rangeEnd: r.rangeEnd,
            gateway: r.gateway,
            ...(r.dns !== undefined ? { dns: r.dns } : {}),
            leaseTime: r.leaseTime ?? dhcp.leaseTime ?? "1h",
        })),
    };
}

/** Dual-stack: IPv6 next to an IPv4 provisioning.cidr; Ironic's API, http_url and JSON-RPC stay on IPv4. */
export interface Ipv6Config {
    cidr: string;
    /** Single: Ironic's IPv6 address (multi: conductors[].ipv6 or found on the node). */
    ip?: string;
    /** DHCPv6 next to provisioning.dhcp (multi: sliced with the same slots). */
    dhcp?: { rangeStart: string; rangeEnd: string; dns?: string; leaseTime: string };
}

function resolveIpv6(v6: NonNullable<NonNullable<Parsed>["ipv6"]>, leaseTime: string | undefined): Ipv6Config {
    const d = v6.dhcp;
    return {
        cidr: v6.cidr,
        ...(v6.ip !== undefined ? { ip: v6.ip } : {}),
        ...(d ? { dhcp: { rangeStart: d.rangeStart, rangeEnd: d.rangeEnd, ...(d.dns !== undefined ? { dns: d.dns } : {}), leaseTime: d.leaseTime ?? leaseTime ?? "1h" } } : {}),
    };
}

/** Defaults: no keepalived, no DHCP (virtual media only), lease time 1h; `ip` and `cidr` are required by the rules, "" here when missing. */
export function resolveProvisioning(prov: Parsed) {
    const dhcp = prov?.dhcp;
    return {
        interface: prov?.interface,
        /** Ironic's address (single); unused with multi, where each conductor has its own. */
        ip: prov?.ip ?? "",
        cidr: prov?.cidr ?? "",
        keepalived: prov?.keepalived ?? false,
        /** httpd's API and boot-file ports on the provisioning address only (LISTEN_ALL_INTERFACES=false), the API Service's endpoints those addresses. */
        bindInterface: prov?.bindInterface ?? false,
        dhcp: dhcp ? resolveDhcp(dhcp) : undefined,
        /** Dual-stack: the IPv6 side of an IPv4 provisioning network (DHCPv6, my_ipv6, certificates). */
        ...(prov?.ipv6 ? { ipv6: resolveIpv6(prov.ipv6, dhcp?.leaseTime) } : {}),
    };
}

/** What StackConfig holds for `provisioning`. */
export type ProvisioningConfig = ReturnType<typeof resolveProvisioning>;

export const PROVISIONING_DOCS: SectionDocs = {
    description: "The provisioning network (required): Ironic's address and CIDR, optional DHCP.",
    reference: [
        { keys: ["provisioning.ip"], type: "IPv4 or IPv6", default: "**required** (single)", notes: "Ironic's address on the provisioning network (the VIP with keepalived); not used with multi; of `provisioning.cidr`'s family" },
        { keys: ["provisioning.cidr"], type: "IPv4 or IPv6 CIDR", default: "**required**", notes: "`172.22.0.0/24` or `fd00:1:2:3::/64` (IPv6: a prefix of /64 or longer, not link-local; see [IPv6](networks-and-trust.md#ipv6-provisioning-networks)); every provisioning address is of its family; dual-stack: an IPv4 CIDR here and the IPv6 side in `provisioning.ipv6`" },
        { keys: ["provisioning.interface"], type: "interface name", default: "—", notes: "`eth1`; dnsmasq binds to it (else to `provisioning.ip`); required with keepalived" },
        { keys: ["provisioning.keepalived"], type: "bool", default: "`false`", notes: "run keepalived to hold `provisioning.ip` as a VIP" },
        { keys: ["provisioning.bindInterface"], type: "bool", default: "`false`", notes: "the API (`ports.api`) and the boot files (`ports.http`) listen on Ironic's provisioning address only (single: `provisioning.ip`; multi: each node's), not on every address of the node, and the API Service's endpoints are those addresses (single: `provisioning.ip`; multi: the `conductors[].ip` listed; baremetal-operator's node must reach them); not with `provisioning.ipv6`, `external.ip`/`external.callbackUrl` (`conductors[].external.*`), or a readiness check through `kubectl port-forward`; see [Binding httpd](security.md#binding-httpd-to-the-provisioning-address)" },
        { keys: ["provisioning.dhcp"], type: "object", default: "— (no DHCP: virtual media only)", notes: "omit for virtual-media-only networks" },
        { keys: ["provisioning.dhcp.rangeStart","provisioning.dhcp.rangeEnd"], type: "IPv4 or IPv6", default: "**required** with `dhcp`", notes: "inside the CIDR, ordered, not containing `provisioning.ip` or the gateway" },
        { keys: ["provisioning.dhcp.gateway"], type: "IPv4", default: "— (no router option)", notes: "IPv4 only: DHCPv6 has no router option (IPv6 hosts take their route from the network router's advertisements)" },
        { keys: ["provisioning.dhcp.dns"], type: "IPv4 or IPv6", default: "— (no DNS option)" },
        { keys: ["provisioning.dhcp.leaseTime"], type: "dnsmasq time", default: "`1h`", notes: "`3600`, `45m`, `1d`, `infinite`" },
        { keys: ["provisioning.dhcp.minSize"], type: "int", default: "`8`", notes: "smallest acceptable range (single) or slice (multi)" },
        { keys: ["provisioning.dhcp.slots"], type: "1–64", default: "the previous run's count, else 4 (or listed conductors + 1 when more)", notes: "multi: number of equal slices; changing it on a deployed stack needs `reslice` (see [Re-slicing](topologies.md#re-slicing))" },
        { keys: ["provisioning.dhcp.reslice"], type: "bool", default: "`false`", notes: "multi: allow this run to cut the range anew when `rangeStart`, `rangeEnd` or `slots` changed; remove it after the re-slice" },
        { keys: ["provisioning.dhcp.extraRanges[]"], type: "list", default: "`[]`", notes: "IPv4 provisioning networks only: relayed subnets, each with its own range (see [Relayed subnets](networks-and-trust.md#relayed-subnets-dhcp-relay)); multi: sliced like the main range" },
        { keys: ["provisioning.dhcp.extraRanges[].subnet"], type: "IPv4 CIDR", default: "**required**", notes: "the relayed subnet; overlaps neither `provisioning.cidr` nor another entry" },
        { keys: ["provisioning.dhcp.extraRanges[].rangeStart","provisioning.dhcp.extraRanges[].rangeEnd"], type: "IPv4", default: "**required**", notes: "usable addresses of `subnet`, ordered" },
        { keys: ["provisioning.dhcp.extraRanges[].gateway"], type: "IPv4", default: "**required**", notes: "the subnet's router (usually the relay), inside `subnet`, outside the range" },
        { keys: ["provisioning.dhcp.extraRanges[].dns"], type: "IPv4", default: "— (no DNS option)" },
        { keys: ["provisioning.dhcp.extraRanges[].leaseTime"], type: "dnsmasq time", default: "`provisioning.dhcp.leaseTime`" },
        { keys: ["provisioning.ipv6"], type: "object", default: "— (one family)", notes: "dual-stack: the IPv6 side of an IPv4 `provisioning.cidr` (Ironic's API, `http_url` and JSON-RPC stay IPv4; `my_ipv6`, DHCPv6 and IPv6 boot URLs per conductor); no keepalived; see [Dual-stack](networks-and-trust.md#dual-stack-provisioning-networks)" },
        { keys: ["provisioning.ipv6.cidr"], type: "IPv6 CIDR", default: "**required** with `ipv6`", notes: "the link's /64 (or longer), not link-local" },
        { keys: ["provisioning.ipv6.ip"], type: "IPv6", default: "**required** (single)", notes: "Ironic's IPv6 address (`[DEFAULT]my_ipv6`, in its certificate); multi: `conductors[].ipv6` instead" },
        { keys: ["provisioning.ipv6.dhcp.rangeStart","provisioning.ipv6.dhcp.rangeEnd"], type: "IPv6", default: "— (no DHCPv6)", notes: "needs `provisioning.dhcp`; inside `ipv6.cidr`, ordered, not containing Ironic's IPv6 addresses; multi: cut into the same slots as the IPv4 range (a conductor serves slot k of both)" },
        { keys: ["provisioning.ipv6.dhcp.dns"], type: "IPv6", default: "— (no DNS option)" },
        { keys: ["provisioning.ipv6.dhcp.leaseTime"], type: "dnsmasq time", default: "`provisioning.dhcp.leaseTime`" },
    ],
};
