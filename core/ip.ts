/**
 * IP arithmetic of both families on top of ipaddr.js (parsing and validation stay in ipaddr.js):
 * IPv4 as a 32-bit number, either family as a BigInt (IPv6 needs 128 bits), and the host part of
 * a URL (IPv6 in brackets, RFC 3986).
 */
import * as ipaddr from "ipaddr.js";

export type IpFamily = 4 | 6;

/** IPv4 address as an unsigned 32-bit number. */
export function ipToNumber(ip: ipaddr.IPv4 | string): number {
    const a = typeof ip === "string" ? ipaddr.IPv4.parse(ip) : ip;
    return a.octets.reduce((n, o) => n * 256 + o, 0);
}

export function numberToIp(n: number): string {
    return new ipaddr.IPv4([24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256)).toString();
}

/** 4 or 6 for an IPv4 dotted quad or an IPv6 address (without a zone), undefined otherwise. */
export function ipFamily(s: string): IpFamily | undefined {
    if (ipaddr.IPv4.isValidFourPartDecimal(s)) return 4;
    return !s.includes("%") && ipaddr.IPv6.isValid(s) ? 6 : undefined;
}

/** Either family as an unsigned BigInt (the address must be valid). */
export function ipToBigInt(ip: string | ipaddr.IPv4 | ipaddr.IPv6): bigint {
    const a = typeof ip === "string" ? ipaddr.parse(ip) : ip;
    return a.toByteArray().reduce((n, b) => (n << 8n) | BigInt(b), 0n);
}

export function bigIntToIp(n: bigint, family: IpFamily): string {
    const bytes: number[] = [];
    for (let i = 0; i < (family === 4 ? 4 : 16); i++) {
        bytes.unshift(Number(n & 255n));
        n >>= 8n;
    }
    return ipaddr.fromByteArray(bytes).toString();
}

/** Addresses from `start` to `end` inclusive (0 when reversed). */
export function rangeSize(start: string, end: string): bigint {
    const d = ipToBigInt(end) - ipToBigInt(start) + 1n;
    return d > 0n ? d : 0n;
}

/** For sorting: IPv4 before IPv6, then by value. */
export function compareIps(a: string, b: string): number {
    const fa = ipFamily(a) ?? 0;
    const fb = ipFamily(b) ?? 0;
    if (fa !== fb) return fa - fb;
    const d = ipToBigInt(a) - ipToBigInt(b);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The same address, whatever its spelling (fd00::1 and fd00:0::1). */
export function sameIp(a: string, b: string): boolean {
    return ipFamily(a) !== undefined && ipFamily(a) === ipFamily(b) && ipToBigInt(a) === ipToBigInt(b);
}

/** The host of a URL: an IPv6 address in brackets, anything else (IPv4, a name, a placeholder) as it is. */
export function urlHost(host: string, family?: IpFamily): string {
    // `family` 6 brackets what is not an address yet (a placeholder the start wrapper fills in).
    return ipFamily(host) === 6 || (family === 6 && ipFamily(host) === undefined) ? `[${host}]` : host;
}

/** `scheme://host:port` with the host bracketed when it is an IPv6 address. Every URL built from an address goes through here. */
export function urlOf(scheme: "http" | "https" | "tftp", host: string, port?: number, family?: IpFamily): string {
    return `${scheme}://${urlHost(host, family)}${port === undefined ? "" : `:${port}`}`;
}

/** A size for messages and comparisons with small counts (IPv6 ranges can exceed 2^53). */
export function sizeNumber(n: bigint): number {
    return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

/** A CIDR's network address as written, prefix length and family (the CIDR must be valid). */
export function cidrParts(cidr: string): { network: string; prefixLength: number; family: IpFamily } {
    const [addr, prefixLength] = ipaddr.parseCIDR(cidr);
    return { network: addr.toString(), prefixLength, family: addr.kind() === "ipv4" ? 4 : 6 };
}
