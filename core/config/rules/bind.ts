/**
 * `provisioning.bindInterface`: httpd's API and boot-file ports on each Ironic's provisioning
 * address alone. The image binds them to one address (IRONIC_IP, its httpd templates under
 * LISTEN_ALL_INTERFACES=false), so whatever must reach the API or the boot files on another address
 * cannot be combined with it; in multi, the API Service's endpoints are the listed addresses.
 */
import type { Rule } from "./rule";

const KEY = "provisioning.bindInterface";

export const bindRule: Rule = ({ config: c }, add) => {
    if (!c.provisioning.bindInterface) return;
    const multi = c.topology === "multi";
    const own = multi ? "each conductor's provisioning address" : `provisioning.ip ${c.provisioning.ip}`;
    if (multi && !c.conductors.some((cd) => cd.ip)) {
        add("conductors", "with provisioning.bindInterface, list the conductor nodes with their ip: those addresses are the API Service's endpoints (a node found at start cannot be named in it), e.g. [{name: cp-0, ip: 172.22.0.2}, …]");
    }
    if (c.provisioning.ipv6) {
        add(KEY, `not with provisioning.ipv6 (dual-stack): the image binds httpd to ${own} alone (IPv4), so IPv6 hosts could not fetch their boot files; remove one of them`);
    }
    const external = multi ? c.conductors.map((cd, i) => [`conductors[${i}].external`, cd.external] as const) : [["external", c.external] as const];
    for (const [key, ext] of external) {
        for (const k of ["ip", "callbackUrl"] as const) {
            if (ext?.[k]) add(`${key}.${k}`, `IPA calls the API back at ${ext[k]}, where a bound API does not listen (the image binds it to ${own} alone); remove ${key}.${k} or provisioning.bindInterface (${key}.httpUrl alone is fine: virtual media listens on every address)`);
        }
    }
    if (c.readiness.enabled && c.readiness.mode !== "in-cluster") {
        add("readiness.mode", `"${c.readiness.mode}" reaches the API through kubectl port-forward${c.readiness.mode === "auto" ? " outside a cluster" : ""}, which dials the node's loopback, where a bound API does not listen; with provisioning.bindInterface set readiness.mode: in-cluster (pulumi up runs in the cluster, e.g. under the Pulumi Kubernetes Operator) or readiness.enabled: false`);
    }
};
