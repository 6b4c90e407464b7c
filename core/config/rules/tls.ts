/**
 * TLS: the Secret names go with `existing` only (the conductor CA's, optional, with `multi` too), the issuer
 * with `cert-manager` only, and certificates must not be due for renewal when issued.
 */
import type { Rule } from "./rule";

export const tlsRule: Rule = (input, add) => {
    const { config: c, parsed } = input;
    if (!parsed.tls) return;
    if (c.tls.mode === "existing" && !c.tls.existingSecret) {
        add("tls.existingSecret", 'required with tls.mode "existing": the name of a Secret in the namespace with keys tls.crt, tls.key and ca.crt');
    }
    if (c.tls.mode !== "existing" && c.tls.existingSecret) {
        add("tls.existingSecret", 'only used with tls.mode "existing"; remove it or set tls.mode to "existing"');
    }
    conductorCaProblems(input, add);
    issuerProblems(input, add);
    if (c.tls.renewBeforeDays >= c.tls.validityDays) {
        add("tls.renewBeforeDays", `must be less than tls.validityDays (${c.tls.validityDays}); otherwise the certificate is due for renewal as soon as it is issued and is regenerated on every run`);
    }
    if (c.tls.renewBeforeDays >= c.tls.caValidityDays) {
        add("tls.renewBeforeDays", `must be less than tls.caValidityDays (${c.tls.caValidityDays})`);
    }
};

/**
 * `existing` in `multi`: every conductor mints its JSON-RPC certificate (its own address) at start,
 * from a CA of the user's when tls.conductorCaSecret names one (its key stays in the user's Secret:
 * mounted, never read by Pulumi), else from a root the stack makes for JSON-RPC alone.
 */
const conductorCaProblems: Rule = ({ config: c, failed }, add) => {
    const multi = c.topology === "multi" && !failed.has("topology");
    const secret = c.tls.conductorCaSecret;
    if (secret && c.tls.mode !== "existing") add("tls.conductorCaSecret", 'only used with tls.mode "existing" in topology "multi"; remove it or set tls.mode to "existing"');
    else if (secret && !multi) add("tls.conductorCaSecret", 'only used with topology "multi" (the single Ironic serves JSON-RPC to no one); remove it');
    if (secret && secret === c.tls.existingSecret) {
        add("tls.conductorCaSecret", "must not be tls.existingSecret: that Secret holds the API certificate and its key; the conductor CA is a CA certificate and key of its own");
    }
};

/**
 * `cert-manager`: every Certificate names the issuer; the live readiness check needs the CA that
 * signs the API, which only the issuer knows once it has signed (ca.crt of <name>-tls).
 */
const issuerProblems: Rule = ({ config: c, parsed }, add) => {
    if (c.tls.mode === "cert-manager" && !c.tls.issuer) {
        add("tls.issuer", 'required with tls.mode "cert-manager": the cert-manager issuer that signs the stack\'s Certificates, e.g. {name: corp-ca, kind: ClusterIssuer} (kind Issuer: in the namespace)');
    }
    if (c.tls.mode !== "cert-manager" && c.tls.issuer) add("tls.issuer", 'only used with tls.mode "cert-manager"; remove it or set tls.mode to "cert-manager"');
    if (c.tls.mode === "cert-manager" && c.database.kind === "mariadb-operator") {
        // The Galera members' certificate comes from the stack CA (components/mariadb-operator.ts), which cert-manager mode does not create.
        add("database.kind", 'mariadb-operator is not supported with tls.mode "cert-manager" yet: use tls.mode "generate" or "existing" with it, or database.kind "mariadb" or "external" with cert-manager');
    }
    if (c.tls.mode === "cert-manager" && c.readiness.enabled) {
        const how = parsed.readiness?.enabled === undefined ? "it is on by default" : "it is set";
        add(
            "readiness.enabled",
            `must be false with tls.mode "cert-manager" (${how}): the live check verifies the API with the CA that signed it, which with cert-manager is the issuer's and known only once it has signed; set readiness.enabled to false and check with kubectl -n <namespace> wait certificate --all --for=condition=Ready`,
        );
    }
};
