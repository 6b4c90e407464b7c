/** Certificate SANs (core/plan/certificates.ts): the API certificate, and each node's own. */
import { strict as assert } from "assert";

import { apiCertificate } from "../../../core/plan/certificates";
import { configOf, devRaw, haRaw, withKeys } from "./support";

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
