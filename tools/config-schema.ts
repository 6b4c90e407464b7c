/**
 * npm run config-schema [-- --check]
 *
 * Writes Pulumi.yaml, whose `config:` block declares every key of this project for the Pulumi CLI
 * (`pulumi config`, type checks before the program runs), generated from the validation schema
 * (core/config/schema.ts) so the two cannot drift; `--check` only compares (exit 1 on drift).
 *
 * How the CLI reads the declarations (Pulumi project file reference): a declared key without a
 * `default` is required, so every optional key gets the default that means "unset" to the
 * program; objects and arrays are typed `object` / `array` (objects need a CLI that knows the
 * `object` config type); keys are declared without the project prefix (typed declarations must
 * be in the project's own namespace).
 */
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { z } from "zod";

import { PROJECT } from "../core/config";
import { TOP_LEVEL_KEYS, sections } from "../core/config/schema";
import { findUp } from "../core/render/assets";

type TopKey = (typeof TOP_LEVEL_KEYS)[number];

/** One line per top-level key; the nested keys are listed from the schema. */
const DESCRIPTIONS: Record<TopKey, string> = {
    topology: "single (one Ironic) or multi (one Ironic + dnsmasq per control-plane node).",
    namespace: "Namespace of every object.",
    name: "Name prefix of every object (DNS label, at most 40 characters).",
    createNamespace: "Create the namespace (false when it is managed elsewhere).",
    clusterDomain: "Cluster DNS domain, used in the certificate SANs.",
    images: "Container images (tag or @sha256 digest).",
    ports: "Ports on the provisioning network.",
    provisioning: "The provisioning network (required): Ironic's address and CIDR, optional DHCP.",
    tls: "Certificates: generated from a stack CA, or an existing Secret.",
    placement: "Where the pods run: node selector and tolerations; multi: which nodes run a conductor.",
    ironic: "Ironic settings: API user, ironic.conf options, ramdisk.",
    database: "sqlite, mariadb (deployed here) or external.",
    conductors: "multi, optional: per-node overrides (every control-plane node runs a conductor, listed or not).",
    kubernetes: "The Kubernetes provider: kubeconfig context.",
    resources: "CPU/memory requests and limits per container role (defaults for every container).",
    proxy: "The HTTP(S) proxy of the IPA downloads (and of Ironic with applyToIronic), and what bypasses it.",
    trust: "An extra CA bundle (your ConfigMap or Secret) the IPA downloads trust besides the system bundle.",
    imagePullSecrets: "Secrets (yours, in the namespace) every pod pulls its images with.",
    imageCache: "Where conductors get IPA: deploy (a cache here), external (another stack's cache) or none (your URLs).",
    readiness: "The live check after the workload: every conductor alive in the Ironic API, or pulumi up fails.",
};

/** What an unset key means; these are what the CLI fills in for a stack that does not set them. */
const UNSET: Partial<Record<TopKey, unknown>> = {
    topology: "single",
    namespace: "metal3",
    name: "ironic",
    createNamespace: true,
    clusterDomain: "cluster.local",
    database: { kind: "sqlite" },
    conductors: [],
};

/** Keys without a default: the CLI refuses a stack that does not set them. */
const REQUIRED: TopKey[] = ["provisioning"];

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; additionalProperties?: unknown };

/** Nested keys as `pulumi config set --path` spells them: `dhcp.rangeStart`, `[].name`. */
export function nestedKeys(s: JsonSchema, at = ""): string[] {
    if (s.type === "array" && s.items) return nestedKeys(s.items, `${at}[]`);
    if (s.type !== "object" || !s.properties) return at ? [at] : [];
    return Object.entries(s.properties).flatMap(([k, v]) => {
        const key = at === "" ? k : at.endsWith("]") ? `${at}.${k}` : `${at}.${k}`;
        const below = nestedKeys(v, key);
        return below.length > 0 ? below : [key];
    });
}

export interface ConfigDeclaration {
    type: "string" | "integer" | "boolean" | "array" | "object";
    description: string;
    items?: { type: string };
    default?: unknown;
}

export function jsonSchemaOf(key: TopKey): JsonSchema {
    return z.toJSONSchema(sections[key] as z.ZodType, { unrepresentable: "any" }) as JsonSchema;
}

/** The `config:` declarations of every key, in the schema's order. */
export function configDeclarations(): Record<string, ConfigDeclaration> {
    const out: Record<string, ConfigDeclaration> = {};
    for (const key of TOP_LEVEL_KEYS) {
        const schema = jsonSchemaOf(key);
        const type = schema.type as ConfigDeclaration["type"];
        const nested = nestedKeys(schema).map((k) => (k.startsWith("[]") ? `${key}${k}` : `${key}.${k}`));
        const keys = nested.length > 0 ? ` Keys: ${nested.join(", ")}.` : "";
        const decl: ConfigDeclaration = { type, description: `${DESCRIPTIONS[key]}${keys} See README, Configuration reference.` };
        if (type === "array") decl.items = { type: schema.items?.type ?? "string" };
        if (!REQUIRED.includes(key)) decl.default = key in UNSET ? UNSET[key] : type === "array" ? [] : {};
        out[key] = decl;
    }
    return out;
}

/** The whole Pulumi.yaml. */
export function pulumiYaml(): string {
    const doc = {
        name: PROJECT,
        runtime: { name: "nodejs", options: { typescript: true } },
        // The program; package.json's `main` is the package's entry (components/index.ts, built)
        // for programs that import the component.
        main: "index.ts",
        description: "Deploys Metal3's Ironic stack (Ironic, httpd, dnsmasq, certificates, credentials) onto Kubernetes",
        // Every operation starts with a refresh: certificates due for renewal are seen and re-issued
        // without anyone remembering `--refresh`.
        options: { refresh: "always" },
        config: {
            "pulumi:disable-default-providers": { value: ["kubernetes"] },
            ...configDeclarations(),
        },
    };
    const header = "# Generated by `npm run config-schema` from core/config/schema.ts; do not edit by hand.\n";
    return header + YAML.stringify(doc, { lineWidth: 0 });
}

export const PULUMI_YAML = findUp(__dirname, "Pulumi.yaml");

function main(argv: string[]): number {
    const want = pulumiYaml();
    if (argv.includes("--check")) {
        const have = fs.readFileSync(PULUMI_YAML, "utf8");
        if (have === want) return 0;
        console.error("config-schema: Pulumi.yaml differs from the schema; run `npm run config-schema` and commit it");
        return 1;
    }
    fs.writeFileSync(PULUMI_YAML, want);
    console.log(`config-schema: wrote ${path.relative(process.cwd(), PULUMI_YAML) || "Pulumi.yaml"} (${TOP_LEVEL_KEYS.length} keys)`);
    return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
