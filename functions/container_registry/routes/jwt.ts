import * as z from "zod";
import type { Ctx } from "../../kernel/env";
import { ApiError } from "../../kernel/errors";
import { decodeQuery, p, validateParams } from "../../kernel/params";
import { router } from "../../kernel/router";
import { registryErrors, registryToken } from "../../entities/container_registry";
import { grantScopes, registryActor } from "../access";
import { SERVICE, signToken } from "../jwt";

/**
 * The registry's token endpoint (app/controllers/jwt_controller.rb), outside /api/v4: Docker,
 * Podman and skopeo come here with HTTP Basic (or nothing) after `/v2/` answered 401 with its Bearer
 * challenge, and get a token for the scopes they asked for, cut to what the caller may do.
 */
export const jwtRoutes = router({ tokenInBody: true });

const JwtAuth = z.object({
  service: p.string().optional(),
  scope: p.string().optional(),
  account: p.string().optional(),
  client_id: p.string().optional(),
  offline_token: p.string().optional(),
});

const ACCESS_DENIED =
  "HTTP Basic: Access denied. The provided password or token is incorrect or your account has 2FA enabled and you must use a personal access token instead of a password.";

/** The `scope` parameters, every occurrence (Docker repeats the parameter for several repositories). */
function scopes(c: Ctx): string[] {
  return new URL(c.req.url).searchParams.getAll("scope");
}

/** GET /jwt/auth (JwtController#auth): `{"token": …}`; an unknown `service` is an empty 404. */
jwtRoutes.get("/jwt/auth", { params: JwtAuth, summary: "Container registry token (outside /api/v4)" }, async (c) => {
  const params = validateParams(decodeQuery(new URL(c.req.url).search.slice(1)), JwtAuth);
  if (params.service !== SERVICE) return c.body(null, 404);
  const who = await registryActor(c);
  if (who === "denied") throw new ApiError(401, registryErrors("UNAUTHORIZED", undefined, ACCESS_DENIED), { "WWW-Authenticate": 'Basic realm="GitLab"' });
  const access = await grantScopes(c, who, scopes(c));
  return c.json(registryToken(await signToken(c.var.db(), who?.deployToken?.username ?? who?.actor?.user.username ?? "", access)));
});
