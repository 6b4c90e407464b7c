/** core/manifests/secret-env.ts: env entries that carry a secret config value become secretKeyRefs. */
import { strict as assert } from "assert";

import { carriesNeedle, moveSecretEnv } from "../../../core/manifests/secret-env";

const ref = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: "ironic-config-secrets", key } } });

describe("manifests/secret-env: moveSecretEnv", function () {
    const template = {
        metadata: { labels: { app: "ironic" } },
        spec: {
            initContainers: [{ name: "downloader", env: [{ name: "HTTPS_PROXY", value: "http://u:pw-1234@proxy:3128" }] }],
            containers: [
                { name: "ironic", env: [{ name: "OS_A__B", value: "pw-1234" }, { name: "PLAIN", value: "1800" }, { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }] },
                { name: "httpd", env: [{ name: "OS_A__B", value: "other-pw-5678" }, { name: "HTTPS_PROXY", value: "http://u:pw-1234@proxy:3128" }] },
            ],
        },
    };

    it("moves the entries that carry a needle (containers and init containers), leaves the rest as it was", function () {
        const data: Record<string, string> = {};
        const r = moveSecretEnv(template, ["pw-1234", "other-pw-5678"], "ironic-config-secrets", data)!;
        assert.deepEqual(r.template.spec.initContainers![0].env, [ref("HTTPS_PROXY", "HTTPS_PROXY")]);
        assert.deepEqual(r.template.spec.containers![0].env, [ref("OS_A__B", "OS_A__B"), { name: "PLAIN", value: "1800" }, { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }]);
        // Same name, another value: a key of its own with the container's name; the same value shares its key.
        assert.deepEqual(r.template.spec.containers![1].env, [ref("OS_A__B", "OS_A__B.httpd"), ref("HTTPS_PROXY", "HTTPS_PROXY")]);
        assert.deepEqual(data, { HTTPS_PROXY: "http://u:pw-1234@proxy:3128", OS_A__B: "pw-1234", "OS_A__B.httpd": "other-pw-5678" });
        assert.deepEqual(r.keys, ["HTTPS_PROXY", "OS_A__B", "OS_A__B.httpd"]);
        assert.deepEqual(r.template.metadata, template.metadata);
        assert.equal(template.spec.containers[0].env[0].value, "pw-1234", "the input is not changed");
    });

    it("nothing to move: undefined (the workload is registered as it was)", function () {
        assert.equal(moveSecretEnv(template, ["not-there"], "s", {}), undefined);
        assert.equal(moveSecretEnv(template, [], "s", {}), undefined);
    });

    it("needles are JSON-escaped, as secretNeedles makes them", function () {
        assert.equal(carriesNeedle('a"b\\c', ['a\\"b\\\\c']), true);
        assert.equal(carriesNeedle("abc", ["abcd"]), false);
    });
});
