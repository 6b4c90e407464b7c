/**
 * Ironic's trust (trust.bmcCa, trust.trustedCa): each sets one Ironic option to a bundle the pod
 * builds; the same option in ironic.config would silently win over it (the user's overrides come
 * last), so naming both is refused.
 */
import { IRONIC_TRUST } from "../../contract";
import type { Rule } from "./rule";

const OWNED = [
    { key: "trust.bmcCa", option: IRONIC_TRUST.bmcVerifyCa },
    { key: "trust.trustedCa", option: IRONIC_TRUST.webserverVerifyCa },
] as const;

export const trustRule: Rule = ({ config: c }, add) => {
    for (const { key, option } of OWNED) {
        if (!c.trust[key.slice("trust.".length) as "bmcCa" | "trustedCa"]) continue;
        const wanted = option.join(".").toLowerCase();
        for (const k of Object.keys(c.ironic.config)) {
            if (k.toLowerCase() === wanted) add(`ironic.config.${k}`, `set by ${key} (the system bundle plus your CAs, rebuilt when they change); remove it, or remove ${key} to set the option yourself`);
        }
    }
};
