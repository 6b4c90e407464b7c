// metal3-ironic's own Pulumi program: the stack config handed to the Metal3Ironic component
// (components/index.ts, the package other programs import) by components/program.ts. The stack
// outputs are the component's `outputs`: apiUrl (in-cluster API endpoint, for BMO),
// apiProvisioningUrl (hosts, IPA, BMCs), caCertificate, credentialsSecretName, credentials
// (secret), topology (conductors and DHCP slices), and ironicImage, ironicVersion and state, read
// back by the next run (core/plan/previous.ts): they refuse schema downgrades and changes that
// would lose data, and keep DHCP slots where they are; conductorsAlive (the conductors the live
// readiness check saw alive; absent with readiness.enabled false); imageCacheUrl and
// imageCacheCaCertificate (the IPA cache, for other stacks' imageCache.mode external).
import { runProgram } from "./components/program";

export = () => runProgram();
