/** Resources: a request above its limit would be refused by the API server; say which key, before any resource. */
import { parseQuantity } from "../quantity";
import { DEFAULT_RESOURCES, RESOURCE_ROLES } from "../resources";
import type { Rule } from "./rule";

export const resourcesRule: Rule = ({ config: c, parsed }, add) => {
    for (const role of RESOURCE_ROLES) {
        const r = c.resources[role];
        for (const kind of ["cpu", "memory"] as const) {
            const request = r.requests[kind];
            const limit = r.limits[kind];
            if (request === undefined || limit === undefined) continue;
            if (parseQuantity(request)! <= parseQuantity(limit)!) continue;
            const userSetRequest = parsed.resources?.[role]?.requests?.[kind] !== undefined;
            const defaulted = (k: "requests" | "limits") => (DEFAULT_RESOURCES[role][k][kind] !== undefined && parsed.resources?.[role]?.[k]?.[kind] === undefined ? " (default)" : "");
            const key = `resources.${role}.${userSetRequest ? "requests" : "limits"}.${kind}`;
            add(
                key,
                `request ${request}${defaulted("requests")} exceeds limit ${limit}${defaulted("limits")}: ` +
                    `set resources.${role}.limits.${kind} to at least resources.${role}.requests.${kind}, or lower the request`,
            );
        }
    }
};
