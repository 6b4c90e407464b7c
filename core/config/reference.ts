/**
 * The configuration reference: what each key means to a person, next to the schema (schema.ts)
 * that says what it accepts. The single source of
 *   - Pulumi.yaml's description of each top-level key (`TOP_LEVEL_DESCRIPTIONS`), and
 *   - docs/configuration.md's reference table (`REFERENCE`),
 * both written by `npm run config-schema` (tools/config-schema.ts, tools/config-reference.ts);
 * test/components/config-schema.test.ts fails when either file drifts or when a key of the schema
 * has no row here (or a row names a key the schema does not know).
 *
 * Rows are in the table's order. `keys` are spelled as `pulumi config set --path` takes them
 * (`[]` for the items of a list, `<role>` for any one segment). `type` is left out where the schema
 * says it exactly (an enum: its values are listed from the schema). `default` is checked against
 * what an empty configuration resolves to (defaults.ts) wherever that is a single value. Links are
 * relative to docs/.
 */
import { IDENTITY_DESCRIPTIONS, IDENTITY_REFERENCE } from "./identity";
import { CONDUCTORS_DOCS } from "./conductors";
import { DATABASE_DOCS } from "./database";
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
import type { ResourceRole } from "./resources";
import type { ReferenceRow } from "./section";
import type { TOP_LEVEL_KEYS } from "./schema";

type TopKey = (typeof TOP_LEVEL_KEYS)[number];

/** One line per top-level key, for Pulumi.yaml (the nested keys are listed from the schema). */
export const TOP_LEVEL_DESCRIPTIONS: Record<TopKey, string> = {
    ...IDENTITY_DESCRIPTIONS,
    images: IMAGES_DOCS.description,
    ports: PORTS_DOCS.description,
    provisioning: PROVISIONING_DOCS.description,
    tls: TLS_DOCS.description,
    placement: PLACEMENT_DOCS.description,
    ironic: IRONIC_DOCS.description,
    database: DATABASE_DOCS.description,
    conductors: CONDUCTORS_DOCS.description,
    kubernetes: KUBERNETES_DOCS.description,
    resources: "CPU/memory requests and limits per container role (defaults for every container).",
    proxy: NETWORK_DOCS.descriptions.proxy,
    trust: NETWORK_DOCS.descriptions.trust,
    imagePullSecrets: NETWORK_DOCS.descriptions.imagePullSecrets,
    imageCache: "Where conductors get IPA: deploy (a cache here), external (another stack's cache) or none (your URLs).",
    external: REACH_DOCS.descriptions.external,
    keepalived: REACH_DOCS.descriptions.keepalived,
    readiness: READINESS_DOCS.description,
    metrics: "Sensor data and the ironic-prometheus-exporter beside every Ironic (every conductor in multi); optional ServiceMonitor.",
    bmo: "baremetal-operator deployed in the namespace from its release's Go module, already wired to this Ironic (off by default).",
};

export type { ReferenceRow } from "./section";

export const REFERENCE: ReferenceRow[] = [
    // topology, namespace, name, createNamespace, clusterDomain
    ...IDENTITY_REFERENCE,
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
    { keys: ["imageCache.mode"], default: "`deploy`", notes: "where the conductors get IPA, see [IPA image cache](ipa-cache.md)" },
    { keys: ["imageCache.ipa"], type: "list of `{architecture, baseUri?, branch?, flavor?, filename?, sha256?}`", default: "`[{architecture: x86_64}]`", notes: "`deploy`: one IPA per architecture (`x86_64`, `aarch64`), each field defaulting to `ironic.ipa.*`; `filename` is the tarball name (`IPA_FILENAME`); `sha256` the tarball's expected SHA-256 (`sha256sum`): a download with other content is never served, and an `http://` `baseUri` needs it (or `allowHttp`); `external`: only `architecture`, what the other cache holds" },
    { keys: ["imageCache.minimumModificationTime"], type: "UTC time", default: "—", notes: "`deploy`: part of the version key, and a tarball with an older `Last-Modified` is refused, e.g. `2026-08-01T00:00:00Z`" },
    { keys: ["imageCache.allowHttp"], type: "bool", default: "`false`", notes: "`deploy`: download from an `http://` `baseUri` without an `imageCache.ipa[].sha256` (a mirror you trust the path to); otherwise refused" },
    { keys: ["imageCache.storageSize"], type: "quantity", default: "`5Gi`", notes: "`deploy`: the cache's claim" },
    { keys: ["imageCache.storageClass"], type: "StorageClass name", default: "cluster default", notes: "`deploy`" },
    { keys: ["imageCache.retainOnDelete"], type: "bool", default: "`true`", notes: "`deploy`: keep the claim on `pulumi destroy`" },
    { keys: ["imageCache.protect"], type: "bool", default: "`true`", notes: "`deploy`: `protect` the claim" },
    { keys: ["imageCache.port"], type: "1–65535", default: "`6186`", notes: "`deploy`: the cache Service's HTTPS port" },
    { keys: ["imageCache.url"], type: "`https://` URL", default: "**required** with `external`", notes: "the other stack's `imageCacheUrl` output" },
    { keys: ["imageCache.caSecret"], type: "Secret name", default: "—", notes: "`external` (this or `caPem` required), `none`: a Secret in the namespace with `ca.crt`, the cache's (or your server's) CA; read, never written" },
    { keys: ["imageCache.caPem"], type: "PEM certificates", default: "—", notes: "instead of `caSecret`: the CA itself, e.g. the other stack's `imageCacheCaCertificate` output" },
    { keys: ["imageCache.kernelUrl"], type: "map architecture → URL", default: "— (**required** with `none`)", notes: "`none`: `imageCache.kernelUrl.x86_64`, `.aarch64`: your IPA kernels (http/https, no `,`)" },
    { keys: ["imageCache.ramdiskUrl"], type: "map architecture → URL", default: "— (**required** with `none`)", notes: "`none`: the initramfs of each architecture that has a kernel" },
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
    { keys: ["metrics.enabled"], type: "bool", default: "`false`", notes: "sensor data collection on every conductor and an `ironic-prometheus-exporter` container in every Ironic pod, each serving only its own conductor's nodes, plus a headless Service with one endpoint per conductor; see [Metrics](metrics.md)" },
    { keys: ["metrics.sensorInterval"], type: "seconds, 60–86400", default: "`160`", notes: "how often each conductor reads its nodes' BMC sensors (`[sensor_data]interval`); the image's default; exporter files not refreshed for 3 intervals are dropped" },
    { keys: ["metrics.port"], type: "port", default: "`9608`", notes: "the exporter's port on each Ironic node's host network (bound to the pod IP, plain HTTP: the release-38.0 image has no exporter TLS)" },
    { keys: ["metrics.serviceMonitor.enabled"], type: "bool", default: "`false`", notes: "also a prometheus-operator `ServiceMonitor` (monitoring.coreos.com/v1) scraping every conductor's exporter; a switch, not a lookup (previews stay the same whether or not the CRD is installed): without the CRD `pulumi up` fails" },
    { keys: ["metrics.serviceMonitor.labels"], type: "map of label → value", default: "`{}`", notes: "extra labels on the ServiceMonitor, e.g. the one your Prometheus' `serviceMonitorSelector` matches (`release: prometheus`)" },
    { keys: ["metrics.serviceMonitor.interval"], type: "Prometheus duration", default: "— (Prometheus' own)", notes: "the scrape interval of every exporter (`endpoints[].interval`)" },
    // bmo
    { keys: ["bmo.enabled"], type: "bool", default: "`false`", notes: "deploy baremetal-operator in the namespace, wired to this Ironic (its `<name>-bmo` ConfigMap, CA and credentials), with its release's CRDs (kept on delete), RBAC and validating webhook (a serving certificate from a CA of its own); see [Getting started](getting-started.md#baremetal-operator-from-the-stack). The CRDs are cluster-wide: one stack per cluster enables it" },
    { keys: ["bmo.version"], type: "release tag", default: "`v0.13.2`", notes: "the release whose `config/` (from its Go module) is deployed; another than the default needs `bmo.checksum`" },
    { keys: ["bmo.checksum"], type: "`h1:` hash", default: "v0.13.2's: `h1:XSkyBv4l1OvCL66b7T0FEUaGeS0zOjQKhot9V8zeZQc=`", notes: "the module zip's go.sum hash (`github.com/metal3-io/baremetal-operator <version> h1:…`): the zip is refused unless it matches" },
    { keys: ["bmo.goproxy"], type: "URL", default: "`https://proxy.golang.org`", notes: "the Go module proxy the zip comes from: `https://`, `http://` or `file://` (a GOPROXY-shaped directory such as `$(go env GOMODCACHE)/cache/download`, for air-gapped runs); the verified zip is cached (under `bmo/` of `$METAL3_IRONIC_CACHE`, else `$XDG_CACHE_HOME/metal3-ironic`, else `~/.cache/metal3-ironic`)" },
    // resources
    { keys: ["resources.<role>.requests.cpu","resources.<role>.requests.memory","resources.<role>.limits.cpu","resources.<role>.limits.memory"], type: "quantity", default: "below", notes: "per container role; what you set is laid over the defaults key by key; a request above its limit is refused" },
    // proxy, trust, imagePullSecrets
    ...NETWORK_DOCS.reference,
];

/** The resources table: what each container role is and why its defaults (resources.ts) are what they are. */
export const RESOURCE_ROLE_NOTES: Record<ResourceRole, { containers: string; why: string }> = {
    ironic: { containers: "`ironic` (API and conductor, one Python process)", why: "the usual limit in metal3 deployments; large fleets may need more" },
    httpd: { containers: "`httpd` (API TLS proxy, images, virtual media)", why: "Apache workers; files are sent from the page cache" },
    dnsmasq: { containers: "`dnsmasq`", why: "a few MiB resident" },
    dhcpPruner: { containers: "`dhcp-pruner` (multi)", why: "Python with ssl and json, one poll at a time" },
    certMinter: { containers: "`conductor-certs` (multi)", why: "Python minting one RSA key at start, then the start wrapper's address check every 15 s" },
    slotAgent: { containers: "`dhcp-slot-agent` (multi with DHCP)", why: "Python with ssl and json, one Lease request every 2 s" },
    ramdiskLogs: { containers: "`ramdisk-logs`", why: "a watcher that unpacks log tarballs as they arrive" },
    ipaDownloader: { containers: "the IPA cache's init `ipa-downloader-<arch>`", why: "downloads and unpacks a ramdisk of several hundred MiB" },
    ipaCacheServer: { containers: "the IPA cache's `server`", why: "Python's threaded HTTP server, files sent in 1 MiB chunks" },
    ipaCacheClient: { containers: "init `ipa-cache-client` of the Ironic pods", why: "curl copying from the cache; a CA bundle" },
    exporter: { containers: "`ironic-prometheus-exporter` (with `metrics.enabled`)", why: "gunicorn with 4 Flask workers concatenating a few small files per scrape" },
    caBundles: { containers: "init `ca-bundles` and `ca-bundles-watch` (with `trust.bmcCa` or `trust.trustedCa`)", why: "`cat` and `sha256sum` of a few PEM files every 10 s" },
    dhcpDirs: { containers: "init `dhcp-dirs`", why: "one `mkdir`" },
    sharedDirs: { containers: "init `shared-dirs`", why: "one `mkdir`" },
    addressCheck: { containers: "init `provisioning-ip` (single without keepalived)", why: "`ip addr` once a second, for at most 60 s" },
    keepalived: { containers: "`keepalived`", why: "VRRP only" },
    mariadb: { containers: "`mariadb`", why: "256 MiB InnoDB buffer pool plus connections" },
    schemaJobs: { containers: "the schema Jobs' container", why: "`ironic-dbsync` loads all of Ironic; migrations batch rows" },
};
