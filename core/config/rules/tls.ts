/** TLS: the Secret name goes with `existing` only, and certificates must not be due for renewal when issued. */
import type { Rule } from "./rule";

export const tlsRule: Rule = ({ config: c, parsed }, add) => {
    if (!parsed.tls) return;
    if (c.tls.mode === "existing" && !c.tls.existingSecret) {
        add("tls.existingSecret", 'required with tls.mode "existing": the name of a Secret in the namespace with keys tls.crt, tls.key and ca.crt');
    }
    if (c.tls.mode === "generate" && c.tls.existingSecret) {
        add("tls.existingSecret", 'only used with tls.mode "existing"; remove it or set tls.mode to "existing"');
    }
    if (c.tls.renewBeforeDays >= c.tls.validityDays) {
        add("tls.renewBeforeDays", `must be less than tls.validityDays (${c.tls.validityDays}); otherwise the certificate is due for renewal as soon as it is issued and is regenerated on every run`);
    }
    if (c.tls.renewBeforeDays >= c.tls.caValidityDays) {
        add("tls.renewBeforeDays", `must be less than tls.caValidityDays (${c.tls.caValidityDays})`);
    }
};
