// metal3-ironic: deploys Metal3's Ironic stack onto Kubernetes. All logic lives in components/.
import { runProgram } from "./components/program";

const outputs = runProgram();

/** In-cluster API endpoint (what baremetal-operator uses). */
export const apiUrl = outputs.apiUrl;
/** API endpoint on the provisioning network (hosts, IPA, BMCs). */
export const apiProvisioningUrl = outputs.apiProvisioningUrl;
/** CA certificate that signs the API certificate. */
export const caCertificate = outputs.caCertificate;
/** Name of the Secret holding username, password and htpasswd. */
export const credentialsSecretName = outputs.credentialsSecretName;
/** API credentials (secret). */
export const credentials = outputs.credentials;
/** Conductors and their DHCP ranges. */
export const topology = outputs.topology;
/** The Ironic image deployed; the next run refuses an older one while a database is shared. */
export const ironicImage = outputs.ironicImage;
