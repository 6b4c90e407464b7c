/**
 * The dnsmasq configuration that runs in every Ironic pod: one pure renderer for the single and
 * the multi-conductor topology. The image's own template (contract §12) is the model; we render
 * the file ourselves so that it is visible in `pulumi preview`, testable with real dnsmasq, and
 * able to carry per-conductor settings (disjoint slices, hostsdir/optsdir, dhcp-ignore).
 */
import * as ipaddr from "ipaddr.js";

import { IPXE_FILES, PATHS } from "../contract";
import { type IpFamily, ipFamily, urlOf } from "../ip";
import { readAsset } from "./assets";
import { SCRIPT_FILES } from "../scripts";

export interface DhcpRange {
    start: string;
    end: string;
    /** Network prefix length of the provisioning CIDR. */
    prefixLength: number;
    /** dnsmasq lease time (e.g. 1h). */
    leaseTime: string;
}

/**
 * A relayed subnet's range: dnsmasq serves it to requests a DHCP relay forwards with a relay
 * address (giaddr) in that subnet, tags them `tag`, and gives them the subnet's own router and
 * DNS server (tagged options override the main range's untagged ones).
 */
export interface ExtraDhcpRange extends DhcpRange {
    /** The dnsmasq tag of the range (`relayed-<i>`): set by its dhcp-range, matched by its options. */
    tag: string;
    gateway: string;
    dns?: string;
}

export interface DnsmasqOptions {
    /** Bind to this interface; when absent, dnsmasq serves the interface that carries `serverIp`. */
    interface?: string;
    /** The address hosts are sent to: TFTP next-server and iPXE script host. */
    serverIp: string;
    /**
     * The provisioning network's family (default: `serverIp`'s, else 4). 6 renders DHCPv6: ranges
     * with a prefix length, router advertisements, and the boot file as option 59 URLs.
     */
    family?: IpFamily;
    /** Base URL of this conductor's httpd, e.g. http://172.22.0.2:6180. */
    httpUrl: string;
    /** DHCP range (absent: TFTP only, no DHCP). */
    range?: DhcpRange;
    /**
     * Multi: the `dhcp-range` line is not in this file but in the slot file of the DHCP slot the
     * conductor holds at run time (renderDnsmasqSlotConf, given to dnsmasq as a second
     * --conf-file); this text says so in its place. `range` still gives the other DHCP lines.
     */
    rangeFromSlot?: string;
    gateway?: string;
    dns?: string;
    /** Relayed subnets: their ranges (multi: in the slot file, like the main range) and options. */
    extraRanges?: ExtraDhcpRange[];
    /**
     * Answer only hosts Ironic has written into these directories (multi-conductor). The
     * directories are shared with the ironic container, whose `dnsmasq` DHCP provider writes them.
     */
    knownHostsOnly?: { hostsDir: string; optsDir: string };
    /** File system locations; defaults are the image's. Tests point them at scratch dirs. */
    tftpRoot?: string;
    leaseFile?: string;
    /** A comment line naming what the file is for. */
    header?: string;
    /**
     * Dual-stack: the IPv6 side of an IPv4 network. DHCPv6 (its range, RA, option 59 boot URLs on
     * `serverIp`, bracketed) is served next to DHCPv4 when both ranges are given.
     */
    ipv6?: Ipv6Side;
}

/** The IPv6 side of a dual-stack dnsmasq: this conductor's IPv6 address, its httpd there, the DHCPv6 range. */
export interface Ipv6Side {
    serverIp: string;
    /** Base URL of this conductor's httpd on its IPv6 address, e.g. http://[fd00:1:2:3::2]:6180. */
    httpUrl: string;
    range?: DhcpRange;
    dns?: string;
}

export function netmaskOf(prefixLength: number): string {
    return ipaddr.IPv4.subnetMaskFromPrefixLength(prefixLength).toString();
}

/** Render dnsmasq.conf. Lines are in a fixed order; the output is byte-stable for equal input. */
export function renderDnsmasqConf(o: DnsmasqOptions): string {
    const lines: string[] = [];
    if (o.header) lines.push(`# ${o.header}`);
    lines.push("# Rendered by metal3-ironic. Change the stack configuration, not this file.");
    // No DNS service: only DHCP and TFTP.
    lines.push("port=0");
    if (o.interface) {
        lines.push(`interface=${o.interface}`);
    } else {
        lines.push(`listen-address=${o.serverIp}`);
        if (o.ipv6) lines.push(`listen-address=${o.ipv6.serverIp}`);
    }
    lines.push("except-interface=lo");
    // Follow addresses that appear later (keepalived VIP, slow NICs) without a restart.
    lines.push("bind-dynamic");
    lines.push("enable-tftp");
    lines.push(`tftp-root=${o.tftpRoot ?? PATHS.tftpRoot}`);
    lines.push(`dhcp-leasefile=${o.leaseFile ?? PATHS.dnsmasqLeaseFile}`);

    if (o.range) {
        const r = o.range;
        lines.push("log-dhcp");
        lines.push(o.rangeFromSlot ? `# dhcp-range: ${o.rangeFromSlot}` : dhcpRangeLine(r));
        if (familyOf(o) === 6) lines.push(...v6Options(o, knownHostsLines(o)));
        else lines.push(...v4Options(o));
        const v6 = o.ipv6;
        if (v6?.range) {
            // Dual-stack: DHCPv6 on the IPv6 side; the known-hosts lines above apply to both.
            lines.push("# DHCPv6 (dual-stack): this conductor's IPv6 address and its slice of provisioning.ipv6.dhcp");
            lines.push(o.rangeFromSlot ? `# dhcp-range (IPv6): ${o.rangeFromSlot}` : dhcpRangeLine(v6.range));
            lines.push(...v6Options({ ...o, ...v6 }, []));
        }
    }
    return lines.join("\n") + "\n";
}

const familyOf = (o: DnsmasqOptions): IpFamily => o.family ?? ipFamily(o.serverIp) ?? 4;

/**
 * Only hosts listed in the hostsdir (i.e. owned by this conductor) get an answer, DHCPv4 and DHCPv6
 * alike. `no-ping`: dnsmasq otherwise pings an address before offering it to a host new to it and
 * runs one such check at a time, so hosts that PXE-boot together wait in line, about 3 s each
 * (measured with dnsmasq 2.90: 20 known hosts asking at once got their first offer after 18 s at the
 * median; with no-ping after 0.4 ms; test/scale/). Each conductor offers only from its own slice,
 * which no other server hands out; an address in it can be in use only by a machine configured
 * statically inside the DHCP range (docs/networks-and-trust.md says not to).
 */
function knownHostsLines(o: DnsmasqOptions): string[] {
    if (!o.knownHostsOnly) return [];
    return [`dhcp-hostsdir=${o.knownHostsOnly.hostsDir}`, `dhcp-optsdir=${o.knownHostsOnly.optsDir}`, "dhcp-ignore=tag:!known", "no-ping"];
}

/** DHCPv4: router and DNS options, relayed subnets, PXE ROMs get iPXE over TFTP, iPXE the boot script over HTTP. */
function v4Options(o: DnsmasqOptions): string[] {
    const lines: string[] = [];
    // An empty option suppresses it: without a gateway hosts get no default route, and
    // without a DNS server no resolver (dnsmasq would otherwise offer itself).
    lines.push(o.gateway ? `dhcp-option=option:router,${o.gateway}` : "dhcp-option=option:router");
    lines.push(o.dns ? `dhcp-option=option:dns-server,${o.dns}` : "dhcp-option=option:dns-server");
    for (const x of o.extraRanges ?? []) {
        lines.push(o.rangeFromSlot ? `# dhcp-range of ${x.tag}: ${o.rangeFromSlot}` : dhcpRangeLine(x));
        lines.push(`dhcp-option=tag:${x.tag},option:router,${x.gateway}`);
        lines.push(x.dns ? `dhcp-option=tag:${x.tag},option:dns-server,${x.dns}` : `dhcp-option=tag:${x.tag},option:dns-server`);
    }
    lines.push(...knownHostsLines(o));
    // Clients that are already iPXE send option 175 (Ironic's dnsmasq provider relies on this tag).
    lines.push("dhcp-match=set:ipxe,175");
    lines.push("dhcp-match=set:efi,option:client-arch,7");
    lines.push("dhcp-match=set:efi,option:client-arch,9");
    lines.push("dhcp-match=set:efi-arm64,option:client-arch,11");
    lines.push(`dhcp-boot=tag:!ipxe,tag:efi,/${IPXE_FILES.efiX86_64},,${o.serverIp}`);
    lines.push(`dhcp-boot=tag:!ipxe,tag:efi-arm64,/${IPXE_FILES.efiArm64},,${o.serverIp}`);
    lines.push(`dhcp-boot=tag:!ipxe,tag:!efi,tag:!efi-arm64,/${IPXE_FILES.bios},,${o.serverIp}`);
    lines.push(`dhcp-boot=tag:ipxe,${o.httpUrl}/boot.ipxe`);
    return lines;
}

/**
 * DHCPv6 (stateful): dnsmasq advertises the range's prefix with the "managed" flag, so hosts ask
 * DHCPv6 for an address, and with router lifetime 0, so it never becomes a default router (the
 * image's `ra-param=<iface>,0,0`). The boot file is a URL (option 59): a PXE ROM (vendor class
 * 343 PXEClient, or client arch in option 61) gets iPXE over TFTP, iPXE (user class "iPXE") the
 * boot script over HTTP. DHCPv6 has no router option: routes come from the network's routers.
 */
function v6Options(o: { interface?: string; serverIp: string; httpUrl: string; dns?: string }, known: string[]): string[] {
    const tftp = urlOf("tftp", o.serverIp, undefined, 6);
    return [
        "enable-ra",
        `ra-param=${o.interface ?? "*"},0,0`,
        // No DNS line without provisioning.dhcp.dns: with port=0 dnsmasq offers no resolver of its
        // own over DHCPv6, and an empty option 23 (what "option6:dns-server" with no value sends)
        // makes OVMF's PXEv6 (edk2 with the CVE-2023-45234 fix) drop the reply: PXE-E07.
        ...(o.dns ? [`dhcp-option=option6:dns-server,[${o.dns}]`] : []),
        ...known,
        "dhcp-vendorclass=set:pxe6,enterprise:343,PXEClient",
        "dhcp-userclass=set:ipxe6,iPXE",
        "dhcp-match=set:efi6,option6:61,7",
        "dhcp-match=set:efi6,option6:61,9",
        "dhcp-match=set:efi6-arm64,option6:61,11",
        // Mutually exclusive tag sets: exactly one bootfile-url matches a client, whatever the order.
        `dhcp-option=tag:pxe6,tag:!efi6,tag:!efi6-arm64,tag:!ipxe6,option6:bootfile-url,${tftp}/${IPXE_FILES.efiX86_64}`,
        `dhcp-option=tag:efi6,tag:!efi6-arm64,tag:!ipxe6,option6:bootfile-url,${tftp}/${IPXE_FILES.efiX86_64}`,
        `dhcp-option=tag:efi6-arm64,tag:!ipxe6,option6:bootfile-url,${tftp}/${IPXE_FILES.efiArm64}`,
        `dhcp-option=tag:ipxe6,option6:bootfile-url,${o.httpUrl}/boot.ipxe`,
    ];
}

function dhcpRangeLine(r: DhcpRange & { tag?: string }): string {
    // IPv6: a prefix length, not a netmask (man dnsmasq, --dhcp-range).
    const mask = ipFamily(r.start) === 6 ? String(r.prefixLength) : netmaskOf(r.prefixLength);
    return `dhcp-range=${r.tag ? `set:${r.tag},` : ""}${r.start},${r.end},${mask},${r.leaseTime}`;
}

/**
 * Multi: the file of one DHCP slot, only its slice of the range and of each relayed subnet's range
 * (the same slot in every range, the IPv6 one of dual-stack too; read after the node's own file, which carries their options).
 */
export function renderDnsmasqSlotConf(range: DhcpRange, header: string, extraRanges: (DhcpRange & { tag: string })[] = [], ipv6Range?: DhcpRange): string {
    const lines = [`# ${header}`, "# Rendered by metal3-ironic. Change the stack configuration, not this file.", dhcpRangeLine(range), ...extraRanges.map(dhcpRangeLine)];
    return [...lines, ...(ipv6Range ? [dhcpRangeLine(ipv6Range)] : [])].join("\n") + "\n";
}

/**
 * The dnsmasq container's start script, assets/start-dnsmasq.sh (a real file, linted with the
 * other assets). It prepares what the image's own /bin/rundnsmasq prepares (TFTP root with the
 * iPXE binaries, HTTP root, lease file) and then runs dnsmasq on exactly our rendered file.
 *
 * Four words of the file are filled in here: `configFile`, a shell word — a fixed path (single)
 * or an expression resolved at start from the node name (multi) —, `slotConf`, the shell word of
 * the held slot's file (multi: resolved from DHCP_SLOT, which the slot agent sets; single: none),
 * the lease file and its directory.
 */
export function renderDnsmasqStartScript(configFile: string, opts: { leaseFile?: string; slotConf?: string } = {}): string {
    const leaseFile = opts.leaseFile ?? PATHS.dnsmasqLeaseFile;
    const words: Record<string, string> = { __CONF__: configFile, __SLOT_CONF__: opts.slotConf ?? '""', __LEASE_DIR__: dirname(leaseFile), __LEASE_FILE__: leaseFile };
    return readAsset(SCRIPT_FILES.dnsmasqStart).replace(/__(CONF|SLOT_CONF|LEASE_DIR|LEASE_FILE)__/g, (w) => words[w]);
}

function dirname(p: string): string {
    return p.slice(0, p.lastIndexOf("/"));
}
