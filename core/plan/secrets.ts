/**
 * Secrets the user owns versus Secrets the program writes. A user's Secret is read or mounted,
 * never written, replaced or deleted; a configured name that the program itself writes is refused
 * before anything is registered.
 */
import type { ConfigIssue, StackConfig } from "../config";
import type { IronicPlan, UserSecret, UserOwned } from "./types";

export type { UserSecret, UserOwned };

/** The CA bundles of trust.*, in the order their issues are reported. */
const TRUST_KEYS = ["extraCaBundle", "bmcCa", "trustedCa"] as const;

/** What the user owns, by config key (buildPlan: plan.userOwned). */
export function userOwned(c: StackConfig): UserOwned {
    return { secrets: secretsOf(c), configMaps: configMapsOf(c) };
}

export const userSecrets = (plan: IronicPlan): UserSecret[] => plan.userOwned.secrets;
export const userConfigMaps = (plan: IronicPlan): UserSecret[] => plan.userOwned.configMaps;

function secretsOf(c: StackConfig): UserSecret[] {
    const out: UserSecret[] = [];
    if (c.tls.mode === "existing" && c.tls.existingSecret) out.push({ key: "tls.existingSecret", name: c.tls.existingSecret });
    if (c.tls.mode === "existing" && c.tls.conductorCaSecret) out.push({ key: "tls.conductorCaSecret", name: c.tls.conductorCaSecret });
    if (c.database.kind === "external") {
        if (c.database.credentialsSecret) out.push({ key: "database.credentialsSecret", name: c.database.credentialsSecret });
        if (c.database.caSecret) out.push({ key: "database.caSecret", name: c.database.caSecret });
    }
    for (const k of TRUST_KEYS) {
        const ca = c.trust[k];
        if (ca?.kind === "secret") out.push({ key: `trust.${k}.secret`, name: ca.name });
    }
    c.imagePullSecrets.forEach((name, i) => out.push({ key: `imagePullSecrets[${i}]`, name }));
    if (c.imageCache.caSecret) out.push({ key: "imageCache.caSecret", name: c.imageCache.caSecret });
    return out;
}

/** ConfigMaps the user owns (read or mounted, never written): the CA bundles' of trust.*. */
function configMapsOf(c: StackConfig): UserSecret[] {
    return TRUST_KEYS.flatMap((k) => {
        const ca = c.trust[k];
        return ca?.kind === "configMap" ? [{ key: `trust.${k}.configMap`, name: ca.name }] : [];
    });
}

/** Every ConfigMap name this program writes in some mode, with what it is; `<base>-*` stands for `<base>-<10 hex digits>` (names carrying a hash). */
export function ownedConfigMapNames(plan: IronicPlan): Map<string, string> {
    const n = plan.names;
    return new Map([
        [n.dnsmasqConfigMap, "the dnsmasq configuration (single)"],
        [n.bmoConfigMap, "the settings baremetal-operator reads"],
        [`${n.nodeDataConfigMapBase}-*`, "the per-node entries (multi), one per version of the scripts that read them"],
        [`${n.scriptsConfigMapBase}-*`, "the conductors' scripts (multi), one per content"],
        [n.nodeDataConfigMapBase, "the per-node entries of earlier versions (multi)"],
        [n.scriptsConfigMapBase, "the conductors' scripts of earlier versions (multi)"],
        [plan.database.names.configMap, 'the MariaDB configuration (database.kind "mariadb")'],
    ]);
}

/**
 * Every Secret name this program writes in some mode (tls, topology, database), with what it is.
 * Listed for all modes, so that switching a mode later never makes the program take over a user's
 * Secret. The runtime guard in Metal3Ironic (components/stack.ts) catches anything this list misses.
 */
export function ownedSecretNames(plan: IronicPlan): Map<string, string> {
    const n = plan.names;
    const db = plan.database.names;
    return new Map([
        [`${plan.name}-tls`, 'its own API certificate with tls.mode "generate"'],
        [n.caSecret, "the CA that baremetal-operator mounts"],
        [n.vmediaTlsSecret, 'the virtual-media certificate (tls.mode "cert-manager")'],
        [n.credentialsSecret, "the API credentials"],
        [n.configSecrets, "config values set with --secret that reach a container's environment"],
        [n.rpcCredentialsSecret, "the JSON-RPC credentials (multi)"],
        [`${plan.name}-conductor-ca`, 'the conductor CA (multi with tls.mode "generate", or "existing" without tls.conductorCaSecret)'],
        [`${plan.name}-conductor-tls`, "the per-node certificates of earlier versions (multi)"],
        [db.credentialsSecret, 'the MariaDB credentials (database.kind "mariadb")'],
        [db.tlsSecret, 'the MariaDB server certificate (database.kind "mariadb")'],
        [db.initSecret, 'the MariaDB first-start and password SQL (database.kind "mariadb")'],
        [plan.imageCache.names.tlsSecret, 'the IPA cache\'s server certificate (imageCache.mode "deploy")'],
        [`${plan.imageCache.names.workload}-ca`, "the IPA cache's CA that the conductors mount"],
    ]);
}

/** Problems with user-supplied Secret names: one that the program itself writes would be overwritten, and deleted on destroy. */
export function userSecretIssues(plan: IronicPlan): ConfigIssue[] {
    const hashed = (base: string, name: string) => name.startsWith(base) && /^[0-9a-f]{10}$/.test(name.slice(base.length));
    const ownerOf = (owned: Map<string, string>, name: string) => [...owned].find(([n]) => (n.endsWith("-*") ? hashed(n.slice(0, -1), name) : n === name))?.[1];
    const clash = (kind: string, users: UserSecret[], owned: Map<string, string>) =>
        users.flatMap((u) => {
            const what = ownerOf(owned, u.name);
            return what === undefined
                ? []
                : [{ key: u.key, message: `"${u.name}" is the name of a ${kind} this program writes (${what}); a ${kind} you own needs another name, or pulumi up would overwrite it and pulumi destroy delete it` }];
        });
    return [...clash("Secret", userSecrets(plan), ownedSecretNames(plan)), ...clash("ConfigMap", userConfigMaps(plan), ownedConfigMapNames(plan))];
}

/** Keys a Secret named by tls.existingSecret must hold. */
export const EXISTING_TLS_KEYS = ["tls.crt", "tls.key", "ca.crt"] as const;

/** Message for a user's TLS Secret that lacks keys or holds no PEM CA: the key, what is wrong, the fix. */
export function existingTlsError(namespace: string, secretName: string, data: Record<string, string> | undefined, caPem?: string): string | undefined {
    const id = `${namespace}/${secretName}`;
    const missing = EXISTING_TLS_KEYS.filter((k) => !data?.[k]);
    const fix =
        `it must hold tls.crt (the API and virtual-media certificate), tls.key (its private key) and ca.crt (the PEM CA certificate that signed tls.crt, ` +
        `which baremetal-operator and Ironic trust); recreate it with e.g. \`kubectl -n ${namespace} create secret generic ${secretName} --from-file=tls.crt --from-file=tls.key --from-file=ca.crt ` +
        `--dry-run=client -o yaml | kubectl apply -f -\`, or set tls.mode to "generate"`;
    if (missing.length > 0) {
        const present = Object.keys(data ?? {}).filter((k) => data![k]).sort();
        const has = present.length > 0 ? present.map((k) => `"${k}"`).join(", ") : "no non-empty key";
        return `tls.existingSecret: Secret ${id} lacks ${missing.map((k) => `"${k}"`).join(", ")} (missing or empty; it has ${has}): ${fix}`;
    }
    if (caPem !== undefined && !/-----BEGIN CERTIFICATE-----/.test(caPem)) {
        return `tls.existingSecret: Secret ${id}: "ca.crt" is not a PEM certificate (no -----BEGIN CERTIFICATE----- line): ${fix}`;
    }
    return undefined;
}
