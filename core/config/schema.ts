/**
 * The shape of the stack configuration: zod building blocks, and the top-level keys in order, each
 * section's schema from its module (core/config/section.ts). Structural problems (wrong type, malformed address, unknown key) are reported from here, with
 * the key path and a fix; cross-field rules live in `rules/`.
 */
import { closest, distance } from "fastest-levenshtein";
import { z } from "zod";

import { cidr } from "./addresses";
import { hostName, kubeContext, labelKey, labelValue, quoted, storageClassName } from "./strings";
import { networkSections } from "./network";
import { reachSections } from "./reach";
import { tlsSection } from "./tls";
import { ironicSection } from "./ironic";
import { imagesSection } from "./images";
import { provisioningSection } from "./provisioning";
import { conductorsSection } from "./conductors";
import { resourcesSection } from "./resources";
import { imageCacheSection } from "./image-cache";
import { bmoSection } from "./bmo";
import { metricsSection } from "./metrics";
import { databaseSection } from "./database";
import { kubernetesSection } from "./kubernetes";
import { placementSection } from "./placement";
import { portsSection } from "./ports";
import { readinessSection } from "./readiness";
import { identitySections } from "./identity";

// ---------------------------------------------------------------------------------------------
// Building blocks

export { MAX_DHCP_SLOTS, MAX_EXTRA_DHCP_RANGES } from "./provisioning";

/** A strict object whose unknown keys are reported with a "did you mean" hint. */
export function strict<T extends z.ZodRawShape>(shape: T) {
    const known = Object.keys(shape);
    return z.strictObject(shape, {
        error: (iss) => {
            if (iss.code !== "unrecognized_keys") return undefined;
            const hints = iss.keys.map((k: string) => unknownKeyHint(k, known));
            return hints.join("; ");
        },
    });
}

/** `unknown key "x": did you mean "y"?`, or the list of known keys when none is close. */
export function unknownKeyHint(key: string, known: string[]): string {
    const lower = key.toLowerCase();
    const candidate = known.length > 0 ? closest(key, known) : undefined;
    const close =
        candidate !== undefined &&
        (candidate.toLowerCase() === lower || distance(lower, candidate.toLowerCase()) <= Math.max(2, Math.floor(key.length / 3)));
    const suffix = close ? `did you mean "${candidate}"?` : `known keys here: ${known.join(", ")}`;
    return `unknown key ${quoted(key.length > 100 ? `${key.slice(0, 100)}...` : key)}: ${suffix}`;
}

export const port = z
    .number({ error: "must be a port number (integer 1-65535)" })
    .int("must be a whole number")
    .min(1, "must be between 1 and 65535")
    .max(65535, "must be between 1 and 65535");

/** RFC 1123 label: Kubernetes namespace and object-name component. */
export const dnsLabel = z
    .string()
    .max(63, "must be at most 63 characters")
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit");

/** Linux interface name. */
export const ifname = z
    .string()
    .regex(/^[A-Za-z0-9_.:@-]{1,15}$/, "must be a Linux interface name (1-15 characters, no spaces or '/')");

/**
 * Kubernetes resource quantity (apimachinery's grammar, non-negative): a decimal number and an
 * optional binary (Ki..Ei), decimal (n, u, m, k, M..E) or exponent (e3) suffix.
 */
export const quantity = z
    .string()
    .max(64, "must be at most 64 characters")
    .regex(
        /^\+?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/,
        "must be a Kubernetes quantity such as 10Gi, 512Mi, 500m or 2",
    );

// ---------------------------------------------------------------------------------------------
// Sections. Each top-level key is a separate Pulumi config key (`metal3-ironic:<key>`), parsed
// separately so that a problem in one section does not hide problems in another.

export const sections = {
    /** topology, namespace, name, createNamespace, clusterDomain (identity.ts). */
    ...identitySections({ dnsLabel }),
    images: imagesSection({ strict }),
    ports: portsSection({ strict, port }),
    provisioning: provisioningSection({ strict, ifname }),
    tls: tlsSection({ strict, dnsLabel }),
    placement: placementSection({ strict, labelKey, labelValue }),
    ironic: ironicSection({ strict }),
    database: databaseSection({ strict, quantity, hostName, port, dnsLabel, storageClassName, cidr }),
    conductors: conductorsSection({ strict, ifname }),
    kubernetes: kubernetesSection({ strict, kubeContext }),
    resources: resourcesSection({ quantity, strict }),
    /** proxy, trust, imagePullSecrets (network.ts). */
    ...networkSections({ strict }),
    /** external, keepalived (reach.ts). */
    ...reachSections({ strict }),
    imageCache: imageCacheSection({ strict, quantity, port, dnsLabel, storageClassName }),
    metrics: metricsSection({ port, strict }),
    /** baremetal-operator from its release's module, wired to this Ironic (bmo.ts). */
    bmo: bmoSection({ strict }),
    /** The live check after the workload (components/readiness.ts, assets/ironic-readiness.py). */
    readiness: readinessSection({ strict }),
} as const;

/** Every section as parsed (before defaults). */
export type Sections = { [K in keyof typeof sections]: z.infer<(typeof sections)[K]> };

/** The sections that were set and parsed; a section that is absent or failed to parse is missing. */
export type ParsedSections = Partial<Sections>;

/** Known top-level keys, for the "did you mean" hint on unknown ones. */
export const TOP_LEVEL_KEYS = Object.keys(sections) as (keyof typeof sections)[];

/**
 * The configuration as a program writes it: every top-level key optional, each taking what the
 * stack config takes (`provisioning` is required by validation, not by the type, so a missing
 * one is reported with the others). The public argument of the Metal3Ironic component.
 */
export type Metal3IronicConfig = { [K in keyof typeof sections]?: z.input<(typeof sections)[K]> };
