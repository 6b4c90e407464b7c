/** rules/bind.ts: provisioning.bindInterface and what cannot reach a bound API or boot files. */
import { strict as assert } from "assert";
import * as path from "path";

import { validateConfig } from "../../../../core/config";
import { bindRule } from "../../../../core/config/rules/bind";
import { readStackConfig } from "../../../../tools/render";
import { devRaw, haRaw, listing, ruleTable, withProvisioning } from "../support";

const IN_CLUSTER = { readiness: { mode: "in-cluster" } };
/** The dev stack bound, its readiness check in the cluster. */
const bound = (extra: Record<string, unknown> = {}, prov: Record<string, unknown> = {}) => ({ ...withProvisioning({ bindInterface: true, ...prov }), ...IN_CLUSTER, ...extra });
const tlsExisting = readStackConfig(path.join(__dirname, "..", "..", "..", "fixtures", "Pulumi.tls-existing.yaml"));
const haBound = { ...haRaw, provisioning: { ...(haRaw.provisioning as object), bindInterface: true }, ...IN_CLUSTER };
const v6Raw = readStackConfig(path.join(__dirname, "..", "..", "..", "fixtures", "Pulumi.v6.yaml"));
const v6Bound = { ...v6Raw, provisioning: { ...(v6Raw.provisioning as object), bindInterface: true }, ...IN_CLUSTER };
const V6 = { cidr: "fd00:1:2:3::/64", dhcp: { rangeStart: "fd00:1:2:3::1000", rangeEnd: "fd00:1:2:3::1fff" } };

describe("config rule: provisioning.bindInterface", function () {
    it("accepts it: the tls-existing example, the dev stack with the check in the cluster or off, an IPv6 network, virtual media on another network by URL, the v6 example (multi, every node listed)", function () {
        const v6 = { ...devRaw, provisioning: { interface: "eth1", ip: "fd00:1:2:3::2", ...V6, bindInterface: true }, ...IN_CLUSTER };
        for (const raw of [tlsExisting, bound(), bound({ readiness: { enabled: false } }), v6, bound({ external: { httpUrl: "https://vmedia.oob.example:6183" } }), v6Bound]) {
            const r = validateConfig(raw);
            assert.ok(r.ok, r.ok ? "" : listing(r.issues));
            assert.equal(r.ok && r.config.provisioning.bindInterface, true);
        }
    });

    it("is off unless set", function () {
        const r = validateConfig(devRaw);
        assert.ok(r.ok && r.config.provisioning.bindInterface === false);
    });

    it("reports every problem of one config at once", function () {
        const r = validateConfig(bound({ readiness: { mode: "port-forward" }, external: { ip: "10.20.0.5", callbackUrl: "https://10.20.0.5:6385" } }, { ipv6: V6 }));
        assert.ok(!r.ok);
        assert.deepEqual(
            r.issues.filter((i) => /binds|bound/.test(i.message)).map((i) => i.key),
            ["provisioning.bindInterface", "external.ip", "external.callbackUrl", "readiness.mode"],
            listing(r.issues),
        );
    });

    ruleTable(bindRule, [
        { name: "multi without a listed address (the Service's endpoints)", raw: { ...haRaw, provisioning: { ...(haRaw.provisioning as object), bindInterface: true }, conductors: [{ name: "cp-0" }], ...IN_CLUSTER }, key: "conductors", message: "list the conductor nodes with their ip", reported: true },
        { name: "multi: a conductor's external.ip (IPA's callback there)", raw: haBound, key: "conductors[1].external.ip", message: "IPA calls the API back at 10.20.0.13, where a bound API does not listen (the image binds it to each conductor's provisioning address alone)", reported: true },
        { name: "multi: the v6 example, every node listed", raw: v6Bound, key: "conductors", message: "", reported: false },
        { name: "dual-stack (httpd binds one address)", raw: bound({}, { ipv6: V6 }), key: "provisioning.bindInterface", message: "IPv6 hosts could not fetch their boot files", reported: true },
        { name: "external.ip (IPA's callback at that address)", raw: bound({ external: { ip: "10.20.0.5" } }), key: "external.ip", message: "IPA calls the API back at 10.20.0.5", reported: true },
        { name: "external.callbackUrl", raw: bound({ external: { callbackUrl: "https://ironic.oob.example:6385" } }), key: "external.callbackUrl", message: "where a bound API does not listen", reported: true },
        { name: "external.httpUrl alone (virtual media listens on every address)", raw: bound({ external: { httpUrl: "https://vmedia.oob.example:6183" } }), key: "external.httpUrl", message: "", reported: false },
        { name: "readiness through kubectl port-forward", raw: bound({ readiness: { mode: "port-forward" } }), key: "readiness.mode", message: "dials the node's loopback", reported: true },
        { name: "readiness auto (port-forward outside a cluster)", raw: bound({ readiness: {} }), key: "readiness.mode", message: '"auto" reaches the API through kubectl port-forward outside a cluster', reported: true },
        { name: "readiness in the cluster", raw: bound(), key: "readiness.mode", message: "", reported: false },
        { name: "readiness off", raw: bound({ readiness: { enabled: false, mode: "port-forward" } }), key: "readiness.mode", message: "", reported: false },
        { name: "not bound: port-forward is fine", raw: { ...devRaw, readiness: { mode: "port-forward" } }, key: "readiness.mode", message: "", reported: false },
    ]);
});
