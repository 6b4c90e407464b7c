/** buildPlan (core/plan/plan.ts): names, URLs, certificate and what it composes from the other planner modules. */
import { strict as assert } from "assert";

import { buildPlan } from "../../../core/plan/plan";
import { nodeDataReadersHash } from "../../../core/plan/conductor";
import { apiCertificate } from "../../../core/plan/certificates";
import { dnsmasqStartScript, planTopology } from "../../../core/plan/conductors";
import { listedConductors, multiTopologyOf } from "../../../core/plan/read";
import { databasePlan } from "../../../core/plan/database";
import { commonEnv, ipaDownloaderEnv, ironicEnv, osloSettings } from "../../../core/plan/env";
import * as barrel from "../../../core/plan";
import { configOf, devNoDhcpRaw, devRaw, haRaw, tlsExistingRaw, vmediaRaw, withKeys } from "./support";

describe("plan/plan: buildPlan", function () {
    it("single (dev): labels, selector, names, Service DNS names and URLs on the provisioning IP", function () {
        const p = buildPlan(configOf(devRaw));
        assert.equal(p.name, "ironic");
        assert.equal(p.namespace, "metal3");
        assert.deepEqual(p.labels, {
            "app.kubernetes.io/name": "ironic",
            "app.kubernetes.io/instance": "ironic",
            "app.kubernetes.io/part-of": "metal3",
            "app.kubernetes.io/managed-by": "metal3-ironic",
        });
        assert.deepEqual(p.selector, { "app.kubernetes.io/name": "ironic", "app.kubernetes.io/instance": "ironic" });
        assert.deepEqual(p.names, {
            deployment: "ironic",
            service: "ironic",
            dnsmasqConfigMap: "ironic-dnsmasq",
            tlsSecret: "ironic-tls",
            caSecret: "ironic-cacert",
            vmediaTlsSecret: "ironic-vmedia-tls",
            credentialsSecret: "ironic-credentials",
            configSecrets: "ironic-config-secrets",
            bmoConfigMap: "ironic-bmo",
            rpcCredentialsSecret: "ironic-rpc-credentials",
            nodeDataConfigMapBase: "ironic-conductors",
            nodeDataConfigMap: `ironic-conductors-${nodeDataReadersHash()}`,
            conductorCaSecret: "ironic-conductor-ca",
            scriptsConfigMapBase: "ironic-scripts",
            slotAccount: "ironic-dhcp-slots",
            slotLeasePrefix: "ironic-dhcp-slot-",
            metricsService: "ironic-metrics",
        });
        assert.deepEqual(p.serviceDnsNames, ["ironic", "ironic.metal3", "ironic.metal3.svc", "ironic.metal3.svc.cluster.local"]);
        assert.deepEqual(p.urls, {
            apiInCluster: "https://ironic.metal3.svc:6385",
            apiProvisioning: "https://172.22.0.2:6385",
            http: "http://172.22.0.2:6180",
            vmediaTls: "https://172.22.0.2:6183",
        });
        assert.deepEqual(p.certificate, { dnsNames: p.serviceDnsNames, ipAddresses: ["172.22.0.2"] });
        assert.equal(p.dhcpEnabled, true);
        assert.equal(p.topology.kind, "single");
        assert.equal(p.topology.kind === "single" && p.topology.keepalivedVirtualIps, undefined);
    });

    it("multi (ha): URLs name the conductor IP as a placeholder; the shared certificate part has no IP", function () {
        const p = buildPlan(configOf(haRaw));
        assert.deepEqual(p.urls, {
            apiInCluster: "https://ironic.metal3.svc:6385",
            apiProvisioning: "https://<conductor IP>:6385",
            http: "http://<conductor IP>:6180",
            vmediaTls: "https://<conductor IP>:6183",
        });
        assert.deepEqual(p.certificate.ipAddresses, []);
        assert.deepEqual(listedConductors(p).map((c) => c.node), ["cp-0", "cp-1", "cp-2"]);
        assert.equal(p.database.kind, "mariadb");
    });

    it("keepalived: the virtual IP with interface and prefix length; no DHCP: dhcpEnabled false", function () {
        const vmedia = buildPlan(configOf(vmediaRaw)).topology;
        assert.equal(vmedia.kind === "single" && vmedia.keepalivedVirtualIps, "172.22.0.5,eth1,24 10.20.0.5,eth2,24", "provisioning.ip first, then keepalived.extraVips");
        assert.equal(buildPlan(configOf(vmediaRaw)).dhcpEnabled, false);
        assert.equal(buildPlan(configOf(devNoDhcpRaw)).dhcpEnabled, false);
    });

    it("tls.mode existing: the API certificate Secret is the user's", function () {
        assert.equal(buildPlan(configOf(tlsExistingRaw)).names.tlsSecret, "my-tls");
    });

    it("composes the planner modules, and nothing else", function () {
        for (const raw of [devRaw, haRaw, vmediaRaw, tlsExistingRaw]) {
            const config = configOf(raw);
            const p = buildPlan(config);
            assert.deepEqual(p.topology, planTopology(config));
            assert.deepEqual(p.database, databasePlan(config));
            assert.deepEqual(p.certificate, apiCertificate(config, p.serviceDnsNames));
            assert.deepEqual(p.commonEnv, commonEnv(config));
            assert.deepEqual(p.ironicEnv, ironicEnv(config, p.database));
            assert.deepEqual(p.osloSettings, osloSettings(config));
            assert.deepEqual(p.ipaDownloaderEnv, ipaDownloaderEnv(config));
            assert.equal(p.dnsmasqStartScript, dnsmasqStartScript(config));
        }
    });

    it("is deterministic: two plans of one config are equal, key order included", function () {
        const config = configOf(haRaw);
        assert.equal(JSON.stringify(buildPlan(config)), JSON.stringify(buildPlan(config)));
    });

    it("keepNamespaceOnDelete: kept with a deployed database kept on delete, or with bmo.enabled; not with sqlite, external or a volume let go", function () {
        assert.equal(buildPlan(configOf(devRaw)).keepNamespaceOnDelete, false, "sqlite: nothing of the user's in the namespace");
        assert.equal(buildPlan(configOf(haRaw)).keepNamespaceOnDelete, true, "mariadb, retainOnDelete by default: its volume is in the namespace");
        assert.equal(buildPlan(configOf(withKeys(haRaw, { database: { kind: "mariadb", retainOnDelete: false } }))).keepNamespaceOnDelete, false);
        assert.equal(buildPlan(configOf(withKeys(devRaw, { bmo: { enabled: true } }))).keepNamespaceOnDelete, true, "BareMetalHosts may live in it");
    });

    it("imageCache.ownRoot: only a deployed cache of a multi stack whose conductor CA is an intermediate of the stack CA (tls generate) gets a root of its own", function () {
        assert.equal(buildPlan(configOf(haRaw)).imageCache.ownRoot, true);
        assert.equal(buildPlan(configOf(devRaw)).imageCache.ownRoot, false, "single: no conductor CA");
        assert.equal(buildPlan(configOf(withKeys(haRaw, { imageCache: { mode: "none", kernelUrl: { x86_64: "https://images.example/ipa.kernel" }, ramdiskUrl: { x86_64: "https://images.example/ipa.initramfs" } } }))).imageCache.ownRoot, false, "no cache here");
    });

    it("multiTopologyOf (core/plan/read.ts): the multi topology as planned; on another topology a bug of the program, said as one", function () {
        const ha = buildPlan(configOf(haRaw));
        assert.equal(multiTopologyOf(ha, "test"), ha.topology);
        assert.throws(() => multiTopologyOf(buildPlan(configOf(devRaw)), "scriptsConfigMapData"), /^Error: scriptsConfigMapData: topology multi only, not single \(a bug of metal3-ironic\)$/);
    });

    it("core/plan (index) keeps exporting what importers use", function () {
        for (const name of ["buildPlan", "databaseEnv", "cidrParts", "FAILOVER_SETTINGS"]) {
            assert.ok(name in barrel, name);
        }
        assert.equal(barrel.buildPlan, buildPlan);
    });
});
