import { and, asc, eq, sql } from "drizzle-orm";
import { namespaces, notes, projects, users } from "../../../db/schema";
import type { Executor } from "../../kernel/db";
import { projectAccessLevel } from "../../kernel/visibility";

/** Authors and bodies of the issue's notes, oldest first; confidential ones only when the caller may read them. */
export async function participantNotes(db: Executor, issueId: number, withConfidential: boolean) {
  return db
    .select({ authorId: notes.authorId, body: notes.note, system: notes.system })
    .from(notes)
    .where(
      and(
        eq(notes.noteableType, "Issue"),
        eq(notes.noteableId, issueId),
        withConfidential ? undefined : eq(notes.confidential, false),
      ),
    )
    .orderBy(asc(notes.createdAt), asc(notes.id));
}

/**
 * The users among `ids` and `usernames` who may read the issue's project (`visible_participants`
 * filters by the `read_issue` ability); for a confidential issue, reporters and up or the issue's
 * author and assignees (`confidentialIds`). One statement.
 */
export async function participantUsers(
  db: Executor,
  projectId: number,
  ids: number[],
  usernames: string[],
  confidential: { confidentialIds: number[] } | null,
) {
  const level = projectAccessLevel(sql`${users.id}`);
  const readsProject = sql`(${users.admin} OR ${level} >= 10
    OR ${projects.visibilityLevel} = 20 OR (${projects.visibilityLevel} = 10 AND NOT ${users.external}))`;
  const readsIssue = confidential
    ? sql`(${users.admin} OR ${level} >= 20 OR ${users.id} = ANY(${sql.param(confidential.confidentialIds)}::int[]))`
    : readsProject;
  return db
    .select({ id: users.id, username: users.username, name: users.name, state: users.state, avatarUrl: users.avatarUrl, email: users.email })
    .from(users)
    .innerJoin(projects, eq(projects.id, projectId))
    .innerJoin(namespaces, eq(namespaces.id, projects.namespaceId))
    .where(
      and(
        sql`(${users.id} = ANY(${sql.param(ids)}::int[]) OR lower(${users.username}) = ANY(${sql.param(usernames)}::text[]))`,
        readsIssue,
      ),
    );
}
