/**
 * cert-manager's CustomResourceDefinitions as cert-manager publishes them: from its Go module
 * (github.com/cert-manager/cert-manager, pinned below), downloaded at test time through the Go module
 * proxy by `go mod download`, which checks the module against the checksum database, into a
 * module cache outside the repository (METAL3_CERT_MANAGER_CACHE, default
 * /var/cache/metal3-ironic-cert-manager). Nothing of cert-manager is kept in this repository.
 * A download that fails throws, naming the module, the cache and go's own message.
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { run, which } from "./sys";

export const CERT_MANAGER_MODULE = "github.com/cert-manager/cert-manager";
/** The release whose CRDs the tests hold the rendered Certificates to. */
export const CERT_MANAGER_VERSION = "v1.21.2";

export function certManagerCache(): string {
    return process.env.METAL3_CERT_MANAGER_CACHE ?? "/var/cache/metal3-ironic-cert-manager";
}

/** The module's directory in the cache, downloaded first when missing. */
export function certManagerModuleDir(): string {
    const cache = certManagerCache();
    const go = which("go") ?? (fs.existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : undefined);
    const spec = `${CERT_MANAGER_MODULE}@${CERT_MANAGER_VERSION}`;
    if (!go) throw new Error(`cannot download ${spec}: no go command on PATH (nor /usr/local/go/bin/go); the CRD schema of cert-manager comes from its Go module`);
    fs.mkdirSync(cache, { recursive: true });
    // Outside any module (the cache directory has no go.mod): `go mod download` of one module@version.
    const r = run(go, ["mod", "download", "-json", spec], {
        cwd: cache,
        allowFail: true,
        timeout: 300000,
        env: { ...process.env, GOMODCACHE: path.join(cache, "gomod"), GOFLAGS: "-modcacherw", GO111MODULE: "on", GOTOOLCHAIN: "local" },
    });
    let info: { Dir?: string; Error?: string } = {};
    try {
        info = JSON.parse(r.stdout);
    } catch {
        /* reported below */
    }
    if (r.status !== 0 || !info.Dir || info.Error) {
        throw new Error(`cannot download ${spec} through the Go module proxy into ${cache}: ${info.Error ?? ""} ${r.stderr.trim().slice(-800)}`.trim());
    }
    return info.Dir;
}

/** The openAPIV3Schema of a cert-manager CRD (`deploy/crds/<file>`) at `version` (v1). */
export function certManagerCrd(file: string): { crd: Record<string, any>; schema: Record<string, any>; source: string } {
    const source = path.join(certManagerModuleDir(), "deploy", "crds", file);
    if (!fs.existsSync(source)) throw new Error(`${CERT_MANAGER_MODULE}@${CERT_MANAGER_VERSION} has no deploy/crds/${file}`);
    const crd = YAML.parse(fs.readFileSync(source, "utf8"));
    const v1 = (crd.spec?.versions ?? []).find((v: any) => v.name === "v1");
    if (!v1?.schema?.openAPIV3Schema) throw new Error(`${source}: no v1 version with an openAPIV3Schema`);
    return { crd, schema: v1.schema.openAPIV3Schema, source };
}
