/** Certificate SANs (core/plan/certificates.ts): the API certificate, and each node's own; where the conductor CA comes from. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/read";

import { apiCertificate, conductorCaPlan, nodeCertificateSans, tlsPlan } from "../../../core/plan/certificates";
import { osloSettings } from "../../../core/plan/env";
import { configOf, devRaw, haRaw, planOf, withKeys } from "./support";

const SERVICE_NAMES = ["ironic", "ironic.metal3", "ironic.metal3.svc", "ironic.metal3.svc.cluster.local"];

describe("plan/certificates: apiCertificate", function () {
    it("single: the Service names and the provisioning IP", function () {
        assert.deepEqual(apiCertificate(configOf(devRaw), SERVICE_NAMES), { dnsNames: SERVICE_NAMES, ipAddresses: ["172.22.0.2"] });
    });

    it("multi: the Service names only (each node adds its own IP and name)", function () {
        assert.deepEqual(apiCertificate(configOf(haRaw), SERVICE_NAMES), { dnsNames: SERVICE_NAMES, ipAddresses: [] });
    });

    it("extra names and IPs: appended without duplicates; IPs in numeric order", function () {
        const raw = withKeys(devRaw, { tls: { extraIps: ["10.0.0.10", "10.0.0.9", "172.22.0.2", "10.0.0.9"], extraDnsNames: ["ironic", "ironic.example.com"] } });
        assert.deepEqual(apiCertificate(configOf(raw), SERVICE_NAMES), {
            dnsNames: [...SERVICE_NAMES, "ironic.example.com"],
            ipAddresses: ["10.0.0.9", "10.0.0.10", "172.22.0.2"],
        });
    });
});

describe("plan/certificates: nodeCertificateSans", function () {
    it("every node: its own name and IP first, then the Service names, then its own external address (conductors[].external); no other node's", function () {
        const plan = planOf(haRaw);
        const sans = listedConductors(plan).map((c) => [c.node, nodeCertificateSans(plan, c.node, c.ip!)] as const);
        assert.deepEqual(sans, [
            ["cp-0", { dnsNames: ["cp-0", ...SERVICE_NAMES], ipAddresses: ["172.22.0.2", "10.20.0.12"] }],
            ["cp-1", { dnsNames: ["cp-1", ...SERVICE_NAMES], ipAddresses: ["172.22.0.3", "10.20.0.13"] }],
            ["cp-2", { dnsNames: ["cp-2", ...SERVICE_NAMES], ipAddresses: ["172.22.0.4", "10.20.0.14"] }],
        ]);
    });

    it("with extra names and IPs: shared by every node, without duplicates", function () {
        const plan = planOf(withKeys(haRaw, { tls: { extraIps: ["172.22.0.2", "10.0.0.1"], extraDnsNames: ["cp-0", "ironic.example.com"] } }));
        assert.deepEqual(nodeCertificateSans(plan, "cp-0", "172.22.0.2"), {
            dnsNames: ["cp-0", ...SERVICE_NAMES, "ironic.example.com"],
            ipAddresses: ["172.22.0.2", "10.0.0.1", "10.20.0.12"],
        });
        assert.deepEqual(nodeCertificateSans(plan, "cp-1", "172.22.0.3"), {
            dnsNames: ["cp-1", ...SERVICE_NAMES, "cp-0", "ironic.example.com"],
            ipAddresses: ["172.22.0.3", "10.0.0.1", "172.22.0.2", "10.20.0.13"],
        });
    });
});

describe("plan/certificates: tlsPlan (where the certificates come from, decided once)", function () {
    const validity = { caValidityDays: 3650, validityDays: 365, renewBeforeDays: 30 };
    const stackCa = { commonName: "metal3-ironic metal3/ironic CA", ...validity };
    const existing = { mode: "existing", existingSecret: "my-tls" };
    const external = { database: { kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca" }, imageCache: { mode: "none", kernelUrl: { x86_64: "https://images.corp/k" }, ramdiskUrl: { x86_64: "https://images.corp/r" } } };
    it("generate: the stack CA issues every certificate, with the configured validity", function () {
        assert.deepEqual(tlsPlan(configOf(devRaw)), { validity, source: "stack", stackCa });
        const longer = { caValidityDays: 7300, validityDays: 90, renewBeforeDays: 10 };
        assert.deepEqual(planOf(withKeys(devRaw, { tls: longer })).tls, { validity: longer, source: "stack", stackCa: { ...stackCa, ...longer } });
    });
    it("existing: the user's Secret for the API; a stack CA only while the stack deploys MariaDB or the IPA cache", function () {
        assert.deepEqual(tlsPlan(configOf(withKeys(devRaw, { tls: existing }))), { validity, source: "user", stackCa });
        assert.deepEqual(tlsPlan(configOf(withKeys(devRaw, { tls: existing, ...external }))), { validity, source: "user" });
    });
    it("cert-manager: the issuer's Certificates, no stack CA", function () {
        const plan = planOf(withKeys(haRaw, { tls: { mode: "cert-manager", issuer: { name: "corp", kind: "ClusterIssuer" } }, readiness: { enabled: false } }));
        assert.deepEqual(plan.tls, { validity, source: "issuer", issuer: { name: "corp", kind: "ClusterIssuer", group: "cert-manager.io" } });
    });
});

describe("plan/certificates: conductorCaPlan (multi: the conductor CA and what JSON-RPC peers trust)", function () {
    const existing = { mode: "existing", existingSecret: "my-tls" };
    const cases: { name: string; tls: Record<string, unknown>; extra?: Record<string, unknown>; want: unknown }[] = [
        { name: "generate: an intermediate of the stack CA (its certificates also serve the API on the node)", tls: {}, want: { source: "stack-intermediate" } },
        { name: "existing with tls.conductorCaSecret: the user's CA, checked against ca.crt", tls: { ...existing, conductorCaSecret: "my-ca" }, want: { source: "user", chainCheck: "/certs/ca/ironic/tls.crt" } },
        { name: "existing alone: a root of the stack's, the only CA JSON-RPC trusts", tls: existing, want: { source: "stack-root", jsonRpcCaFile: "/etc/metal3-ironic/conductor-ca-cert/tls.crt" } },
        { name: "cert-manager: the issuer's Certificate, checked against its ca.crt", tls: { mode: "cert-manager", issuer: { name: "corp" } }, extra: { readiness: { enabled: false } }, want: { source: "issuer", chainCheck: "/certs/ca/ironic/tls.crt" } },
    ];
    for (const c of cases) {
        it(c.name, function () {
            const config = configOf(withKeys(haRaw, { tls: c.tls, ...(c.extra ?? {}) }));
            assert.deepEqual(conductorCaPlan(config), c.want);
            assert.deepEqual(planOf(withKeys(haRaw, { tls: c.tls, ...(c.extra ?? {}) })).conductorCa, c.want);
            // [json_rpc]cafile is set only for the stack's root; otherwise the image's IRONIC_CACERT_FILE (ca.crt) is it.
            const cafile = osloSettings(config).filter(([g, o]) => g === "json_rpc" && o === "cafile");
            assert.deepEqual(cafile, c.want && (c.want as any).source === "stack-root" ? [["json_rpc", "cafile", "/etc/metal3-ironic/conductor-ca-cert/tls.crt"]] : []);
        });
    }
    it("single: none (no peer dials its JSON-RPC)", function () {
        assert.equal(conductorCaPlan(configOf(withKeys(devRaw, { tls: existing }))), undefined);
        assert.equal(planOf(devRaw).conductorCa, undefined);
    });
});
