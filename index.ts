// metal3-ironic: deploys Metal3's Ironic stack onto Kubernetes. All logic lives in components/.
import { runProgram } from "./components/program";

// The program is async (it reads the stack's own previous outputs before registering anything);
// the properties of the object it resolves to are the stack outputs:
// apiUrl (in-cluster API endpoint, for BMO), apiProvisioningUrl (hosts, IPA, BMCs), caCertificate,
// credentialsSecretName, credentials (secret), topology (conductors and DHCP slices), and
// ironicImage, ironicVersion and state, read back by the next run (core/plan/previous.ts): they refuse schema
// downgrades and changes that would lose data, and keep DHCP slots where they are; conductorsAlive
// (the conductors the live readiness check saw alive; absent with readiness.enabled false);
// imageCacheUrl and imageCacheCaCertificate (the IPA cache, for other stacks' imageCache.mode external).
export = async () => {
    const o = await runProgram();
    return {
        apiUrl: o.apiUrl,
        apiProvisioningUrl: o.apiProvisioningUrl,
        caCertificate: o.caCertificate,
        credentialsSecretName: o.credentialsSecretName,
        credentials: o.credentials,
        topology: o.topology,
        ironicImage: o.ironicImage,
        ironicVersion: o.ironicVersion,
        state: o.state,
        ...(o.conductorsAlive ? { conductorsAlive: o.conductorsAlive } : {}),
        ...(o.imageCacheUrl ? { imageCacheUrl: o.imageCacheUrl } : {}),
        ...(o.imageCacheCaCertificate ? { imageCacheCaCertificate: o.imageCacheCaCertificate } : {}),
    };
};
