/** The ramdisk's kernel command line: what this program adds must leave room for Ironic's own parameters. */
import { KERNEL_PARAMS_BUDGET, kernelBytes } from "../strings";
import type { Rule } from "./rule";

export const kernelRule: Rule = ({ parsed }, add) => {
    const ironic = parsed.ironic;
    if (!ironic?.kernelParams || !ironic.ramdiskSshKey) return; // each alone is bounded by the schema
    const bytes = kernelBytes(ironic.kernelParams, ironic.ramdiskSshKey);
    if (bytes > KERNEL_PARAMS_BUDGET) {
        add(
            "ironic.kernelParams",
            `together with ironic.ramdiskSshKey (added as sshkey="...") makes ${bytes} bytes of kernel command line; at most ${KERNEL_PARAMS_BUDGET} fit ` +
                "beside Ironic's own parameters (the kernel keeps 2048): shorten the parameters, or use a shorter key such as ssh-ed25519",
        );
    }
};
