/** Secrets the user owns versus Secrets the program writes (core/plan/secrets.ts). */
import { strict as assert } from "assert";

import { ownedSecretNames, userSecretIssues, userSecrets } from "../../../core/plan/secrets";
import { devRaw, haRaw, planOf, tlsExistingRaw, withKeys } from "./support";

const external = (db: Record<string, unknown>) => withKeys(haRaw, { database: { kind: "external", host: "db.example.com", ...db } });

describe("plan/secrets: userSecrets", function () {
    it("none with generated TLS and a deployed or no database", function () {
        assert.deepEqual(userSecrets(planOf(devRaw)), []);
        assert.deepEqual(userSecrets(planOf(haRaw)), []);
    });

    it("multi with tls.mode existing: the API Secret and the conductor CA Secret (mounted by that name; the program writes no conductor CA)", function () {
        const plan = planOf(withKeys(haRaw, { tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "my-conductor-ca" } }));
        assert.deepEqual(userSecrets(plan), [
            { key: "tls.existingSecret", name: "my-tls" },
            { key: "tls.conductorCaSecret", name: "my-conductor-ca" },
        ]);
        assert.equal(plan.names.conductorCaSecret, "my-conductor-ca");
        assert.equal(planOf(haRaw).names.conductorCaSecret, "ironic-conductor-ca");
        const clash = userSecretIssues(planOf(withKeys(haRaw, { tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "ironic-conductor-ca" } })));
        assert.deepEqual(clash.map((i) => i.key), ["tls.conductorCaSecret"]);
        assert.match(clash[0].message, /the conductor CA \(multi with tls.mode "generate", or "existing" without tls.conductorCaSecret\)/);
    });

    it("tls.existingSecret, and an external database's credentials and CA Secrets, with their config keys", function () {
        assert.deepEqual(userSecrets(planOf(tlsExistingRaw)), [{ key: "tls.existingSecret", name: "my-tls" }]);
        assert.deepEqual(userSecrets(planOf(external({ credentialsSecret: "db-creds", caSecret: "db-ca" }))), [
            { key: "database.credentialsSecret", name: "db-creds" },
            { key: "database.caSecret", name: "db-ca" },
        ]);
    });
});

describe("plan/secrets: ownedSecretNames", function () {
    it("every Secret the program writes in any mode, named after the stack", function () {
        assert.deepEqual([...ownedSecretNames(planOf(devRaw)).keys()], [
            "ironic-tls",
            "ironic-cacert",
            "ironic-vmedia-tls",
            "ironic-credentials",
            "ironic-config-secrets",
            "ironic-rpc-credentials",
            "ironic-conductor-ca",
            "ironic-conductor-tls",
            "ironic-mariadb-credentials",
            "ironic-mariadb-tls",
            "ironic-mariadb-init",
            "ironic-ipa-cache-tls",
            "ironic-ipa-cache-ca",
        ]);
    });

    it("lists <name>-tls even with tls.mode existing (switching back to generate would write it)", function () {
        const owned = ownedSecretNames(planOf(tlsExistingRaw));
        assert.equal(owned.get("ironic-tls"), 'its own API certificate with tls.mode "generate"');
        assert.ok(!owned.has("my-tls"));
    });
});

describe("plan/secrets: userSecretIssues (name clashes)", function () {
    it("none when the user's Secrets have names of their own", function () {
        assert.deepEqual(userSecretIssues(planOf(tlsExistingRaw)), []);
        assert.deepEqual(userSecretIssues(planOf(external({ credentialsSecret: "db-creds", caSecret: "db-ca" }))), []);
    });

    it("one issue per clash, on the user's key, naming what the program writes there", function () {
        const issues = userSecretIssues(planOf(external({ credentialsSecret: "ironic-tls", caSecret: "ironic-cacert" })));
        assert.deepEqual(issues, [
            {
                key: "database.credentialsSecret",
                message:
                    '"ironic-tls" is the name of a Secret this program writes (its own API certificate with tls.mode "generate"); a Secret you own needs another name, or pulumi up would overwrite it and pulumi destroy delete it',
            },
            {
                key: "database.caSecret",
                message:
                    '"ironic-cacert" is the name of a Secret this program writes (the CA that baremetal-operator mounts); a Secret you own needs another name, or pulumi up would overwrite it and pulumi destroy delete it',
            },
        ]);
    });

    it("a ConfigMap named like one whose name carries a hash (scripts, entries), or like their names of earlier versions", function () {
        const named = (configMap: string) => userSecretIssues(planOf(withKeys(haRaw, { trust: { extraCaBundle: { configMap } } })));
        for (const [name, what] of [
            ["ironic-scripts-0123456789", /the conductors' scripts \(multi\), one per content/],
            ["ironic-conductors-abcdef0123", /the per-node entries \(multi\), one per version of the scripts that read them/],
            ["ironic-conductors", /the per-node entries of earlier versions/],
            ["ironic-scripts", /the conductors' scripts of earlier versions/],
        ] as const) {
            const issues = named(name);
            assert.deepEqual(issues.map((i) => i.key), ["trust.extraCaBundle.configMap"], name);
            assert.match(issues[0].message, what);
        }
        assert.deepEqual(named("ironic-scriptsx"), []);
        assert.deepEqual(named("ironic-conductors-ca"), [], "only a hash suffix is ours");
        assert.deepEqual(named("ironic-scripts-0123456789a"), []);
        assert.deepEqual(named("corp-ca"), []);
    });

    it("tls.existingSecret named like the API credentials", function () {
        const raw = withKeys(tlsExistingRaw, { tls: { mode: "existing", existingSecret: "ironic-credentials" } });
        const issues = userSecretIssues(planOf(raw));
        assert.deepEqual(issues.map((i) => i.key), ["tls.existingSecret"]);
        assert.match(issues[0].message, /^"ironic-credentials" is the name of a Secret this program writes \(the API credentials\)/);
    });
});
