/**
 * The IPA image cache (imageCache.mode "deploy"): scripts ConfigMap, server certificate from the
 * stack CA (multi with tls.mode "generate": from a root of the cache's own, see `cacheRoot`), a PersistentVolumeClaim that outlives the stack (retainOnDelete, protect, like the
 * database's), the Service and the Deployment. Every object body comes from core/manifests.
 *
 * `imageCacheForStack` is what the stack calls in every mode: the cache (deploy), the CA Secret the
 * Ironic pods mount (deploy: the CA that signed the cache's certificate; caPem: the given PEM; caSecret: the user's, not written)
 * and the client script ConfigMap, and the stack outputs `imageCacheUrl` / `imageCacheCaCertificate`.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

import {
    cacheUrl,
    deployedCache,
    IMAGE_CACHE_ANNOTATIONS,
    imageCacheClient,
    imageCacheClientData,
    imageCacheDeployment,
    imageCachePvc,
    imageCacheScriptsData,
    imageCacheService,
    inNamespace,
    sha256,
} from "../core/manifests";
import { IronicPlan } from "../core/plan";
import type { ImageCachePlan } from "../core/plan/image-cache";
import { StackPki, serverTlsSecret } from "./pki";
import { stackMeta } from "../core/manifests/meta";

export interface ImageCacheArgs {
    plan: IronicPlan;
    namespace: pulumi.Input<string>;
    /** Issues the server certificate; the conductors verify it with this CA. Absent with tls.mode "cert-manager". */
    pki?: StackPki;
}

export class ImageCache extends pulumi.ComponentResource {
    public readonly deployment: k8s.apps.v1.Deployment;
    public readonly service: k8s.core.v1.Service;
    public readonly pvc: k8s.core.v1.PersistentVolumeClaim;
    /** The HTTPS base URL (in-cluster Service name). */
    public readonly url: pulumi.Output<string>;
    /** The CA that signed the server certificate (PEM); with tls.mode "cert-manager" the issuer's, not known here. */
    public readonly caCertPem?: pulumi.Output<string>;

    constructor(name: string, args: ImageCacheArgs, opts?: pulumi.ComponentResourceOptions) {
        super("metal3:images:ImageCache", name, {}, opts);
        const { plan, namespace, pki } = args;
        const ic = deployedCache(plan);
        const meta = (n: string) => ({ name: n, namespace, labels: ic.labels });

        const scripts = new k8s.core.v1.ConfigMap(`${name}-scripts`, { metadata: meta(ic.names.scriptsConfigMap), data: imageCacheScriptsData() }, { parent: this });
        const tls = serverTlsSecret(pki, name, { commonName: ic.serviceDnsNames[2], dnsNames: ic.serviceDnsNames, ipAddresses: [] }, meta(ic.names.tlsSecret), { issue: this, secret: this });
        // Downloaded versions outlive the pod and, unless asked otherwise, the stack.
        this.pvc = new k8s.core.v1.PersistentVolumeClaim(`${name}-data`, inNamespace(imageCachePvc(plan), namespace), {
            parent: this,
            retainOnDelete: ic.storage.retainOnDelete,
            protect: ic.storage.protect,
        });
        this.service = new k8s.core.v1.Service(`${name}-service`, inNamespace(imageCacheService(plan), namespace), { parent: this });
        const dep = imageCacheDeployment(plan, tls ? { [IMAGE_CACHE_ANNOTATIONS.tlsCert]: tls.certPem.apply(sha256) } : {});
        this.deployment = new k8s.apps.v1.Deployment(`${name}-deployment`, inNamespace(dep, namespace), { parent: this, dependsOn: [scripts, ...(tls ? [tls.secret] : []), this.pvc] });
        this.url = pulumi.output(ic.url);
        this.caCertPem = pki?.caCertPem;
        this.registerOutputs({ url: this.url, caCertPem: this.caCertPem, deployment: this.deployment.metadata.name });
    }
}

export interface StackImageCache {
    /** What the Ironic pods mount (client ConfigMap, CA Secret): the workload waits for them. */
    mounted: pulumi.Resource[];
    url?: pulumi.Output<string>;
    caCertPem?: pulumi.Output<string>;
    /** Mode deploy: what issues the cache's server certificate (deployImageCache). */
    pki?: StackPki;
    /** The cache's own root, when it has one (cacheRoot): the conductor pods roll when it changes. */
    ownRootPem?: pulumi.Output<string>;
}

/**
 * Per mode of the plan's cache, one entry each (a new mode does not compile without one): the CA the
 * Ironic pods trust for it, and whether this stack deploys it. Deploy: what signs the cache's server
 * certificate (the stack CA or the cache's own root; ImageCache issues it); external and none: the
 * PEM the config gives, if any (a caSecret is the user's, read by the pods only).
 */
const givenPem = (ic: ImageCachePlan) => (ic.ca?.pem !== undefined ? pulumi.output(ic.ca.pem) : undefined);
const CACHE_MODES: Record<ImageCachePlan["mode"], { caPem: (ic: ImageCachePlan, issuer: StackPki | undefined) => pulumi.Output<string> | undefined; deploys: boolean }> = {
    deploy: { caPem: (_, issuer) => issuer?.caCertPem, deploys: true },
    external: { caPem: givenPem, deploys: false },
    none: { caPem: givenPem, deploys: false },
};

/** The cache's root of its own when the plan says so (ImageCachePlan ownRoot), else the stack CA. */
function cacheRoot(parent: pulumi.ComponentResource, name: string, plan: IronicPlan, pki: StackPki | undefined): StackPki | undefined {
    if (!plan.imageCache.ownRoot || !pki) return pki;
    const args = { commonName: `metal3-ironic ${plan.namespace}/${plan.name} IPA cache CA`, ...plan.tls.validity, protectKey: false };
    return new StackPki(`${name}-ipa-cache-root`, args, { parent });
}

/**
 * What the Ironic pods mount for the image cache, in every mode (see the file comment); registered
 * before the workload. The cache itself (mode deploy) is `deployImageCache`, registered after it.
 */
export function imageCacheForStack(parent: pulumi.ComponentResource, name: string, plan: IronicPlan, namespace: pulumi.Output<string>, pki: StackPki | undefined): StackImageCache {
    const ic = plan.imageCache;
    const url = cacheUrl(ic);
    const mounted: pulumi.Resource[] = [];
    const issuer = cacheRoot(parent, name, plan, pki);
    if (imageCacheClient(plan)) {
        mounted.push(new k8s.core.v1.ConfigMap(`${name}-ipa-cache-client`, { metadata: stackMeta(plan, ic.names.clientConfigMap, { namespace }), data: imageCacheClientData() }, { parent }));
    }
    const caPem = CACHE_MODES[ic.mode].caPem(ic, issuer);
    if (ic.ca && !ic.ca.userOwned && caPem) {
        mounted.push(new k8s.core.v1.Secret(`${name}-ipa-cache-ca`, { metadata: stackMeta(plan, ic.ca.secretName, { namespace }), stringData: { "ca.crt": caPem } }, { parent }));
    }
    return { mounted, ...(url ? { url: pulumi.output(url) } : {}), ...(caPem ? { caCertPem: caPem } : {}), ...(issuer ? { pki: issuer } : {}), ...(issuer && issuer !== pki ? { ownRootPem: issuer.caCertPem } : {}) };
}

/** Mode deploy: the cache of this stack (after the Ironic workload, which waits for it only through its client's retries). */
export function deployImageCache(parent: pulumi.ComponentResource, name: string, plan: IronicPlan, namespace: pulumi.Output<string>, pki: StackPki | undefined): ImageCache | undefined {
    return CACHE_MODES[plan.imageCache.mode].deploys ? new ImageCache(`${name}-ipa-cache`, { plan, namespace, pki }, { parent }) : undefined;
}
