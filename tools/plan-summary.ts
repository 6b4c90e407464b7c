/**
 * The parts of `npm run plan`'s summary that explain the plan: each conductor's DHCP slot and
 * slice (with relayed subnets), and the images the policy pack would refuse outside dev.
 */
import { unpinnedReason } from "../core/config/pinning";
import type { IronicPlan } from "../core/plan";
import { extraDhcpRanges } from "../core/plan/conductors";
import { sliceBounds } from "../core/plan/slices";
import { rangeText } from "../core/plan/summary";
import type { SizedRange } from "../core/plan/types";

/** The DHCP layout: each conductor's slot and slice, and the slots. */
export function dhcpLines(plan: IronicPlan): string[] {
    const lines: string[] = [];
    lines.push("DHCP per conductor:");
    const slice = (r: SizedRange | undefined) => rangeText(r) ?? "no DHCP (virtual media only)";
    const t = plan.topology;
    const relayed = extraDhcpRanges(plan);
    if (t.kind === "single") {
        // With keepalived the VIP follows the pod; without, the pod runs only where the address is.
        const where = t.keepalivedVirtualIps ? "(single, any node: VIP)" : "(single, node holding IP)";
        lines.push(`  ${where.padEnd(26)} ${t.conductor.ip.padEnd(15)} ${slice(t.conductor.dhcp?.range)}`);
        for (const x of relayed) lines.push(`  relayed subnet (${x.tag}): ${x.start}-${x.end}, router ${x.gateway}`);
        return lines;
    }
    const selector = Object.entries({ ...plan.placement.nodeSelector, ...plan.placement.conductorNodeSelector }).sort(([a], [b]) => a.localeCompare(b));
    const where = selector.length > 0 ? `with ${selector.map(([k, v]) => (v === "" ? k : `${k}=${v}`)).join(", ")}` : "(no node selector)";
    lines.push(`  every node ${where} runs a conductor; below, the nodes conductors[] lists (${t.conductors.length}); the others find their address at start`);
    lines.push(`  ${"node".padEnd(26)} ${"IP".padEnd(15)} ${"slot".padEnd(11)} slice`);
    for (const c of t.conductors) {
        const slot = `${c.slot === undefined ? "-" : `${c.slot.index} (${c.slot.source})`}`.padEnd(11);
        lines.push(`  ${c.node.padEnd(26)} ${(c.ip ?? "(found at start)").padEnd(15)} ${slot} ${c.slot ? slice(c.slot.range) : plan.dhcpEnabled ? "-" : slice(undefined)}`);
    }
    const slots = t.dhcpSlots;
    if (slots) {
        const used = new Set(t.conductors.map((c) => c.slot?.index));
        const free = [...Array(slots.slots).keys()].filter((s) => !used.has(s));
        const from = { config: "provisioning.dhcp.slots", previous: "kept from the previous run", default: "default: 4, or listed conductors + 1" }[slots.slotsFrom];
        lines.push(`  ${slots.slots} slots (${from}) of ${slots.sliceSize} addresses in ${slots.rangeStart}-${slots.rangeEnd}; free slots: ${free.length > 0 ? free.join(", ") : "none"}${slots.resliced ? "; RE-SLICED: every slice allocated afresh" : ""}`);
        const v6 = plan.provisioning.ipv6?.dhcp;
        if (v6) {
            const size = sliceBounds(v6.rangeStart, v6.rangeEnd, slots.slots, 0).size;
            lines.push(`  dual-stack: the IPv6 range ${v6.rangeStart}-${v6.rangeEnd} is cut into the same ${slots.slots} slots of ${size} addresses; slot k's holder serves slot k of both`);
        }
        for (const x of relayed) {
            const size = sliceBounds(x.start, x.end, slots.slots, 0).size;
            lines.push(`  relayed subnet (${x.tag}): ${x.start}-${x.end}, router ${x.gateway}: cut into the same ${slots.slots} slots of ${size} addresses; slot k's holder serves slot k of every range`);
        }
        lines.push(
            `  The slots above are each node's preferred slot. Holders are decided in the cluster: each pod's slot agent claims a slot as the Lease ${plan.names.slotLeasePrefix}<k> ` +
                `(a pin only; else the slot its node held last, whatever is preferred here; else its preferred one when free; else the lowest free one); see them with npm run -s slots -- --namespace ${plan.namespace} --name ${plan.name}`,
        );
    }
    return lines;
}

/**
 * Outside the dev stack, every image that is not pinned (a moving tag such as `latest`): the policy
 * pack's images-pinned rule refuses it at `pulumi up`, so the plan says so first. Each image once.
 */
export function pinningLines(stack: string, objects: Record<string, any>[]): string[] {
    if (stack === "dev") return [];
    const images = new Set<string>();
    for (const o of objects) {
        const spec = o.spec?.template?.spec ?? o.spec?.jobTemplate?.spec?.template?.spec;
        for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) if (typeof c.image === "string") images.add(c.image);
    }
    return [...images]
        .sort()
        .flatMap((image) => {
            const reason = unpinnedReason(image);
            return reason ? [`warning: image ${image} (stack ${stack}) is ${reason.startsWith("not pinned") ? reason : `not pinned: ${reason}`}; the policy pack's images-pinned rule refuses it outside its devStacks (default: dev)`] : [];
        });
}

/** Where BMO, hosts and BMCs reach this stack, and where httpd listens. */
export function endpointLines(plan: IronicPlan): string[] {
    const lines: string[] = [];
    lines.push("endpoints:");
    lines.push(`  API (in cluster, for BMO)  ${plan.urls.apiInCluster}`);
    lines.push(`  API (provisioning network) ${plan.urls.apiProvisioning}`);
    lines.push(`  images / iPXE              ${plan.urls.http}`);
    lines.push(`  virtual media (TLS)        ${plan.urls.vmediaTls}`);
    const where = plan.topology.kind === "single" ? plan.apiBind?.[0] : "each node's provisioning address";
    lines.push(`  httpd listens on           ${plan.apiBind ? `${where} alone for the API and images (provisioning.bindInterface), every address for virtual media` : "every address of the node (provisioning.bindInterface: false)"}`);
    if (plan.apiBind) lines.push(`  API Service endpoints      ${plan.apiBind.join(", ")} (EndpointSlice ${plan.names.service}-provisioning)`);
    return lines;
}
