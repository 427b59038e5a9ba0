import * as z from "zod";
import type { PersonalAccessToken } from "../../db/schema";
import type { PresentContext } from "../kernel/present";
import { PersonalAccessTokenEntity, personalAccessToken } from "./personal_access_tokens";

/** API::Entities::ImpersonationToken (lib/api/entities/impersonation_token.rb): a personal access token with `impersonation`. */
export const ImpersonationToken = PersonalAccessTokenEntity.extend({ impersonation: z.boolean() }).meta({ id: "ImpersonationToken" });
export function impersonationToken(token: PersonalAccessToken, ctx: PresentContext): z.output<typeof ImpersonationToken> {
  return { ...personalAccessToken(token, ctx), impersonation: token.impersonation };
}

/** API::Entities::ImpersonationTokenWithToken: the token value, shown once at creation. */
export const ImpersonationTokenWithToken = ImpersonationToken.extend({ token: z.string() }).meta({ id: "ImpersonationTokenWithToken" });
export function impersonationTokenWithToken(token: PersonalAccessToken & { token: string }, ctx: PresentContext): z.output<typeof ImpersonationTokenWithToken> {
  return { ...impersonationToken(token, ctx), token: token.token };
}
