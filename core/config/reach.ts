/**
 * Reach beyond the provisioning network: the URLs BMCs on another (out-of-band) network fetch
 * virtual media from and IPA calls back to (`external`, `conductors[].external`), more keepalived
 * VIPs with the VRRP router id and password (`keepalived`). Their schemas, defaults, resolved types
 * and documentation in one place (core/config/section.ts).
 *
 * Built from schema.ts's `strict`, handed in by schema.ts (importing schema.ts here would make an
 * import circle), as network.ts does.
 */
import * as ipaddr from "ipaddr.js";
import { z } from "zod";

import type { SchemaBlocks } from "./resources";
import { pick, type ParsedOf, type SectionsDocs } from "./section";
import { checked, controlProblem, dnsNameProblem } from "./strings";
import { objectName } from "./network";

/** An address a BMC can dial: not unspecified, loopback, multicast or link-local. */
export function reachableIpProblem(s: string): string | undefined {
    if (!ipaddr.isValid(s) || (s.includes(".") && !s.includes(":") && !ipaddr.IPv4.isValidFourPartDecimal(s))) {
        return "must be an IPv4 address (10.20.0.5) or an IPv6 address (fd00:20::5)";
    }
    const range = ipaddr.parse(s).range();
    if (["unspecified", "loopback", "multicast", "linkLocal", "broadcast"].includes(range)) return `must be an address a BMC can reach (${s} is ${range})`;
    return undefined;
}

/** The host of a URL as written: a DNS name, an IPv4 address or a bracketed IPv6 address. */
function urlHostProblem(host: string): string | undefined {
    if (host.startsWith("[")) {
        const inner = host.slice(1, -1);
        if (!host.endsWith("]") || !ipaddr.IPv6.isValid(inner)) return `${host} is not a bracketed IPv6 address`;
        return reachableIpProblem(inner);
    }
    if (host.includes(":")) return `an IPv6 address goes in brackets: https://[${host}]:6183 (the image does not bracket it, ironic-image #1058)`;
    if (/^[0-9.]+$/.test(host)) return reachableIpProblem(host);
    return dnsNameProblem(host, { upper: true });
}

/**
 * `https://host[:port]`: what Ironic hands to BMCs or IPA. https only: the virtual-media vhost and
 * the API are served over TLS only (the plain port refuses /redfish/). No path, credentials, query.
 */
export function externalUrlProblem(s: string): string | undefined {
    if (s.length > 2048) return `must be at most 2048 characters (got ${s.length})`;
    const control = controlProblem(s);
    if (control) return control;
    const fix = "must be https://host[:port] (e.g. https://ironic-vmedia.oob.example:6183 or https://[fd00:20::5]:6183), nothing after the port";
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(s);
    if (!m) return fix;
    if (m[1].toLowerCase() !== "https") return `${fix}; the scheme must be https: Ironic serves virtual media and its API over TLS only (got ${m[1]}://)`;
    if (m[3] !== "" && m[3] !== "/") return `${fix}; drop "${m[3]}" (Ironic appends its own paths)`;
    if (m[2].includes("@")) return `${fix}; no credentials (user@): BMCs and IPA fetch without them`;
    const hp = /^(\[[^\]]*\]|[^:[\]]+|[0-9a-fA-F:]+)(?::([0-9]{1,5}))?$/.exec(m[2]);
    const bareV6 = m[2].split(":").length > 2 && !m[2].startsWith("[");
    if (bareV6) return `${fix}; ${urlHostProblem(m[2])}`;
    if (!hp) return fix;
    const hostProblem = urlHostProblem(hp[1]);
    if (hostProblem) return `${fix}; ${hostProblem}`;
    if (hp[2] !== undefined && (Number(hp[2]) < 1 || Number(hp[2]) > 65535)) return `${fix}; the port must be 1-65535`;
    return undefined;
}

/** The BMC-facing address and URLs of one Ironic (single: `external`; multi: each `conductors[].external`); `{}` is unset (the CLI's default). */
export function externalBlock(strict: SchemaBlocks["strict"]) {
    return strict({
        ip: checked(reachableIpProblem).optional(),
        httpUrl: checked(externalUrlProblem).optional(),
        callbackUrl: checked(externalUrlProblem).optional(),
    });
}

/** keepalived's VRRP password: the first 8 characters count; no blanks or characters keepalived.conf reads as syntax. */
export const VRRP_PASSWORD_PATTERN = "^[A-Za-z0-9._+=@%^*-]{1,8}$";

/** The sections of this file, registered by schema.ts. */
export function reachSections({ strict }: Pick<SchemaBlocks, "strict">) {
    return {
        external: externalBlock(strict),
        keepalived: strict({
            extraVips: z
                .array(
                    strict({
                        ip: checked(reachableIpProblem),
                        interface: z.string().regex(/^[A-Za-z0-9_.:@-]{1,15}$/, "must be a Linux interface name (1-15 characters, no spaces or '/')").optional(),
                        prefix: z.number().int("must be a whole number").min(1, "must be 1-32 (IPv4) or 1-128 (IPv6)").max(128, "must be 1-32 (IPv4) or 1-128 (IPv6)").optional(),
                    }),
                )
                .max(16, "at most 16 extra VIPs")
                .optional(),
            virtualRouterId: z.number().int("must be a whole number").min(1, "must be 1-255 (VRRP's virtual router id)").max(255, "must be 1-255 (VRRP's virtual router id)").optional(),
            passwordSecret: strict({
                name: objectName("a Secret name (DNS subdomain)"),
                key: z.string().regex(/^[-._a-zA-Z0-9]{1,253}$/, "must be a Secret key (letters, digits, '-', '_', '.')").optional(),
            }).optional(),
        }),
    };
}

type Parsed = ParsedOf<ReturnType<typeof reachSections>>;

/** The BMC-facing address and URLs of an Ironic: each optional, at least one set (rules/reach.ts). */
export type ExternalConfig = z.infer<ReturnType<typeof externalBlock>>;

/** Defaults: no external address (an empty `external` is unset); no extra VIPs; the password's key `password`. */
export function resolveReach(p: Parsed) {
    const k = p.keepalived;
    const secret = k?.passwordSecret;
    return {
        /** single: what BMCs on another network reach Ironic at (multi: conductors[].external). */
        ...(p.external && Object.keys(p.external).length > 0 ? { external: p.external } : {}),
        /** keepalived beyond provisioning.ip: more VIPs, the VRRP router id, the password from the user's Secret. */
        keepalived: {
            extraVips: k?.extraVips ?? [],
            ...pick(k, ["virtualRouterId"]),
            ...(secret ? { passwordSecret: { name: secret.name, key: secret.key ?? "password" } } : {}),
        },
    };
}

/** What StackConfig holds for `keepalived`. */
export type KeepalivedConfig = ReturnType<typeof resolveReach>["keepalived"];

export const REACH_DOCS: SectionsDocs<keyof Parsed> = {
    descriptions: {
        external: "single: what BMCs on another network reach Ironic at (virtual media and IPA's callback URLs); multi: conductors[].external.",
        keepalived: "With provisioning.keepalived: extra VIPs, the VRRP virtual router id and password (your Secret).",
    },
    reference: [
        { keys: ["external.ip"], type: "IPv4 or IPv6", default: "—", notes: "single: the address BMCs reach Ironic at; derives both URLs below (`https://<ip>:<ports.vmediaTls>`, `https://<ip>:<ports.api>`, IPv6 bracketed) and goes into the certificate; see [BMCs on another network](networks-and-trust.md#bmcs-on-another-network)" },
        { keys: ["external.httpUrl"], type: "`https://host[:port]`", default: "from `external.ip`", notes: "what BMCs fetch virtual media from: `IRONIC_EXTERNAL_HTTP_URL` → `[deploy]external_http_url`" },
        { keys: ["external.callbackUrl"], type: "`https://host[:port]`", default: "from `external.ip`", notes: "where IPA booted from virtual media calls back: `IRONIC_EXTERNAL_CALLBACK_URL` → `[deploy]external_callback_url`" },
        { keys: ["keepalived.extraVips"], type: "list of `{ip, interface?, prefix?}`", default: "`[]`", notes: "more VIPs keepalived holds besides `provisioning.ip`, of its family (interface default `provisioning.interface`, prefix default /32 or /128); see [keepalived](networks-and-trust.md#more-keepalived-vips-and-vrrp)" },
        { keys: ["keepalived.virtualRouterId"], type: "1–255", default: "— (image: 1)", notes: "VRRP virtual router id: distinct per keepalived group on one L2 segment" },
        { keys: ["keepalived.passwordSecret.name"], type: "Secret name", default: "— (no VRRP auth)", notes: "your Secret holding the VRRP password (1–8 characters of letters, digits, `._+=@%^*-`); read by the pod, never by the program; IPv4 VIP only (VRRPv3, used for IPv6, has no authentication)" },
        { keys: ["keepalived.passwordSecret.key"], type: "key", default: "`password`", notes: "the key holding the password" },
    ],
};
