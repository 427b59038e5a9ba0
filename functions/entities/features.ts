import * as z from "zod";

/** API::Entities::Feature::Definition (lib/api/entities/feature/definition.rb). */
export const FeatureDefinition = z
  .object({
    name: z.string(),
    introduced_by_url: z.string().nullable(),
    rollout_issue_url: z.string().nullable(),
    milestone: z.string().nullable(),
    log_state_changes: z.boolean().nullable(),
    type: z.string(),
    group: z.string().nullable(),
    default_enabled: z.boolean(),
  })
  .meta({ id: "FeatureDefinition" });
type Definition = z.output<typeof FeatureDefinition>;
export function featureDefinition(d: Definition): z.output<typeof FeatureDefinition> {
  return { ...d };
}

const Gate = z.object({ key: z.string(), value: z.union([z.boolean(), z.int(), z.array(z.string())]) });

/** API::Entities::Feature (lib/api/entities/feature.rb): Flipper's state and its gates that are set. */
export const Feature = z
  .object({
    name: z.string(),
    state: z.enum(["on", "off", "conditional"]),
    gates: z.array(Gate),
    definition: FeatureDefinition.nullable(),
  })
  .meta({ id: "Feature" });

/** A persisted feature (Flipper's gate rows: `key`, `value`) with its definition. */
export type FeatureRow = { name: string; gates: { key: string; value: string }[]; definition: Definition | null };

export function feature(row: FeatureRow): z.output<typeof Feature> {
  const one = (key: string) => row.gates.find((g) => g.key === key)?.value;
  const boolean = one("boolean") === "true";
  const actors = row.gates.filter((g) => g.key === "actors").map((g) => g.value);
  const ofActors = Number(one("percentage_of_actors") ?? 0);
  const ofTime = Number(one("percentage_of_time") ?? 0);
  // Flipper's gate order; the boolean gate is always shown, the others when set (Integer 0 or an empty Set are not).
  const gates: z.output<typeof Gate>[] = [{ key: "boolean", value: boolean }];
  if (actors.length) gates.push({ key: "actors", value: actors });
  if (ofActors) gates.push({ key: "percentage_of_actors", value: ofActors });
  if (ofTime) gates.push({ key: "percentage_of_time", value: ofTime });
  const state = boolean || ofTime === 100 ? "on" : actors.length || ofActors || ofTime ? "conditional" : "off";
  return { name: row.name, state, gates, definition: row.definition ? featureDefinition(row.definition) : null };
}
