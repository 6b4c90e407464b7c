/** Conductors: each control-plane node appears once, with its own IP and slot. */
import type { Sections } from "../schema";
import type { Rule } from "./rule";

type Conductor = Sections["conductors"][number];

export const conductorsRule: Rule = ({ parsed }, add) => {
    const conductors = parsed.conductors ?? [];
    const dup = <T>(what: string, get: (x: Conductor) => T | undefined) => {
        const seen = new Map<T, number>();
        conductors.forEach((cd, i) => {
            const v = get(cd);
            if (v === undefined) return;
            const j = seen.get(v);
            if (j !== undefined) add(`conductors[${i}].${what}`, `duplicate ${what} ${String(v)} (also conductors[${j}]); each control-plane node must appear once`);
            else seen.set(v, i);
        });
    };
    dup("name", (x) => x.name);
    dup("ip", (x) => x.ip);
    dup("ipv6", (x) => x.ipv6);
    dup("slot", (x) => x.slot);
};
