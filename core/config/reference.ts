/**
 * The configuration reference: what each key means to a person, written in each section's module
 * beside its schema (core/config/section.ts) and assembled here in the table's order. The source of
 *   - Pulumi.yaml's description of each top-level key (`TOP_LEVEL_DESCRIPTIONS`), and
 *   - docs/configuration.md's reference table (`REFERENCE`),
 * both written by `npm run config-schema` (tools/config-schema.ts, tools/config-reference.ts);
 * test/components/config-schema.test.ts fails when either file drifts or when a key of the schema
 * has no row (or a row names a key the schema does not know).
 *
 * In each module's rows: `keys` are spelled as `pulumi config set --path` takes them
 * (`[]` for the items of a list, `<role>` for any one segment). `type` is left out where the schema
 * says it exactly (an enum: its values are listed from the schema). `default` is checked against
 * what an empty configuration resolves to (defaults.ts) wherever that is a single value. Links are
 * relative to docs/.
 */
import { IDENTITY_DOCS } from "./identity";
import { CONDUCTORS_DOCS } from "./conductors";
import { DATABASE_DOCS } from "./database";
import { IMAGE_CACHE_DOCS } from "./image-cache";
import { METRICS_DOCS } from "./metrics";
import { BMO_DOCS } from "./bmo";
import { RESOURCES_DOCS } from "./resources";
import { IMAGES_DOCS } from "./images";
import { IRONIC_DOCS } from "./ironic";
import { KUBERNETES_DOCS } from "./kubernetes";
import { PLACEMENT_DOCS } from "./placement";
import { PORTS_DOCS } from "./ports";
import { REACH_DOCS } from "./reach";
import { NETWORK_DOCS } from "./network";
import { PROVISIONING_DOCS } from "./provisioning";
import { READINESS_DOCS } from "./readiness";
import { TLS_DOCS } from "./tls";
import type { ReferenceRow } from "./section";
import type { TOP_LEVEL_KEYS } from "./schema";

type TopKey = (typeof TOP_LEVEL_KEYS)[number];

/** One line per top-level key, for Pulumi.yaml (the nested keys are listed from the schema). */
export const TOP_LEVEL_DESCRIPTIONS: Record<TopKey, string> = {
    ...IDENTITY_DOCS.descriptions,
    images: IMAGES_DOCS.description,
    ports: PORTS_DOCS.description,
    provisioning: PROVISIONING_DOCS.description,
    tls: TLS_DOCS.description,
    placement: PLACEMENT_DOCS.description,
    ironic: IRONIC_DOCS.description,
    database: DATABASE_DOCS.description,
    conductors: CONDUCTORS_DOCS.description,
    kubernetes: KUBERNETES_DOCS.description,
    resources: RESOURCES_DOCS.description,
    proxy: NETWORK_DOCS.descriptions.proxy,
    trust: NETWORK_DOCS.descriptions.trust,
    imagePullSecrets: NETWORK_DOCS.descriptions.imagePullSecrets,
    imageCache: IMAGE_CACHE_DOCS.description,
    external: REACH_DOCS.descriptions.external,
    keepalived: REACH_DOCS.descriptions.keepalived,
    readiness: READINESS_DOCS.description,
    metrics: METRICS_DOCS.description,
    bmo: BMO_DOCS.description,
};

export type { ReferenceRow } from "./section";

export const REFERENCE: ReferenceRow[] = [
    // topology, namespace, name, createNamespace, clusterDomain
    ...IDENTITY_DOCS.reference,
    // images
    ...IMAGES_DOCS.reference,
    // ports
    ...PORTS_DOCS.reference,
    // provisioning
    ...PROVISIONING_DOCS.reference,
    // tls
    ...TLS_DOCS.reference,
    // placement
    ...PLACEMENT_DOCS.reference,
    // ironic
    ...IRONIC_DOCS.reference,
    // imageCache
    ...IMAGE_CACHE_DOCS.reference,
    // database
    ...DATABASE_DOCS.reference,
    // conductors
    ...CONDUCTORS_DOCS.reference,
    // external, keepalived
    ...REACH_DOCS.reference,
    // kubernetes
    ...KUBERNETES_DOCS.reference,
    // readiness
    ...READINESS_DOCS.reference,
    // metrics
    ...METRICS_DOCS.reference,
    // bmo
    ...BMO_DOCS.reference,
    // resources
    ...RESOURCES_DOCS.reference,
    // proxy, trust, imagePullSecrets
    ...NETWORK_DOCS.reference,
];
