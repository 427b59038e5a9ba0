import { and, eq, sql } from "drizzle-orm";
import { namespaces, projects, users } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { projectAccessLevel } from "../../kernel/visibility";

/** `@mentions` in issuable and note texts (User.reference_pattern) and who among them may read a project. */

const MENTION = /(?<![\w@.+-])@([a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])/g;
const LEADING_MENTIONS = /^\s*(?:@[a-zA-Z0-9_][a-zA-Z0-9_.-]*\s*,?\s*)+/;

/** Usernames `@mentioned` in a text (User.reference_pattern), lower-cased and unique, code blocks ignored. */
export function mentionedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const prose = text.replace(/```[\s\S]*?```/g, " ").replace(/`[^`]*`/g, " ");
  return [...new Set([...prose.matchAll(MENTION)].map((m) => m[1].toLowerCase()))];
}

/** Usernames addressed at the very start of a text (`@alice @bob please look`): `directly_addressed`. */
export function directlyAddressedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  const lead = LEADING_MENTIONS.exec(text);
  return lead ? mentionedUsernames(lead[0]) : [];
}

/**
 * Ids of active users among `usernames` who may read the project (mentions of users who cannot see
 * the target create nothing, as GitLab's `filter_mentioned_users`). One statement.
 */
export async function usersWhoCanReadProject(tx: Executor, projectId: number, usernames: string[], minAccessLevel = 0): Promise<number[]> {
  if (usernames.length === 0) return [];
  const rows = await tx
    .select({ id: users.id })
    .from(users)
    .innerJoin(projects, eq(projects.id, projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        sql`lower(${users.username}) = ANY(${sql.param(usernames)}::text[])`,
        eq(users.state, "active"),
        sql`(${users.admin}
          OR (${projectAccessLevel(sql`${users.id}`)} >= GREATEST(${minAccessLevel}, 10))
          OR (${minAccessLevel} = 0 AND (${projects.visibilityLevel} = 20 OR (${projects.visibilityLevel} = 10 AND NOT ${users.external}))))`,
      ),
    );
  return rows.map((r) => r.id);
}
