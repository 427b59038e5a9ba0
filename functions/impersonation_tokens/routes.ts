import * as z from "zod";
import type { User } from "./queries";
import { generateToken, requireAdmin, sha256Hex, TOKEN_SCOPES } from "../kernel/auth";
import type { Ctx } from "../kernel/env";
import { notFound, validation } from "../kernel/errors";
import { pageOf, pageParams, paginate } from "../kernel/pagination";
import { INT32, isRowId, p, readParams, readParamsWithPath } from "../kernel/params";
import { present } from "../kernel/present";
import { router } from "../kernel/router";
import { impersonationToken, ImpersonationToken, impersonationTokenWithToken, ImpersonationTokenWithToken } from "../entities/impersonation_tokens";
import * as q from "./queries";

/**
 * Impersonation tokens (lib/api/users.rb, `segment ':user_id' / resource :impersonation_tokens`):
 * personal access tokens an administrator makes for a user, with `impersonation: true`. They
 * authenticate as that user like any personal access token (kernel/auth). Administrators only:
 * `before { authenticated_as_admin! }` runs before the parameters are validated.
 */
export const impersonationTokensRoutes = router({ readUserScope: true });


const ListTokens = z.object({ ...pageParams.shape, state: p.oneOf("all", "active", "inactive").optional() });
const CreateToken = z.object({
  name: p.string(),
  expires_at: p.date().optional(),
  scopes: p.strings({ comma: true }).optional(),
});
const TokenId = z.object({ impersonation_token_id: p.int() });

/** `find_user_by_id(params)`: `404 User Not Found`. */
async function findTarget(c: Ctx): Promise<User> {
  const id = Number(c.req.param("user_id"));
  const user = id <= INT32.max ? await q.findUser(c.var.db(), id) : null;
  if (!user) throw notFound("User");
  return user;
}

/** `find_impersonation_token`: the user's impersonation token, else `404 Impersonation Token Not Found`. */
async function findToken(c: Ctx, user: User, id: number) {
  const token = isRowId(id) ? await q.findToken(c.var.db(), user.id, id) : null;
  if (!token) throw notFound("Impersonation Token");
  return token;
}

/** GET /users/:user_id/impersonation_tokens (`state`: all, active, inactive). */
impersonationTokensRoutes.get("/users/:user_id{[0-9]+}/impersonation_tokens", { params: ListTokens, response: [ImpersonationToken] }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, ListTokens);
  const user = await findTarget(c);
  const page = pageOf(params);
  const { rows, total } = await q.listTokens(c.var.db(), user.id, params.state ?? "all", page);
  paginate(c, page, total);
  return present(c, rows, impersonationToken);
});

/**
 * POST /users/:user_id/impersonation_tokens: 201 with the token value, shown only now. The model's
 * validations (name and scopes present, scopes among the available ones) answer 400 with its errors.
 */
impersonationTokensRoutes.post("/users/:user_id{[0-9]+}/impersonation_tokens", { params: CreateToken, response: ImpersonationTokenWithToken }, async (c) => {
  requireAdmin(c);
  const params = await readParams(c, CreateToken);
  const user = await findTarget(c);
  const scopes = params.scopes ?? [];
  const errors: Record<string, string[]> = {};
  if (params.name.trim() === "") errors.name = ["can't be blank"];
  if (scopes.length === 0) errors.scopes = ["can't be blank"];
  else if (!scopes.every((scope) => (TOKEN_SCOPES as readonly string[]).includes(scope))) errors.scopes = ["can only contain available scopes"];
  if (Object.keys(errors).length > 0) throw validation(errors);
  const value = generateToken();
  const token = await q.insertToken(c.var.db(), {
    userId: user.id,
    name: params.name,
    tokenDigest: await sha256Hex(value),
    scopes,
    expiresAt: params.expires_at ?? null,
  });
  return present(c, { ...token, token: value }, impersonationTokenWithToken, undefined, 201);
});

/** GET /users/:user_id/impersonation_tokens/:impersonation_token_id */
impersonationTokensRoutes.get("/users/:user_id{[0-9]+}/impersonation_tokens/:impersonation_token_id", { params: TokenId, response: ImpersonationToken }, async (c) => {
  requireAdmin(c);
  const params = await readParamsWithPath(c, TokenId, [], ["user_id"]);
  const user = await findTarget(c);
  return present(c, await findToken(c, user, params.impersonation_token_id), impersonationToken);
});

/** DELETE /users/:user_id/impersonation_tokens/:impersonation_token_id: revokes, 204. */
impersonationTokensRoutes.delete("/users/:user_id{[0-9]+}/impersonation_tokens/:impersonation_token_id", { params: TokenId }, async (c) => {
  requireAdmin(c);
  const params = await readParamsWithPath(c, TokenId, [], ["user_id"]);
  const user = await findTarget(c);
  const token = await findToken(c, user, params.impersonation_token_id);
  await q.revokeToken(c.var.db(), token.id);
  return c.body(null, 204);
});
