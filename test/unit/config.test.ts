/** Stack configuration validation: defaults, and every class of bad input with key and fix. */
import { strict as assert } from "assert";
import * as path from "path";

import { ConfigIssue, RawConfig, validateConfig } from "../../core/config";
import { DEFAULT_IMAGES } from "../../core/contract";
import { readStackConfig } from "../../tools/render";

const devRaw = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));

function issues(raw: RawConfig): ConfigIssue[] {
    const r = validateConfig(raw);
    assert.equal(r.ok, false, "expected the config to be rejected");
    return (r as { issues: ConfigIssue[] }).issues;
}

function withProvisioning(p: Record<string, unknown>): RawConfig {
    return { ...devRaw, provisioning: { ...(devRaw.provisioning as object), ...p } };
}

function withDhcp(d: Record<string, unknown>): RawConfig {
    const prov = devRaw.provisioning as Record<string, any>;
    return { ...devRaw, provisioning: { ...prov, dhcp: { ...prov.dhcp, ...d } } };
}

function hasIssue(list: ConfigIssue[], key: string, pattern: RegExp): void {
    const found = list.find((i) => i.key === key && pattern.test(i.message));
    assert.ok(found, `no issue for ${key} matching ${pattern}; got:\n${list.map((i) => `${i.key}: ${i.message}`).join("\n")}`);
}

describe("stack config validation", function () {
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

    it("requires the provisioning network", function () {
        const raw = { ...devRaw };
        delete raw.provisioning;
        hasIssue(issues(raw), "provisioning", /required/);
    });

    it("rejects an unknown topology", function () {
        hasIssue(issues({ ...devRaw, topology: "ha" }), "topology", /"single".*"multi"/);
    });

    it("suggests the right name for a misspelt key, at any depth", function () {
        const list = issues({ ...devRaw, namepsace: "x", provisioning: { ...(devRaw.provisioning as object), cdir: "10.0.0.0/24" } });
        hasIssue(list, "namepsace", /did you mean "namespace"/);
        hasIssue(list, "provisioning", /unknown key "cdir": did you mean "cidr"/);
    });

    it("rejects malformed IP addresses and CIDRs", function () {
        const list = issues(withProvisioning({ ip: "172.22.0.300", cidr: "172.22.0.0/33" }));
        hasIssue(list, "provisioning.ip", /not a valid IPv4 address/);
        hasIssue(list, "provisioning.cidr", /not a valid IPv4 CIDR/);
        hasIssue(issues(withDhcp({ gateway: "gw" })), "provisioning.dhcp.gateway", /not a valid IPv4/);
    });

    it("rejects a CIDR with host bits set and suggests the network", function () {
        hasIssue(issues(withProvisioning({ cidr: "172.22.0.5/24" })), "provisioning.cidr", /did you mean 172\.22\.0\.0\/24/);
    });

    it("rejects a provisioning IP outside the CIDR", function () {
        hasIssue(issues(withProvisioning({ ip: "10.0.0.2" })), "provisioning.ip", /not inside provisioning.cidr/);
    });

    it("rejects a DHCP range outside the CIDR", function () {
        const list = issues(withDhcp({ rangeStart: "172.22.1.10", rangeEnd: "172.22.1.100" }));
        hasIssue(list, "provisioning.dhcp.rangeStart", /not a usable host address/);
        hasIssue(list, "provisioning.dhcp.rangeEnd", /not a usable host address/);
    });

    it("rejects a reversed DHCP range", function () {
        hasIssue(issues(withDhcp({ rangeStart: "172.22.0.100", rangeEnd: "172.22.0.10" })), "provisioning.dhcp", /reversed.*swap/);
    });

    it("rejects a DHCP range containing the provisioning IP or the gateway", function () {
        const list = issues(withDhcp({ rangeStart: "172.22.0.1", rangeEnd: "172.22.0.100" }));
        hasIssue(list, "provisioning.dhcp", /contains the provisioning IP 172\.22\.0\.2/);
        hasIssue(list, "provisioning.dhcp.gateway", /inside the DHCP range/);
    });

    it("rejects a range too small to be useful, naming the size", function () {
        hasIssue(issues(withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12" })), "provisioning.dhcp", /only 3 addresses; at least 8/);
        assert.ok(validateConfig(withDhcp({ rangeStart: "172.22.0.10", rangeEnd: "172.22.0.12", minSize: 3 })).ok);
    });

    it("rejects ports out of range and duplicate ports", function () {
        const list = issues({ ...devRaw, ports: { api: 70000, http: 6183, vmediaTls: 6183, jsonRpc: 0 } });
        hasIssue(list, "ports.api", /between 1 and 65535/);
        hasIssue(list, "ports.jsonRpc", /between 1 and 65535/);
        const dup = issues({ ...devRaw, ports: { http: 6183 } });
        hasIssue(dup, "ports.vmediaTls", /already used by ports.http/);
    });

    it("rejects image references that are not references", function () {
        const list = issues({ ...devRaw, images: { ironic: "Quay.io/Metal3 ironic:latest", ipaDownloader: "quay.io/metal3-io/ironic-ipa-downloader@sha256:abc" } });
        hasIssue(list, "images.ironic", /not a valid image reference/);
        hasIssue(list, "images.ipaDownloader", /not a valid image reference/);
        assert.ok(validateConfig({ ...devRaw, images: { ironic: `registry.local:5000/metal3/ironic@sha256:${"a".repeat(64)}` } }).ok);
    });

    it("rejects duplicate conductor names and IPs", function () {
        const list = issues({
            ...devRaw,
            topology: "multi",
            database: { kind: "external", host: "db.example", credentialsSecret: "db-creds" },
            conductors: [
                { name: "cp-0", ip: "172.22.0.3" },
                { name: "cp-0", ip: "172.22.0.3" },
            ],
        });
        hasIssue(list, "conductors[1].name", /duplicate name cp-0/);
        hasIssue(list, "conductors[1].ip", /duplicate ip 172\.22\.0\.3/);
    });

    it("rejects multi with SQLite, and conductors with single", function () {
        hasIssue(issues({ ...devRaw, topology: "multi", conductors: [{ name: "cp-0", ip: "172.22.0.3" }] }), "database.kind", /shared database/);
        hasIssue(issues({ ...devRaw, conductors: [{ name: "cp-0", ip: "172.22.0.3" }] }), "conductors", /only used with topology "multi"/);
    });

    it("rejects early renewal that would regenerate certificates on every run", function () {
        hasIssue(issues({ ...devRaw, tls: { validityDays: 30, renewBeforeDays: 30 } }), "tls.renewBeforeDays", /regenerated on every run/);
    });

    it("requires the Secret name with existing TLS, and an interface with keepalived", function () {
        hasIssue(issues({ ...devRaw, tls: { mode: "existing" } }), "tls.existingSecret", /required/);
        const prov: Record<string, unknown> = { ...(devRaw.provisioning as Record<string, unknown>), keepalived: true };
        delete prov.interface;
        hasIssue(issues({ ...devRaw, provisioning: prov }), "provisioning.interface", /keepalived/);
    });

    it("reports every problem at once, across sections", function () {
        const list = issues({ ...devRaw, topology: "triple", namespace: "Bad_NS", ports: { api: -1 }, provisioning: { ...(devRaw.provisioning as object), ip: "1.2.3.4" }, bogus: 1 });
        const keys = list.map((i) => i.key);
        for (const k of ["topology", "namespace", "ports.api", "provisioning.ip", "bogus"]) assert.ok(keys.includes(k), `missing ${k} in ${keys.join(", ")}`);
    });
});
