/** core/plan/upgrade.ts: Ironic's rolling upgrade of several conductors, pinned while releases mix. */
import { strict as assert } from "assert";

import { admitPlan } from "../../../core/plan/admit";
import { PIN_KEY, pinNote, pinnedRelease, rollingUpgrade, upgradeSubject } from "../../../core/plan/upgrade";
import { renderOffline } from "../../../tools/render";
import { configOf, devRaw, haRaw, planOf, withKeys } from "./support";

const V38 = "quay.io/metal3-io/ironic:v38.0.0";
const V39 = "quay.io/metal3-io/ironic:v39.0.0";
const ha39 = withKeys(haRaw, { images: { ironic: V39 } });
const ha39Pinned = withKeys(ha39, { ironic: { config: { [PIN_KEY]: "38.0" } } });
const subjectOf = (raw: Parameters<typeof configOf>[0]) => upgradeSubject(configOf(raw));

describe("plan/upgrade: a rolling upgrade of the conductors is pinned to the release it leaves", function () {
    it("is a rolling upgrade only for multi moving to a newer release than the previous run deployed", function () {
        assert.deepEqual(rollingUpgrade(subjectOf(ha39), { ironicImage: V38 }), { from: "38.0", to: "39.0" });
        assert.equal(rollingUpgrade(subjectOf(ha39), {}), undefined, "a first run: nothing mixes");
        assert.equal(rollingUpgrade(subjectOf(withKeys(ha39, { images: { ironic: "quay.io/metal3-io/ironic:v39.0.1" } })), { ironicImage: V39 }), undefined, "a patch release: same release mapping");
        assert.equal(rollingUpgrade(subjectOf(ha39), { ironicImage: "quay.io/metal3-io/ironic:latest" }), undefined, "the deployed release is unknown");
        assert.deepEqual(rollingUpgrade(subjectOf(ha39), { ironicImage: "quay.io/metal3-io/ironic@sha256:" + "a".repeat(64), ironicVersion: "38.0" }), { from: "38.0", to: "39.0" }, "a digest with its stated version");
        assert.equal(rollingUpgrade(subjectOf(withKeys(devRaw, { images: { ironic: V39 }, database: { kind: "mariadb" } })), { ironicImage: V38 }), undefined, "single: one pod, the old one stops first");
    });

    it("refuses the run that mixes releases without the pin to the old one, naming the key, the value and the next step", function () {
        const issues = admitPlan(configOf(ha39), { ironicImage: V38 }).issues;
        assert.equal(issues.length, 1, JSON.stringify(issues));
        assert.equal(issues[0].key, "ironic.config.default.pin_release_version");
        assert.match(issues[0].message, /from Ironic 38\.0 to 39\.0/);
        assert.match(issues[0].message, /\(it is not set\)/);
        assert.match(issues[0].message, /Set ironic\.config "default\.pin_release_version": "38\.0" for this run and remove it in the next run/);
        const wrong = admitPlan(configOf(withKeys(ha39, { ironic: { config: { [PIN_KEY]: "37.0" } } })), { ironicImage: V38 }).issues;
        assert.match(wrong[0].message, /\(it is "37\.0"\)/);
        assert.deepEqual(admitPlan(configOf(ha39Pinned), { ironicImage: V38 }).issues, []);
        assert.deepEqual(admitPlan(configOf(ha39), { ironicImage: V39 }).issues, [], "the next run, every conductor on 39: no pin needed");
    });

    it("while pinned: the conductors get [DEFAULT]pin_release_version, the migrations Job waits, and the plan says so", async function () {
        assert.equal(pinnedRelease(configOf(ha39Pinned)), "38.0");
        assert.match(pinNote(planOf(ha39Pinned), { ironicImage: V38 })!, /^rolling upgrade 38\.0 → 39\.0: conductors pinned to 38\.0; online data migrations wait for the next run/);
        assert.match(pinNote(planOf(ha39Pinned), { ironicImage: V39 })!, /remove the pin once every conductor runs the new release/);
        assert.equal(pinNote(planOf(ha39), { ironicImage: V38 }), undefined);

        const pinned = await renderOffline(ha39Pinned, "ha", { previousOutputs: { ironicImage: V38 } });
        const jobs = (r: typeof pinned) => r.objects.filter((o) => o.kind === "Job").map((o) => o.metadata.name as string);
        assert.deepEqual(jobs(pinned).map((n) => n.replace(/-[0-9a-f]{10}$/, "")), ["ironic-dbsync"], "the schema upgrade runs; migrations do not");
        const ds = pinned.objects.find((o) => o.kind === "DaemonSet")!;
        const ironic = ds.spec.template.spec.containers.find((c: any) => c.name === "ironic");
        assert.deepEqual(ironic.env.filter((e: any) => e.name === "OS_DEFAULT__PIN_RELEASE_VERSION"), [{ name: "OS_DEFAULT__PIN_RELEASE_VERSION", value: "38.0" }]);

        const unpinned = await renderOffline(ha39, "ha", { previousOutputs: { ironicImage: V39 } });
        assert.deepEqual(jobs(unpinned).map((n) => n.replace(/-[0-9a-f]{10}$/, "")).sort(), ["ironic-dbsync", "ironic-migrate"], "the next run: migrations after the unpinned roll");
        assert.deepEqual(jobs(unpinned).filter((n) => n.startsWith("ironic-dbsync")), jobs(pinned), "the same upgrade Job: it does not run again");
        await assert.rejects(renderOffline(ha39, "ha", { previousOutputs: { ironicImage: V38 } }), /pin_release_version/);
    });
});
