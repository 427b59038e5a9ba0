import type { FeatureFlag, FeatureFlagsClient, LegacyScope } from "../../db/schema";
import { scopeRelevance, USER_LIST_STRATEGY } from "../shared/feature_flags/rules";
import type { PresentContext } from "../kernel/present";

export type UnleashFlagRow = FeatureFlag & {
  strategies: { name: string; parameters: Record<string, unknown>; userXids: string | null; scopes: string[] }[];
  legacyScopes: Pick<LegacyScope, "active" | "environmentScope" | "strategies">[];
};

/**
 * API::Entities::UnleashFeature for the environment named by the client's app name
 * (`FeatureFlag.for_unleash_client`): a new-version flag appears when one of its strategies has a scope
 * matching the environment, with those strategies only (a user-list strategy as `userWithId` with the
 * list's ids); a legacy flag with its most relevant scope (`active` of flag and scope together).
 */
export function unleashFeature(flag: UnleashFlagRow, environment: string) {
  const head = { name: flag.name, ...(flag.description === null ? {} : { description: flag.description }) };
  if (flag.version === "legacy_flag") {
    let best: UnleashFlagRow["legacyScopes"][number] | null = null;
    let bestRelevance = -1;
    for (const scope of flag.legacyScopes) {
      const relevance = scopeRelevance(scope.environmentScope, environment);
      if (relevance >= bestRelevance && relevance >= 0) [best, bestRelevance] = [scope, relevance];
    }
    if (!best) return null;
    return { ...head, enabled: flag.active && best.active, strategies: best.strategies };
  }
  const strategies = flag.strategies
    .filter((s) => s.scopes.some((scope) => scopeRelevance(scope, environment) >= 0))
    .map((s) =>
      s.name === USER_LIST_STRATEGY ? { name: "userWithId", parameters: { userIds: s.userXids ?? "" } } : { name: s.name, parameters: s.parameters },
    );
  if (strategies.length === 0) return null;
  return { ...head, enabled: flag.active, strategies };
}

/** API::Entities::Unleash::ClientFeatureFlags: version 1; no app name, no features. */
export function clientFeatureFlags(flagsList: UnleashFlagRow[], ctx: PresentContext & { environment: string | null }) {
  const environment = ctx.environment;
  const features = environment ? flagsList.map((f) => unleashFeature(f, environment)).filter((f) => f !== null) : [];
  return { version: 1, features };
}

/** Our extension: where an Unleash client points and with which instance id. */
export function featureFlagsClient(client: FeatureFlagsClient, ctx: PresentContext & { projectId: number }) {
  return { api_url: `${ctx.baseUrl}/api/v4/feature_flags/unleash/${ctx.projectId}`, instance_id: client.token };
}
