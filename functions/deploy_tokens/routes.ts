import * as z from "zod";
import { authorize, authorizeGroup } from "../kernel/abilities";
import { generateToken, requireAdmin, requireUser, sha256Hex } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { apiError, recordNotFound } from "../kernel/errors";
import { authorizedGroup, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { DeployToken, deployToken, DeployTokenWithToken, deployTokenWithToken } from "../entities/deploy_tokens";
import { DEPLOY_TOKEN_SCOPES } from "../shared/deploy_tokens";
import * as q from "./queries";

/**
 * Deploy tokens (lib/api/deploy_tokens.rb, GitLab 15.4): the instance list for administrators, and each
 * project's and group's tokens for its maintainers. A token authenticates git clones and fetches over
 * smart HTTP (its username as the Basic login) and, through shared/deploy_tokens, the registries.
 */
export const deployTokensRoutes = router();

const ListTokens = pageParams.extend({ active: p.bool().optional() });
const CreateToken = z.object({
  name: p.string(),
  expires_at: p.datetime().optional(),
  username: p.string().optional(),
  scopes: p.strings().refine((v) => v.every((s) => (DEPLOY_TOKEN_SCOPES as readonly string[]).includes(s)), { message: "does not have a valid value" }),
});

type Scope = { projectId: number } | { groupId: number };

async function listTokens(c: Ctx, owner: q.Owner) {
  const params = await readParams(c, ListTokens);
  const page = pageOf(params);
  const { rows, total } = await q.listDeployTokens(c.var.db(), owner, params.active === true ? true : undefined, page);
  paginate(c, page, total);
  return present(c, rows, deployToken);
}

async function showToken(c: Ctx, owner: Scope) {
  const id = pathRowId(c.req.param("token_id"));
  const found = id === null ? null : await q.findDeployTokenOf(c.var.db(), owner, id);
  if (!found) throw recordNotFound(); // deploy_tokens.find
  return present(c, found, deployToken);
}

/** DeployTokens::CreateService: the plaintext is answered once and stored only as its digest. */
async function createToken(c: Ctx, owner: Scope) {
  const params = await readParams(c, CreateToken);
  const actor = requireUser(c);
  const errors: Record<string, string[]> = {};
  if (params.name.trim() === "") errors.name = ["can't be blank"];
  if (params.scopes.length === 0) errors.scopes = ["can't be blank"];
  if (params.username !== undefined && !/^[a-zA-Z0-9_.+-]+$/.test(params.username)) errors.username = ["contains invalid characters"];
  if (Object.keys(errors).length) throw apiError(errors, 400);
  const plaintext = generateToken("");
  const created = await q.insertDeployToken(c.var.db(), {
    projectId: "projectId" in owner ? owner.projectId : null,
    groupId: "groupId" in owner ? owner.groupId : null,
    name: params.name,
    username: params.username ?? null,
    digest: await sha256Hex(plaintext),
    scopes: DEPLOY_TOKEN_SCOPES.filter((s) => params.scopes.includes(s)), // GitLab's column order
    expiresAt: params.expires_at ?? null,
    creatorId: actor.user.id,
  });
  return present(c, { ...created, token: plaintext }, deployTokenWithToken, {}, 201);
}

async function destroyToken(c: Ctx, owner: Scope) {
  const id = pathRowId(c.req.param("token_id"));
  if (id === null || !(await q.deleteDeployToken(c.var.db(), owner, id))) throw recordNotFound();
  return c.body(null, 204);
}

/** GET /deploy_tokens (administrators) */
deployTokensRoutes.get("/deploy_tokens", { params: ListTokens, response: [DeployToken] }, async (c) => {
  requireAdmin(c);
  return listTokens(c, null);
});

/** GET /projects/:id/deploy_tokens */
deployTokensRoutes.get("/projects/:id/deploy_tokens", { params: ListTokens, response: [DeployToken] }, async (c) => {
  const project = await authorizedProject(c, "read_deploy_token");
  return listTokens(c, { projectId: project.id });
});

/** GET /projects/:id/deploy_tokens/:token_id */
deployTokensRoutes.get("/projects/:id/deploy_tokens/:token_id", { response: DeployToken }, async (c) => {
  const project = await authorizedProject(c, "read_deploy_token");
  return showToken(c, { projectId: project.id });
});

/** POST /projects/:id/deploy_tokens */
deployTokensRoutes.post("/projects/:id/deploy_tokens", { params: CreateToken, response: DeployTokenWithToken }, async (c) => {
  const project = await authorizedProject(c, "read_project");
  authorize(c, "create_deploy_token", project);
  return createToken(c, { projectId: project.id });
});

/** DELETE /projects/:id/deploy_tokens/:token_id */
deployTokensRoutes.delete("/projects/:id/deploy_tokens/:token_id", async (c) => {
  const project = await authorizedProject(c, "destroy_deploy_token");
  return destroyToken(c, { projectId: project.id });
});

/** GET /groups/:id/deploy_tokens */
deployTokensRoutes.get("/groups/:id/deploy_tokens", { params: ListTokens, response: [DeployToken] }, async (c) => {
  const group = await authorizedGroup(c, "read_deploy_token");
  return listTokens(c, { groupId: group.id });
});

/** GET /groups/:id/deploy_tokens/:token_id */
deployTokensRoutes.get("/groups/:id/deploy_tokens/:token_id", { response: DeployToken }, async (c) => {
  const group = await authorizedGroup(c, "read_deploy_token");
  return showToken(c, { groupId: group.id });
});

/** POST /groups/:id/deploy_tokens */
deployTokensRoutes.post("/groups/:id/deploy_tokens", { params: CreateToken, response: DeployTokenWithToken }, async (c) => {
  const group = await authorizedGroup(c, "read_group");
  authorizeGroup(c, "create_deploy_token", group);
  return createToken(c, { groupId: group.id });
});

/** DELETE /groups/:id/deploy_tokens/:token_id */
deployTokensRoutes.delete("/groups/:id/deploy_tokens/:token_id", async (c) => {
  const group = await authorizedGroup(c, "destroy_deploy_token");
  return destroyToken(c, { groupId: group.id });
});
