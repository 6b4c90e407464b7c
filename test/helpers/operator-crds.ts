/**
 * The MariaDB operator's CRDs, from its published Go module at the release the program pins
 * (MARIADB_OPERATOR in core/plan/database.ts), fetched with `go mod download` from the Go module
 * proxy into a cache outside the repository (METAL3_OPERATOR_CRDS_CACHE, default
 * /var/cache/metal3-ironic-operator-crds) and checked against the module's recorded hash.
 * Nothing of the module is committed; the tests read its config/crd/bases/*.yaml.
 *
 * When the fetch cannot run (no `go`, no proxy, a changed hash) `operatorCrds()` throws, naming
 * why: the tests that need the CRDs fail, never skip.
 */
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import Ajv, { type ValidateFunction } from "ajv";
import { parse } from "yaml";

import { MARIADB_OPERATOR } from "../../core/mariadb";

/** The go.sum hash (h1:) of the pinned module zip: a different download is refused. */
export const OPERATOR_MODULE_SUM = "h1:UQF7cNxMTSCmxuHIhhnMGsnc5e7S9iT7w7h8zmSUu1o=";

export const OPERATOR_CRDS_CACHE = process.env.METAL3_OPERATOR_CRDS_CACHE ?? "/var/cache/metal3-ironic-operator-crds";

/** The kinds the program creates, and the CRD file of each. */
export const OPERATOR_KINDS: Record<string, string> = { MariaDB: "mariadbs", Database: "databases", User: "users", Grant: "grants" };

export interface Crd {
    file: string;
    text: string;
    doc: any;
}

let cached: Record<string, Crd> | undefined;

/** The module's directory, downloaded (and verified) once into the cache. */
export function operatorModuleDir(): string {
    const mod = `${MARIADB_OPERATOR.module}@v${MARIADB_OPERATOR.version}`;
    const env = { ...process.env, GOMODCACHE: path.join(OPERATOR_CRDS_CACHE, "gomod"), GOFLAGS: "-modcacherw", GOTOOLCHAIN: "local" };
    try {
        fs.mkdirSync(OPERATOR_CRDS_CACHE, { recursive: true });
    } catch (e) {
        throw new Error(`the MariaDB operator's CRDs: cannot create the cache ${OPERATOR_CRDS_CACHE} (${(e as Error).message}); set METAL3_OPERATOR_CRDS_CACHE to a writable directory`);
    }
    const r = spawnSync("go", ["mod", "download", "-json", mod], { env, encoding: "utf8", timeout: 300000, cwd: OPERATOR_CRDS_CACHE });
    if (r.error) throw new Error(`the MariaDB operator's CRDs: cannot run go mod download ${mod} (${r.error.message}); install Go (the toolchain tier needs it too)`);
    let info: { Dir?: string; Sum?: string; Error?: string } = {};
    try {
        info = JSON.parse(r.stdout);
    } catch {
        /* reported below */
    }
    if (r.status !== 0 || !info.Dir) throw new Error(`the MariaDB operator's CRDs: go mod download ${mod} failed: ${info.Error ?? r.stderr.trim() ?? `exit ${r.status}`}`);
    if (info.Sum !== OPERATOR_MODULE_SUM) throw new Error(`the MariaDB operator's CRDs: ${mod} has hash ${info.Sum}, pinned ${OPERATOR_MODULE_SUM}`);
    return info.Dir;
}

/** The CRD of each kind the program creates, as the module ships it. */
export function operatorCrds(): Record<string, Crd> {
    if (cached) return cached;
    const dir = path.join(operatorModuleDir(), "config", "crd", "bases");
    const out: Record<string, Crd> = {};
    for (const [kind, plural] of Object.entries(OPERATOR_KINDS)) {
        const file = path.join(dir, `k8s.mariadb.com_${plural}.yaml`);
        if (!fs.existsSync(file)) throw new Error(`the MariaDB operator's CRDs: ${file} is missing from the module`);
        const text = fs.readFileSync(file, "utf8");
        out[kind] = { file, text, doc: parse(text) };
    }
    cached = out;
    return out;
}

/**
 * The schema as the API server applies it with strict field validation: every object schema
 * that declares its properties admits no others (a misspelt field is an error, not pruned).
 */
function strictSchema(s: any): any {
    if (Array.isArray(s)) return s.map(strictSchema);
    if (!s || typeof s !== "object") return s;
    const out: any = {};
    for (const [k, v] of Object.entries(s)) out[k] = k === "properties" ? Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, strictSchema(ps)])) : strictSchema(v);
    if (out.type === "object" && out.properties && out.additionalProperties === undefined && !out["x-kubernetes-preserve-unknown-fields"]) out.additionalProperties = false;
    return out;
}

const validators = new Map<string, ValidateFunction>();

/** Validate one rendered operator object against its CRD's served version; returns the errors. */
export function crdErrors(o: Record<string, any>): string[] {
    const crd = operatorCrds()[o.kind];
    if (!crd) return [`${o.kind}: not a kind of the operator this program creates`];
    const [group, version] = o.apiVersion.split("/");
    if (crd.doc.spec.group !== group) return [`${o.kind}: apiVersion group ${group}, the CRD's is ${crd.doc.spec.group}`];
    const v = crd.doc.spec.versions.find((x: any) => x.name === version && x.served);
    if (!v) return [`${o.kind}: version ${version} is not served by the CRD (served: ${crd.doc.spec.versions.filter((x: any) => x.served).map((x: any) => x.name).join(", ")})`];
    const key = `${o.kind}/${version}`;
    let validate = validators.get(key);
    if (!validate) {
        // Kubernetes' own extensions (x-kubernetes-*) are not JSON Schema keywords; formats such as int32 are not checked here.
        const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
        validate = ajv.compile(strictSchema(v.schema.openAPIV3Schema.properties.spec));
        validators.set(key, validate);
    }
    if (validate(o.spec)) return [];
    return (validate.errors ?? []).map((e) => `${o.kind} spec${e.instancePath} ${e.message}${e.params && "additionalProperty" in e.params ? ` (${(e.params as any).additionalProperty})` : ""}`);
}
