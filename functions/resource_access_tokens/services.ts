import { generateToken, sha256Hex } from "../kernel/auth";
import type { Database } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { badRequest } from "../kernel/errors";
import type { ResourceAccessTokenRow } from "../entities/resource_access_tokens";
import { rotateToken } from "../personal_access_tokens/public";
import { deleteUser, insertPersonalNamespace, insertUser } from "../users/public";
import * as q from "./queries";

const ROLE_NAMES: Record<number, string> = { 10: "guest", 20: "reporter", 30: "developer", 40: "maintainer", 50: "owner" };

export type CreateParams = { name: string; scopes: string[]; accessLevel: number; expiresAt: string | null };

const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

/**
 * ResourceAccessTokens::CreateService: a bot user (`user_type` project_bot, named after the token,
 * `<project|group>_<id>_bot_<hex>`, e-mail `@noreply.<host>`), its personal namespace, its membership
 * of the resource at `access_level` until `expires_at`, and its token, in one transaction. The token's
 * value is returned once; only its SHA-256 digest is stored.
 */
export async function createResourceToken(
  db: Database,
  actor: Actor,
  resource: q.Resource & { kind: "project" | "group"; actorLevel: number },
  params: CreateParams,
  host: string,
): Promise<ResourceAccessTokenRow & { token: string }> {
  // The service refuses a token above the creator's own level (an administrator may give any).
  if (!actor.isAdmin && params.accessLevel > resource.actorLevel)
    throw badRequest(`Could not provision ${ROLE_NAMES[params.accessLevel]} access to ${resource.kind} access token`);
  if (params.name.trim() === "") throw badRequest("Name can't be blank");
  const username = `${resource.kind}_${resource.sourceId}_bot_${hex(16)}`;
  const value = generateToken();
  const digest = await sha256Hex(value);
  return db.transaction(async (tx) => {
    const bot = await insertUser(tx, {
      username,
      name: params.name,
      email: `${username}@noreply.${host}`,
      userType: "project_bot",
      projectsLimit: 0,
      canCreateGroup: false,
      confirmedAt: new Date(),
    });
    await insertPersonalNamespace(tx, bot);
    await q.insertMember(tx, resource, { userId: bot.id, accessLevel: params.accessLevel, expiresAt: params.expiresAt, createdById: actor.user.id });
    const token = await q.insertToken(tx, { userId: bot.id, name: params.name, tokenDigest: digest, scopes: params.scopes, expiresAt: params.expiresAt });
    return { ...token, accessLevel: params.accessLevel, token: value };
  });
}

/**
 * ResourceAccessTokens::RevokeService: the token is revoked and its bot user deleted (GitLab deletes the
 * bot in DeleteUserWorker; here in the request, so the token and membership are gone at once).
 */
export async function revokeResourceToken(db: Database, token: ResourceAccessTokenRow): Promise<void> {
  await deleteUser(db, token.userId, []);
}

/**
 * ProjectAccessTokens::RotateService and GroupAccessTokens::RotateService (GitLab 16.0): the token is
 * rotated as a personal access token, then the bot's membership takes the new expiry.
 */
export async function rotateResourceToken(
  db: Database,
  resource: q.Resource,
  token: ResourceAccessTokenRow,
  expiresAt: string | null,
): Promise<ResourceAccessTokenRow & { token: string }> {
  const rotated = await rotateToken(db, token, expiresAt, (tx, created) => q.updateMemberExpiry(tx, resource, token.userId, created.expiresAt));
  return { ...rotated.token, accessLevel: token.accessLevel, token: rotated.value };
}
