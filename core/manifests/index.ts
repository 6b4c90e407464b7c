/**
 * Kubernetes objects of the stack as plain data, built from the plan. Pure: the
 * ComponentResources only hand these to @pulumi/kubernetes. Values that exist only at deploy time
 * (certificate hashes) come in as parameters.
 *
 * This file only re-exports:
 *   meta.ts        ANNOTATIONS, inNamespace, tlsSecretBody, sha256, contentHash, sortedRecord, pod and container baseline
 *   volumes.ts     volume and mount factories, podVolumes (per topology), databaseVolumes
 *   topology.ts    how containers start and where the pod runs, per topology
 *   containers.ts  one builder per container of the Ironic pod
 *   ironic.ts      ironicPodSpec, ironicDeployment, conductorDaemonSet, ironicService, ironicEndpointSlice
 *   mariadb.ts     mariadbStatefulSet, mariadbService, mariadbPvc, mariadbSelector, dbJob, schemaJobHint
 *   mariadb-operator.ts  the MariaDB operator's objects (database.kind mariadb-operator) and their NetworkPolicy
 *   networkpolicy.ts  the NetworkPolicy admitting only Ironic and the schema Jobs to MariaDB
 *   configmaps.ts  dnsmasq, per-node, scripts and BMO ConfigMap data, and their hashes
 *   image-cache.ts the IPA image cache's Deployment, claim, Service and scripts; the Ironic pods' cache client
 *   namespace.ts   the namespace with its Pod Security labels; what a namespace made elsewhere must admit
 *   metrics.ts     the exporter container, the metrics Service and the ServiceMonitor (metrics.enabled)
 *   bmo.ts         baremetal-operator's release objects wired to the stack (bmo.enabled)
 */
export { ANNOTATIONS, contentHash, inNamespace, sha256, tlsSecretBody } from "./meta";
export { databaseVolumes } from "./volumes";
export { conductorDaemonSet, ironicDeployment, ironicEndpointSlice, ironicPodSpec, ironicService } from "./ironic";
export { dbJob, mariadbPvc, mariadbSelector, mariadbService, mariadbStatefulSet, schemaJobHint, SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS } from "./mariadb";
export { mariadbNetworkPolicy } from "./networkpolicy";
export { bmoConfigMapData, dnsmasqConfigHash, dnsmasqConfigMapData, nodeDataConfigMapData, scriptsConfigHash, scriptsConfigMapData, scriptsConfigMapName } from "./configmaps";
export { cacheUrl, deployedCache, IMAGE_CACHE_ANNOTATIONS, imageCacheClient, imageCacheClientData, imageCacheDeployment, imageCachePvc, imageCacheScriptsData, imageCacheService } from "./image-cache";
export { namespaceManifest, namespaceNotCreatedNote, POD_SECURITY_LABELS } from "./namespace";
export { exporterContainer, metricsService, serviceMonitor } from "./metrics";
export type { ServiceMonitor } from "./metrics";
export { bmoLabels, bmoNames, bmoObjects, bmoWebhookDnsNames } from "./bmo";
export type { BmoObjects, BmoReleaseFiles } from "./bmo";
