/**
 * Ironic's rolling upgrade of several conductors (its upgrade guide, "Rolling upgrades"): the
 * schema upgrade with the new release first, while the old one serves (the upgrade Job); then the
 * services replaced one at a time, each new one with `[DEFAULT]pin_release_version` set to the old
 * release so it speaks the old RPC and writes database objects the old conductors can read; then
 * every service restarted unpinned; online data migrations last (they write every object at the
 * newest version, which an old conductor cannot load).
 *
 * A Pulumi run has one desired state per object, so the upgrade is two runs of `multi`: the run
 * that changes `images.ironic` to a newer release must carry the pin (refused without it, since
 * nothing else knows the old release), and rolls the conductors one by one; the next run drops the
 * pin, rolls them again, and only then runs the migrations Job. `single` has one Ironic: its old
 * pod stops before the new one starts, so versions never mix and no pin is needed.
 */
import type { ConfigIssue, StackConfig } from "../config";
import { compareVersions, effectiveIronicVersion } from "../config/version";

/** What the previous run deployed (core/plan/previous.ts PreviousState). */
type Deployed = { ironicImage?: string; ironicVersion?: string };

/** The `ironic.config` key of `[DEFAULT]pin_release_version`. */
export const PIN_KEY = "default.pin_release_version";

/** `[38, 0, 1]` → "38.0": a release as Ironic's release mappings (and the pin) name it. */
export const releaseName = (v: number[]): string => `${v[0]}.${v[1] ?? 0}`;

export interface RollingUpgrade {
    /** The deployed release and the one this run rolls out ("38.0", "39.0"). */
    from: string;
    to: string;
}

/** What the rolling upgrade looks at, decided in buildPlan (plan.upgrade): the topology, the Ironic image, the pin, the conductors listed. */
export interface UpgradeSubject {
    multi: boolean;
    ironic: { image: string; version?: string };
    /** The release the conductors are pinned to (ironic.config's PIN_KEY). */
    pin?: string;
    /** How many conductors conductors[] lists. */
    conductors: number;
}

export function upgradeSubject(config: StackConfig): UpgradeSubject {
    const pin = pinnedRelease(config);
    const { ironic, ironicVersion } = config.images;
    return { multi: config.topology === "multi", ironic: { image: ironic, ...(ironicVersion !== undefined ? { version: ironicVersion } : {}) }, ...(pin !== undefined ? { pin } : {}), conductors: config.conductors.length };
}

/** Multi, and this run moves the conductors to a newer release than the previous run deployed (both known). */
export function rollingUpgrade(s: UpgradeSubject, previous: Deployed): RollingUpgrade | undefined {
    if (!s.multi || !previous.ironicImage) return undefined;
    const before = effectiveIronicVersion({ image: previous.ironicImage, version: previous.ironicVersion });
    const now = effectiveIronicVersion(s.ironic);
    if (!before || !now || compareVersions(now.slice(0, 2), before.slice(0, 2)) <= 0) return undefined;
    return { from: releaseName(before), to: releaseName(now) };
}

/** The release the conductors are pinned to (`ironic.config`), if any. */
export function pinnedRelease(config: StackConfig): string | undefined {
    const v = config.ironic.config[PIN_KEY];
    return v === undefined ? undefined : String(v);
}

/** A rolling upgrade without the pin to the release it leaves (or with another): refused. */
export function rollingUpgradeIssues(s: UpgradeSubject, previous: Deployed): ConfigIssue[] {
    const up = rollingUpgrade(s, previous);
    const pin = s.pin;
    if (!up || pin === up.from) return [];
    const n = s.conductors;
    const has = pin === undefined ? "it is not set" : `it is ${JSON.stringify(pin)}`;
    return [
        {
            key: `ironic.config.${PIN_KEY}`,
            message:
                `images.ironic moves the ${n} conductors from Ironic ${up.from} to ${up.to}; they are replaced one at a time, so both releases serve together ` +
                `and the new ones must speak the old release's RPC and database objects: Ironic's rolling upgrade pins them to it (${has}). ` +
                `Set ironic.config "${PIN_KEY}": "${up.from}" for this run and remove it in the next run, once every conductor runs ${up.to}; ` +
                'online data migrations run then (docs/operations.md, "Upgrades")',
        },
    ];
}

/** One line for the plan's summary while the conductors are pinned. */
export function pinNote(plan: { upgrade: UpgradeSubject }, previous: Deployed): string | undefined {
    const s = plan.upgrade;
    const pin = s.pin;
    if (pin === undefined || !s.multi) return undefined;
    const up = rollingUpgrade(s, previous);
    return up
        ? `rolling upgrade ${up.from} → ${up.to}: conductors pinned to ${pin}; online data migrations wait for the next run without ${PIN_KEY}`
        : `conductors pinned to Ironic ${pin} (${PIN_KEY}): API versions newer than that release are refused (406) and online data migrations wait; remove the pin once every conductor runs the new release`;
}
