import type { UnleashFeatureRow, UnleashFlagRow } from "../entities/unleash";
import { scopeRelevance } from "../shared/feature_flags/rules";

/**
 * `FeatureFlag.for_unleash_client(project, environment)`: the flags that apply to the environment a
 * client names, evaluated before presenting. A new-version flag applies when one of its strategies has a
 * scope matching the environment, with those strategies only; a legacy flag with its most relevant scope
 * (the last of the most relevant, as before), enabled when both the flag and the scope are active.
 * Pure: the rows come from `flagsForClient`.
 */
export function featuresForEnvironment(flags: UnleashFlagRow[], environment: string | null): UnleashFeatureRow[] {
  if (!environment) return [];
  const out: UnleashFeatureRow[] = [];
  for (const flag of flags) {
    const head = { name: flag.name, description: flag.description };
    if (flag.version === "legacy_flag") {
      let best: UnleashFlagRow["legacyScopes"][number] | null = null;
      let bestRelevance = -1;
      for (const scope of flag.legacyScopes) {
        const relevance = scopeRelevance(scope.environmentScope, environment);
        if (relevance >= bestRelevance && relevance >= 0) [best, bestRelevance] = [scope, relevance];
      }
      if (best) out.push({ ...head, legacy: true, enabled: flag.active && best.active, strategies: best.strategies });
      continue;
    }
    const strategies = flag.strategies.filter((s) => s.scopes.some((scope) => scopeRelevance(scope, environment) >= 0));
    if (strategies.length > 0) out.push({ ...head, legacy: false, enabled: flag.active, strategies });
  }
  return out;
}
