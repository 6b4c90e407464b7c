/** Address and CIDR blocks of the schema (either family; the rules in rules/ip-family.ts check that families agree). */
import * as ipaddr from "ipaddr.js";
import { z } from "zod";

import { ipFamily } from "../ip";

/** An address of either family: IPv4 dotted quad or IPv6 (without a zone); the rules check families agree. */
export const ipAddress = z.string().refine((s) => ipFamily(s) !== undefined, {
    message: "not a valid IP address (expected an IPv4 dotted quad such as 172.22.0.2 or an IPv6 address such as fd00:1::2)",
});

/** Relayed subnets (provisioning.dhcp.extraRanges) are IPv4 only. */
export const relayIpv4 = z.string().refine((s) => ipaddr.IPv4.isValidFourPartDecimal(s), {
    message: "not a valid IPv4 address (expected dotted quad such as 172.22.1.10; relayed subnets are IPv4 only for now)",
});

export const cidr = z.string().refine(
    (s) => {
        try {
            const [addr] = ipaddr.parseCIDR(s);
            const written = s.split("/")[0];
            return addr.kind() === "ipv4" ? ipaddr.IPv4.isValidFourPartDecimal(written) : ipFamily(written) === 6;
        } catch {
            return false;
        }
    },
    { message: "not a valid CIDR (expected network/prefix such as 172.22.0.0/24 or fd00:1::/64)" },
);
