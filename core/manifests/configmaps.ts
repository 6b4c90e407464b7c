/**
 * ConfigMap data of the stack, and the content hashes that pod templates carry as annotations so
 * that a change of the data rolls the pods that read it.
 */
import { CONDUCTOR_PATHS, DNSMASQ_CONFIG_FILE } from "../contract";
import { dhcpSlotsOf, listedConductorsByNode, multiTopologyOf } from "../plan/read";
import { SLOT_PREFERENCES_KEY, nodeKeys } from "../names";
import type { IronicPlan } from "../plan/types";
import { renderEnvFile } from "../render/envfile";
import { readAsset } from "../render/assets";
import { renderPrunerScript } from "../render/pruner";
import { contentHash } from "./meta";
import { slotPreferences } from "./slots";
import { SCRIPT_FILES } from "../scripts";

/** Single: the dnsmasq ConfigMap data, the rendered config and the container's start script (none without DHCP). */
export function dnsmasqConfigMapData(plan: IronicPlan): Record<string, string> | undefined {
    if (plan.topology.kind !== "single") return undefined;
    const conf = plan.topology.conductor.dhcp?.dnsmasqConf;
    if (!conf) return undefined;
    return { [DNSMASQ_CONFIG_FILE]: conf, [SCRIPT_FILES.dnsmasqStart]: plan.dnsmasqStartScript };
}

/** Content hash of the dnsmasq ConfigMap: a pod-template annotation, so a config change rolls the pod. */
export function dnsmasqConfigHash(plan: IronicPlan): string | undefined {
    const data = dnsmasqConfigMapData(plan);
    return data ? contentHash(data) : undefined;
}

/**
 * Multi: per-node entries (a conductors[] entry's address and interface), looked up by node name at
 * start, and the slot agents' preferences. Read at start (the preferences at each claim): a change
 * here restarts no pod but the containers of the node whose entry changed (the wrapper's watch).
 * A node without an entry, or whose entry only pins a slot, finds its address itself.
 */
export function nodeDataConfigMapData(plan: IronicPlan): Record<string, string> {
    const data: Record<string, string> = {};
    for (const c of listedConductorsByNode(plan)) {
        if (Object.keys(c.entry).length > 0) data[nodeKeys(c.node).env] = renderEnvFile(c.entry);
    }
    if (dhcpSlotsOf(plan)) data[SLOT_PREFERENCES_KEY] = slotPreferences(plan);
    return data;
}

/**
 * Multi: what every node runs the same: the scripts and, with DHCP, each slot's slice of the
 * range. Its name carries its hash (scriptsConfigMapName): a re-slice or new scripts roll every
 * pod, as they must.
 */
export function scriptsConfigMapData(plan: IronicPlan): Record<string, string> {
    const topology = multiTopologyOf(plan, "scriptsConfigMapData");
    const templates = topology.nodeTemplates;
    const data: Record<string, string> = {
        [SCRIPT_FILES.wrapper]: readAsset(SCRIPT_FILES.wrapper),
        [SCRIPT_FILES.certMinter]: readAsset(SCRIPT_FILES.certMinter),
        [SCRIPT_FILES.addressFinder]: readAsset(SCRIPT_FILES.addressFinder),
        [CONDUCTOR_PATHS.nodeEnvTemplate]: templates.env,
        ...(templates.dnsmasqConf ? { [CONDUCTOR_PATHS.nodeDnsmasqTemplate]: templates.dnsmasqConf } : {}),
    };
    if (plan.dhcpEnabled) {
        data[SCRIPT_FILES.dnsmasqStart] = plan.dnsmasqStartScript;
        data[SCRIPT_FILES.pruner] = renderPrunerScript();
        data[SCRIPT_FILES.slotAgent] = readAsset(SCRIPT_FILES.slotAgent);
        Object.assign(data, topology.slotDnsmasqConfs);
    }
    return data;
}

/** Content hash of the scripts ConfigMap. */
export function scriptsConfigHash(plan: IronicPlan): string {
    return contentHash(scriptsConfigMapData(plan));
}

/**
 * The scripts ConfigMap's name, `<name>-scripts-<hash of its data>` (immutable, as kustomize's
 * generated ConfigMaps): new scripts are a new object the new pod template names, so the pods the
 * rolling update has not reached keep the scripts they started with, and a restart of one of
 * their containers never runs a wrapper that expects another pod template. The name change rolls
 * the pods.
 */
export function scriptsConfigMapName(plan: IronicPlan): string {
    return `${plan.names.scriptsConfigMapBase}-${scriptsConfigHash(plan).slice(0, 10)}`;
}

/**
 * What baremetal-operator reads through `envFrom` (its `ironic` ConfigMap contract):
 * the endpoint, and the mount paths of the CA and credentials it is given.
 */
export function bmoConfigMapData(plan: IronicPlan): Record<string, string> {
    return {
        IRONIC_ENDPOINT: `${plan.urls.apiInCluster}/v1/`,
        IRONIC_CACERT_FILE: "/opt/metal3/certs/ca/tls.crt",
        METAL3_AUTH_ROOT_DIR: "/opt/metal3/auth",
        // The deploy kernel/ramdisk per architecture: the image cache's URLs, or the user's (mode "none").
        ...plan.imageCache.bmoEnv,
    };
}
