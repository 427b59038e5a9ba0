import * as z from "zod";
import type { PersonalAccessToken } from "../../db/schema";
import { isoDate, isoTime, type PresentContext } from "../kernel/present";

/** `PersonalAccessToken#expired?`: a token expires at the start of its `expires_at` day. */
export function isExpired(token: Pick<PersonalAccessToken, "expiresAt">, now: Date): boolean {
  return token.expiresAt !== null && token.expiresAt <= now.toISOString().slice(0, 10);
}

/** API::Entities::PersonalAccessToken (lib/api/entities/personal_access_token.rb) */
export const PersonalAccessTokenEntity = z
  .object({
    id: z.int(),
    name: z.string(),
    revoked: z.boolean(),
    created_at: z.string().nullable(),
    scopes: z.array(z.string()),
    user_id: z.int(),
    last_used_at: z.string().nullable(),
    active: z.boolean(),
    expires_at: z.string().nullable(),
  })
  .meta({ id: "PersonalAccessToken" });
export function personalAccessToken(token: PersonalAccessToken, ctx: PresentContext): z.output<typeof PersonalAccessTokenEntity> {
  return {
    id: token.id,
    name: token.name,
    revoked: token.revoked,
    created_at: isoTime(token.createdAt),
    scopes: token.scopes,
    user_id: token.userId,
    last_used_at: isoTime(token.lastUsedAt),
    active: !token.revoked && !isExpired(token, ctx.now),
    expires_at: isoDate(token.expiresAt),
  };
}

/** API::Entities::PersonalAccessTokenWithToken: the token value, shown once at creation. */
export const PersonalAccessTokenWithToken = PersonalAccessTokenEntity.extend({ token: z.string() }).meta({ id: "PersonalAccessTokenWithToken" });
export function personalAccessTokenWithToken(token: PersonalAccessToken & { token: string }, ctx: PresentContext): z.output<typeof PersonalAccessTokenWithToken> {
  return { ...personalAccessToken(token, ctx), token: token.token };
}
