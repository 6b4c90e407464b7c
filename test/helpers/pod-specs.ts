/** The pod specs of rendered objects, wherever they sit, and their containers: shared by the tests that check every pod. */

/** Every pod spec in an object, wherever it sits (Pod, template, Job template of a CronJob). */
export function podSpecs(o: any, at = o.kind): { where: string; spec: any }[] {
    if (!o || typeof o !== "object") return [];
    const out: { where: string; spec: any }[] = [];
    if (Array.isArray(o.containers)) out.push({ where: at, spec: o });
    for (const [k, v] of Object.entries(o)) if (v && typeof v === "object" && k !== "containers" && k !== "initContainers") out.push(...podSpecs(v, `${at}.${k}`));
    return out;
}

/** A pod spec's init containers, then its containers. */
export const containersOf = (spec: any): any[] => [...(spec.initContainers ?? []), ...spec.containers];
