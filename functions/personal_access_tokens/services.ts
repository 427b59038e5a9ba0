import type { PersonalAccessToken } from "../../db/schema";
import { generateToken, sha256Hex } from "../kernel/auth";
import type { Actor } from "../kernel/env";
import type { Executor } from "../kernel/db";
import * as q from "./queries";

/** `PersonalAccessTokenPolicy` `revoke_token`: an administrator, or the owner of a token that is not an impersonation token. */
export const mayRevoke = (actor: Actor, token: { userId: number; impersonation: boolean }) =>
  actor.isAdmin || (token.userId === actor.user.id && !token.impersonation);

/** The model's validation errors of PersonalAccessTokens::CreateService, in its order. */
export function tokenErrors(params: { name: string; scopes: string[] }): string[] {
  return [...(params.name.trim() === "" ? ["Name can't be blank"] : []), ...(params.scopes.length === 0 ? ["Scopes can't be blank"] : [])];
}

/**
 * PersonalAccessTokens::CreateService for valid params (see `tokenErrors`): the token's value is
 * returned once; only its SHA-256 digest is stored.
 */
export async function createToken(
  db: Executor,
  userId: number,
  params: { name: string; scopes: string[]; expiresAt: string | null },
): Promise<{ token: PersonalAccessToken; value: string }> {
  const value = generateToken();
  const token = await q.insertToken(db, { userId, name: params.name, tokenDigest: await sha256Hex(value), scopes: params.scopes, expiresAt: params.expiresAt });
  return { token, value };
}
