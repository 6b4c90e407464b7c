/**
 * Validated config → deployment plan: every derived value (names, labels, URLs, SANs, DHCP
 * ranges, environment of each container) as plain data. Pure; tested without Pulumi.
 * Composes conductors.ts, env.ts, certificates.ts and database.ts.
 */
import type { StackConfig } from "../config";
import { DEPLOYED_DATABASE_KINDS } from "../config/database";
import { urlOf } from "../ip";
import { apiCertificate, conductorCaPlan, tlsPlan } from "./certificates";
import { nodeDataReadersHash } from "./conductor";
import { dnsmasqStartScript, planTopology } from "./conductors";
import { databasePlan } from "./database";
import { commonEnv, ipaDownloaderEnv, ironicEnv, osloSettings } from "./env";
import { planImageCache } from "./image-cache";
import { userOwned } from "./secrets";
import { planTrust } from "./trust";
import { upgradeSubject } from "./upgrade";
import type { PreviousState } from "./previous";
import type { IronicPlan } from "./types";
import { appLabels, appSelector } from "../labels";

/**
 * `previous`: what the stack's previous run left (core/plan/previous.ts); `{}` plans a first run.
 * Problems that depend on it (DHCP slots) are in the plan, reported by previousStateIssues.
 */
export function buildPlan(config: StackConfig, previous: PreviousState = {}): IronicPlan {
    const { name, namespace, ports, provisioning } = config;
    const topology = planTopology(config, previous.dhcpSlots);
    const serviceDnsNames = [name, `${name}.${namespace}`, `${name}.${namespace}.svc`, `${name}.${namespace}.svc.${config.clusterDomain}`];
    const database = databasePlan(config);
    const conductorCa = conductorCaPlan(config);
    // Multi: each conductor is reached on its own node's IP, which no shared value can name.
    const host = topology.kind === "multi" ? "<conductor IP>" : topology.conductor.ip;
    return {
        name,
        namespace,
        labels: appLabels("ironic", name),
        selector: appSelector("ironic", name),
        names: resourceNames(config),
        serviceDnsNames,
        urls: {
            apiInCluster: urlOf("https", `${name}.${namespace}.svc`, ports.api),
            apiProvisioning: urlOf("https", host, ports.api),
            http: urlOf("http", host, ports.http),
            vmediaTls: urlOf("https", host, ports.vmediaTls),
        },
        certificate: apiCertificate(config, serviceDnsNames),
        tls: tlsPlan(config),
        images: config.images,
        placement: { ...config.placement, imagePullSecrets: config.imagePullSecrets },
        resources: config.resources,
        ports,
        metrics: config.metrics,
        provisioning,
        keepalived: config.keepalived,
        clusterDomain: config.clusterDomain,
        createNamespace: config.createNamespace,
        keepNamespaceOnDelete: (DEPLOYED_DATABASE_KINDS.includes(config.database.kind) && config.database.retainOnDelete) || config.bmo.enabled,
        kubernetes: config.kubernetes,
        bmo: config.bmo,
        readiness: config.readiness,
        apiUsername: config.ironic.apiUsername,
        conductorCa,
        database,
        topology,
        dhcpEnabled: provisioning.dhcp !== undefined,
        ...(provisioning.bindInterface ? { apiBind: topology.kind === "single" ? [topology.conductor.ip] : topology.conductors.flatMap((c) => (c.ip ? [c.ip] : [])) } : {}),
        commonEnv: commonEnv(config),
        ironicEnv: ironicEnv(config, database),
        osloSettings: osloSettings(config),
        ipaDownloaderEnv: ipaDownloaderEnv(config),
        imageCache: planImageCache(config, ipaDownloaderEnv(config), conductorCa?.source === "stack-intermediate"),
        trust: planTrust(config),
        userOwned: userOwned(config),
        upgrade: upgradeSubject(config),
        dnsmasqStartScript: dnsmasqStartScript(config),
    };
}

function resourceNames(config: StackConfig): IronicPlan["names"] {
    const { name } = config;
    const nodeData = `${name}-conductors`;
    return {
        deployment: name,
        service: name,
        dnsmasqConfigMap: `${name}-dnsmasq`,
        tlsSecret: config.tls.mode === "existing" ? config.tls.existingSecret! : `${name}-tls`,
        caSecret: `${name}-cacert`,
        /** tls.mode "cert-manager": the virtual-media certificate's own Secret (else the API's serves it). */
        vmediaTlsSecret: `${name}-vmedia-tls`,
        credentialsSecret: `${name}-credentials`,
        configSecrets: `${name}-config-secrets`,
        bmoConfigMap: `${name}-bmo`,
        rpcCredentialsSecret: `${name}-rpc-credentials`,
        // Named for the code that reads it (the wrapper, the slot agent): a release that reads the
        // entries differently writes a new ConfigMap, and pods not rolled yet keep reading theirs.
        nodeDataConfigMapBase: nodeData,
        nodeDataConfigMap: `${nodeData}-${nodeDataReadersHash()}`,
        // With tls.mode "existing" the conductor CA is the user's (multi): mounted, never read or written.
        conductorCaSecret: config.tls.mode === "existing" && config.tls.conductorCaSecret ? config.tls.conductorCaSecret : `${name}-conductor-ca`,
        scriptsConfigMapBase: `${name}-scripts`,
        slotAccount: `${name}-dhcp-slots`,
        slotLeasePrefix: `${name}-dhcp-slot-`,
        metricsService: `${name}-metrics`,
    };
}
