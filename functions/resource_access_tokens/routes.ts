import * as z from "zod";
import { allowed, allowedOnGroup } from "../kernel/abilities";
import { requireUser } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { badRequest, notFound, unauthorized } from "../kernel/errors";
import { authorizedGroup, authorizedProject } from "../kernel/lookup";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { p, pathRowId, readParams } from "../kernel/params";
import { baseUrl, present } from "../kernel/present";
import { router } from "../kernel/router";
import { resourceAccessToken, ResourceAccessToken, resourceAccessTokenWithToken, ResourceAccessTokenWithToken } from "../entities/resource_access_tokens";
import * as q from "./queries";
import { createResourceToken, revokeResourceToken, rotateResourceToken } from "./services";

/**
 * Project and group access tokens (lib/api/resource_access_tokens.rb, GitLab 15.4): personal access
 * tokens of a bot user that is a member of the project or group. The token authenticates as the bot
 * (kernel/auth) over the API and git HTTP, with the bot's membership as its only access.
 */
export const resourceAccessTokensRoutes = router();

/** `Gitlab::Auth.resource_bot_scopes`: the API, repository and registry scopes (no `read_user`, `sudo`). */
const BOT_SCOPES = ["api", "read_api", "read_repository", "write_repository", "read_registry", "write_registry"];

const CreateToken = z.object({
  name: p.string(),
  scopes: p.strings({ comma: true }).refine((v) => v.every((s) => BOT_SCOPES.includes(s)), { message: "does not have a valid value" }),
  expires_at: p.date().optional(),
  access_level: p.int().refine((v) => [10, 20, 30, 40, 50].includes(v), { message: "does not have a valid value" }).optional(),
});

const RotateToken = z.object({ expires_at: p.date().optional() });

type Kind = "project" | "group";
type Source = q.Resource & { kind: Kind; actorLevel: number; can: (ability: "read_resource_access_tokens" | "create_resource_access_tokens" | "destroy_resource_access_tokens") => boolean };

/** `authenticate!` (401) then `find_project!` / `find_group!` (404). */
async function source(c: Ctx, kind: Kind): Promise<Source> {
  requireUser(c);
  const actor = c.var.actor;
  if (kind === "project") {
    const project = await authorizedProject(c, null);
    return { kind, sourceType: "Project", sourceId: project.id, actorLevel: project.accessLevel, can: (a) => allowed(actor, a, project) };
  }
  const group = await authorizedGroup(c, null);
  return { kind, sourceType: "Namespace", sourceId: group.id, actorLevel: group.accessLevel, can: (a) => allowedOnGroup(actor, a, group) };
}

/** `find_token`: a token of one of the resource's bots, else `404 <project|group> Access Token Not Found`. */
async function findToken(c: Ctx, s: Source) {
  const id = pathRowId(c.req.param("token_id") ?? "");
  const token = id === null ? null : await q.findToken(c.var.db(), s, id);
  if (!token) throw notFound(`${s.kind} Access Token`);
  return token;
}

for (const kind of ["project", "group"] as const) {
  const base = `/${kind}s/:id/access_tokens`;

  /** GET /:id/access_tokens: who may not read tokens is told 401 (`unauthorized!`), as GitLab does. */
  resourceAccessTokensRoutes.get(base, { params: pageParams, response: [ResourceAccessToken] }, async (c) => {
    const s = await source(c, kind);
    if (!s.can("read_resource_access_tokens")) throw unauthorized();
    const page = pageOf(await readParams(c, pageParams));
    const { rows, total } = await q.listTokens(c.var.db(), s, page);
    paginate(c, page, total);
    return present(c, rows, resourceAccessToken);
  });

  /** GET /:id/access_tokens/:token_id */
  resourceAccessTokensRoutes.get(`${base}/:token_id`, { response: ResourceAccessToken }, async (c) => {
    const s = await source(c, kind);
    if (!s.can("read_resource_access_tokens")) throw unauthorized();
    return present(c, await findToken(c, s), resourceAccessToken);
  });

  /**
   * POST /:id/access_tokens: 201 with the token value, shown only now. The service's refusals
   * (no permission, a level above the creator's) are `400 Bad request - <message>`.
   */
  resourceAccessTokensRoutes.post(base, { params: CreateToken, response: ResourceAccessTokenWithToken }, async (c) => {
    requireUser(c);
    const params = await readParams(c, CreateToken);
    const s = await source(c, kind);
    if (!s.can("create_resource_access_tokens")) throw badRequest(`User does not have permission to create ${kind} access token`);
    const created = await createResourceToken(
      c.var.db(),
      requireUser(c),
      s,
      { name: params.name, scopes: params.scopes, accessLevel: params.access_level ?? 40, expiresAt: params.expires_at ?? null },
      new URL(baseUrl(c)).hostname,
    );
    return present(c, created, resourceAccessTokenWithToken, undefined, 201);
  });

  /** DELETE /:id/access_tokens/:token_id: 204; the bot user goes with the token (RevokeService). */
  resourceAccessTokensRoutes.delete(`${base}/:token_id`, async (c) => {
    const s = await source(c, kind);
    const token = await findToken(c, s);
    if (!s.can("destroy_resource_access_tokens")) {
      const bot = await q.findUser(c.var.db(), token.userId);
      throw badRequest(`${requireUser(c).user.name} cannot delete ${bot?.name ?? ""}`);
    }
    await revokeResourceToken(c.var.db(), token);
    return c.body(null, 204);
  });

  /**
   * POST /:id/access_tokens/:token_id/rotate (GitLab 16.0; 15.4 has no rotation): 200 with the new
   * token, the old one revoked. Only administrators learn that a token does not exist; anybody else
   * who may not manage the resource's tokens, or names a missing one, is told 401.
   */
  resourceAccessTokensRoutes.post(`${base}/:token_id/rotate`, { params: RotateToken, response: ResourceAccessTokenWithToken, status: 200 }, async (c) => {
    const actor = requireUser(c);
    const params = await readParams(c, RotateToken);
    const s = await source(c, kind);
    const id = pathRowId(c.req.param("token_id") ?? "");
    const token = s.can("create_resource_access_tokens") && id !== null ? await q.findToken(c.var.db(), s, id) : null;
    if (!token) throw actor.isAdmin ? notFound() : unauthorized();
    if (token.revoked) throw badRequest("token already revoked");
    return present(c, await rotateResourceToken(c.var.db(), s, token, params.expires_at ?? null), resourceAccessTokenWithToken);
  });
}
