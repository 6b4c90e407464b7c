/** Reading back what a stack's previous run exported, for the Metal3Ironic component's `previous`. */
import * as pulumi from "@pulumi/pulumi";

import { PREVIOUS_OUTPUTS, PreviousState, parsePreviousState } from "../core/plan/previous";

/**
 * What the previous run of this very stack left: its own last outputs (PREVIOUS_OUTPUTS), read
 * through a StackReference to itself; nothing on a first run. A program that uses the
 * Metal3Ironic component and exports its `outputs` passes this as `previous`.
 */
export async function readPreviousState(): Promise<PreviousState> {
    const self = new pulumi.StackReference(`${pulumi.getOrganization()}/${pulumi.getProject()}/${pulumi.getStack()}`);
    const read = (name: string) => new Promise<unknown>((resolve) => self.getOutput(name).apply(resolve));
    const outputs: Record<string, unknown> = {};
    for (const name of Object.values(PREVIOUS_OUTPUTS)) outputs[name] = await read(name);
    return parsePreviousState(outputs);
}
