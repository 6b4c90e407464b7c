/** IPv4 arithmetic on top of ipaddr.js (parsing and validation stay in ipaddr.js). */
import * as ipaddr from "ipaddr.js";

/** IPv4 address as an unsigned 32-bit number. */
export function ipToNumber(ip: ipaddr.IPv4 | string): number {
    const a = typeof ip === "string" ? ipaddr.IPv4.parse(ip) : ip;
    return a.octets.reduce((n, o) => n * 256 + o, 0);
}

export function numberToIp(n: number): string {
    return new ipaddr.IPv4([24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256)).toString();
}
