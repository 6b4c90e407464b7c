/** Defaults: what an unset key means. docs/configuration.md lists the same values (tools/config-reference.ts checks them). */
import { resolveImageCache } from "./image-cache";
import { resolveBmo } from "./bmo";
import { resolveMetrics } from "./metrics";
import { resolveResources } from "./resources";
import { resolveDatabase } from "./database";
import { MAX_DHCP_SLOTS, type ParsedSections } from "./schema";
import type { StackConfig } from "./types";
import { resolveKubernetes } from "./kubernetes";
import { resolvePlacement } from "./placement";
import { resolvePorts } from "./ports";
import { resolveReadiness } from "./readiness";
import { resolveIdentity } from "./identity";
import { resolveTls } from "./tls";
import { resolveIronic } from "./ironic";
import { resolveImages } from "./images";
import { resolveReach } from "./reach";
import { resolveNetwork } from "./network";

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


/** The defaulted configuration. Sections that are absent (or failed to parse) get every default. */
export function applyDefaults(p: ParsedSections): StackConfig {
    return {
        ...resolveIdentity(p),
        images: resolveImages(p.images, p.bmo?.version),
        ports: resolvePorts(p.ports),
        provisioning: provisioningDefaults(p.provisioning),
        tls: resolveTls(p.tls),
        placement: resolvePlacement(p.placement),
        ironic: resolveIronic(p.ironic),
        database: resolveDatabase(p.database),
        conductors: p.conductors ?? [],
        kubernetes: resolveKubernetes(p.kubernetes),
        resources: resolveResources(p.resources),
        ...resolveNetwork(p),
        imageCache: resolveImageCache(p.imageCache, p.ironic?.ipa ?? {}),
        metrics: resolveMetrics(p.metrics),
        bmo: resolveBmo(p.bmo),
        ...resolveReach(p),
        readiness: resolveReadiness(p.readiness),
    };
}

function provisioningDefaults(prov: ParsedSections["provisioning"]): StackConfig["provisioning"] {
    const dhcp = prov?.dhcp;
    return {
        interface: prov?.interface,
        ip: prov?.ip ?? "",
        cidr: prov?.cidr ?? "",
        keepalived: prov?.keepalived ?? false,
        dhcp: dhcp
            ? {
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
              }
            : undefined,
        ...(prov?.ipv6 ? { ipv6: ipv6Defaults(prov.ipv6, dhcp?.leaseTime) } : {}),
    };
}

function ipv6Defaults(v6: NonNullable<NonNullable<ParsedSections["provisioning"]>["ipv6"]>, leaseTime: string | undefined): NonNullable<StackConfig["provisioning"]["ipv6"]> {
    const d = v6.dhcp;
    return {
        cidr: v6.cidr,
        ...(v6.ip !== undefined ? { ip: v6.ip } : {}),
        ...(d ? { dhcp: { rangeStart: d.rangeStart, rangeEnd: d.rangeEnd, ...(d.dns !== undefined ? { dns: d.dns } : {}), leaseTime: d.leaseTime ?? leaseTime ?? "1h" } } : {}),
    };
}
