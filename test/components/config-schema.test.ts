/**
 * Pulumi.yaml's `config:` declarations (tools/config-schema.ts): generated from the validation
 * schema, covering every key of the README's configuration reference, with defaults that change
 * nothing.
 */
import { strict as assert } from "assert";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

import { validateConfig } from "../../core/config";
import { TOP_LEVEL_KEYS } from "../../core/config/schema";
import { PULUMI_YAML, configDeclarations, jsonSchemaOf, nestedKeys, pulumiYaml } from "../../tools/config-schema";
import { EXAMPLE_STACKS } from "../../tools/golden";
import { readStackConfig } from "../../tools/render";

const ROOT = path.join(__dirname, "..", "..");

/** Keys of the README's configuration reference table (first column), shorthand `.x` expanded. */
function readmeKeys(): string[] {
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const section = readme.split("## Configuration reference")[1].split(/\n##+ /)[0];
    const keys: string[] = [];
    for (const line of section.split("\n")) {
        if (!line.startsWith("| `")) continue;
        const cell = line.split("|")[1];
        let last = "";
        for (const m of cell.matchAll(/`([^`]+)`/g)) {
            // `.x.y` after `a.b.c.d` replaces as many trailing segments as it names: `a.b.x.y`.
            const k = m[1].startsWith(".") ? last.split(".").slice(0, -(m[1].split(".").length - 1)).join(".") + m[1] : m[1];
            keys.push(k);
            last = k;
        }
    }
    return keys;
}

/** Every key the schema knows, as `--path` spells it (array items as `[]`). */
function schemaKeys(): string[] {
    return TOP_LEVEL_KEYS.flatMap((key) => {
        const nested = nestedKeys(jsonSchemaOf(key));
        return nested.length === 0 ? [key] : nested.map((k) => (k.startsWith("[]") ? `${key}${k}` : `${key}.${k}`));
    });
}

describe("Pulumi.yaml config declarations (npm run config-schema)", function () {
    it("Pulumi.yaml is exactly what the schema generates (run `npm run config-schema` after changing the schema)", function () {
        assert.equal(fs.readFileSync(PULUMI_YAML, "utf8"), pulumiYaml());
    });

    it("declares every top-level key, and names every key of the README's reference; the README documents every key of the schema", function () {
        const decl = configDeclarations();
        assert.deepEqual(Object.keys(decl), [...TOP_LEVEL_KEYS]);
        const documented = readmeKeys();
        assert.ok(documented.length > 40, `README reference parsed: ${documented.length} keys`);
        const known = schemaKeys();
        const all = Object.values(decl).map((d) => d.description).join("\n");
        // `<role>` in a README key stands for any one segment.
        const pattern = (doc: string, tail: string) => new RegExp(`^${doc.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/<[^>]+>/g, "[^.\\[]+")}${tail}`);
        for (const k of documented) {
            const top = k.split(/[.[]/)[0];
            assert.ok(top in decl, `README key ${k}: ${top} is not declared in Pulumi.yaml`);
            const covered = known.some((s) => pattern(k, "($|[.[])").test(s));
            assert.ok(covered, `README key ${k} is not a key of the schema`);
            if (k.includes(".") && !k.includes("<")) assert.ok(all.includes(k), `README key ${k} is not named in Pulumi.yaml's description of ${top}`);
        }
        // The other way round: a key users can set but cannot read about is a bug of the README.
        for (const s of known) {
            const cut = s.split("[]")[0];
            assert.ok(documented.some((d) => pattern(d, "$").test(s) || pattern(d, "$").test(cut)), `schema key ${s} is missing from the README's configuration reference`);
        }
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
