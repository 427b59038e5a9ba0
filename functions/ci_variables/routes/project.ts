import { authorize } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { authorizedProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { variable, Variable } from "../../entities/ci_variables";
import * as q from "../queries";
import { saveVariable } from "../services";
import { changesOf, CreateVariable, FilterParams, oneVariable, scopeFilter, UpdateVariable } from "./params";

/**
 * Project CI/CD variables (lib/api/ci/variables.rb): `authenticate!` then `authorize! :admin_build`
 * (maintainers), so anonymous callers get 401 before the project is looked up.
 */
export const projectVariablesRoutes = router();

async function projectOwner(c: Ctx) {
  const project = await authorizedProject(c, "admin_build", { signedIn: true });
  return { kind: "project" as const, id: project.id };
}

async function findOne(c: Ctx, owner: q.Owner, filter: { filter?: Record<string, unknown> }) {
  const row = oneVariable(await q.findVariables(c.var.db(), owner, c.req.param("key")!, scopeFilter(filter)));
  if (!row) throw notFound("Variable");
  return row;
}

/** GET /projects/:id/variables */
projectVariablesRoutes.get("/projects/:id/variables", { params: pageParams, response: [Variable] }, async (c) => {
  const owner = await projectOwner(c);
  const page = pageOf(await readParams(c, pageParams));
  const list = await q.listVariables(c.var.db(), owner, page);
  paginate(c, page, list.total);
  return present(c, list.rows, variable);
});

/** GET /projects/:id/variables/:key (`filter[environment_scope]`; 409 when the key is ambiguous) */
projectVariablesRoutes.get("/projects/:id/variables/:key", { params: FilterParams, response: Variable, errors: [409] }, async (c) => {
  const owner = await projectOwner(c);
  const params = await readParams(c, FilterParams);
  return present(c, await findOne(c, owner, params), variable);
});

/** POST /projects/:id/variables */
projectVariablesRoutes.post("/projects/:id/variables", { params: CreateVariable, response: Variable }, async (c) => {
  const owner = await projectOwner(c);
  const params = await readParams(c, CreateVariable);
  return present(c, await saveVariable(c.var.db(), owner, null, changesOf(params)), variable, undefined, 201);
});

/** PUT /projects/:id/variables/:key: the key itself is not changed (GitLab drops `key` from the update). */
projectVariablesRoutes.put("/projects/:id/variables/:key", { params: UpdateVariable, response: Variable, errors: [409] }, async (c) => {
  const owner = await projectOwner(c);
  const params = await readParams(c, UpdateVariable);
  const row = await findOne(c, owner, params);
  return present(c, await saveVariable(c.var.db(), owner, row, changesOf(params)), variable);
});

/** DELETE /projects/:id/variables/:key: 204 */
projectVariablesRoutes.delete("/projects/:id/variables/:key", { params: FilterParams }, async (c) => {
  const owner = await projectOwner(c);
  const params = await readParams(c, FilterParams);
  const row = await findOne(c, owner, params);
  await q.deleteVariable(c.var.db(), owner, row.id);
  return c.body(null, 204);
});
