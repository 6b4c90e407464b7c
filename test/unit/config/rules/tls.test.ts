/** rules/tls.ts: the Secret name with `existing` only, and no renewal due at issue time. */
import { tlsRule } from "../../../../core/config/rules/tls";
import { devRaw, hasIssue, issues, ruleTable } from "../support";

describe("config rule: TLS", function () {
    it("rejects early renewal that would regenerate certificates on every run", function () {
        hasIssue(issues({ ...devRaw, tls: { validityDays: 30, renewBeforeDays: 30 } }), "tls.renewBeforeDays", /regenerated on every run/);
    });

    it("requires the Secret name with existing TLS", function () {
        hasIssue(issues({ ...devRaw, tls: { mode: "existing" } }), "tls.existingSecret", /required/);
    });

    ruleTable(tlsRule, [
        { name: "existing without a Secret", raw: { ...devRaw, tls: { mode: "existing" } }, key: "tls.existingSecret", message: 'required with tls.mode "existing"', reported: true },
        { name: "existing with a Secret", raw: { ...devRaw, tls: { mode: "existing", existingSecret: "my-tls" } }, key: "tls.existingSecret", message: "required", reported: false },
        { name: "a Secret without mode existing", raw: { ...devRaw, tls: { existingSecret: "my-tls" } }, key: "tls.existingSecret", message: 'only used with tls.mode "existing"', reported: true },
        { name: "generate without a Secret", raw: { ...devRaw, tls: { mode: "generate" } }, key: "tls.existingSecret", message: "only used with", reported: false },
        { name: "renewal due at issue", raw: { ...devRaw, tls: { validityDays: 30, renewBeforeDays: 30 } }, key: "tls.renewBeforeDays", message: "must be less than tls.validityDays (30)", reported: true },
        { name: "renewal a day before expiry", raw: { ...devRaw, tls: { validityDays: 30, renewBeforeDays: 29 } }, key: "tls.renewBeforeDays", message: "tls.validityDays", reported: false },
        { name: "renewal beyond the CA", raw: { ...devRaw, tls: { caValidityDays: 100, renewBeforeDays: 100 } }, key: "tls.renewBeforeDays", message: "must be less than tls.caValidityDays (100)", reported: true },
        { name: "renewal within the CA", raw: { ...devRaw, tls: { caValidityDays: 101, renewBeforeDays: 100 } }, key: "tls.renewBeforeDays", message: "tls.caValidityDays", reported: false },
    ]);
});
