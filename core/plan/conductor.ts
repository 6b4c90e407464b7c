/**
 * Multi-conductor per-node plumbing, pure: the env file of each node, and the start wrapper that
 * resolves a node's entry at container start. The DaemonSet pod template is identical on every
 * node and never lists nodes; everything node-specific is looked up by NODE_NAME here.
 */
import { createHash } from "crypto";

import { readAsset } from "../render/assets";
import { SCRIPT_FILES } from "../scripts";


export { shellQuote, renderEnvFile } from "../render/envfile";


/**
 * The start wrapper `conductor-start.sh <command> [args…]` (assets/conductor-start.sh, shipped as
 * is in the scripts ConfigMap; it reads the WRAPPER_ENV variables and the CONDUCTOR_PATHS defaults):
 * 1. finds this node's entry (fails with what to add to stack config when there is none);
 * 2. exports the node's environment and copies the node's certificate where the image expects it;
 * 3. runs the command and restarts this container (exit) when this node's data changes, so a
 *    change of one node never restarts another node's conductor.
 */
export function renderConductorWrapper(): string {
    return readAsset(SCRIPT_FILES.wrapper);
}

let readersHash: string | undefined;

/**
 * The per-node data ConfigMap's name suffix: a hash of the scripts that read it (the start wrapper
 * reads `<node>.env`, the slot agent `slot-preferences.json`). ConfigMap volumes follow their
 * object, so rewriting one in place hands pods that have not rolled yet data their older wrapper
 * may not understand: when their container restarts (a watch, a crash) it would fail. A new name
 * per reader version leaves them the data they started with while the DaemonSet rolls.
 */
export function nodeDataReadersHash(readers?: { wrapper: string; slotAgent: string }): string {
    const hash = (r: { wrapper: string; slotAgent: string }) => createHash("sha256").update(r.wrapper).update("\0").update(r.slotAgent).digest("hex").slice(0, 10);
    if (readers) return hash(readers);
    readersHash ??= hash({ wrapper: renderConductorWrapper(), slotAgent: readAsset(SCRIPT_FILES.slotAgent) });
    return readersHash;
}
