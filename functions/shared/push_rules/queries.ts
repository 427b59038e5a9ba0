import { sql, type SQL } from "drizzle-orm";
import type { PushRule } from "../../../db/schema";
import type { Executor } from "../../kernel/db";

/**
 * What the push rule checks read: the rule that applies, the pusher's verified emails, the authors' known
 * emails, and which author emails were asked about (lower case): a write that learns of more authors
 * after the read (a rebase, a cherry-pick) asks about the others only when `member_check` needs them.
 */
export type PushRuleContext = { rule: PushRule | null; ownEmails: Set<string>; knownEmails: Set<string>; asked: Set<string> };

/**
 * Project#predefined_push_rule: the project's own rule, else that of its nearest group that has one,
 * with the pusher's verified emails and which of `authorEmails` belong to users, as ONE json
 * expression, so that a statement a write already makes (the git core's state read) can carry it.
 */
export function pushRuleContextSql(projectId: number, userId: number, authorEmails: string[]): SQL {
  const emails = sql.param(authorEmails.map((e) => e.toLowerCase()));
  return sql`json_build_object(
      'rule', (SELECT to_jsonb(r) FROM push_rules r
        LEFT JOIN namespaces n ON n.id = r.group_id
        WHERE r.project_id = ${projectId}
           OR r.group_id = ANY((SELECT n2.traversal_ids FROM projects p JOIN namespaces n2 ON n2.id = p.namespace_id WHERE p.id = ${projectId})::int[])
        ORDER BY r.project_id IS NULL, coalesce(array_length(n.traversal_ids, 1), 0) DESC
        LIMIT 1),
      'own', (SELECT array_agg(lower(e)) FROM (
        SELECT u.email AS e FROM users u WHERE u.id = ${userId} AND u.confirmed_at IS NOT NULL
        UNION SELECT m.email FROM emails m WHERE m.user_id = ${userId} AND m.confirmed_at IS NOT NULL) x),
      'known', (SELECT array_agg(DISTINCT lower(x.e)) FROM (
        SELECT u.email AS e FROM users u WHERE lower(u.email) = ANY(${emails}::text[])
        UNION SELECT m.email FROM emails m WHERE m.confirmed_at IS NOT NULL AND lower(m.email) = ANY(${emails}::text[])) x))`;
}

type ContextJson = { rule: Record<string, unknown> | null; own: string[] | null; known: string[] | null };

/** The json of `pushRuleContextSql` (an object, or its text as some drivers return it) for the `authorEmails` it was asked. */
export function parsePushRuleContext(value: ContextJson | string | null, authorEmails: string[]): PushRuleContext {
  const row = (typeof value === "string" ? JSON.parse(value) : value) as ContextJson | null;
  return {
    rule: row?.rule ? toRule(row.rule) : null,
    ownEmails: new Set(row?.own ?? []),
    knownEmails: new Set(row?.known ?? []),
    asked: new Set(authorEmails.map((e) => e.toLowerCase())),
  };
}

/** Which of `emails` belong to users (their primary email, or a confirmed secondary one), lower case: one statement. */
export async function knownEmails(db: Executor, emails: string[]): Promise<Set<string>> {
  const lowered = sql.param(emails.map((e) => e.toLowerCase()));
  const { rows } = await db.execute<{ e: string }>(sql`
    SELECT lower(u.email) AS e FROM users u WHERE lower(u.email) = ANY(${lowered}::text[])
    UNION SELECT lower(m.email) FROM emails m WHERE m.confirmed_at IS NOT NULL AND lower(m.email) = ANY(${lowered}::text[])`);
  return new Set(rows.map((r) => r.e));
}

/** The push rule context in a statement of its own (git push, branch creation). */
export async function pushRuleContext(db: Executor, projectId: number, userId: number, authorEmails: string[]): Promise<PushRuleContext> {
  const { rows } = await db.execute<{ context: ContextJson | string | null }>(sql`SELECT ${pushRuleContextSql(projectId, userId, authorEmails)} AS context`);
  return parsePushRuleContext(rows[0]?.context ?? null, authorEmails);
}

/** The `to_jsonb` row (snake_case) as the schema's row type. */
function toRule(r: Record<string, unknown>): PushRule {
  return {
    id: r.id as number,
    projectId: r.project_id as number | null,
    groupId: r.group_id as number | null,
    commitMessageRegex: r.commit_message_regex as string | null,
    commitMessageNegativeRegex: r.commit_message_negative_regex as string | null,
    branchNameRegex: r.branch_name_regex as string | null,
    authorEmailRegex: r.author_email_regex as string | null,
    fileNameRegex: r.file_name_regex as string | null,
    maxFileSize: r.max_file_size as number,
    denyDeleteTag: r.deny_delete_tag as boolean,
    memberCheck: r.member_check as boolean,
    preventSecrets: r.prevent_secrets as boolean,
    commitCommitterCheck: r.commit_committer_check as boolean,
    rejectUnsignedCommits: r.reject_unsigned_commits as boolean,
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
