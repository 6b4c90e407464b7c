/** Defaults (core/config/defaults.ts): what an unset key means. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { DEFAULT_MIN_DHCP_RANGE, applyDefaults, defaultDhcpSlots } from "../../../core/config/defaults";
import { CONTROL_PLANE_TOLERATIONS } from "../../../core/config/placement";
import { DEFAULT_RESOURCES, RESOURCE_ROLES } from "../../../core/config/resources";
import { DEFAULT_IMAGES, PORTS } from "../../../core/contract";
import { devRaw } from "./support";

describe("config defaults", function () {
    it("accepts the dev stack and fills in defaults", function () {
        const r = validateConfig(devRaw);
        assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
        const c = r.config;
        assert.equal(c.topology, "single");
        assert.equal(c.images.ironic, DEFAULT_IMAGES.ironic);
        assert.deepEqual(c.ports, { api: 6385, http: 6180, vmediaTls: 6183, jsonRpc: 6189 });
        assert.equal(c.provisioning.dhcp?.leaseTime, "1h");
        assert.equal(c.tls.mode, "generate");
        assert.equal(c.database.kind, "sqlite");
        assert.deepEqual(c.placement.nodeSelector, { "node-role.kubernetes.io/control-plane": "" });
        assert.equal(c.placement.tolerations.length, 2, "control-plane taints tolerated by default");
    });

    it("accepts a virtual-media-only network (no dhcp block)", function () {
        const prov = { ...(devRaw.provisioning as Record<string, unknown>) };
        delete prov.dhcp;
        const r = validateConfig({ ...devRaw, provisioning: prov });
        assert.ok(r.ok);
        assert.equal(r.config.provisioning.dhcp, undefined);
    });

    it("gives every key of an empty configuration the value the configuration reference lists (docs/configuration.md, checked against these defaults)", function () {
        const c = applyDefaults({});
        assert.equal(c.namespace, "metal3");
        assert.equal(c.name, "ironic");
        assert.equal(c.createNamespace, true);
        assert.equal(c.clusterDomain, "cluster.local");
        assert.deepEqual(c.images, DEFAULT_IMAGES);
        assert.deepEqual(c.ports, { api: PORTS.api, http: PORTS.http, vmediaTls: PORTS.vmediaTls, jsonRpc: PORTS.jsonRpc });
        assert.deepEqual(c.tls, { mode: "generate", existingSecret: undefined, conductorCaSecret: undefined, issuer: undefined, validityDays: 365, renewBeforeDays: 30, caValidityDays: 3650, extraDnsNames: [], extraIps: [] });
        assert.deepEqual(c.placement, { nodeSelector: {}, conductorNodeSelector: { "node-role.kubernetes.io/control-plane": "" }, tolerations: CONTROL_PLANE_TOLERATIONS });
        assert.equal(c.ironic.apiUsername, "metal3");
        assert.equal(c.ironic.automatedClean, true);
        assert.equal(c.database.name, "ironic");
        assert.equal(c.database.storageSize, "10Gi");
        assert.equal(c.database.retainOnDelete, true);
        assert.equal(c.database.allowDowngrade, false);
        assert.equal(c.database.tls, true, "an external database is reached with TLS unless database.tls: false");
        assert.deepEqual(c.database.networkPolicy, { enabled: false, hostSources: [] }, "off until its host sources are named");
        assert.deepEqual(c.resources, DEFAULT_RESOURCES);
        assert.deepEqual(c.conductors, []);
        assert.equal(c.provisioning.keepalived, false);
        assert.equal(c.provisioning.dhcp, undefined);
        assert.deepEqual(c.readiness, { enabled: true, mode: "auto", timeoutSeconds: 600 });
    });

    it("defaults the DHCP lease time, minimum size and re-slice flag; the slot count stays unset (the planner resolves it)", function () {
        const c = applyDefaults({ provisioning: { cidr: "172.22.0.0/24", dhcp: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100" } } });
        assert.deepEqual(c.provisioning.dhcp, {
            rangeStart: "172.22.0.10",
            rangeEnd: "172.22.0.100",
            gateway: undefined,
            dns: undefined,
            leaseTime: "1h",
            minSize: DEFAULT_MIN_DHCP_RANGE,
            slots: undefined,
            reslice: false,
            extraRanges: [],
        });
        assert.equal(DEFAULT_MIN_DHCP_RANGE, 8);
        const set = applyDefaults({ provisioning: { cidr: "172.22.0.0/24", dhcp: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100", slots: 6, reslice: true } } });
        assert.deepEqual([set.provisioning.dhcp!.slots, set.provisioning.dhcp!.reslice], [6, true]);
    });

    it("the first run's slot count: 4 (three control-plane nodes and a replacement), one more than the listed conductors when more are listed, at most 64", function () {
        assert.deepEqual([0, 1, 2, 3, 4, 7, 63, 64, 100].map(defaultDhcpSlots), [4, 4, 4, 4, 5, 8, 64, 64, 64]);
    });

    it("tolerates the control-plane and master NoSchedule taints unless tolerations are given", function () {
        assert.deepEqual(
            CONTROL_PLANE_TOLERATIONS.map((t) => `${t.key}:${t.operator}:${t.effect}`),
            ["node-role.kubernetes.io/control-plane:Exists:NoSchedule", "node-role.kubernetes.io/master:Exists:NoSchedule"],
        );
        assert.deepEqual(applyDefaults({ placement: { tolerations: [] } }).placement.tolerations, []);
    });

    it("resources: every role has requests and a memory limit, and no CPU limit, by default", function () {
        for (const role of RESOURCE_ROLES) {
            const r = DEFAULT_RESOURCES[role];
            assert.ok(r.requests.cpu && r.requests.memory, `${role} requests`);
            assert.ok(r.limits.memory, `${role} memory limit`);
            assert.equal(r.limits.cpu, undefined, `${role}: no CPU limit by default`);
        }
        assert.equal(DEFAULT_RESOURCES.ironic.limits.memory, "1Gi");
    });

    it("resources: what is set is laid over the role's defaults, key by key", function () {
        const c = applyDefaults({ resources: { ironic: { limits: { memory: "2Gi", cpu: "2" } }, dnsmasq: { requests: { cpu: "20m" } } } });
        assert.deepEqual(c.resources.ironic, { requests: { cpu: "250m", memory: "512Mi" }, limits: { memory: "2Gi", cpu: "2" } });
        assert.deepEqual(c.resources.dnsmasq, { requests: { cpu: "20m", memory: "32Mi" }, limits: { memory: "64Mi" } });
        assert.deepEqual(c.resources.httpd, DEFAULT_RESOURCES.httpd);
    });

    it("database.networkPolicy: off until hostSources are named, then on; explicitly off stays off", function () {
        const on = applyDefaults({ database: { kind: "mariadb", networkPolicy: { hostSources: ["10.0.0.0/24"] } } }).database.networkPolicy;
        assert.deepEqual(on, { enabled: true, hostSources: ["10.0.0.0/24"] });
        assert.deepEqual(applyDefaults({ database: { kind: "mariadb" } }).database.networkPolicy, { enabled: false, hostSources: [] });
        const off = applyDefaults({ database: { kind: "mariadb", networkPolicy: { enabled: false, hostSources: ["10.0.0.0/24"] } } }).database.networkPolicy;
        assert.equal(off.enabled, false);
    });
});
