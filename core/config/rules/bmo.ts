/**
 * bmo.*: settings that only mean something with BMO deployed, and the checksum a release other
 * than the pinned one needs (without it nothing says the zip downloaded is the release named).
 */
import { BMO_MODULE, BMO_PINNED } from "../../bmo-release";
import type { Rule } from "./rule";

export const bmoRule: Rule = ({ config: c, parsed }, add) => {
    const set = parsed.bmo ?? {};
    if (!c.bmo.enabled) {
        for (const k of ["version", "checksum", "goproxy"] as const) {
            if (set[k] !== undefined) add(`bmo.${k}`, "has no effect while bmo.enabled is false (baremetal-operator is not deployed): set bmo.enabled: true, or remove it");
        }
        if (parsed.images?.baremetalOperator !== undefined) add("images.baremetalOperator", "has no effect while bmo.enabled is false: set bmo.enabled: true, or remove it");
        return;
    }
    if (c.tls.mode === "cert-manager") {
        add("bmo.enabled", "needs the stack's CA Secret (<name>-cacert, which baremetal-operator mounts), and tls.mode cert-manager writes none (the issuer's CA is only in ca.crt of <name>-tls): use tls.mode generate or existing, or deploy baremetal-operator yourself (README.md, Wiring baremetal-operator)");
    }
    if (c.bmo.checksum === undefined) {
        add("bmo.checksum", `is required with bmo.version ${c.bmo.version} (only ${BMO_PINNED.version}'s is known): set it to the go.sum hash of that release, the h1: of the line "${BMO_MODULE} ${c.bmo.version} h1:…" (go mod download -json ${BMO_MODULE}@${c.bmo.version} prints it as Sum)`);
    }
};
