/**
 * Config as the Pulumi CLI stores it (core/config/cli.ts): top-level strings, --path integers and
 * booleans, read with the meaning the user gave them; nothing else converted.
 */
import { strict as assert } from "assert";

import { ConfigIssue, StackConfig, validateConfig } from "../../../core/config";
import { cliSpelling } from "../../../core/config/cli";
import { devRaw, haRaw, issues, withDhcp } from "./support";

function ok(raw: Record<string, unknown>): StackConfig {
    const r = validateConfig(raw);
    assert.ok(r.ok, `expected the config to pass: ${JSON.stringify((r as { issues?: ConfigIssue[] }).issues)}`);
    return (r as { config: StackConfig }).config;
}

describe("config as the Pulumi CLI stores it", function () {
    it("undoes exactly the CLI's coercion: integers and booleans where strings are expected, and back", function () {
        assert.deepEqual(cliSpelling("string", 3600), { value: "3600" });
        assert.deepEqual(cliSpelling("string", true), { value: "true" });
        assert.deepEqual(cliSpelling("boolean", "false"), { value: false });
        assert.deepEqual(cliSpelling("number", "6385"), { value: 6385 });
        // The CLI never turns these into numbers, so they are not its doing.
        assert.equal(cliSpelling("number", "06385"), undefined);
        assert.equal(cliSpelling("number", "63.5"), undefined);
        assert.equal(cliSpelling("string", 1.5), undefined);
        assert.equal(cliSpelling("boolean", "yes"), undefined);
        assert.equal(cliSpelling("boolean", 1), undefined);
    });

    it("top-level createNamespace \"false\" (pulumi config set without --path) means false", function () {
        assert.equal(ok({ ...devRaw, createNamespace: "false" }).createNamespace, false);
        assert.equal(ok({ ...devRaw, createNamespace: "true" }).createNamespace, true);
    });

    it("--path provisioning.dhcp.leaseTime 3600 (stored as a number) is the lease time 3600", function () {
        const c = ok(withDhcp({ leaseTime: 3600 }));
        assert.equal(c.provisioning.dhcp?.leaseTime, "3600");
    });

    it("--path integers for ports and an Ironic version; a string for a boolean", function () {
        const c = ok({ ...devRaw, ports: { api: "6385", http: 6180 } });
        assert.equal(c.ports.api, 6385);
        assert.equal(c.ports.http, 6180);
        assert.equal(ok({ ...haRaw, images: { ironicVersion: 38 } }).images.ironicVersion, "38");
        assert.equal(ok({ ...haRaw, provisioning: { ...(haRaw.provisioning as object), keepalived: "false" } }).provisioning.keepalived, false);
    });

    it("still refuses what the CLI cannot have written for that meaning, naming the key", function () {
        const found = issues({ ...devRaw, createNamespace: "no", ports: { api: "63.85" } });
        assert.ok(found.some((i) => i.key === "createNamespace" && i.message === 'must be true or false (got "no")'), JSON.stringify(found));
        assert.ok(found.some((i) => i.key === "ports.api"), JSON.stringify(found));
        const lease = issues(withDhcp({ leaseTime: 1.5 }));
        assert.ok(lease.some((i) => i.key === "provisioning.dhcp.leaseTime"), JSON.stringify(lease));
    });

    it("respells at any depth: a --path integer slot (as a string) inside the list of conductors", function () {
        const conductors = (haRaw.conductors as Record<string, unknown>[]).map((c, i) => ({ ...c, slot: String(i) }));
        const c = ok({ ...haRaw, conductors });
        assert.deepEqual(
            c.conductors?.map((x) => x.slot),
            [0, 1, 2],
        );
    });
});
