import * as z from "zod";
import { requireAdmin } from "../kernel/auth";
import { badRequest } from "../kernel/errors";
import { p, readParamsWithPath } from "../kernel/params";
import { router } from "../kernel/router";
import { Feature, FeatureDefinition, feature, featureDefinition } from "../entities/features";
import { FEATURE_DEFINITIONS, featureDefinition as definitionOf } from "../shared/features";
import * as gates from "../shared/features/queries";
import * as q from "./queries";

/**
 * Instance features (lib/api/features.rb, 15.4): administrators only (`authenticated_as_admin!` before
 * every endpoint: 401 anonymous, 403 others). Gates are Flipper's: boolean, actors, percentage of
 * actors, percentage of time; code reads them through shared/features `isFeatureEnabled`.
 * Differs from GitLab: no feature groups are registered (GitLab registers none outside GitLab.com), so
 * any `feature_group` is refused with 400 instead of Flipper's 500.
 */
export const featuresRoutes = router();

const Name = z.object({ name: p.string() });

const SetFeature = z.object({
  name: p.string(),
  value: p.string(),
  key: p.string().optional(),
  feature_group: p.string().optional(),
  user: p.string().optional(),
  group: p.string().optional(),
  namespace: p.string().optional(),
  project: p.string().optional(),
  repository: p.string().optional(),
  force: p.bool().optional(),
});
const TARGETS = ["feature_group", "user", "group", "namespace", "project", "repository"] as const;

async function presentFeature(db: Parameters<typeof gates.loadFeatures>[0], name: string) {
  const [row] = await gates.loadFeatures(db, [name]);
  return feature({ ...(row ?? { name, gates: [] }), definition: definitionOf(name) });
}

/** GET /features: every persisted feature with its gates. */
featuresRoutes.get("/features", { response: [Feature], paginated: false }, async (c) => {
  requireAdmin(c);
  const rows = await gates.loadFeatures(c.var.db());
  return c.json(rows.map((row) => feature({ ...row, definition: definitionOf(row.name) })));
});

/** GET /features/definitions: the definitions of the features this code reads. */
featuresRoutes.get("/features/definitions", { response: [FeatureDefinition], paginated: false }, (c) => {
  requireAdmin(c);
  return c.json(FEATURE_DEFINITIONS.map(featureDefinition));
});

/**
 * Comma-separated targets of each kind as Flipper ids, in Feature::Target#targets' order; the first
 * unknown one is `400 Bad request - <name> is not found!` (Feature::Target::UnknowTargetError).
 */
async function targetIds(db: Parameters<typeof q.findTargets>[0], params: z.output<typeof SetFeature>): Promise<string[]> {
  if (params.feature_group !== undefined) throw badRequest(`${params.feature_group} is not found!`);
  const split = (v?: string) => (v === undefined ? undefined : v.split(",").filter((s) => s !== ""));
  const names: q.TargetNames = { user: split(params.user), project: split(params.project), group: split(params.group), namespace: split(params.namespace), repository: split(params.repository) };
  const found = await q.findTargets(db, names);
  const ids: string[] = [];
  for (const kind of ["user", "project", "group", "namespace", "repository"] as const) {
    for (const name of names[kind] ?? []) {
      const key = kind === "repository" ? name.toLowerCase().replace(/\.git$/, "").replace(/\.wiki$/, "") : name.toLowerCase();
      const row = found.find((r) => r.kind === kind && r.name === key);
      if (!row) throw badRequest(`${name} is not found!`);
      // Differs from GitLab: a repository's Flipper id names its project path (GitLab: its disk path).
      ids.push(kind === "repository" ? `Repository:${name.replace(/\.git$/, "")}` : `${row.type}:${Number(row.id)}`);
    }
  }
  return ids;
}

/**
 * POST /features/:name: `value` `true`/`false` turns the feature (or the given actors) on or off; a
 * number sets the percentage of time, or of actors with `key=percentage_of_actors`.
 */
featuresRoutes.post("/features/:name", { params: SetFeature, response: Feature }, async (c) => {
  const params = await readParamsWithPath(c, SetFeature, TARGETS.map((t) => ({ mutuallyExclusive: ["key", t] })), []);
  requireAdmin(c);
  const db = c.var.db();
  const targets = TARGETS.some((t) => params[t] !== undefined) ? await targetIds(db, params) : null;
  // gate_value: 'true' and 'false'/'0' are booleans, anything else is `to_i` (Ruby's: leading digits, else 0).
  const value = params.value === "true" ? true : params.value === "0" || params.value === "false" ? false : Number.parseInt(params.value, 10) || 0;
  if (typeof value === "number" && (value < 0 || value > 100))
    throw badRequest(`value must be a positive number less than or equal to 100, but was ${value}`);
  await db.transaction(async (tx) => {
    await gates.persistFeature(tx, params.name);
    if (value === true) {
      if (targets) await gates.addActors(tx, params.name, targets);
      else {
        await gates.clearGates(tx, params.name);
        await gates.setGate(tx, params.name, "boolean", "true");
      }
    } else if (value === false) {
      if (targets) await gates.removeActors(tx, params.name, targets);
      else await gates.clearGates(tx, params.name);
    } else {
      await gates.setGate(tx, params.name, params.key === "percentage_of_actors" ? "percentage_of_actors" : "percentage_of_time", String(value));
    }
  });
  return c.json(await presentFeature(db, params.name), 201);
});

/** DELETE /features/:name: 204 whether or not the feature existed. */
featuresRoutes.delete("/features/:name", { params: Name }, async (c) => {
  const params = await readParamsWithPath(c, Name, [], []);
  requireAdmin(c);
  await gates.removeFeature(c.var.db(), params.name);
  return c.body(null, 204);
});
