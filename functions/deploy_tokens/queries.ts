// Deploy tokens' SQL: a project's, a group's or every token, and the writes.
import { and, asc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { deployTokens, type DeployToken } from "../../db/schema";
import type { Executor } from "../kernel/db";
import { COUNT_LIMIT, type Page } from "../kernel/pagination";

export type Owner = { projectId: number } | { groupId: number } | null;

const ownerCondition = (owner: Owner): SQL =>
  owner === null ? sql`true` : "projectId" in owner ? eq(deployTokens.projectId, owner.projectId) : eq(deployTokens.groupId, owner.groupId);

/** `active`: not revoked and not expired (`DeployToken.active`). */
const activeCondition = () => and(eq(deployTokens.revoked, false), or(isNull(deployTokens.expiresAt), sql`${deployTokens.expiresAt} > now()`));

export async function listDeployTokens(db: Executor, owner: Owner, active: boolean | undefined, page: Page): Promise<{ rows: DeployToken[]; total: number }> {
  const where = and(ownerCondition(owner), active ? activeCondition() : undefined);
  const rows = await db.select().from(deployTokens).where(where).orderBy(asc(deployTokens.id)).limit(page.limit).offset(page.offset);
  const cap = Math.max(COUNT_LIMIT + 1, page.offset + page.limit + 1);
  const counted = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${deployTokens} WHERE ${where} LIMIT ${cap}) c`);
  return { rows, total: Number(counted.rows[0].n) };
}

export async function findDeployTokenOf(db: Executor, owner: Owner, id: number): Promise<DeployToken | null> {
  const [row] = await db.select().from(deployTokens).where(and(ownerCondition(owner), eq(deployTokens.id, id))).limit(1);
  return row ?? null;
}

/**
 * Inserts the token; without a username, GitLab's default `gitlab+deploy-token-<id>` is set in the same
 * statement (the id is known only then).
 */
export async function insertDeployToken(
  db: Executor,
  input: { projectId: number | null; groupId: number | null; name: string; username: string | null; digest: string; scopes: string[]; expiresAt: Date | null; creatorId: number },
): Promise<DeployToken> {
  const result = await db.execute<{ id: number }>(sql`
    INSERT INTO deploy_tokens (project_id, group_id, name, username, token_digest, scopes, expires_at, creator_id)
    VALUES (${input.projectId}, ${input.groupId}, ${input.name},
            coalesce(${input.username}, 'gitlab+deploy-token-' || currval(pg_get_serial_sequence('deploy_tokens', 'id'))),
            ${input.digest}, ${sql.param(input.scopes)}::text[], ${input.expiresAt?.toISOString() ?? null}, ${input.creatorId})
    RETURNING id`);
  return (await findDeployTokenOf(db, null, Number(result.rows[0].id)))!;
}

/** `DeployTokens::DestroyService`: the token is deleted. */
export async function deleteDeployToken(db: Executor, owner: Owner, id: number): Promise<boolean> {
  const rows = await db.delete(deployTokens).where(and(ownerCondition(owner), eq(deployTokens.id, id))).returning({ id: deployTokens.id });
  return rows.length > 0;
}
