import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { authorizedGroup } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { variable, Variable } from "../../entities/ci_variables";
import * as q from "../queries";
import { saveVariable } from "../services";
import { changesOf, CreateVariable, FilterParams, oneVariable, scopeFilter, UpdateVariable } from "./params";

/**
 * Group CI/CD variables (lib/api/group_variables.rb, 15.x): `authenticate!` then `authorize!
 * :admin_group` (owners; maintainers got `admin_cicd_variables` in later releases).
 */
export const groupVariablesRoutes = router();

async function groupOwner(c: Ctx) {
  const group = await authorizedGroup(c, "admin_group", { signedIn: true });
  return { kind: "group" as const, id: group.id };
}

async function findOne(c: Ctx, owner: q.Owner, scope: string | undefined) {
  const row = oneVariable(await q.findVariables(c.var.db(), owner, c.req.param("key")!, scope));
  if (!row) throw notFound("GroupVariable");
  return row;
}

/** GET /groups/:id/variables */
groupVariablesRoutes.get("/groups/:id/variables", { params: pageParams, response: [Variable] }, async (c) => {
  const owner = await groupOwner(c);
  const page = pageOf(await readParams(c, pageParams));
  const list = await q.listVariables(c.var.db(), owner, page);
  paginate(c, page, list.total);
  return present(c, list.rows, variable);
});

/** GET /groups/:id/variables/:key */
groupVariablesRoutes.get("/groups/:id/variables/:key", { params: FilterParams, response: Variable, errors: [409] }, async (c) => {
  const owner = await groupOwner(c);
  const params = await readParams(c, FilterParams);
  return present(c, await findOne(c, owner, scopeFilter(params)), variable);
});

/** POST /groups/:id/variables */
groupVariablesRoutes.post("/groups/:id/variables", { params: CreateVariable, response: Variable }, async (c) => {
  const owner = await groupOwner(c);
  const params = await readParams(c, CreateVariable);
  return present(c, await saveVariable(c.var.db(), owner, null, changesOf(params)), variable, undefined, 201);
});

/**
 * PUT /groups/:id/variables/:key: without `filter` GitLab updates the first variable with the key
 * (kept for compatibility there), with it the one of that scope.
 */
groupVariablesRoutes.put("/groups/:id/variables/:key", { params: UpdateVariable, response: Variable, errors: [409] }, async (c) => {
  const owner = await groupOwner(c);
  const params = await readParams(c, UpdateVariable);
  const scope = scopeFilter(params);
  const row = scope === undefined ? (await q.findVariables(c.var.db(), owner, c.req.param("key")!))[0] : await findOne(c, owner, scope);
  if (!row) throw notFound("GroupVariable");
  return present(c, await saveVariable(c.var.db(), owner, row, changesOf({ ...params, key: undefined })), variable);
});

/** DELETE /groups/:id/variables/:key: 204 */
groupVariablesRoutes.delete("/groups/:id/variables/:key", { params: FilterParams }, async (c) => {
  const owner = await groupOwner(c);
  const params = await readParams(c, FilterParams);
  const row = await findOne(c, owner, scopeFilter(params));
  await q.deleteVariable(c.var.db(), owner, row.id);
  return c.body(null, 204);
});
