/**
 * `provisioning.bindInterface`: httpd's API and boot-file ports on Ironic's provisioning address
 * alone. The image binds them to one address (IRONIC_IP, its httpd templates under
 * LISTEN_ALL_INTERFACES=false), so whatever must reach the API or the boot files on another address
 * cannot be combined with it.
 */
import type { Rule } from "./rule";

const KEY = "provisioning.bindInterface";

export const bindRule: Rule = ({ config: c }, add) => {
    if (!c.provisioning.bindInterface) return;
    if (c.topology === "multi") {
        add(KEY, 'only with topology "single" for now: a conductor\'s address is found on its node at start, so neither the API Service\'s endpoints nor httpd\'s probes can name it; remove it (JSON-RPC already listens on each conductor\'s provisioning address alone)');
        return;
    }
    if (c.provisioning.ipv6) {
        add(KEY, `not with provisioning.ipv6 (dual-stack): the image binds httpd to provisioning.ip ${c.provisioning.ip} alone, so IPv6 hosts could not fetch their boot files; remove one of them`);
    }
    for (const k of ["ip", "callbackUrl"] as const) {
        if (c.external?.[k]) add(`external.${k}`, `IPA calls the API back at ${c.external[k]}, where a bound API does not listen (the image binds it to provisioning.ip ${c.provisioning.ip} alone); remove external.${k} or provisioning.bindInterface (external.httpUrl alone is fine: virtual media listens on every address)`);
    }
    if (c.readiness.enabled && c.readiness.mode !== "in-cluster") {
        add("readiness.mode", `"${c.readiness.mode}" reaches the API through kubectl port-forward${c.readiness.mode === "auto" ? " outside a cluster" : ""}, which dials the node's loopback, where a bound API does not listen; with provisioning.bindInterface set readiness.mode: in-cluster (pulumi up runs in the cluster, e.g. under the Pulumi Kubernetes Operator) or readiness.enabled: false`);
    }
};
