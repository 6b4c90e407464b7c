/**
 * Volumes and mounts. Small factories (like cdk8s-plus `Volume.fromEmptyDir/fromSecret/fromConfigMap`)
 * build the objects; `podVolumes` is the one place that decides, per topology, which volumes the
 * Ironic pod has and what each container mounts.
 */
import type * as k8s from "@pulumi/kubernetes";

import { CONDUCTOR_PATHS, DHCP_PROVIDER_DIR, DNSMASQ_CONFIG_DIR, NODE_STATE_DIR, PATHS } from "../contract";
import { conductorCaChainCheck } from "../plan/read";
import type { IronicPlan } from "../plan/types";
import { scriptsConfigMapName } from "./configmaps";
import { SLOT_PATHS } from "../slot-agent";
import { SLOT_API_VOLUME, slotApiVolume } from "./slots";
import { SCRIPT_FILES, SERVICE_ACCOUNT_DIR } from "../scripts";

export type Volume = k8s.types.input.core.v1.Volume;
export type VolumeMount = k8s.types.input.core.v1.VolumeMount;

/** Projected Secret / ConfigMap keys: `"key"` keeps the key as the file name, `["key", "path"]` renames it. */
export type Items = (string | [key: string, path: string])[];

const keyToPath = (items: Items) => items.map((i) => (typeof i === "string" ? { key: i, path: i } : { key: i[0], path: i[1] }));

export function fromEmptyDir(name: string): Volume {
    return { name, emptyDir: {} };
}

export function fromSecret(name: string, secretName: string, opts: { items?: Items; defaultMode?: number } = {}): Volume {
    return {
        name,
        secret: {
            secretName,
            ...(opts.items ? { items: keyToPath(opts.items) } : {}),
            ...(opts.defaultMode !== undefined ? { defaultMode: opts.defaultMode } : {}),
        },
    };
}

export function fromConfigMap(name: string, configMapName: string, opts: { defaultMode?: number } = {}): Volume {
    return { name, configMap: { name: configMapName, ...(opts.defaultMode !== undefined ? { defaultMode: opts.defaultMode } : {}) } };
}

export function mount(name: string, mountPath: string): VolumeMount {
    return { name, mountPath };
}

export function readOnlyMount(name: string, mountPath: string): VolumeMount {
    return { name, mountPath, readOnly: true };
}

export const SHARED_VOLUME = "shared";

/** Multi: the node's certificate minted by conductor-certs (CONDUCTOR_PATHS.minted). */
export const MINTED_VOLUME = "minted-certs";

/**
 * A part of the pod's shared volume at its own path (a subPath mount). Only ironic and httpd mount
 * all of /shared, which holds Ironic's unauthenticated API socket (ironic.sock, behind httpd's
 * authentication); every other container mounts only the parts it uses, made by `shared-dirs`.
 */
export function sharedPart(containerPath: string): VolumeMount {
    if (!containerPath.startsWith(`${PATHS.shared}/`)) throw new Error(`sharedPart: ${containerPath} is not under ${PATHS.shared}`);
    return { name: SHARED_VOLUME, mountPath: containerPath, subPath: containerPath.slice(PATHS.shared.length + 1) };
}

/** Where the DHCP pruner reads the API credentials (username, password). */
export const PRUNER_AUTH_DIR = "/auth/pruner";

/** What each container of the Ironic pod mounts; a container without an entry does not run. */
export interface ContainerMounts {
    ironic: VolumeMount[];
    httpd: VolumeMount[];
    ramdiskLogs: VolumeMount[];
    /** With DHCP: dnsmasq's mounts and the path of its start script inside them. */
    dnsmasq?: { mounts: VolumeMount[]; startScript: string };
    /** Multi with DHCP: the init container creating the DHCP provider's directories. */
    dhcpDirs?: VolumeMount[];
    /** Multi with DHCP: the pruner sidecar. */
    dhcpPruner?: VolumeMount[];
    /** Multi with DHCP: the DHCP slot agent (the only one mounting an API token). */
    slotAgent?: VolumeMount[];
    /** Multi: the container minting the node's certificate (the only one mounting the conductor CA's key). */
    certMinter?: VolumeMount[];
}

export interface PodVolumes {
    volumes: Volume[];
    mounts: ContainerMounts;
}

/**
 * The API certificate's Secret ("tls"), the CA clients verify with ("ca") and, with tls.mode
 * "cert-manager", virtual media's own Secret ("vmedia-tls"): which volume serves /certs/vmedia.
 */
function ownCertVolumes(plan: IronicPlan, caFromTlsSecret: boolean): { volumes: Volume[]; vmedia: string } {
    const n = plan.names;
    const certManager = plan.tls.source === "issuer";
    return {
        volumes: [
            fromSecret("tls", n.tlsSecret, { items: ["tls.crt", "tls.key"] }),
            // The issuer's (cert-manager) or your (existing, single) CA in the certificate's Secret; else <name>-cacert.
            caFromTlsSecret || certManager ? fromSecret("ca", n.tlsSecret, { items: [["ca.crt", "tls.crt"]] }) : fromSecret("ca", n.caSecret, { items: ["tls.crt"] }),
            ...(certManager ? [fromSecret("vmedia-tls", n.vmediaTlsSecret, { items: ["tls.crt", "tls.key"] })] : []),
        ],
        vmedia: certManager ? "vmedia-tls" : "tls",
    };
}

/** Per topology: the volumes carrying certificates and credentials, their mounts in ironic and httpd, and (multi) in conductor-certs. */
function certVolumes(plan: IronicPlan): { volumes: Volume[]; ironic: VolumeMount[]; httpd: VolumeMount[]; certMinter?: VolumeMount[] } {
    const n = plan.names;
    if (plan.topology.kind === "multi") {
        const nodeMounts = [readOnlyMount("node-data", CONDUCTOR_PATHS.nodeData), readOnlyMount("scripts", CONDUCTOR_PATHS.scripts), mount("conductor-run", CONDUCTOR_PATHS.run)];
        // The node's certificate as conductor-certs minted it; ironic and httpd only read it.
        const minted = readOnlyMount(MINTED_VOLUME, CONDUCTOR_PATHS.minted);
        const caBundle = readOnlyMount("ca", PATHS.certsIronicCa);
        // With your (your issuer's) conductor CA, the minter checks that it chains to the API's CA bundle.
        const certMinter = [mount(MINTED_VOLUME, CONDUCTOR_PATHS.minted), readOnlyMount("conductor-ca", CONDUCTOR_PATHS.conductorCa), ...(conductorCaChainCheck(plan) ? [caBundle] : []), ...nodeMounts];
        const common = [caBundle, readOnlyMount("htpasswd", PATHS.authIronic)];
        const volumes = [
            fromSecret("rpc-auth", n.rpcCredentialsSecret, { items: ["htpasswd", "password", "username"] }),
            fromConfigMap("node-data", n.nodeDataConfigMap),
            fromSecret("conductor-ca", n.conductorCaSecret, { items: ["tls.crt", "tls.key"], defaultMode: 0o440 }),
            fromEmptyDir(MINTED_VOLUME),
            fromConfigMap("scripts", scriptsConfigMapName(plan), { defaultMode: 0o555 }),
            // Where each container's wrapper renders its node's files (environment, dnsmasq file).
            fromEmptyDir("conductor-run"),
        ];
        const rpc = readOnlyMount("rpc-auth", PATHS.authIronicRpc);
        if (plan.tls.source !== "stack") {
            // Your (or your issuer's) certificate serves the API and virtual media (httpd); the
            // ironic container sees it at /certs/vmedia (for the TLS virtual-media URL) and copies
            // only its JSON-RPC certificate, minted from the conductor CA.
            const own = ownCertVolumes(plan, false);
            const vmedia = [readOnlyMount(own.vmedia, PATHS.certsVmedia)];
            // A root of the stack's own for JSON-RPC alone: its certificate (not its key) is what the peers trust.
            const root = plan.conductorCa?.source === "stack-root";
            const rootCert = root ? [fromSecret("conductor-ca-cert", n.conductorCaSecret, { items: ["tls.crt"] })] : [];
            return {
                volumes: [fromEmptyDir("ironic-certs"), ...own.volumes, ...volumes, ...rootCert],
                ironic: [mount("ironic-certs", PATHS.certsIronic), ...vmedia, ...common, rpc, minted, ...(root ? [readOnlyMount("conductor-ca-cert", CONDUCTOR_PATHS.conductorCaCert)] : []), ...nodeMounts],
                httpd: [readOnlyMount("tls", PATHS.certsIronic), ...vmedia, ...common, ...nodeMounts],
                certMinter,
            };
        }
        return {
            // Each container's wrapper copies the node's certificate into these.
            volumes: [...["ironic-certs", "ironic-vmedia-certs", "httpd-certs", "httpd-vmedia-certs"].map(fromEmptyDir), fromSecret("ca", n.caSecret, { items: ["tls.crt"] }), ...volumes],
            // /certs/vmedia in the ironic container too: only then does the image hand BMCs the
            // virtual-media URL on the TLS port ([deploy]external_http_url), which httpd serves.
            ironic: [mount("ironic-certs", PATHS.certsIronic), mount("ironic-vmedia-certs", PATHS.certsVmedia), ...common, rpc, minted, ...nodeMounts],
            httpd: [mount("httpd-certs", PATHS.certsIronic), mount("httpd-vmedia-certs", PATHS.certsVmedia), ...common, minted, ...nodeMounts],
            certMinter,
        };
    }
    // /certs/vmedia in both: httpd serves virtual media on the TLS port only when it has the
    // certificate, and Ironic hands BMCs that URL ([deploy]external_http_url) only when it sees it too.
    const own = ownCertVolumes(plan, true);
    const certMounts = () => [readOnlyMount("tls", PATHS.certsIronic), readOnlyMount("ca", PATHS.certsIronicCa), readOnlyMount("htpasswd", PATHS.authIronic), readOnlyMount(own.vmedia, PATHS.certsVmedia)];
    return { volumes: own.volumes, ironic: certMounts(), httpd: certMounts() };
}

/** With DHCP, per topology: dnsmasq's volumes and mounts, and the multi-only DHCP containers' mounts. */
function dhcpVolumes(plan: IronicPlan): { volumes: Volume[]; mounts: Pick<ContainerMounts, "dnsmasq" | "dhcpDirs" | "dhcpPruner" | "slotAgent">; ironic: VolumeMount[] } {
    if (!plan.dhcpEnabled) return { volumes: [], mounts: {}, ironic: [] };
    const data = [fromEmptyDir("dnsmasq-data"), fromEmptyDir("dnsmasq-tmp")];
    const own = [sharedPart(PATHS.tftpRoot), mount("dnsmasq-data", PATHS.data), mount("dnsmasq-tmp", PATHS.tmp)];
    if (plan.topology.kind === "multi") {
        // The node's data and the scripts (with the start wrapper's run directory where it runs).
        const readers = [readOnlyMount("node-data", CONDUCTOR_PATHS.nodeData), readOnlyMount("scripts", CONDUCTOR_PATHS.scripts)];
        const scripts = [...readers, mount("conductor-run", CONDUCTOR_PATHS.run)];
        // Ironic's DHCP files outlive the pod on its node (contract DHCP_PROVIDER_DIR), under /shared.
        const files = mount(DHCP_FILES_VOLUME, DHCP_PROVIDER_DIR);
        // The slot agent's grant and its fence's state: each written by one side, read by the other.
        const [grant, fence] = [SLOT_GRANT_VOLUME, SLOT_FENCE_VOLUME];
        return {
            // The pruner reads node ownership from the API with the API credentials; the slot
            // agent claims its slot from the Kubernetes API with the token (the pod's only one).
            volumes: [...data, dhcpFilesVolume(plan), fromSecret("pruner-auth", plan.names.credentialsSecret, { items: ["password", "username"] }), slotApiVolume(), fromEmptyDir(grant), fromEmptyDir(fence)],
            mounts: {
                dnsmasq: { mounts: [...own, files, ...scripts, readOnlyMount(grant, SLOT_PATHS.grantDir), mount(fence, SLOT_PATHS.fenceDir)], startScript: `${CONDUCTOR_PATHS.scripts}/${SCRIPT_FILES.dnsmasqStart}` },
                dhcpDirs: [files],
                dhcpPruner: [files, readOnlyMount("ca", PATHS.certsIronicCa), readOnlyMount("pruner-auth", PRUNER_AUTH_DIR), ...scripts],
                slotAgent: [...readers, mount(grant, SLOT_PATHS.grantDir), readOnlyMount(fence, SLOT_PATHS.fenceDir), readOnlyMount(SLOT_API_VOLUME, SERVICE_ACCOUNT_DIR)],
            },
            ironic: [files],
        };
    }
    return {
        volumes: [...data, fromConfigMap("dnsmasq-config", plan.names.dnsmasqConfigMap, { defaultMode: 0o555 })],
        mounts: { dnsmasq: { mounts: [...own, readOnlyMount("dnsmasq-config", DNSMASQ_CONFIG_DIR)], startScript: `${DNSMASQ_CONFIG_DIR}/${SCRIPT_FILES.dnsmasqStart}` } },
        ironic: [],
    };
}

export const DHCP_FILES_VOLUME = "dhcp-files";
const SLOT_GRANT_VOLUME = "slot-grant";
const SLOT_FENCE_VOLUME = "slot-fence";

/** Multi: the node's directory of this stack's DHCP files (NODE_STATE_DIR/<namespace>/<name>/dnsmasq), made by the kubelet if missing. */
export function dhcpFilesVolume(plan: IronicPlan): Volume {
    return { name: DHCP_FILES_VOLUME, hostPath: { path: `${NODE_STATE_DIR}/${plan.namespace}/${plan.name}/dnsmasq`, type: "DirectoryOrCreate" } };
}

/** The Ironic pod's volumes and every container's mounts, for the plan's topology, database and DHCP. */
export function podVolumes(plan: IronicPlan): PodVolumes {
    const certs = certVolumes(plan);
    const db = databaseVolumes(plan);
    const dhcp = dhcpVolumes(plan);
    const shared = () => mount(SHARED_VOLUME, PATHS.shared);
    return {
        volumes: [
            ...[SHARED_VOLUME, "ironic-conf", "ironic-data", "ironic-tmp", "httpd-conf", "httpd-data", "httpd-tmp"].map(fromEmptyDir),
            fromSecret("htpasswd", plan.names.credentialsSecret, { items: ["htpasswd"] }),
            ...certs.volumes,
            ...db.volumes,
            ...dhcp.volumes,
        ],
        mounts: {
            ironic: [shared(), ...dhcp.ironic, mount("ironic-conf", PATHS.conf), mount("ironic-data", PATHS.data), mount("ironic-tmp", PATHS.tmp), ...certs.ironic, ...db.mounts],
            httpd: [shared(), mount("httpd-conf", PATHS.conf), mount("httpd-data", PATHS.data), mount("httpd-tmp", PATHS.tmp), ...certs.httpd],
            ramdiskLogs: [sharedPart(PATHS.deployLogs), mount("ironic-tmp", PATHS.tmp)],
            ...dhcp.mounts,
            ...(certs.certMinter ? { certMinter: certs.certMinter } : {}),
        },
    };
}

/**
 * Database credentials and CA where the ironic image reads them: /auth/mariadb/{username,password}
 * and /certs/ca/mariadb/tls.crt (whose presence turns TLS to the database on).
 */
export function databaseVolumes(plan: IronicPlan): { volumes: Volume[]; mounts: VolumeMount[] } {
    const db = plan.database;
    const auth = (secretName: string) => fromSecret("db-auth", secretName, { items: ["password", "username"] });
    const ca = (secretName: string) => fromSecret("db-ca", secretName, { items: [["ca.crt", "tls.crt"]] });
    const volumes: Volume[] = [];
    if (db.kind === "external") {
        volumes.push(auth(db.credentialsSecret));
        if (db.caSecret) volumes.push(ca(db.caSecret));
    } else if (db.kind === "mariadb" || db.kind === "mariadb-operator") {
        // Only the CA of the server's TLS Secret is projected, never its key.
        volumes.push(auth(plan.database.names.credentialsSecret), ca(plan.database.names.tlsSecret));
    }
    const mounts: VolumeMount[] = [];
    if (volumes.some((v) => v.name === "db-auth")) mounts.push(readOnlyMount("db-auth", PATHS.authMariadb));
    if (volumes.some((v) => v.name === "db-ca")) mounts.push(readOnlyMount("db-ca", PATHS.certsMariadbCa));
    return { volumes, mounts };
}
