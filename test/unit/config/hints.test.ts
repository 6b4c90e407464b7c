/**
 * core/config/hints.ts through validateConfig: what a newcomer's mistakes are told. Each case is
 * one a new user made (issue 20): before, a type error read "Invalid input: expected boolean,
 * received string", an en dash in a node name was not shown, and a key under the wrong prefix was
 * ignored without a word.
 */
import { strict as assert } from "assert";

import { validateConfig } from "../../../core/config";
import { asciiQuoted, misplacedKeys, nonAscii } from "../../../core/config/hints";
import { TOP_LEVEL_KEYS } from "../../../core/config/schema";
import { devRaw, haRaw, issues, listing } from "./support";

const messageOf = (list: { key: string; message: string }[], key: string) => {
    const m = list.find((i) => i.key === key);
    assert.ok(m, `an issue for ${key}; got:\n${listing(list)}`);
    return m!.message;
};

describe("config hints: type errors, characters outside ASCII, keys under another prefix", function () {
    it("a type error says what the key takes and what it got, never the validator's own words", function () {
        const list = issues({ ...devRaw, createNamespace: "yes", readiness: { timeoutSeconds: "soon" }, tls: { extraIps: "172.22.0.9" }, placement: "control-plane" });
        assert.equal(messageOf(list, "createNamespace"), 'must be true or false (got "yes")');
        assert.equal(messageOf(list, "readiness.timeoutSeconds"), 'must be a number (got "soon")');
        assert.match(messageOf(list, "tls.extraIps"), /^must be a list \(got "172\.22\.0\.9"\); set each item with pulumi config set --path 'metal3-ironic:tls\.extraIps\[0\]' <value>$/);
        assert.match(messageOf(list, "placement"), /^must be a map of keys \(got "control-plane"\); set each key with pulumi config set --path metal3-ironic:placement\.<key> <value>$/);
        assert.ok(!list.some((i) => /Invalid input|expected \w+, received/.test(i.message)), listing(list));
    });

    it("a map key given a string: says it takes a map, with the --path form", function () {
        const list = issues({ ...devRaw, placement: { nodeSelector: "a=b" } });
        assert.match(messageOf(list, "placement.nodeSelector"), /^must be a map of keys \(got "a=b"\); set each key with pulumi config set --path metal3-ironic:placement\.nodeSelector\.<key> <value>$/);
    });

    it("a value set with --secret is never shown in an issue, not even escaped", function () {
        const raw = { ...devRaw, ironic: { config: { "foo.password": { nested: "p\u00e4ss" } }, apiUsername: "ops" }, createNamespace: "s3cr\u00e9t" };
        const r = validateConfig(raw, { secretKeys: ["ironic", "createNamespace"] });
        assert.equal(r.ok, false);
        const text = listing((r as { issues: { key: string; message: string }[] }).issues);
        assert.doesNotMatch(text, /p\u00e4ss|p\\u00e4ss|s3cr/, text);
        assert.match(text, /createNamespace: must be true or false \(got a value set with --secret, not shown\)/);
    });

    it("a required key left out says required", function () {
        const list = issues({ ...devRaw, provisioning: { ip: "172.22.0.2" } });
        assert.equal(messageOf(list, "provisioning.cidr"), "required");
    });

    it("a value with an en dash (or another look-alike) is shown escaped, with its code point", function () {
        const raw = { ...haRaw, conductors: [{ name: "cp-0" }, { name: "master\u20132" }] };
        const m = messageOf(issues(raw), "conductors[1].name");
        assert.match(m, /^must be a Kubernetes node name/);
        assert.ok(m.includes('the value "master\\u20132" contains U+2013, outside ASCII'), m);
        assert.deepEqual(nonAscii("a\u00a0b\u201cc\u201d"), ["U+00A0", "U+201C", "U+201D"]);
        assert.equal(asciiQuoted("é\n"), '"\\u00e9\\n"');
    });

    it("a key of ours under another prefix is named with the command that moves it; other projects' and providers' keys are left alone", function () {
        const keys = ["metal3:namespace", "metal3-ironc:provisioning.dhcp.gateway", "Metal3-Ironic:name", "kubernetes:namespace", "kubernetes:context", "pulumi:disable-default-providers", "aws:region", "metal3-ironic:topology", "ops:owner", "vault:namespace", "postgresql:database", "myorg:name"];
        const found = misplacedKeys(keys, TOP_LEVEL_KEYS);
        assert.deepEqual(
            found.map((f) => f.key),
            ["Metal3-Ironic:name", "metal3-ironc:provisioning.dhcp.gateway", "metal3:namespace"],
        );
        assert.equal(
            found.find((f) => f.key === "metal3:namespace")!.message,
            'is under the prefix "metal3", but this project is metal3-ironic: the program reads metal3-ironic:namespace and never this key, so its value is ignored. Move it: pulumi config rm metal3:namespace, then pulumi config set metal3-ironic:namespace <value>',
        );
        assert.match(found.find((f) => f.key.startsWith("metal3-ironc"))!.message, /pulumi config set --path metal3-ironic:provisioning\.dhcp\.gateway <value>$/);
        // With the rest of the config valid, the misplaced key alone refuses the stack.
        const r = validateConfig(devRaw, { configKeys: ["metal3:namespace", "kubernetes:context"] });
        assert.equal(r.ok, false);
        assert.deepEqual((r as { issues: { key: string }[] }).issues.map((i) => i.key), ["metal3:namespace"]);
        assert.ok(validateConfig(devRaw, { configKeys: ["kubernetes:namespace", "metal3-ironic:namespace"] }).ok);
    });
});
