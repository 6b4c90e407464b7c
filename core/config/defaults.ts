/** Defaults: what an unset key means. docs/configuration.md lists the same values (tools/config-reference.ts checks them). */
import { resolveImageCache } from "./image-cache";
import { resolveBmo } from "./bmo";
import { resolveMetrics } from "./metrics";
import { resolveResources } from "./resources";
import { resolveDatabase } from "./database";
import type { ParsedSections } from "./schema";
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
import { resolveProvisioning } from "./provisioning";
import { resolveConductors } from "./conductors";

export { DEFAULT_DHCP_SLOTS, DEFAULT_MIN_DHCP_RANGE, defaultDhcpSlots } from "./provisioning";

/** The defaulted configuration. Sections that are absent (or failed to parse) get every default. */
export function applyDefaults(p: ParsedSections) {
    return {
        ...resolveIdentity(p),
        images: resolveImages(p.images, p.bmo?.version),
        ports: resolvePorts(p.ports),
        provisioning: resolveProvisioning(p.provisioning),
        tls: resolveTls(p.tls),
        placement: resolvePlacement(p.placement),
        ironic: resolveIronic(p.ironic),
        database: resolveDatabase(p.database),
        conductors: resolveConductors(p.conductors),
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
