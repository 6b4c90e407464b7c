/**
 * Our own scripts (assets/), in one table: each file, how it is shipped, every variable it reads,
 * those it cannot do without, what it hands to the command it runs, the paths it defaults to.
 * test/unit/render/assets.test.ts holds each script to its row (one variable more or fewer fails),
 * and test/components/script-env.test.ts holds every container of every example stack that runs a
 * script to it: the required variables set, none of our variables set where no script reads it.
 *
 * The variables' names are declared once, with their meaning, in their script's module
 * (conductor-wrapper.ts, pruner.ts, slot-agent.ts, keepalived.ts) or here (the IPA cache's and the
 * readiness check's); file names only here. The ironic image's own names live in contract.ts.
 */
import { CONDUCTOR_PATHS, WRAPPER_ENV } from "./conductor-wrapper";
import { ENV, IPA_DOWNLOADER, PATHS } from "./contract";
import { KEEPALIVED_START } from "./keepalived";
import { PRUNER_ENV } from "./pruner";
import { SLOT_AGENT_ENV } from "./slot-agent";

/** Every script under assets/, by role: the only place their file names are written. */
export const SCRIPT_FILES = {
    /** multi: the start wrapper of every conductor container (the node's files, address and certificate). */
    wrapper: "conductor-start.sh",
    certMinter: "conductor-cert.py",
    addressFinder: "conductor-address.py",
    pruner: "dhcp-pruner.py",
    slotAgent: "dhcp-slot-agent.py",
    dnsmasqStart: "start-dnsmasq.sh",
    /** single without keepalived: the init check that the node holds provisioning.ip. */
    provisioningIpCheck: "provisioning-ip-check.sh",
    keepalivedStart: "keepalived-start.sh",
    ipaCacheSync: "ipa-cache-sync.sh",
    ipaCacheServer: "ipa-cache-server.py",
    ipaCacheClient: "ipa-cache-client.sh",
    /** Runs where `pulumi up` runs (core/plan/readiness.ts), not in a pod. */
    readiness: "ironic-readiness.py",
} as const;
export type ScriptRole = keyof typeof SCRIPT_FILES;
export type AssetName = (typeof SCRIPT_FILES)[ScriptRole];

/** Set by Kubernetes in every container (the slot agent's API, the readiness check's mode auto). */
export const KUBERNETES_ENV = { serviceHost: "KUBERNETES_SERVICE_HOST", servicePort: "KUBERNETES_SERVICE_PORT" } as const;

/** Where Kubernetes mounts a pod's API token and CA (the slot agent's default). */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** Our own paths in the Ironic pods: the emptyDir the CA bundles (trust.bmcCa, trust.trustedCa) are written into. */
export const TRUST_PATHS = {
    bundlesDir: "/certs/metal3-ironic-trust",
    bmcBundle: "/certs/metal3-ironic-trust/bmc-ca-bundle.crt",
    trustedBundle: "/certs/metal3-ironic-trust/trusted-ca-bundle.crt",
} as const;

/** The CA bundle builder's environment: one `<output> <input>...` per line. */
export const TRUST_ENV = { bundles: "CA_BUNDLES", interval: "CA_BUNDLES_INTERVAL" } as const;

/**
 * Where a downloader (trust.extraCaBundle) finds the extra bundle (mounted read-only) and the combined one its start
 * command writes (system bundle + extra) into its writable /tmp.
 */
export const EXTRA_CA = {
    mountDir: "/certs/extra-ca",
    file: "ca-bundle.crt",
    combined: `${PATHS.tmp}/metal3-ironic-ca-bundle.crt`,
} as const;

/** Paths in the IPA cache's pod and, for the client, in the Ironic pods. */
export const IPA_CACHE_PATHS = {
    data: "/cache",
    scripts: "/etc/metal3-ironic/ipa-cache",
    serverCerts: "/certs/ipa-cache-server",
    caDir: "/certs/ipa-cache-ca",
    caKey: "ca.crt",
    trustDir: "/certs/ipa-cache",
    trustFile: "/certs/ipa-cache/ca-bundle.crt",
} as const;

/** The variables of the IPA cache's scripts (ipa-cache-{sync,client}.sh, ipa-cache-server.py). */
export const IPA_CACHE_ENV = {
    dir: "IPA_CACHE_DIR",
    key: "IPA_CACHE_KEY",
    minMtime: "IPA_CACHE_MIN_MTIME",
    /** imageCache.ipa[].sha256: the tarball's expected SHA-256, checked before the version is served. */
    sha256: "IPA_CACHE_SHA256",
    arches: "IPA_CACHE_ARCHES",
    defaultArch: "IPA_CACHE_DEFAULT_ARCH",
    port: "IPA_CACHE_PORT",
    certDir: "IPA_CACHE_CERT_DIR",
    url: "IPA_CACHE_URL",
    caFile: "IPA_CACHE_CA_FILE",
    trustFile: "IPA_CACHE_TRUST_FILE",
    imagesDir: "IPA_CACHE_IMAGES_DIR",
    /** The client's tries of the cache (default 120, 5 s apart), never set by the program. */
    attempts: "IPA_CACHE_ATTEMPTS",
    /** The program the sync runs (default: the downloader image's entrypoint); tests point it at a stand-in. */
    downloader: "IPA_DOWNLOADER",
} as const;

/** provisioning-ip-check.sh: seconds to wait for the address (default 60). */
export const PROVISIONING_IP_CHECK_ENV = { wait: "WAIT", node: WRAPPER_ENV.node } as const;

/** The variables ironic-readiness.py reads. */
export const READINESS_ENV = {
    /** auto | in-cluster | port-forward (readiness.mode). */
    mode: "READINESS_MODE",
    /** The API Service URL (in-cluster); its host is also the name the certificate must carry. */
    apiUrl: "READINESS_API_URL",
    /** The name the API certificate is checked against (default: the host of the URL). */
    tlsName: "READINESS_TLS_NAME",
    /** The CA that signed the API certificate (PEM). */
    caPem: "READINESS_CA_PEM",
    /** The API credentials: passed as secret environment, never on a command line. */
    username: "READINESS_USERNAME",
    password: "READINESS_PASSWORD",
    /** Comma-separated conductor hostnames that must be alive; empty: any one. */
    conductors: "READINESS_CONDUCTORS",
    /** Seconds to wait in all (readiness.timeoutSeconds), and between two polls. */
    timeout: "READINESS_TIMEOUT",
    interval: "READINESS_INTERVAL",
    /** port-forward: kubectl's --context (kubernetes.context; empty: the current context), namespace, Service and its port. */
    kubeContext: "READINESS_KUBE_CONTEXT",
    namespace: "READINESS_NAMESPACE",
    service: "READINESS_SERVICE",
    servicePort: "READINESS_SERVICE_PORT",
    /** Set by Kubernetes in every pod, never by this program: mode auto means in-cluster when it is set. */
    inCluster: KUBERNETES_ENV.serviceHost,
} as const;

export interface ScriptContract {
    language: "bash" | "python";
    /**
     * scripts: the scripts ConfigMap, mounted at CONDUCTOR_PATHS.scripts (start-dnsmasq.sh with
     * its blanks filled, in the dnsmasq ConfigMap); ipa-cache: the IPA cache's ConfigMaps; inline:
     * the container's `bash -c` text; runner: stdin of the readiness Command.
     */
    shipped: "scripts" | "ipa-cache" | "inline" | "runner";
    /** Every variable it reads, its own and others' (the image's, Kubernetes', another script's). */
    reads: readonly string[];
    /** Those it fails without: every container that runs it sets them (or a script before it in the container exports them). */
    required: readonly string[];
    /** Run with this first argument, it needs these instead (the slot agent's fence). */
    requiredAs?: { arg: string; required: readonly string[] };
    /** Run by that script, with arguments only (never from a container's command). */
    runBy?: ScriptRole;
    /** What it sets for the command it runs, as far as a later script of the container needs it. */
    provides?: readonly string[];
    /** Paths it falls back to or names, each as a whole word in its text. */
    paths?: readonly string[];
}

const values = <T extends Record<string, string>>(o: T): string[] => Object.values(o);

export const SCRIPTS: Record<ScriptRole, ScriptContract> = {
    wrapper: {
        language: "bash",
        shipped: "scripts",
        // NO_PROXY/no_proxy: read through ${!var}, this node's address added to them.
        reads: [...values(WRAPPER_ENV), ...IPA_DOWNLOADER.proxyEnv.no],
        required: [WRAPPER_ENV.node],
        // The node's env file (core/plan/conductors.ts nodeEnv).
        provides: [ENV.provisioningIp, ENV.conductorHost, ENV.provisioningInterface],
        paths: [CONDUCTOR_PATHS.nodeData, CONDUCTOR_PATHS.conductorCa, CONDUCTOR_PATHS.scripts, SCRIPT_FILES.wrapper, `$scripts/${SCRIPT_FILES.certMinter}`, `$scripts/${SCRIPT_FILES.addressFinder}`],
    },
    certMinter: { language: "python", shipped: "scripts", reads: [], required: [], runBy: "wrapper" },
    addressFinder: { language: "python", shipped: "scripts", reads: [], required: [], runBy: "wrapper" },
    pruner: {
        language: "python",
        shipped: "scripts",
        reads: values(PRUNER_ENV),
        required: [PRUNER_ENV.apiUrl, PRUNER_ENV.hostsDir, PRUNER_ENV.optsDir, PRUNER_ENV.conductorHost],
    },
    slotAgent: {
        language: "python",
        shipped: "scripts",
        reads: [...values(SLOT_AGENT_ENV).filter((n) => n !== SLOT_AGENT_ENV.slot), ...values(KUBERNETES_ENV)],
        required: [SLOT_AGENT_ENV.namespace, SLOT_AGENT_ENV.leasePrefix, SLOT_AGENT_ENV.identity, SLOT_AGENT_ENV.count, SLOT_AGENT_ENV.grantDir, SLOT_AGENT_ENV.fenceDir],
        requiredAs: { arg: "--fence", required: [SLOT_AGENT_ENV.grantDir, SLOT_AGENT_ENV.fenceDir] },
        provides: [SLOT_AGENT_ENV.slot],
        paths: [SERVICE_ACCOUNT_DIR],
    },
    // DHCP_SLOT is needed in multi only, where the fence sets it.
    dnsmasqStart: { language: "bash", shipped: "scripts", reads: [SLOT_AGENT_ENV.slot], required: [] },
    provisioningIpCheck: { language: "bash", shipped: "inline", reads: values(PROVISIONING_IP_CHECK_ENV), required: [] },
    keepalivedStart: { language: "bash", shipped: "inline", reads: values(KEEPALIVED_START.env), required: [] },
    ipaCacheSync: {
        language: "bash",
        shipped: "ipa-cache",
        // The downloader's selecting variables go into the version key (read through ${!v}).
        reads: [ENV.ipaArch, IPA_CACHE_ENV.key, IPA_CACHE_ENV.dir, IPA_CACHE_ENV.downloader, IPA_CACHE_ENV.minMtime, IPA_CACHE_ENV.sha256, ENV.ipaBaseUri, ENV.ipaBranch, ENV.ipaFlavor, ENV.ipaFilename],
        required: [ENV.ipaArch, IPA_CACHE_ENV.key],
        provides: [ENV.sharedDir],
        paths: [IPA_CACHE_PATHS.data, IPA_DOWNLOADER.entrypoint],
    },
    ipaCacheServer: {
        language: "python",
        shipped: "ipa-cache",
        reads: [IPA_CACHE_ENV.dir, IPA_CACHE_ENV.arches, IPA_CACHE_ENV.port, IPA_CACHE_ENV.certDir],
        required: [],
        paths: [IPA_CACHE_PATHS.data, IPA_CACHE_PATHS.serverCerts],
    },
    ipaCacheClient: {
        language: "bash",
        shipped: "ipa-cache",
        reads: [IPA_CACHE_ENV.url, IPA_CACHE_ENV.arches, IPA_CACHE_ENV.attempts, IPA_CACHE_ENV.caFile, IPA_CACHE_ENV.defaultArch, IPA_CACHE_ENV.imagesDir, IPA_CACHE_ENV.trustFile],
        // Without IPA_CACHE_URL it does nothing; with it, it needs the architectures.
        required: [IPA_CACHE_ENV.arches],
        paths: [PATHS.sharedImages],
    },
    readiness: {
        language: "python",
        shipped: "runner",
        reads: values(READINESS_ENV),
        // The service and namespace are needed for port-forward only (mode auto off the cluster); the program always sets them.
        required: [READINESS_ENV.apiUrl, READINESS_ENV.username, READINESS_ENV.password, READINESS_ENV.service, READINESS_ENV.namespace],
    },
};
