/** rules/resources.ts and the `resources` section: roles are a closed set, quantities compare as numbers. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../../core/config";
import { resourcesRule } from "../../../../core/config/rules/resources";
import { devRaw, haRaw, hasIssue, issues, ruleTable } from "../support";

const res = (resources: Record<string, unknown>, base = devRaw) => ({ ...base, resources });

describe("config rule: resources", function () {
    ruleTable(resourcesRule, [
        { name: "request above the limit", raw: res({ ironic: { requests: { memory: "2Gi" }, limits: { memory: "1Gi" } } }), key: "resources.ironic.requests.memory", message: "request 2Gi exceeds limit 1Gi:", reported: true },
        { name: "request above the default limit", raw: res({ ironic: { requests: { memory: "1100Mi" } } }), key: "resources.ironic.requests.memory", message: "request 1100Mi exceeds limit 1Gi (default)", reported: true },
        { name: "limit below the default request", raw: res({ ironic: { limits: { memory: "256Mi" } } }), key: "resources.ironic.limits.memory", message: "request 512Mi (default) exceeds limit 256Mi", reported: true },
        { name: "mixed units, equal", raw: res({ ironic: { requests: { memory: "1024Mi" }, limits: { memory: "1Gi" } } }), key: "resources.ironic.requests.memory", message: "exceeds", reported: false },
        { name: "1G is less than 1000Mi", raw: res({ httpd: { requests: { memory: "1000Mi" }, limits: { memory: "1G" } } }), key: "resources.httpd.requests.memory", message: "request 1000Mi exceeds limit 1G", reported: true },
        { name: "CPU in millicores against cores", raw: res({ dnsmasq: { requests: { cpu: "1500m" }, limits: { cpu: "1" } } }), key: "resources.dnsmasq.requests.cpu", message: "request 1500m exceeds limit 1", reported: true },
        { name: "CPU request below a CPU limit", raw: res({ dnsmasq: { requests: { cpu: "500m" }, limits: { cpu: "1" } } }), key: "resources.dnsmasq.requests.cpu", message: "exceeds", reported: false },
        { name: "CPU limit below the default request", raw: res({ ironic: { limits: { cpu: "100m" } } }), key: "resources.ironic.limits.cpu", message: "request 250m (default) exceeds limit 100m", reported: true },
        { name: "multi: schema Jobs", raw: res({ schemaJobs: { requests: { memory: "4Gi" } } }, haRaw), key: "resources.schemaJobs.requests.memory", message: "exceeds limit 1Gi (default)", reported: true },
    ]);

    it("a misspelt role or field gets a did-you-mean hint with its key", function () {
        hasIssue(issues(res({ ironc: { limits: { memory: "1Gi" } } })), "resources", /unknown key "ironc": did you mean "ironic"\?/);
        hasIssue(issues(res({ dhcpPrunner: {} })), "resources", /did you mean "dhcpPruner"/);
        hasIssue(issues(res({ ironic: { limit: { memory: "1Gi" } } })), "resources.ironic", /did you mean "limits"/);
        hasIssue(issues(res({ ironic: { limits: { memroy: "1Gi" } } })), "resources.ironic.limits", /did you mean "memory"/);
    });

    it("values are Kubernetes quantities", function () {
        hasIssue(issues(res({ ironic: { limits: { memory: "1GB" } } })), "resources.ironic.limits.memory", /Kubernetes quantity/);
        hasIssue(issues(res({ mariadb: { requests: { cpu: 1.5 } } })), "resources.mariadb.requests.cpu", /string/);
        // `pulumi config set --path ...cpu 2` stores the integer 2: the quantity "2".
        const cli = validateConfig(res({ mariadb: { requests: { cpu: 2 } } }, haRaw));
        assert.ok(cli.ok && cli.config.resources.mariadb.requests.cpu === "2", JSON.stringify(!cli.ok && cli.issues));
    });

    it("accepts every role with sane values", function () {
        const ok = validateConfig(res({ ironic: { requests: { cpu: "500m", memory: "1Gi" }, limits: { cpu: "2", memory: "2Gi" } }, keepalived: { limits: { memory: "32Mi" } } }, haRaw));
        assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.issues));
    });
});
