import * as z from "zod";
import type { FeatureFlag, FeatureFlagsClient, LegacyScope } from "../../db/schema";
import type { PresentContext } from "../kernel/present";

export type UnleashFlagRow = FeatureFlag & {
  strategies: { name: string; parameters: Record<string, unknown>; userXids: string | null; scopes: string[] }[];
  legacyScopes: Pick<LegacyScope, "active" | "environmentScope" | "strategies">[];
};

/**
 * A flag as it applies to the environment a client names (`FeatureFlag.for_unleash_client`, which the
 * unleash domain evaluates): a new-version flag with its strategies whose scopes match, a legacy flag with
 * the strategies of its most relevant scope and `active` of flag and scope together.
 */
export type UnleashFeatureRow = Pick<FeatureFlag, "name" | "description"> &
  ({ legacy: false; enabled: boolean; strategies: UnleashFlagRow["strategies"] } | { legacy: true; enabled: boolean; strategies: LegacyScope["strategies"] });

/** The spec's neutral name of GitLab's `gitlabUserList`; both are accepted, this one is stored and shown. */
export const USER_LIST_STRATEGY = "svcUserList";

/**
 * API::Entities::UnleashFeature: a user-list strategy is shown as `userWithId` with the list's ids
 * (API::Entities::UnleashStrategy), legacy strategies as stored.
 */
const UnleashStrategy = z.object({ name: z.string(), parameters: z.record(z.string(), z.unknown()) });
export const UnleashFeature = z
  .object({ name: z.string(), description: z.string().optional(), enabled: z.boolean(), strategies: z.array(UnleashStrategy) })
  .meta({ id: "UnleashFeature" });
export function unleashFeature(row: UnleashFeatureRow): z.output<typeof UnleashFeature> {
  const head = { name: row.name, ...(row.description === null ? {} : { description: row.description }) };
  if (row.legacy) return { ...head, enabled: row.enabled, strategies: row.strategies };
  const strategies = row.strategies.map((s) =>
    s.name === USER_LIST_STRATEGY ? { name: "userWithId", parameters: { userIds: s.userXids ?? "" } } : { name: s.name, parameters: s.parameters },
  );
  return { ...head, enabled: row.enabled, strategies };
}

/** API::Entities::Unleash::ClientFeatureFlags: version 1 and the features (none for a client without an app name). */
export const ClientFeatureFlags = z.object({ version: z.int(), features: z.array(UnleashFeature) }).meta({ id: "ClientFeatureFlags" });
export function clientFeatureFlags(features: UnleashFeatureRow[], _ctx?: PresentContext): z.output<typeof ClientFeatureFlags> {
  return { version: 1, features: features.map(unleashFeature) };
}

/** Our extension: where an Unleash client points and with which instance id. */
export const FeatureFlagsClientEntity = z.object({ api_url: z.string(), instance_id: z.string() }).meta({ id: "FeatureFlagsClient" });
export function featureFlagsClient(client: FeatureFlagsClient, ctx: PresentContext & { projectId: number }): z.output<typeof FeatureFlagsClientEntity> {
  return { api_url: `${ctx.baseUrl}/api/v4/feature_flags/unleash/${ctx.projectId}`, instance_id: client.token };
}
