import type { PersonalAccessToken } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { personalAccessToken } from "./personal_access_tokens";

/** API::Entities::ImpersonationToken (lib/api/entities/impersonation_token.rb): a personal access token with `impersonation`. */
export function impersonationToken(token: PersonalAccessToken, ctx: PresentContext) {
  return { ...personalAccessToken(token, ctx), impersonation: token.impersonation };
}

/** API::Entities::ImpersonationTokenWithToken: the token value, shown once at creation. */
export function impersonationTokenWithToken(token: PersonalAccessToken & { token: string }, ctx: PresentContext) {
  return { ...impersonationToken(token, ctx), token: token.token };
}
