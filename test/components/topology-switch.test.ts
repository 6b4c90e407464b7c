/**
 * Topology switch single ↔ multi (pulumi mocks): the API Service keeps its identity, the old
 * workload is deleted before the new one is created (never two dnsmasqs), the database is untouched.
 *
 * Mocks run the program but not the engine, so the test models the engine's step order from what
 * is registered (see `planSteps`): a registration matches an old resource by its URN, else by an
 * alias; a match of another type is a replacement only with `replaceOnChanges: ["kind"]` (the
 * Kubernetes provider's diff does not force one on `kind`), deleting the old object first with
 * `deleteBeforeReplace`; old resources nothing matches are deleted at the END, in reverse order.
 */
import { strict as assert } from "assert";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

import { RawConfig } from "../../core/config";
import { unwrapSecrets, valueOf } from "../../tools/offline";
import { readStackConfig, renderOffline } from "../../tools/render";

const dev = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.dev.yaml"));
const ha = readStackConfig(path.join(__dirname, "..", "..", "Pulumi.ha.yaml"));
const SINGLE: RawConfig = { ...dev, database: { kind: "mariadb" } };
const MULTI: RawConfig = { ...SINGLE, topology: "multi", provisioning: ha.provisioning, conductors: ha.conductors };

/** One registered resource as the engine would see it. */
interface Reg {
    urn: string;
    type: string;
    name: string;
    /** Kubernetes identity kind/namespace/name (custom Kubernetes objects only). */
    object?: string;
    /** A workload whose pods run dnsmasq (serve DHCP). */
    dhcp: boolean;
    inputs: unknown;
    aliases: string[];
    deleteBeforeReplace: boolean;
    replaceOnChanges: string[];
    protect: boolean;
}

const ROOT_STACK = "pulumi:pulumi:Stack";

/**
 * Register the program and return what the engine would get, in registration order. URNs are
 * computed as the engine does (the parent's whole type chain, the root stack left out): the mock
 * monitor names a resource by its immediate parent's type only and keeps the root stack's type, so
 * alias URNs (built by pulumi.createUrn from a parent's mock URN) are translated the same way.
 */
async function register(raw: RawConfig, previousOutputs?: Record<string, unknown>) {
    const regs: pulumi.ResourceTransformationArgs[] = [];
    const run = await renderOffline(raw, "dev", { previousOutputs, onRegister: (a) => regs.push(a) });
    const byResource = new Map(regs.map((a) => [a.resource, a]));
    const chain = (a: pulumi.ResourceTransformationArgs): string => {
        const p = a.opts.parent ? byResource.get(a.opts.parent) : undefined;
        return p && p.type !== ROOT_STACK ? `${chain(p)}$${a.type}` : a.type;
    };
    const engineUrn = (a: pulumi.ResourceTransformationArgs) => `urn:pulumi:dev::metal3-ironic::${chain(a)}::${a.name}`;
    const prefix = (urn: string) => urn.slice(0, urn.lastIndexOf("::"));
    const translations: [string, string][] = [];
    for (const a of regs) translations.push([prefix(await valueOf(a.resource.urn)), prefix(engineUrn(a))]);
    translations.sort((x, y) => y[0].length - x[0].length);
    const translate = (urn: string) => {
        const t = translations.find(([mock]) => urn.startsWith(`${mock}$`));
        return t ? t[1] + urn.slice(t[0].length) : urn;
    };
    const out: Reg[] = [];
    for (const a of regs) {
        if (a.type === "pulumi:pulumi:StackReference" || a.type.startsWith("pulumi:providers:")) continue;
        const aliases: string[] = [];
        for (const al of (a.opts.aliases ?? []) as pulumi.Input<string | pulumi.Alias>[]) {
            const v = await valueOf(pulumi.output(al));
            if (typeof v === "string") aliases.push(translate(v));
        }
        const recorded = run.resources.find((r) => r.type === a.type && r.name === a.name);
        const inputs = unwrapSecrets(recorded?.rawInputs ?? {});
        const meta = (inputs as any).metadata;
        const isObject = a.type.startsWith("kubernetes:") && a.type.split(":").length === 3 && !a.type.endsWith("Patch") && meta?.name;
        const containers: any[] = (inputs as any).spec?.template?.spec?.containers ?? [];
        out.push({
            urn: engineUrn(a),
            type: a.type,
            name: a.name,
            object: isObject ? `${a.type.split(":")[2]}/${meta.namespace ?? ""}/${meta.name}` : undefined,
            dhcp: containers.some((c) => c.name === "dnsmasq"),
            inputs,
            aliases,
            deleteBeforeReplace: (a.opts as pulumi.CustomResourceOptions).deleteBeforeReplace === true,
            replaceOnChanges: ((a.opts as pulumi.CustomResourceOptions).replaceOnChanges ?? []) as string[],
            protect: a.opts.protect === true,
        });
    }
    return { regs: out, state: await valueOf(run.outputs.state) };
}

type Step = { op: "create" | "update" | "delete"; urn: string; object?: string; dhcp: boolean; note: string };

/** The engine's steps for moving from `olds` (the last run) to `news` (this run), in order. */
function planSteps(olds: Reg[], news: Reg[]): Step[] {
    const steps: Step[] = [];
    const matched = new Set<string>();
    const atEnd: Reg[] = [];
    const step = (op: Step["op"], r: Reg, note: string) => steps.push({ op, urn: r.urn, object: r.object, dhcp: r.dhcp, note });
    for (const n of news) {
        const old = olds.find((o) => o.urn === n.urn) ?? olds.find((o) => n.aliases.includes(o.urn));
        if (!old) {
            step("create", n, "new");
            continue;
        }
        matched.add(old.urn);
        if (old.type === n.type) {
            // Same object (an in-place update, or nothing when the inputs are equal).
            step("update", n, old.urn === n.urn ? "same URN" : `alias of ${old.urn}`);
        } else if (!n.replaceOnChanges.includes("kind")) {
            // The provider applies the new kind in place; the old object is never deleted.
            step("create", n, `in-place update of ${old.urn} to another kind: the old object is orphaned`);
        } else if (n.deleteBeforeReplace) {
            step("delete", old, `replaced by ${n.urn} (delete before replace)`);
            step("create", n, `replacement of ${old.urn}`);
        } else {
            step("create", n, `replacement of ${old.urn} (create before delete)`);
            atEnd.push(old);
        }
    }
    for (const o of [...olds].reverse()) if (!matched.has(o.urn)) atEnd.push(o);
    for (const o of atEnd) step("delete", o, "no longer in the program");
    return steps;
}

/** Live Kubernetes objects after each step: collisions of one name, and the most DHCP servers at once. */
function simulate(olds: Reg[], steps: Step[]) {
    const live = new Map<string, boolean>();
    for (const o of olds) if (o.object) live.set(o.object, o.dhcp);
    const collisions: string[] = [];
    let maxDhcp = 0;
    for (const s of steps) {
        if (!s.object) continue;
        if (s.op === "create" && live.has(s.object)) collisions.push(`${s.object} (${s.note})`);
        if (s.op === "delete") live.delete(s.object);
        else live.set(s.object, s.dhcp);
        maxDhcp = Math.max(maxDhcp, [...live.values()].filter(Boolean).length);
    }
    return { collisions, maxDhcp, dhcpAtEnd: [...live.entries()].filter(([, d]) => d).map(([o]) => o) };
}

const find = (regs: Reg[], name: string) => {
    const r = regs.find((x) => x.name === name);
    assert.ok(r, `${name} registered`);
    return r!;
};

describe("topology switch single ↔ multi (pulumi mocks, engine step model)", function () {
    this.timeout(120000);
    let single: Awaited<ReturnType<typeof register>>;
    let multi: Awaited<ReturnType<typeof register>>;

    before(async function () {
        single = await register(SINGLE);
        multi = await register(MULTI, { state: single.state });
    });

    for (const [from, to] of [
        ["single", "multi"],
        ["multi", "single"],
    ] as const) {
        it(`${from} → ${to}: the Service keeps its identity, the old workload goes first, one dnsmasq at any moment`, async function () {
            const before = from === "single" ? single : multi;
            // The second run reads the first run's state back, as the stack does.
            const after = to === "multi" ? await register(MULTI, { state: before.state }) : await register(SINGLE, { state: before.state });
            const svc = (r: Reg[]) => r.find((x) => x.object === "Service/metal3/ironic")!;
            assert.ok(svc(after.regs).aliases.includes(svc(before.regs).urn), `the API Service aliases ${svc(before.regs).urn}`);

            const workload = (r: Reg[]) => r.filter((x) => x.dhcp && /Deployment|DaemonSet/.test(x.type));
            const [oldW] = workload(before.regs);
            const [newW] = workload(after.regs);
            assert.ok(newW.aliases.includes(oldW.urn), `the ${newW.type} aliases the old ${oldW.type} ${oldW.urn}`);
            assert.equal(newW.deleteBeforeReplace, true);
            assert.deepEqual(newW.replaceOnChanges, ["kind"]);

            const steps = planSteps(before.regs, after.regs);
            const sim = simulate(before.regs, steps);
            assert.deepEqual(sim.collisions, [], "no object is created while one of its name exists");
            assert.equal(sim.maxDhcp, 1, `at most one DHCP server at any moment:\n${steps.map((s) => `${s.op} ${s.object ?? s.urn}: ${s.note}`).join("\n")}`);
            assert.deepEqual(sim.dhcpAtEnd, [newW.object]);
            const del = steps.findIndex((s) => s.op === "delete" && s.urn === oldW.urn);
            const create = steps.findIndex((s) => s.op === "create" && s.urn === newW.urn);
            assert.ok(del >= 0 && del < create, "the old workload is deleted before the new one is created");
            assert.equal(steps.find((s) => s.object === "Service/metal3/ironic")!.op, "update", "the Service is updated, never deleted");
        });
    }

    it("bound (provisioning.bindInterface) on both sides: the EndpointSlice of the one name is updated across the switch, both ways, never created while it exists", async function () {
        const bind = (raw: RawConfig): RawConfig => ({ ...raw, provisioning: { ...(raw.provisioning as object), bindInterface: true }, readiness: { mode: "in-cluster" } });
        // Without conductors[].external: IPA's callback would find no bound API there (a config error).
        const conductors = (ha.conductors as Record<string, unknown>[]).map(({ external: _, ...c }) => c);
        const boundSingle = await register(bind(SINGLE));
        const boundMulti = await register(bind({ ...MULTI, conductors }), { state: boundSingle.state });
        const slice = (r: Reg[]) => r.find((x) => x.object === "EndpointSlice/metal3/ironic-provisioning");
        for (const [before, after] of [
            [boundSingle, boundMulti],
            [boundMulti, await register(bind(SINGLE), { state: boundMulti.state })],
        ]) {
            assert.ok(slice(before.regs) && slice(after.regs), "both sides write the EndpointSlice");
            assert.ok(slice(after.regs)!.aliases.includes(slice(before.regs)!.urn), `the EndpointSlice aliases ${slice(before.regs)!.urn}`);
            const steps = planSteps(before.regs, after.regs);
            assert.deepEqual(simulate(before.regs, steps).collisions, [], "no object is created while one of its name exists");
            assert.equal(steps.find((st) => st.object === "EndpointSlice/metal3/ironic-provisioning")!.op, "update");
        }
    });

    it("without the aliases the same switch would delete the live Service and run two dnsmasqs (the model can fail)", function () {
        const bare = multi.regs.map((r) => ({ ...r, aliases: [], deleteBeforeReplace: false, replaceOnChanges: [] }));
        const sim = simulate(single.regs, planSteps(single.regs, bare));
        assert.deepEqual(sim.collisions, ["Service/metal3/ironic (new)"]);
        assert.equal(sim.maxDhcp, 2);
    });

    it("the database is identical in both topologies: same URNs, same inputs, the claim protected", function () {
        const db = (r: Reg[]) => r.filter((x) => /^ironic-(mariadb|db-upgrade)/.test(x.name) || x.type === "metal3:database:MariaDB");
        const a = db(single.regs);
        const b = db(multi.regs);
        assert.ok(a.length >= 10, `the MariaDB resources are found: ${a.map((x) => x.name)}`);
        assert.deepEqual(b.map((x) => x.urn).sort(), a.map((x) => x.urn).sort());
        for (const x of a) assert.deepEqual(find(b, x.name).inputs, x.inputs, `${x.name}: same inputs`);
        assert.equal(find(a, "ironic-mariadb-data").protect, true);
        assert.equal(find(b, "ironic-mariadb-data").protect, true);
        const steps = planSteps(single.regs, multi.regs).filter((s) => a.some((x) => x.urn === s.urn));
        assert.ok(steps.every((s) => s.op === "update" && s.note === "same URN"), "no database resource is created or deleted");
    });
});
