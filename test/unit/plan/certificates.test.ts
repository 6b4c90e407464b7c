/** Certificate SANs (core/plan/certificates.ts): the API certificate, and each node's own. */
import { strict as assert } from "assert";
import { listedConductors } from "../../../core/plan/conductors";

import { apiCertificate, nodeCertificateSans } from "../../../core/plan/certificates";
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
