/**
 * The e2e tier needs the toolchain tools/toolchain/build.sh builds (etcd, Kubernetes, kwok, the
 * Pulumi CLI and plugins). In CI its absence fails the tier, naming what is missing (.ci/run builds
 * it first); on a developer's machine the tier is reported pending with the command to run.
 */
import { createHash } from "crypto";
import * as fs from "fs";
import * as path from "path";

import { requireOrSkip } from "../helpers/sys";
import { ROOT } from "./harness";

/** The binaries of the toolchain's first stage (tools/toolchain/build.sh etcd k8s bmo): a local cluster. */
export const CLUSTER_BINARIES = ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok"];

export const TOOLCHAIN_BINARIES = [...CLUSTER_BINARIES, "pulumi", "pulumi-language-nodejs", "pulumi-resource-kubernetes", "pulumi-resource-tls", "pulumi-resource-random"];

/** The bin directory of the toolchain for the current versions.env (it may not exist yet). */
export function toolchainBin(): string {
    const cache = process.env.METAL3_TOOLCHAIN_CACHE ?? "/var/cache/metal3-ironic-toolchain";
    const key = createHash("sha256").update(fs.readFileSync(path.join(ROOT, "tools", "toolchain", "versions.env"))).digest("hex").slice(0, 16);
    return path.join(cache, key, "bin");
}

/**
 * The toolchain's Go module cache as a `file://` Go module proxy (its cache/download is laid out
 * like one): the build leaves baremetal-operator's release zip there, so bmo.goproxy can point at it.
 */
export function toolchainGoProxy(): string {
    return `file://${path.join(path.dirname(path.dirname(toolchainBin())), "gomod", "cache", "download")}`;
}

export function missingBinaries(need: "cluster" | "all" = "all"): string[] {
    const bin = toolchainBin();
    return (need === "cluster" ? CLUSTER_BINARIES : TOOLCHAIN_BINARIES).filter((b) => !fs.existsSync(path.join(bin, b)));
}

/**
 * Fails (CI) or skips the test when the toolchain lacks what it needs: all of it, or with
 * `"cluster"` only its first stage (a local cluster; tools/run-tests.ts starts such a file as soon
 * as that stage is built, reading this argument from its source).
 */
export function requireToolchain(ctx: Mocha.Context, need: "cluster" | "all" = "all"): void {
    const missing = missingBinaries(need);
    requireOrSkip(ctx, missing.length === 0, `the e2e toolchain lacks ${missing.join(", ")} in ${toolchainBin()}: build it with tools/toolchain/build.sh`);
}
