import * as z from "zod";
import { requireAdmin, requireUser, TOKEN_SCOPES } from "../kernel/auth";
import type { Actor, Ctx } from "../kernel/env";
import { apiError, badRequest, notFound, recordNotFound, unauthorized } from "../kernel/errors";
import { pageOf, paginate } from "../kernel/pagination";
import { p, pathRowId, rawParams, readParams } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { personalAccessToken, PersonalAccessTokenEntity, personalAccessTokenWithToken, PersonalAccessTokenWithToken } from "../entities/personal_access_tokens";
import { ListTokens } from "./params";
import * as q from "./queries";
import { createToken, mayRevoke, rotateToken, tokenErrors } from "./services";

const idOf = (raw: string) => pathRowId(raw);


/**
 * The token's own endpoints (lib/api/personal_access_tokens/self_information.rb, 15.5, and
 * self_revocation.rb, 15.0): any token, whatever its scopes, may read and revoke itself.
 */
const selfRoutes = router({ anyScope: true });

/** GET /personal_access_tokens/self (lib/api/personal_access_tokens/self_information.rb) */
selfRoutes.get("/personal_access_tokens/self", { response: PersonalAccessTokenEntity }, async (c) => {
  const actor = requireUser(c);
  const token = await q.findToken(c.var.db(), actor.tokenId);
  if (!token) throw unauthorized();
  return present(c, token, personalAccessToken);
});

/** DELETE /personal_access_tokens/self (lib/api/personal_access_tokens/self_revocation.rb): 204. */
selfRoutes.delete("/personal_access_tokens/self", async (c) => {
  const actor = requireUser(c);
  const token = await q.findToken(c.var.db(), actor.tokenId);
  if (!token) throw unauthorized();
  if (!mayRevoke(actor, token)) throw badRequest();
  await q.revokeToken(c.var.db(), token.id);
  return c.body(null, 204);
});

export const personalAccessTokensRoutes = router();
personalAccessTokensRoutes.route("/", selfRoutes);

/**
 * `restrict_non_admins!` (lib/api/helpers/personal_access_tokens_helpers.rb), run before anything
 * else: a non-admin naming a `user_id` other than their own is unauthorized.
 */
async function restrictNonAdmins(c: Ctx): Promise<Actor> {
  const actor = requireUser(c);
  if (actor.isAdmin) return actor;
  const userId = (await rawParams(c)).user_id;
  if (userId === undefined || userId === null || userId === "") return actor;
  if (String(userId).trim() !== String(actor.user.id)) throw unauthorized();
  return actor;
}

/**
 * GET /personal_access_tokens (lib/api/personal_access_tokens.rb): the caller's tokens; administrators
 * see every user's, or one user's with `user_id`. The filters after `user_id` are 15.5's.
 */
personalAccessTokensRoutes.get("/personal_access_tokens", { params: ListTokens, response: [PersonalAccessTokenEntity] }, async (c) => {
  const actor = await restrictNonAdmins(c);
  const params = await readParams(c, ListTokens);
  const owner: q.TokenOwner = !actor.isAdmin
    ? { userId: actor.user.id }
    : params.user_id !== undefined
      ? { userIdIfExists: params.user_id }
      : { all: true };
  const page = pageOf(params);
  const { rows, total } = await q.listTokens(c.var.db(), owner, params, page);
  paginate(c, page, total);
  return present(c, rows, personalAccessToken);
});

/**
 * GET /personal_access_tokens/:id (lib/api/personal_access_tokens.rb, 15.1): only administrators learn
 * that a token does not exist; anybody else gets 401 for a token that is missing or not theirs.
 */
personalAccessTokensRoutes.get("/personal_access_tokens/:id", { response: PersonalAccessTokenEntity }, async (c) => {
  const actor = await restrictNonAdmins(c);
  const id = idOf(c.req.param("id"));
  const token = id === null ? null : await q.findToken(c.var.db(), id);
  if (!token || !(actor.isAdmin || (token.userId === actor.user.id && !token.impersonation))) {
    if (actor.isAdmin) throw notFound();
    throw unauthorized();
  }
  return present(c, token, personalAccessToken);
});

/**
 * DELETE /personal_access_tokens/:id (lib/api/personal_access_tokens.rb): revokes, 204; a missing
 * token is `404 Not found` (`find`), another user's token `400 Bad request` (RevokeService refuses).
 */
personalAccessTokensRoutes.delete("/personal_access_tokens/:id", async (c) => {
  const actor = await restrictNonAdmins(c);
  const id = idOf(c.req.param("id"));
  const token = id === null ? null : await q.findToken(c.var.db(), id);
  if (!token) throw recordNotFound();
  if (!mayRevoke(actor, token)) throw badRequest();
  await q.revokeToken(c.var.db(), token.id);
  return c.body(null, 204);
});

const RotateToken = z.object({ expires_at: p.date().optional() });

/**
 * POST /personal_access_tokens/:id/rotate (lib/api/personal_access_tokens.rb, GitLab 16.0; 15.4 has
 * no rotation): 200 with the new token, the old one revoked. Only administrators learn that a token
 * does not exist; a token the caller may not manage is 401. A revoked token is `400 Bad request - token already revoked`.
 */
personalAccessTokensRoutes.post("/personal_access_tokens/:id/rotate", { params: RotateToken, response: PersonalAccessTokenWithToken, status: 200 }, async (c) => {
  const actor = requireUser(c);
  const params = await readParams(c, RotateToken);
  const id = idOf(c.req.param("id"));
  const token = id === null ? null : await q.findToken(c.var.db(), id);
  if (!token || !mayRevoke(actor, token)) throw actor.isAdmin ? notFound() : unauthorized();
  if (token.revoked) throw badRequest("token already revoked");
  const rotated = await rotateToken(c.var.db(), token, params.expires_at ?? null);
  return present(c, { ...rotated.token, token: rotated.value }, personalAccessTokenWithToken);
});

const CreateToken = z.object({
  name: p.string(),
  scopes: p
    .strings({ comma: true })
    .refine((scopes) => scopes.every((scope) => (TOKEN_SCOPES as readonly string[]).includes(scope)), {
      message: "does not have a valid value",
    }),
  expires_at: p.date().optional(),
});

/**
 * POST /users/:user_id/personal_access_tokens (lib/api/users.rb, 13.6): administrators create a token
 * for a user; 201 with the token value, the only time it is shown. Only its SHA-256 digest is stored.
 */
personalAccessTokensRoutes.post("/users/:user_id{[0-9]+}/personal_access_tokens", { params: CreateToken, response: PersonalAccessTokenWithToken, errors: [422] }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, CreateToken);
  const id = idOf(c.req.param("user_id"));
  const user = id === null ? null : await q.findUser(c.var.db(), id);
  if (!user) throw notFound("User");
  // PersonalAccessTokens::CreateService renders the model's errors as one sentence, 422.
  const errors = tokenErrors(params);
  if (errors.length > 0) throw apiError(errors.join(" and "), 422);
  const { token, value } = await createToken(c.var.db(), user.id, { name: params.name, scopes: params.scopes, expiresAt: params.expires_at ?? null });
  return present(c, { ...token, token: value }, personalAccessTokenWithToken, undefined, 201);
});
