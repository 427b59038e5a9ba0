import type { Ctx } from "../../kernel/env";
import { crc32 } from "../git/pack/idx";
import { loadFeatures, type PersistedFeature } from "./queries";

/**
 * Instance features (GitLab's `Feature`, backed by Flipper; lib/feature.rb): a feature not yet set
 * answers its definition's `default_enabled`; once set, its gates decide, in Flipper's order.
 */

/** Feature::Definition (config/feature_flags/**.yml): the features this code reads, and nothing else. */
export type FeatureDefinition = {
  name: string;
  introduced_by_url: string | null;
  rollout_issue_url: string | null;
  milestone: string | null;
  log_state_changes: boolean | null;
  type: string;
  group: string | null;
  default_enabled: boolean;
};

export const FEATURE_DEFINITIONS: readonly FeatureDefinition[] = [
  {
    // Read by `GET /projects` and the group and user project lists: `order_by=similarity` ranks by
    // the search when on; off, it falls back to the column order.
    name: "similarity_search",
    introduced_by_url: null,
    rollout_issue_url: null,
    milestone: "12.6",
    log_state_changes: null,
    type: "development",
    group: "group::project management",
    default_enabled: true,
  },
];

export function featureDefinition(name: string): FeatureDefinition | null {
  return FEATURE_DEFINITIONS.find((d) => d.name === name) ?? null;
}

/** What a gate can be checked against: a row with its Flipper id (`User:1`, `Project:2`, `Group:3`). */
export type FeatureActor = { flipperId: string };

/** FeatureGate#flipper_id: `<class name>:<id>`. */
export const flipperId = (type: "User" | "Project" | "Group" | "Namespaces::UserNamespace", id: number): FeatureActor => ({ flipperId: `${type}:${id}` });

/** Flipper's percentage-of-actors bucket: crc32 of the feature name and the actor id, scaled by 1000. */
function inActorPercentage(feature: string, actor: FeatureActor, percentage: number): boolean {
  const crc = crc32(0, new TextEncoder().encode(feature + actor.flipperId)) >>> 0;
  return crc % 100_000 < percentage * 1000;
}

/** Flipper::Feature#enabled?(actor) over persisted gates. */
export function gatesOpen(feature: PersistedFeature, actor?: FeatureActor, random: () => number = Math.random): boolean {
  const value = (key: string) => feature.gates.find((g) => g.key === key)?.value;
  if (value("boolean") === "true") return true;
  if (actor && feature.gates.some((g) => g.key === "actors" && g.value === actor.flipperId)) return true;
  const actors = Number(value("percentage_of_actors") ?? 0);
  if (actor && actors > 0 && inActorPercentage(feature.name, actor, actors)) return true;
  const time = Number(value("percentage_of_time") ?? 0);
  return time > 0 && random() * 100 < time;
}

/**
 * `Feature.enabled?(name, actor)`: the one reader of instance features for every code path behind one.
 * Unset features answer their definition's default (false without a definition).
 */
export async function isFeatureEnabled(c: Ctx, name: string, actor?: FeatureActor): Promise<boolean> {
  const [feature] = await loadFeatures(c.var.db(), [name]);
  if (!feature) return featureDefinition(name)?.default_enabled ?? false;
  return gatesOpen(feature, actor);
}
