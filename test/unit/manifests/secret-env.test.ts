/**
 * core/manifests/secret-env.ts: env entries that carry a secret config value move into the Secret:
 * the ironic container's OS_* options as an INI file it links into IRONIC_CONF_DIR (the image logs
 * every OS_* variable at start), every other entry as a secretKeyRef.
 */
import { strict as assert } from "assert";

import { SECRET_CONFIG, carriesNeedle, moveSecretEnv, osloIni } from "../../../core/manifests/secret-env";

const ref = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: "ironic-config-secrets", key } } });

describe("manifests/secret-env: moveSecretEnv", function () {
    const template = {
        metadata: { labels: { app: "ironic" } },
        spec: {
            initContainers: [{ name: "downloader", env: [{ name: "HTTPS_PROXY", value: "http://u:pw-1234@proxy:3128" }] }],
            containers: [
                {
                    name: "ironic",
                    command: ["/bin/runironic"],
                    env: [{ name: "OS_REDFISH__PASSWORD", value: "pw-1234" }, { name: "OS_DEFAULT__X_Y", value: "other-pw-5678" }, { name: "PLAIN", value: "1800" }, { name: "HTTPS_PROXY", value: "http://u:pw-1234@proxy:3128" }],
                    volumeMounts: [{ name: "conf", mountPath: "/conf" }],
                },
                { name: "httpd", env: [{ name: "OS_REDFISH__PASSWORD", value: "other-pw-5678" }, { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }] },
            ],
            volumes: [{ name: "conf", emptyDir: {} }],
        },
    };

    it("the ironic container's secret OS_* options: one INI file in the Secret, mounted and linked into IRONIC_CONF_DIR before the image's own command; no env entry left", function () {
        const data: Record<string, string> = {};
        const r = moveSecretEnv(template, ["pw-1234", "other-pw-5678"], "ironic-config-secrets", data)!;
        const ironic = r.template.spec.containers![0];
        assert.deepEqual(ironic.env, [{ name: "PLAIN", value: "1800" }, ref("HTTPS_PROXY", "HTTPS_PROXY")]);
        assert.equal(data["ironic.conf"], "[DEFAULT]\nx_y = \"other-pw-5678\"\n\n[redfish]\npassword = \"pw-1234\"\n");
        assert.deepEqual(ironic.command, ["/bin/bash", "-c", 'mkdir -p /conf/ironic && ln -sfn /etc/metal3-ironic/config-secrets/ironic.conf /conf/ironic/zz-config-secrets.conf && exec "$@"', "config-secrets", "/bin/runironic"]);
        assert.deepEqual(ironic.volumeMounts, [{ name: "conf", mountPath: "/conf" }, { name: SECRET_CONFIG.volume, mountPath: SECRET_CONFIG.mountPath, readOnly: true }]);
        assert.deepEqual(r.template.spec.volumes, [{ name: "conf", emptyDir: {} }, { name: "config-secrets", secret: { secretName: "ironic-config-secrets", items: [{ key: "ironic.conf", path: "ironic.conf" }] } }]);
    });

    it("every other entry becomes a secretKeyRef (containers and init containers); one value, one key; another value under the same name, a key with the container's name", function () {
        const data: Record<string, string> = {};
        const r = moveSecretEnv(template, ["pw-1234", "other-pw-5678"], "ironic-config-secrets", data)!;
        assert.deepEqual(r.template.spec.initContainers![0].env, [ref("HTTPS_PROXY", "HTTPS_PROXY")]);
        // httpd is not Ironic: its OS_* entry is an env reference (nothing of the image logs it there).
        assert.deepEqual(r.template.spec.containers![1].env, [ref("OS_REDFISH__PASSWORD", "OS_REDFISH__PASSWORD"), { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }]);
        assert.equal(r.template.spec.containers![1].command, undefined);
        assert.deepEqual(Object.keys(data).sort(), ["HTTPS_PROXY", "OS_REDFISH__PASSWORD", "ironic.conf"]);
        assert.deepEqual(r.keys, ["HTTPS_PROXY", "OS_REDFISH__PASSWORD", "ironic.conf"]);
        assert.deepEqual(r.template.metadata, template.metadata);
        assert.equal(template.spec.containers[0].env[0].value, "pw-1234", "the input is not changed");
        const clash: Record<string, string> = { HTTPS_PROXY: "http://another" };
        const again = moveSecretEnv(template, ["pw-1234"], "s", clash)!;
        assert.deepEqual(again.template.spec.initContainers![0].env![0], { name: "HTTPS_PROXY", valueFrom: { secretKeyRef: { name: "s", key: "HTTPS_PROXY.downloader" } } });
    });

    it("nothing to move: undefined (the workload is registered as it was)", function () {
        assert.equal(moveSecretEnv(template, ["not-there"], "s", {}), undefined);
        assert.equal(moveSecretEnv(template, [], "s", {}), undefined);
    });

    it("osloIni: sections sorted, DEFAULT kept, groups with underscores split at the double one", function () {
        assert.equal(osloIni([["OS_JSON_RPC__HTTP_BASIC_PASSWORD", "a b"], ["OS_DEFAULT__HOST", "h"]]), "[DEFAULT]\nhost = \"h\"\n\n[json_rpc]\nhttp_basic_password = \"a b\"\n");
    });

    it("needles are JSON-escaped, as secretNeedles makes them", function () {
        assert.equal(carriesNeedle('a"b\\c', ['a\\"b\\\\c']), true);
        assert.equal(carriesNeedle("abc", ["abcd"]), false);
    });
});
