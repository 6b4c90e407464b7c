/**
 * The policies of the metal3-ironic pack: name, enforcement level, config schema, and the pure
 * rule each one runs on every resource (policy/rules.ts). Kept apart from index.ts, which serves
 * them, so tests can run them without starting the analyzer.
 */
import type { ResourceValidationPolicy } from "@pulumi/policy";

import { apiSocketPrivate, capabilitiesRestricted, databaseClientTls, exporterBound, imagesPinned, noHostPath, resourceLimits, tlsEnabled, tlsProtocols } from "./rules";

export const policies: ResourceValidationPolicy[] = [
    {
        name: "images-pinned",
        description: "Outside dev stacks every image is pinned: a release tag or an @sha256 digest; a digest for images that publish no release tags (ipa-downloader, keepalived).",
        enforcementLevel: "mandatory",
        configSchema: {
            properties: {
                devStacks: { type: "array", items: { type: "string" }, default: ["dev"], description: "Stacks where images may float (latest)." },
            },
        },
        validateResource: imagesPinned,
    },
    {
        name: "tls-enabled",
        description: "TLS is on for the Ironic API (certificate mounted, httpd terminating), for JSON-RPC between conductors, and required by the MariaDB server.",
        enforcementLevel: "mandatory",
        validateResource: tlsEnabled,
    },
    {
        name: "database-client-tls",
        description: "Every Ironic container that uses MariaDB has the database CA mounted, so it connects with TLS (database.kind external: database.caSecret).",
        enforcementLevel: "mandatory",
        validateResource: databaseClientTls,
    },
    {
        name: "resource-limits",
        description: "Every container, init containers included, has a memory limit (and a CPU limit if requireCpuLimit).",
        enforcementLevel: "mandatory",
        configSchema: {
            properties: {
                requireCpuLimit: { type: "boolean", default: false, description: "Also demand resources.limits.cpu." },
            },
        },
        validateResource: resourceLimits,
    },
    {
        name: "no-host-path",
        description: "No pod mounts a hostPath volume (but multi's own DHCP file directory, dhcp-files under /var/lib/metal3-ironic/), and no PersistentVolume is backed by one.",
        enforcementLevel: "mandatory",
        validateResource: noHostPath,
    },
    {
        name: "capabilities-restricted",
        description: "No container is privileged; only dnsmasq (NET_ADMIN, NET_BIND_SERVICE, NET_RAW), keepalived (NET_ADMIN, NET_BROADCAST, NET_RAW) and multi's dhcp-dirs step (CHOWN) add capabilities.",
        enforcementLevel: "mandatory",
        validateResource: capabilitiesRestricted,
    },
    {
        name: "api-socket-private",
        description: "In the Ironic pods only ironic, httpd and the shared-dirs step mount all of the shared volume, where Ironic's unauthenticated API socket is; other containers mount parts of it (subPath).",
        enforcementLevel: "mandatory",
        validateResource: apiSocketPrivate,
    },
    {
        name: "exporter-bound",
        description: "On the host network the ironic-prometheus-exporter binds one address (the pod IP), never every interface of the node (the image's default 0.0.0.0).",
        enforcementLevel: "mandatory",
        validateResource: exporterBound,
    },
    {
        name: "tls-protocols",
        description: "Where the workload sets httpd's TLS protocols (tls.minVersion), neither the API nor the virtual-media vhost accepts SSLv3, TLS 1.0 or TLS 1.1.",
        enforcementLevel: "mandatory",
        validateResource: tlsProtocols,
    },
];
