/** core/manifests/index.ts: the barrel re-exports exactly the API its importers use, from the files of each concern. */
import { strict as assert } from "assert";

import * as barrel from "../../../core/manifests";
import * as bmo from "../../../core/manifests/bmo";
import * as configmaps from "../../../core/manifests/configmaps";
import * as imageCache from "../../../core/manifests/image-cache";
import * as ironic from "../../../core/manifests/ironic";
import * as mariadb from "../../../core/manifests/mariadb";
import * as meta from "../../../core/manifests/meta";
import * as metrics from "../../../core/manifests/metrics";
import * as namespace from "../../../core/manifests/namespace";
import * as networkpolicy from "../../../core/manifests/networkpolicy";
import * as volumes from "../../../core/manifests/volumes";

describe("manifests/index", function () {
    it("re-exports the public API, each name bound to its module's own export", function () {
        const from: Record<string, Record<string, unknown>> = {
            ANNOTATIONS: meta, contentHash: meta, inNamespace: meta, sha256: meta, tlsSecretBody: meta,
            databaseVolumes: volumes,
            conductorDaemonSet: ironic, ironicDeployment: ironic, ironicEndpointSlice: ironic, ironicPodSpec: ironic, ironicService: ironic,
            dbJob: mariadb, mariadbPvc: mariadb, mariadbSelector: mariadb, mariadbService: mariadb, mariadbStatefulSet: mariadb,
            schemaJobHint: mariadb, SCHEMA_JOB_PROVIDER_TIMEOUT_SECONDS: mariadb, mariadbNetworkPolicy: networkpolicy,
            bmoConfigMapData: configmaps, dnsmasqConfigHash: configmaps, dnsmasqConfigMapData: configmaps,
            nodeDataConfigMapData: configmaps, scriptsConfigHash: configmaps, scriptsConfigMapData: configmaps, scriptsConfigMapName: configmaps,
            cacheUrl: imageCache, deployedCache: imageCache, IMAGE_CACHE_ANNOTATIONS: imageCache, imageCacheClient: imageCache, imageCacheClientData: imageCache, imageCacheDeployment: imageCache,
            imageCachePvc: imageCache, imageCacheScriptsData: imageCache, imageCacheService: imageCache,
            namespaceManifest: namespace, namespaceNotCreatedNote: namespace, POD_SECURITY_LABELS: namespace,
            exporterContainer: metrics, metricsService: metrics, serviceMonitor: metrics,
            bmoLabels: bmo, bmoNames: bmo, bmoObjects: bmo, bmoWebhookDnsNames: bmo,
        };
        assert.deepEqual(Object.keys(barrel).sort(), Object.keys(from).sort());
        for (const [name, mod] of Object.entries(from)) assert.equal((barrel as Record<string, unknown>)[name], mod[name], name);
    });
});
