import type { PersonalAccessToken } from "../../db/schema";
import { generateToken, sha256Hex } from "../kernel/auth";
import type { Actor } from "../kernel/env";
import type { Database, Executor } from "../kernel/db";
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

/** `Date.today + 1.week`: a rotated token's expiry when none is given (PersonalAccessTokens::RotateService). */
export const weekFromToday = () => new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);

/**
 * PersonalAccessTokens::RotateService (GitLab 16.0): the token is revoked and a new one with its name
 * and scopes is made for its user, in one transaction; the new value is returned once.
 */
export async function rotateToken(
  db: Database,
  token: PersonalAccessToken,
  expiresAt: string | null,
  /** More writes of the same rotation (a bot's membership expiry), inside its transaction. */
  also?: (tx: Executor, created: PersonalAccessToken) => Promise<void>,
): Promise<{ token: PersonalAccessToken; value: string }> {
  const value = generateToken();
  const tokenDigest = await sha256Hex(value);
  return db.transaction(async (tx) => {
    await q.revokeToken(tx, token.id);
    const created = await q.insertToken(tx, { userId: token.userId, name: token.name, tokenDigest, scopes: token.scopes, expiresAt: expiresAt ?? weekFromToday() });
    if (also) await also(tx, created);
    return { token: created, value };
  });
}
