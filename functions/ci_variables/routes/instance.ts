import { requireAdmin } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { notFound } from "../../kernel/errors";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { instanceVariable, InstanceVariable } from "../../entities/ci_variables";
import * as q from "../queries";
import { saveVariable } from "../services";
import { changesOf, CreateInstanceVariable, UpdateInstanceVariable } from "./params";

/** Instance CI/CD variables (lib/api/admin/ci/variables.rb): `authenticated_as_admin!`. */
export const instanceVariablesRoutes = router();

const INSTANCE = { kind: "instance" as const };

async function findOne(c: Ctx) {
  const [row] = await q.findVariables(c.var.db(), INSTANCE, c.req.param("key")!);
  if (!row) throw notFound("InstanceVariable");
  return row;
}

/** GET /admin/ci/variables */
instanceVariablesRoutes.get("/admin/ci/variables", { params: pageParams, response: [InstanceVariable] }, async (c) => {
  requireAdmin(c);
  const page = pageOf(await readParams(c, pageParams));
  const list = await q.listVariables(c.var.db(), INSTANCE, page);
  paginate(c, page, list.total);
  return present(c, list.rows, instanceVariable);
});

/** GET /admin/ci/variables/:key */
instanceVariablesRoutes.get("/admin/ci/variables/:key", { response: InstanceVariable }, async (c) => {
  requireAdmin(c);
  return present(c, await findOne(c), instanceVariable);
});

/** POST /admin/ci/variables */
instanceVariablesRoutes.post("/admin/ci/variables", { params: CreateInstanceVariable, response: InstanceVariable }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, CreateInstanceVariable);
  return present(c, await saveVariable(c.var.db(), INSTANCE, null, changesOf(params)), instanceVariable, undefined, 201);
});

/** PUT /admin/ci/variables/:key */
instanceVariablesRoutes.put("/admin/ci/variables/:key", { params: UpdateInstanceVariable, response: InstanceVariable }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, UpdateInstanceVariable);
  const row = await findOne(c);
  return present(c, await saveVariable(c.var.db(), INSTANCE, row, changesOf(params)), instanceVariable);
});

/** DELETE /admin/ci/variables/:key: 204 */
instanceVariablesRoutes.delete("/admin/ci/variables/:key", async (c) => {
  requireAdmin(c);
  const row = await findOne(c);
  await q.deleteVariable(c.var.db(), INSTANCE, row.id);
  return c.body(null, 204);
});
