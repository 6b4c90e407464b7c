/** Shared by the manifests tests: the example stacks as plans, and helpers to read mounts compactly. */
import type { IronicPlan } from "../../../core/plan";
import type { VolumeMount } from "../../../core/manifests/volumes";
import { devNoDhcpRaw, devRaw, haNoDhcpRaw, haRaw, planOf, tlsExistingRaw, vmediaRaw, withKeys } from "../plan/support";

/** single, DHCP, SQLite, a nodeSelector from the stack file. */
export const dev: IronicPlan = planOf(devRaw);
/** multi, DHCP, MariaDB. */
export const ha: IronicPlan = planOf(haRaw);
/** single, no DHCP, keepalived. */
export const vmedia: IronicPlan = planOf(vmediaRaw);
/** single, DHCP, MariaDB, the user's TLS Secret `my-tls`. */
export const tlsExisting: IronicPlan = planOf(tlsExistingRaw);
export const devNoDhcp: IronicPlan = planOf(devNoDhcpRaw);
/** multi without DHCP (virtual media only), MariaDB. */
export const haNoDhcp: IronicPlan = planOf(haNoDhcpRaw);
/** multi with an external database and its CA. */
export const haExternal: IronicPlan = planOf(withKeys(haRaw, { database: { kind: "external", host: "db.example", credentialsSecret: "db-creds", caSecret: "db-ca-secret" } }));
/** single with an external database without a CA (plain connection, stated with tls: false). */
export const devExternal: IronicPlan = planOf(withKeys(devRaw, { database: { kind: "external", host: "db.example", credentialsSecret: "db-creds", tls: false } }));

/** Every example plan, by name. */
export const ALL: Record<string, IronicPlan> = { dev, ha, vmedia, tlsExisting, devNoDhcp, haNoDhcp, haExternal, devExternal };

/** A mount as "name:path" with " ro" when read-only: one line per mount in the assertions. */
/** "volume:path", "volume/subPath:path" for a part of a volume, " ro" when read-only. */
export const m = (mounts: VolumeMount[] | undefined): string[] | undefined => mounts?.map((v) => `${v.name}${v.subPath ? `/${v.subPath}` : ""}:${v.mountPath}${v.readOnly ? " ro" : ""}`);

/**
 * The k8s input types wrap every field in Pulumi's Input (value | Promise | Output); the pure
 * builders only ever return plain values. Read a rendered object as the plain data it is.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const plain = (o: unknown): any => o;
