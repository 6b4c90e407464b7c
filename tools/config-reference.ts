/**
 * docs/configuration.md, generated (`npm run config-schema` writes it with Pulumi.yaml): the
 * reference table lists every key of the validation schema (core/config/schema.ts) with the text
 * of core/config/reference.ts; enum types come from the schema and defaults are checked against
 * what an empty configuration resolves to (core/config/defaults.ts), so neither can drift. The
 * resources table comes from DEFAULT_RESOURCES itself.
 */
import * as path from "path";
import { z } from "zod";

import { applyDefaults } from "../core/config/defaults";
import { REFERENCE, type ReferenceRow } from "../core/config/reference";
import { DEFAULT_RESOURCES, RESOURCE_ROLE_NOTES, RESOURCE_ROLES } from "../core/config/resources";
import { TOP_LEVEL_KEYS, sections } from "../core/config/schema";
import { findUp } from "../core/render/assets";
import { PRUNER_HEARTBEAT_FILE } from "../core/manifests/containers";
import { PATHS } from "../core/contract";
import { PRUNER_TIMINGS } from "../core/timings";

type TopKey = (typeof TOP_LEVEL_KEYS)[number];
export type JsonSchema = { type?: string; enum?: unknown[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; additionalProperties?: unknown };

export const CONFIGURATION_MD = path.join(path.dirname(findUp(__dirname, "Pulumi.yaml")), "docs", "configuration.md");

export function jsonSchemaOf(key: TopKey): JsonSchema {
    return z.toJSONSchema(sections[key] as z.ZodType, { unrepresentable: "any" }) as JsonSchema;
}

/** Nested keys as `pulumi config set --path` spells them: `dhcp.rangeStart`, `[].name`. */
export function nestedKeys(s: JsonSchema, at = ""): string[] {
    if (s.type === "array" && s.items) return nestedKeys(s.items, `${at}[]`);
    if (s.type !== "object" || !s.properties) return at ? [at] : [];
    return Object.entries(s.properties).flatMap(([k, v]) => {
        const key = at === "" ? k : `${at}.${k}`;
        const below = nestedKeys(v, key);
        return below.length > 0 ? below : [key];
    });
}

/** Every key the schema knows, as `--path` spells it (array items as `[]`). */
export function schemaKeys(): string[] {
    return TOP_LEVEL_KEYS.flatMap((key) => {
        const nested = nestedKeys(jsonSchemaOf(key));
        return nested.length === 0 ? [key] : nested.map((k) => (k.startsWith("[]") ? `${key}${k}` : `${key}.${k}`));
    });
}

/** `a.b[].c` → ["a", "b[]", "c"]. */
const segments = (key: string) => key.split(".");

/** The schema node of a key (`<role>` matches any one property), undefined when there is none. */
function schemaNode(key: string): JsonSchema | undefined {
    const [top, ...rest] = segments(key);
    if (!(TOP_LEVEL_KEYS as readonly string[]).includes(top.replace(/\[\]$/, ""))) return undefined;
    let node: JsonSchema | undefined = jsonSchemaOf(top.replace(/\[\]$/, "") as TopKey);
    if (top.endsWith("[]")) node = node.items;
    for (const seg of rest) {
        const name = seg.replace(/\[\]$/, "");
        const props: Record<string, JsonSchema> = node?.properties ?? {};
        node = name.startsWith("<") ? Object.values(props)[0] : props[name];
        if (node && seg.endsWith("[]")) node = node.items;
    }
    return node;
}

/** A documented key as a pattern over schema keys: `<role>` stands for any one segment. */
function keyPattern(doc: string, tail: string): RegExp {
    return new RegExp(`^${doc.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/<[^>]+>/g, "[^.\\[]+")}${tail}`);
}

/** The keys the probe below sets itself: required ones, with no default to check. */
const PROBE_SET = ["provisioning.cidr", "provisioning.dhcp.rangeStart", "provisioning.dhcp.rangeEnd"];

/** What an empty configuration (with a DHCP range, so its keys resolve too) makes of a key, when that is one value. */
function resolvedDefault(key: string): string | undefined {
    if (key.includes("[") || key.includes("<") || PROBE_SET.includes(key)) return undefined;
    const probe = applyDefaults({ provisioning: { cidr: "172.22.0.0/24", dhcp: { rangeStart: "172.22.0.10", rangeEnd: "172.22.0.100" } } });
    let v: unknown = probe;
    for (const seg of segments(key)) v = typeof v === "object" && v !== null ? (v as Record<string, unknown>)[seg] : undefined;
    return (typeof v === "string" && v !== "") || typeof v === "number" || typeof v === "boolean" ? `\`${v}\`` : undefined;
}

/** Every way the reference and the schema disagree (empty when the table can be generated). */
export function referenceProblems(rows: ReferenceRow[] = REFERENCE): string[] {
    const problems: string[] = [];
    const known = schemaKeys();
    const documented = rows.flatMap((r) => r.keys);
    for (const row of rows) {
        for (const k of row.keys) {
            if (!known.some((s) => keyPattern(k, "($|[.[])").test(s))) problems.push(`reference key ${k} is not a key of the schema`);
            const d = resolvedDefault(k);
            if (d !== undefined && !row.default.includes(d)) problems.push(`reference key ${k}: default ${JSON.stringify(row.default)} does not name ${d}, what an unset key resolves to`);
        }
        const node = schemaNode(row.keys[0]);
        if (node?.enum && row.type !== undefined) problems.push(`reference key ${row.keys[0]}: leave its type out, the schema lists the values`);
        if (!node?.enum && row.type === undefined) problems.push(`reference key ${row.keys[0]}: needs a type (the schema has no list of values for it)`);
    }
    for (const s of known) {
        const cut = s.split("[]")[0];
        if (!documented.some((d) => keyPattern(d, "$").test(s) || keyPattern(d, "$").test(cut))) problems.push(`schema key ${s} has no row in core/config/reference.ts`);
    }
    return problems;
}

/** The first key in full, the others by what differs from the key before them: `database.host`, `.port`. */
function keysCell(keys: string[]): string {
    return keys
        .map((k, i) => {
            if (i === 0) return `\`${k}\``;
            const prev = segments(keys[i - 1]);
            const cur = segments(k);
            let common = 0;
            while (common < Math.min(prev.length, cur.length) - 1 && prev[common] === cur[common]) common++;
            return `\`.${cur.slice(common).join(".")}\``;
        })
        .join(", ");
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

function typeCell(row: ReferenceRow): string {
    if (row.type !== undefined) return row.type;
    return (schemaNode(row.keys[0])?.enum ?? []).map((v) => `\`${String(v)}\``).join(" | ");
}

const HEADER = `<!-- Generated by \`npm run config-schema\` from core/config/schema.ts and core/config/reference.ts; do not edit by hand. -->
# Configuration reference

Every key lives in the project namespace, e.g. \`pulumi config set metal3-ironic:namespace metal3\`;
nested keys with \`--path\`, e.g. \`pulumi config set --path metal3-ironic:provisioning.ip 172.22.0.2\`.
See [\`Pulumi.dev.yaml\`](../Pulumi.dev.yaml) and [\`Pulumi.ha.yaml\`](../Pulumi.ha.yaml) for complete examples.

Every string is checked for what reads it (an env var, ironic.conf, a shell or iPXE script, dnsmasq
config, a Kubernetes field): no control characters (newline, tab, NUL, DEL, …) anywhere, Kubernetes'
own syntax and length limits for names, labels and quantities, and the bounds below. Every bad value
is reported with its key, all at once, before anything is deployed; a map key that is not a plain
word is shown as \`--path\` takes it, e.g. \`placement.nodeSelector["bad key"]\`.

[\`Pulumi.yaml\`](../Pulumi.yaml) declares every top-level key (type, description, default) for the
Pulumi CLI; \`provisioning\` has no default, so the CLI asks for it. Object-typed keys need a Pulumi
CLI that knows the \`object\` config type (added in 2025, pulumi/pulumi#20129); with an older CLI,
delete the \`config:\` declarations except \`pulumi:disable-default-providers\` (the program validates
everything itself anyway). A value set with \`--secret\` stays secret: see [Security](security.md#secrets).

This page and Pulumi.yaml's declarations are generated from the schema (\`core/config/schema.ts\`) and
its descriptions (\`core/config/reference.ts\`) by \`npm run config-schema\`; a test fails when they drift.

| key | type | default | example / notes |
| --- | --- | --- | --- |
`;

const RESOURCES_INTRO = `
## Resources

Every container of every pod has requests and a memory limit. \`<role>\` is one of the names below
(a misspelt one is reported with the closest). Requests are steady-state footprints, so the
scheduler places the pods where they fit; memory limits leave room for peaks and stop a leak from
taking the node. **No CPU limit by default:** CFS throttling would delay Ironic's 2 s conductor
heartbeat (a conductor missing \`heartbeat_timeout\` is dropped from the hash ring and its nodes
move) and dnsmasq's DHCP/TFTP answers, while the CPU request already guarantees each container its
share under contention. Set \`resources.<role>.limits.cpu\` where a quota requires one.

| role | container(s) | requests cpu / memory | memory limit | why |
| --- | --- | --- | --- | --- |
`;

const RESOURCES_OUTRO = `
The \`dhcp-pruner\` container's liveness probe checks that the heartbeat file it touches on every
poll (\`${PRUNER_HEARTBEAT_FILE}\`, also while the API is unreachable) is younger than ${PRUNER_TIMINGS.heartbeatMaxAge} s;
\`ramdisk-logs\` checks that the directory it watches (\`${PATHS.deployLogs}\`, created by the
ironic container) is there and writable.
`;

/** The whole of docs/configuration.md. */
export function configurationMd(): string {
    const problems = referenceProblems();
    if (problems.length > 0) throw new Error(`core/config/reference.ts does not match the schema:\n  ${problems.join("\n  ")}`);
    const rows = REFERENCE.map((r) => `| ${[keysCell(r.keys), cell(typeCell(r)), cell(r.default), cell(r.notes ?? "")].join(" | ")} |`.replace(/ {2}\|$/, " |"));
    const roles = RESOURCE_ROLES.map((role) => {
        const d = DEFAULT_RESOURCES[role];
        const n = RESOURCE_ROLE_NOTES[role];
        return `| \`${role}\` | ${cell(n.containers)} | \`${d.requests.cpu}\` / \`${d.requests.memory}\` | \`${d.limits.memory}\` | ${cell(n.why)} |`;
    });
    return HEADER + rows.join("\n") + "\n" + RESOURCES_INTRO + roles.join("\n") + "\n" + RESOURCES_OUTRO;
}
