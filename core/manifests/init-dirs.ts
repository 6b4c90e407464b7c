/**
 * Init containers that prepare directories before the Ironic pod's containers start: the parts of
 * the pod's shared volume that containers other than ironic and httpd mount (volumes.ts
 * `sharedPart`), and in multi the node's directory of Ironic's DHCP files.
 */
import { DHCP_PROVIDER_DIR, DHCP_PROVIDER_PATHS, IRONIC_GID, IRONIC_UID } from "../contract";
import type { IronicPlan } from "../plan/types";
import { containerResources, restrictedSecurityContext } from "./meta";
import type { Container } from "./meta";
import type { VolumeMount } from "./volumes";

/**
 * Init container: each part of /shared another container mounts by itself (a subPath), made as the
 * ironic user before any of them starts. The kubelet would make a missing subPath itself, owned by
 * root; made here they belong to the user that writes them (Ironic, ramdisk-logs, dnsmasq).
 */
export function sharedDirsContainer(plan: IronicPlan, volumeMounts: VolumeMount[], dirs: string[]): Container {
    return {
        name: "shared-dirs",
        image: plan.images.ironic,
        command: ["/bin/sh", "-c", `mkdir -p ${dirs.join(" ")}`],
        securityContext: restrictedSecurityContext(),
        volumeMounts,
        resources: containerResources(plan, "sharedDirs"),
    };
}

/**
 * Init container: the directories both the ironic container (Ironic's dnsmasq provider) and dnsmasq
 * use, on the node (DHCP_PROVIDER_DIR), given to the ironic user: the kubelet makes a missing
 * hostPath directory root's (0755), so this one step runs as root, with CHOWN its only capability
 * (no DAC_OVERRIDE: it writes only into that root-owned directory, and to nothing else).
 */
export function dhcpDirsContainer(plan: IronicPlan, volumeMounts: VolumeMount[]): Container {
    const dirs = [DHCP_PROVIDER_DIR, DHCP_PROVIDER_PATHS.hostsDir, DHCP_PROVIDER_PATHS.optsDir];
    return {
        name: "dhcp-dirs",
        image: plan.images.ironic,
        command: ["/bin/sh", "-c", `mkdir -p ${dirs.slice(1).join(" ")} && chown ${IRONIC_UID}:${IRONIC_GID} ${dirs.join(" ")}`],
        securityContext: { ...restrictedSecurityContext(), runAsUser: 0, runAsNonRoot: false, capabilities: { drop: ["ALL"], add: ["CHOWN"] } },
        volumeMounts,
        resources: containerResources(plan, "dhcpDirs"),
    };
}
