import * as z from "zod";
import type { ProjectWithAccess } from "../kernel/abilities";
import { authorize } from "../kernel/abilities";
import type { Ctx } from "../kernel/env";
import { apiError, recordNotFound } from "../kernel/errors";
import { findProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { featureFlag, FeatureFlagEntity, type FeatureFlagRow } from "../entities/feature_flags";
import * as q from "./queries";
import {
  failIf,
  flagMessages,
  planLegacyScopes,
  planNewStrategies,
  planStrategyChanges,
  userListIds,
  type LegacyScopeInput,
  type StrategyInput,
} from "./services";

/**
 * Feature flags (lib/api/feature_flags.rb). Developer or higher for every endpoint
 * (`authorize_read_feature_flags!` before anything else: Grape runs the `before` block ahead of
 * parameter validation, so a caller who may not read the flags gets 404 or 403 whatever the
 * parameters). Flags are found by name. Unlike the user lists' API, this one declares no
 * `error_formatter`: its parameter errors keep GitLab's `{"error": "…"}`.
 */
export const featureFlagsRoutes = router();

/** An optional parameter inside an array of hashes: JSON `null` reads as not sent. */
const opt = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());

/** Grape's `type: JSON`: an object (or array), or a string holding one. */
const jsonParam = () =>
  z.any().transform((value, ctx) => {
    let v = value;
    if (typeof v === "string") {
      try {
        v = JSON.parse(v);
      } catch {
        v = undefined;
      }
    }
    if (v === undefined || v === null || typeof v !== "object") {
      ctx.addIssue({ code: "custom", message: value === undefined || value === null ? "is missing" : "is invalid" });
      return z.NEVER;
    }
    return v as Record<string, unknown>;
  });

const ListFlags = pageParams.extend({ scope: p.oneOf("enabled", "disabled").optional() });

const CreateFlag = z.object({
  name: p.string(),
  description: p.string().optional(),
  active: p.bool().optional(),
  version: p.string().optional(),
  scopes: p.hashes({ environment_scope: p.string(), active: p.bool(), strategies: jsonParam() }).optional(),
  strategies: p
    .hashes({
      name: p.string(),
      parameters: jsonParam(),
      user_list_id: opt(p.int()),
      scopes: opt(p.hashes({ environment_scope: p.string() })),
    })
    .optional(),
});

const UpdateFlag = z.object({
  name: p.string().optional(),
  description: p.string().optional(),
  active: p.bool().optional(),
  strategies: p
    .hashes({
      id: opt(p.int()),
      name: opt(p.string()),
      parameters: opt(jsonParam()),
      user_list_id: opt(p.int()),
      _destroy: opt(p.bool()),
      scopes: opt(p.hashes({ id: opt(p.int()), environment_scope: opt(p.string()), _destroy: opt(p.bool()) })),
    })
    .optional(),
});

const VERSIONS = ["new_version_flag", "legacy_flag"];

async function findFlag(c: Ctx, project: ProjectWithAccess): Promise<FeatureFlagRow> {
  const flag = await q.findFlag(c.var.db(), project.id, c.req.param("feature_flag_name")!);
  if (!flag) throw recordNotFound();
  return flag;
}

/** Strategies may only name user lists of this project. */
async function checkUserLists(c: Ctx, project: ProjectWithAccess, ids: number[], onMissing: () => Error): Promise<void> {
  const found = await q.userListIdsOf(c.var.db(), project.id, ids);
  if (found.length < ids.length) throw onMissing();
  if (found.some((l) => l.projectId !== project.id)) failIf(["Strategies user list must belong to the same project"]);
}

/** GET /projects/:id/feature_flags (lib/api/feature_flags.rb) */
featureFlagsRoutes.get("/projects/:id/feature_flags", { params: ListFlags, response: [FeatureFlagEntity] }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_feature_flag", project);
  const params = await readParams(c, ListFlags);
  const page = pageOf(params);
  const list = await q.listFlags(c.var.db(), project.id, params.scope, page);
  paginate(c, page, list.total);
  return present(c, list.rows, featureFlag);
});

/**
 * POST /projects/:id/feature_flags (lib/api/feature_flags.rb): `version` omitted or `legacy_flag`
 * makes a legacy flag with environment `scopes`; `new_version_flag` one with strategies.
 */
featureFlagsRoutes.post("/projects/:id/feature_flags", { params: CreateFlag, response: FeatureFlagEntity }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_feature_flag", project);
  const params = await readParams(c, CreateFlag);
  authorize(c, "create_feature_flag", project);
  if (params.version !== undefined && !VERSIONS.includes(params.version)) throw apiError("Version is invalid", 400);
  const version = params.version ?? "legacy_flag";
  const active = params.active ?? true;
  const values = { name: params.name, description: params.description ?? null };
  const errors = flagMessages(values);
  const strategies = planNewStrategies((params.strategies ?? []) as StrategyInput[]);
  const legacy = version === "legacy_flag" ? planLegacyScopes(params.scopes as LegacyScopeInput[] | undefined, active) : { scopes: [], errors: [] };
  if (version === "legacy_flag" && strategies.strategies.length) errors.push("Version associations version 1 feature flags may not have strategies");
  if (version === "new_version_flag" && params.scopes?.length) errors.push("Version associations version 2 feature flags may not have scopes");
  errors.push(...strategies.errors, ...legacy.errors);
  const ids = userListIds(params.strategies as StrategyInput[]);
  if (ids.length) await checkUserLists(c, project, ids, recordNotFound);
  failIf(errors);
  const db = c.var.db();
  const inserted = await q.insertFlag(db, project.id, { ...values, active, version, strategies: strategies.strategies, legacyScopes: legacy.scopes });
  if (!inserted) failIf(["Name has already been taken"]);
  return present(c, (await q.findFlag(db, project.id, params.name))!, featureFlag, {}, 201);
});

/** GET /projects/:id/feature_flags/:feature_flag_name (lib/api/feature_flags.rb); legacy flags are readable. */
featureFlagsRoutes.get("/projects/:id/feature_flags/:feature_flag_name", { response: FeatureFlagEntity }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_feature_flag", project);
  return present(c, await findFlag(c, project), featureFlag);
});

/**
 * PUT /projects/:id/feature_flags/:feature_flag_name (lib/api/feature_flags.rb): strategies with `id`
 * change (or with `_destroy` go), those without are added; the response lists the added ones first.
 */
featureFlagsRoutes.put("/projects/:id/feature_flags/:feature_flag_name", { params: UpdateFlag, response: FeatureFlagEntity, errors: [422] }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_feature_flag", project);
  const params = await readParams(c, UpdateFlag);
  const flag = await findFlag(c, project);
  authorize(c, "update_feature_flag", project);
  if (flag.version !== "new_version_flag") throw apiError("PUT operations are not supported for legacy feature flags", 422);
  const ids = userListIds(params.strategies as StrategyInput[]);
  if (ids.length) await checkUserLists(c, project, ids, () => apiError("Not Found", 404));
  const { changes, errors } = planStrategyChanges(flag, (params.strategies ?? []) as StrategyInput[]);
  const name = params.name ?? flag.name;
  const description = params.description !== undefined ? params.description : flag.description;
  failIf([...flagMessages({ name, description }), ...errors]);
  const db = c.var.db();
  let added: number[];
  try {
    added = await q.updateFlag(db, flag.id, { ...changes, name: params.name, description: params.description, active: params.active });
  } catch (e) {
    if (isUniqueViolation(e)) failIf(["Name has already been taken"]);
    throw e;
  }
  // Deleted (or renamed) by a concurrent request between the lookup and here: gone, as GitLab's find.
  const updated = await q.findFlag(db, project.id, name);
  if (!updated) throw recordNotFound();
  const first = updated.strategies.filter((s) => added!.includes(s.id));
  const rest = updated.strategies.filter((s) => !added!.includes(s.id));
  return present(c, { ...updated, strategies: [...first, ...rest] }, featureFlag);
});

/** DELETE /projects/:id/feature_flags/:feature_flag_name (lib/api/feature_flags.rb): the deleted flag. */
featureFlagsRoutes.delete("/projects/:id/feature_flags/:feature_flag_name", { response: FeatureFlagEntity, status: 200 }, async (c) => {
  const project = await findProject(c, c.req.param("id")!);
  authorize(c, "read_feature_flag", project);
  const flag = await findFlag(c, project);
  authorize(c, "destroy_feature_flag", project);
  await q.deleteFlag(c.var.db(), flag.id);
  return present(c, flag, featureFlag);
});

function isUniqueViolation(e: unknown): boolean {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined; err; err = err.cause as typeof err) {
    if (err.code === "23505") return true;
  }
  return false;
}
