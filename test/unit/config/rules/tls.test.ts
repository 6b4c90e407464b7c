/** rules/tls.ts: the Secret names with `existing` only (the conductor CA in multi), and no renewal due at issue time. */
import { strict as assert } from "assert";

import { validateConfig } from "../../../../core/config";
import { tlsRule } from "../../../../core/config/rules/tls";
import { devRaw, haRaw, hasIssue, issues, ruleTable } from "../support";

const haExisting = { ...haRaw, tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "my-conductor-ca" } };

describe("config rule: TLS", function () {
    it("rejects early renewal that would regenerate certificates on every run", function () {
        hasIssue(issues({ ...devRaw, tls: { validityDays: 30, renewBeforeDays: 30 } }), "tls.renewBeforeDays", /regenerated on every run/);
    });

    it("requires the Secret name with existing TLS", function () {
        hasIssue(issues({ ...devRaw, tls: { mode: "existing" } }), "tls.existingSecret", /required/);
    });

    it("accepts tls.mode existing in multi with the conductor CA: no issue at all", function () {
        const r = validateConfig(haExisting);
        assert.ok(r.ok, JSON.stringify(!r.ok && r.issues));
    });

    ruleTable(tlsRule, [
        { name: "existing without a Secret", raw: { ...devRaw, tls: { mode: "existing" } }, key: "tls.existingSecret", message: 'required with tls.mode "existing"', reported: true },
        { name: "existing with a Secret", raw: { ...devRaw, tls: { mode: "existing", existingSecret: "my-tls" } }, key: "tls.existingSecret", message: "required", reported: false },
        { name: "a Secret without mode existing", raw: { ...devRaw, tls: { existingSecret: "my-tls" } }, key: "tls.existingSecret", message: 'only used with tls.mode "existing"', reported: true },
        { name: "generate without a Secret", raw: { ...devRaw, tls: { mode: "generate" } }, key: "tls.existingSecret", message: "only used with", reported: false },
        { name: "multi: existing with a conductor CA", raw: haExisting, key: "tls.conductorCaSecret", message: "", reported: false },
        { name: "multi: existing without a conductor CA (the stack's own root serves JSON-RPC)", raw: { ...haRaw, tls: { mode: "existing", existingSecret: "my-tls" } }, key: "tls.conductorCaSecret", message: "", reported: false },
        { name: "multi: a conductor CA with generate", raw: { ...haRaw, tls: { conductorCaSecret: "my-conductor-ca" } }, key: "tls.conductorCaSecret", message: 'only used with tls.mode "existing" in topology "multi"; remove it or set tls.mode to "existing"', reported: true },
        { name: "single: a conductor CA with existing", raw: { ...devRaw, tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "my-conductor-ca" } }, key: "tls.conductorCaSecret", message: 'only used with topology "multi"', reported: true },
        { name: "multi: the API Secret as conductor CA", raw: { ...haRaw, tls: { mode: "existing", existingSecret: "my-tls", conductorCaSecret: "my-tls" } }, key: "tls.conductorCaSecret", message: "must not be tls.existingSecret", reported: true },
        { name: "cert-manager with an issuer", raw: { ...devRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" } }, readiness: { enabled: false } }, key: "tls.issuer", message: "", reported: false },
        { name: "cert-manager without an issuer", raw: { ...devRaw, tls: { mode: "cert-manager" }, readiness: { enabled: false } }, key: "tls.issuer", message: 'required with tls.mode "cert-manager"', reported: true },
        { name: "an issuer with generate", raw: { ...devRaw, tls: { issuer: { name: "corp-ca" } } }, key: "tls.issuer", message: 'only used with tls.mode "cert-manager"', reported: true },
        { name: "cert-manager with the live check on by default", raw: { ...haRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" } } }, key: "readiness.enabled", message: 'must be false with tls.mode "cert-manager" (it is on by default)', reported: true },
        { name: "cert-manager with the MariaDB operator", raw: { ...haRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" } }, readiness: { enabled: false }, database: { kind: "mariadb-operator" } }, key: "database.kind", message: 'mariadb-operator is not supported with tls.mode "cert-manager" yet', reported: true },
        { name: "existing with the MariaDB operator", raw: { ...haRaw, tls: { mode: "existing", existingSecret: "corp-api", conductorCaSecret: "corp-ca" }, database: { kind: "mariadb-operator" } }, key: "database.kind", message: "", reported: false },
        { name: "cert-manager with the live check set on", raw: { ...devRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" } }, readiness: { enabled: true } }, key: "readiness.enabled", message: "(it is set)", reported: true },
        { name: "generate with the live check on", raw: devRaw, key: "readiness.enabled", message: "", reported: false },
        { name: "a Secret with cert-manager", raw: { ...devRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" }, existingSecret: "my-tls" }, readiness: { enabled: false } }, key: "tls.existingSecret", message: 'only used with tls.mode "existing"', reported: true },
        { name: "a conductor CA with cert-manager", raw: { ...haRaw, tls: { mode: "cert-manager", issuer: { name: "corp-ca" }, conductorCaSecret: "my-ca" }, readiness: { enabled: false } }, key: "tls.conductorCaSecret", message: 'only used with tls.mode "existing"', reported: true },
        { name: "renewal due at issue", raw: { ...devRaw, tls: { validityDays: 30, renewBeforeDays: 30 } }, key: "tls.renewBeforeDays", message: "must be less than tls.validityDays (30)", reported: true },
        { name: "renewal a day before expiry", raw: { ...devRaw, tls: { validityDays: 30, renewBeforeDays: 29 } }, key: "tls.renewBeforeDays", message: "tls.validityDays", reported: false },
        { name: "renewal beyond the CA", raw: { ...devRaw, tls: { caValidityDays: 100, renewBeforeDays: 100 } }, key: "tls.renewBeforeDays", message: "must be less than tls.caValidityDays (100)", reported: true },
        { name: "renewal within the CA", raw: { ...devRaw, tls: { caValidityDays: 101, renewBeforeDays: 100 } }, key: "tls.renewBeforeDays", message: "tls.caValidityDays", reported: false },
    ]);
});
