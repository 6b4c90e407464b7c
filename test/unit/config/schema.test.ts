/** The schema (core/config/schema.ts): structural problems of each section, with key path and fix. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { quantity, unknownKeyHint } from "../../../core/config/schema";
import { devRaw, hasIssue, issues, withDhcp, withProvisioning } from "./support";

describe("config schema", function () {
    it("rejects an unknown topology", function () {
        hasIssue(issues({ ...devRaw, topology: "ha" }), "topology", /"single".*"multi"/);
    });

    it("suggests the right name for a misspelt key, at any depth", function () {
        const list = issues({ ...devRaw, namepsace: "x", provisioning: { ...(devRaw.provisioning as object), cdir: "10.0.0.0/24" } });
        hasIssue(list, "namepsace", /did you mean "namespace"/);
        hasIssue(list, "provisioning", /unknown key "cdir": did you mean "cidr"/);
    });

    it("suggests the closest known key, or lists them all when none is close", function () {
        assert.equal(unknownKeyHint("zzzzzz", ["api", "http"]), 'unknown key "zzzzzz": known keys here: api, http');
        assert.equal(unknownKeyHint("Cidr", ["interface", "ip", "cidr"]), 'unknown key "Cidr": did you mean "cidr"?');
    });

    it("rejects malformed IP addresses and CIDRs", function () {
        const list = issues(withProvisioning({ ip: "172.22.0.300", cidr: "172.22.0.0/33" }));
        hasIssue(list, "provisioning.ip", /not a valid IP address \(expected an IPv4 dotted quad such as 172.22.0.2 or an IPv6 address/);
        hasIssue(list, "provisioning.cidr", /not a valid CIDR/);
        hasIssue(issues(withDhcp({ gateway: "gw" })), "provisioning.dhcp.gateway", /not a valid IP address/);
        hasIssue(issues(withProvisioning({ ip: "fe80::1%eth0", cidr: "fd00:1::/129" })), "provisioning.ip", /not a valid IP address/);
        hasIssue(issues(withProvisioning({ ip: "fd00:1::2", cidr: "fd00:1::/129" })), "provisioning.cidr", /not a valid CIDR/);
    });

    it("quantity: Kubernetes' grammar (decimal, binary and exponent suffixes), nothing else", function () {
        for (const ok of ["10Gi", "512Mi", "500m", "2", "0.5", "1e3", "1.5G", ".5Ki"]) assert.equal(quantity.safeParse(ok).success, true, ok);
        for (const bad of ["10 Gi", "10GB", "-1Gi", "Gi", "10gi", "1Gi\n", "", "1.2.3"]) assert.equal(quantity.safeParse(bad).success, false, bad);
        hasIssue(issues({ ...devRaw, database: { kind: "mariadb", storageSize: "10GB" } }), "database.storageSize", /Kubernetes quantity such as 10Gi/);
    });

    it("rejects ports out of range", function () {
        const list = issues({ ...devRaw, ports: { api: 70000, http: 6183, vmediaTls: 6183, jsonRpc: 0 } });
        hasIssue(list, "ports.api", /between 1 and 65535/);
        hasIssue(list, "ports.jsonRpc", /between 1 and 65535/);
    });

    it("rejects image references that are not references", function () {
        const list = issues({ ...devRaw, images: { ironic: "Quay.io/Metal3 ironic:latest", ipaDownloader: "quay.io/metal3-io/ironic-ipa-downloader@sha256:abc" } });
        hasIssue(list, "images.ironic", /not a valid image reference/);
        hasIssue(list, "images.ipaDownloader", /not a valid image reference/);
        assert.ok(validateConfig({ ...devRaw, images: { ironic: `registry.local:5000/metal3/ironic@sha256:${"a".repeat(64)}` } }).ok);
    });

    it("readiness: a mode of the three, a bounded whole timeout, a boolean switch; all reported at once", function () {
        const list = issues({ ...devRaw, readiness: { enabled: "no", mode: "kubectl", timeoutSeconds: 5 } });
        hasIssue(list, "readiness.enabled", /must be true or false \(got "no"\)/);
        hasIssue(list, "readiness.mode", /"auto", "in-cluster" \(the API Service URL\) or "port-forward"/);
        hasIssue(list, "readiness.timeoutSeconds", /at least 10/);
        hasIssue(issues({ ...devRaw, readiness: { timeoutSeconds: 90000 } }), "readiness.timeoutSeconds", /at most 86400/);
        hasIssue(issues({ ...devRaw, readiness: { timeoutSeconds: 60.5 } }), "readiness.timeoutSeconds", /whole number/);
        hasIssue(issues({ ...devRaw, readiness: { timoutSeconds: 60 } }), "readiness", /did you mean "timeoutSeconds"/);
        const r = validateConfig({ ...devRaw, readiness: { enabled: false, mode: "port-forward", timeoutSeconds: 120 } });
        assert.ok(r.ok && r.config.readiness.mode === "port-forward" && r.config.readiness.timeoutSeconds === 120 && !r.config.readiness.enabled);
    });
});
