/**
 * Multi-conductor per-node plumbing, pure: the env file of each node, and the start wrapper that
 * resolves a node's entry at container start. The DaemonSet pod template is identical on every
 * node and never lists nodes; everything node-specific is looked up by NODE_NAME here.
 */
import { CONDUCTOR_PATHS } from "../contract";
import { readAsset } from "../render/assets";


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
    return readAsset(CONDUCTOR_PATHS.wrapper);
}
