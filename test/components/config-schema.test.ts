/**
 * The files `npm run config-schema` generates from the validation schema and its descriptions
 * (core/config/reference.ts): Pulumi.yaml's `config:` declarations (tools/config-schema.ts), with
 * defaults that change nothing, and docs/configuration.md (tools/config-reference.ts), whose table
 * covers every key of the schema and names none it does not know.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { validateConfig } from "../../core/config";
import { TOP_LEVEL_KEYS } from "../../core/config/schema";
import { REFERENCE } from "../../core/config/reference";
import { CONFIGURATION_MD, configurationMd, referenceProblems, schemaKeys } from "../../tools/config-reference";
import { PULUMI_YAML, configDeclarations, pulumiYaml } from "../../tools/config-schema";
import { EXAMPLE_STACKS } from "../../tools/golden";
import { PROJECT_FILES } from "../e2e/harness";
import { readStackConfig } from "../../tools/render";

const ROOT = path.join(__dirname, "..", "..");

describe("Pulumi.yaml config declarations (npm run config-schema)", function () {
    it("Pulumi.yaml is exactly what the schema generates (run `npm run config-schema` after changing the schema)", function () {
        assert.equal(fs.readFileSync(PULUMI_YAML, "utf8"), pulumiYaml());
    });

    it("the engine runs the program transpiled, not type-checked: the tsconfig Pulumi.yaml names extends tsconfig.json and the SDK reads noCheck from it; npm run typecheck still checks the program", function () {
        const runtime = YAML.parse(fs.readFileSync(PULUMI_YAML, "utf8")).runtime;
        assert.deepEqual(runtime, { name: "nodejs", options: { typescript: true, tsconfig: "tsconfig.pulumi.json" } });
        const file = path.join(ROOT, runtime.options.tsconfig);
        assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).extends, "./tsconfig.json");
        // The Node.js SDK's own reader (cmd/run/run.js): `noCheck` there makes ts-node transpile only.
        // eslint-disable-next-line @typescript-eslint/no-var-requires
        const { loadTypeScriptCompilerOptions } = require("@pulumi/pulumi/tsutils");
        assert.equal(loadTypeScriptCompilerOptions(file).noCheck, true);
        assert.equal(loadTypeScriptCompilerOptions(path.join(ROOT, "tsconfig.json")).noCheck, undefined, "tsconfig.json (npm run typecheck) checks types");
        const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
        assert.match(pkg.scripts.typecheck, /tsc --noEmit -p (\.|tsconfig\.json)( |$)/);
        assert.ok(JSON.parse(fs.readFileSync(path.join(ROOT, "tsconfig.json"), "utf8")).include.includes("index.ts"));
    });

    it("the local-cluster recipe (README, getting started) links every file a workspace of the checkout needs, the tsconfig Pulumi.yaml names included", function () {
        for (const doc of ["README.md", "docs/getting-started.md"]) {
            const m = /for f in ([^;]+); do ln -s ~\/metal3-ironic\/\$f; done/.exec(fs.readFileSync(path.join(ROOT, doc), "utf8"));
            assert.ok(m, `${doc} has the workspace recipe`);
            assert.deepEqual(m[1].split(" ").sort(), [...PROJECT_FILES].sort(), `${doc} links what test/e2e/harness.ts links`);
        }
        assert.ok(PROJECT_FILES.includes(YAML.parse(fs.readFileSync(PULUMI_YAML, "utf8")).runtime.options.tsconfig));
    });

    it("docs/configuration.md is exactly what the schema and core/config/reference.ts generate (run `npm run config-schema` after changing either)", function () {
        assert.equal(fs.readFileSync(CONFIGURATION_MD, "utf8"), configurationMd(), "docs/configuration.md drifted: run `npm run config-schema` and commit it");
    });

    it("the reference has a row for every key of the schema, names only keys of the schema, and its defaults are what an unset key resolves to", function () {
        assert.deepEqual(referenceProblems(), []);
        const documented = REFERENCE.flatMap((r) => r.keys);
        assert.ok(documented.length > 80, `reference rows name ${documented.length} keys`);
        assert.ok(schemaKeys().length > 80, `schema keys: ${schemaKeys().length}`);
    });

    it("the reference check can fail: a row for an unknown key, a schema key without a row, a wrong default, a hand-written enum type", function () {
        const rows = REFERENCE.filter((r) => !r.keys.includes("tls.caValidityDays")).map((r) =>
            r.keys[0] === "namespace" ? { ...r, default: "`default`" } : r.keys[0] === "topology" ? { ...r, type: "one of two" } : r,
        );
        rows.push({ keys: ["tls.caValidityDay"], type: "int", default: "`3650`" });
        assert.deepEqual(referenceProblems(rows), [
            "reference key topology: leave its type out, the schema lists the values",
            'reference key namespace: default "`default`" does not name `metal3`, what an unset key resolves to',
            "reference key tls.caValidityDay is not a key of the schema",
            "schema key tls.caValidityDays has no row in core/config/reference.ts",
        ]);
    });

    it("declares every top-level key, and names every nested key of the schema in Pulumi.yaml's description of its top-level key", function () {
        const decl = configDeclarations();
        assert.deepEqual(Object.keys(decl), [...TOP_LEVEL_KEYS]);
        const all = Object.values(decl).map((d) => d.description).join("\n");
        for (const k of schemaKeys()) {
            if (k.includes(".")) assert.ok(all.includes(k), `schema key ${k} is not named in Pulumi.yaml's description of ${k.split(/[.[]/)[0]}`);
        }
        for (const d of Object.values(decl)) assert.match(d.description, /See docs\/configuration\.md\.$/);
    });

    it("declarations are what the Pulumi CLI accepts: known types, arrays with items, defaults of the declared type, the required key without default", function () {
        const decl = configDeclarations();
        const typeOf = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "number" ? "integer" : typeof v);
        for (const [k, d] of Object.entries(decl)) {
            assert.ok(["string", "integer", "boolean", "array", "object"].includes(d.type), `${k}: ${d.type}`);
            if (d.type === "array") assert.ok(d.items?.type, `${k}: an array declares its items`);
            if (d.default !== undefined) assert.equal(typeOf(d.default), d.type, `${k}: default ${JSON.stringify(d.default)}`);
            assert.doesNotMatch(k, /:/, "declared in the project's own namespace");
        }
        assert.equal(decl.provisioning.default, undefined, "provisioning is required: the CLI asks for it");
        const doc = YAML.parse(fs.readFileSync(PULUMI_YAML, "utf8"));
        assert.equal(doc.name, "metal3-ironic");
        assert.deepEqual(doc.options, { refresh: "always" }, "certificate renewal needs no manual --refresh");
        assert.deepEqual(doc.config["pulumi:disable-default-providers"], { value: ["kubernetes"] });
    });

    it("the defaults the CLI fills in change nothing: every example stack validates to the same config with them", function () {
        const decl = configDeclarations();
        for (const ex of EXAMPLE_STACKS) {
            const raw = readStackConfig(path.join(ROOT, ex.file));
            const filled = { ...Object.fromEntries(Object.entries(decl).filter(([, d]) => d.default !== undefined).map(([k, d]) => [k, d.default])), ...raw };
            const a = validateConfig(raw);
            const b = validateConfig(filled as typeof raw);
            assert.ok(a.ok && b.ok, `${ex.file}: ${JSON.stringify(!b.ok && b.issues)}`);
            assert.deepEqual(b.config, a.config, ex.file);
        }
    });
});
