import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { issueAssignees, issueCounts, issues, projects, snippets, type Epic, type Issue, type MergeRequest, type Snippet } from "../../../db/schema";
import { allowed, allowedOnGroup, type GroupWithAccess, type ProjectWithAccess } from "../../kernel/abilities";
import { Access, Visibility } from "../../kernel/access";
import type { Actor } from "../../kernel/env";
import { authorizedProjectIds, projectIsVisible, projectIsVisibleForShape, userIdPlaceholder, type ActorShape } from "../../kernel/visibility";

/**
 * Read and update rules of issuables (app/policies/issue_policy.rb, issuable_policy.rb,
 * project_snippet_policy.rb, ee epic_policy.rb): the TypeScript predicate for one row and, where lists
 * need it, the SQL condition for many.
 */

/** An issue as lookups load it: with its assignees' ids (for the confidentiality rule). */
export type IssueWithAssignees = Issue & { assigneeIds: number[] };

/**
 * IssuePolicy (app/policies/issue_policy.rb): whoever may read the project's issues reads a
 * non-confidential issue; a confidential one only reporters and up, its author, its assignees and admins.
 */
export function canReadIssue(actor: Actor | null, project: ProjectWithAccess, issue: Pick<IssueWithAssignees, "confidential" | "authorId" | "assigneeIds">): boolean {
  if (!allowed(actor, "read_issue", project)) return false;
  if (!issue.confidential) return true;
  if (!actor) return false;
  if (actor.isAdmin || project.accessLevel >= Access.REPORTER) return true;
  return issue.authorId === actor.user.id || issue.assigneeIds.includes(actor.user.id);
}

/** Authors and assignees may update their own issue even below reporter (IssuePolicy `is_author`, `is_assignee`). */
export function canUpdateIssue(actor: Actor | null, project: ProjectWithAccess, issue: IssueWithAssignees): boolean {
  if (!actor) return false;
  if (allowed(actor, "update_issue", project)) return true;
  if (project.archived || !project.issuesEnabled) return false;
  return issue.authorId === actor.user.id || issue.assigneeIds.includes(actor.user.id);
}

/** A merge request as lookups load it: with its assignees' and reviewers' ids. */
export type MergeRequestWithAssignees = MergeRequest & { assigneeIds: number[]; reviewerIds: number[] };

/**
 * IssuablePolicy for merge requests: developers update any merge request; the author and the assignees
 * update their own while they can read it and the project is not archived.
 */
export function canUpdateMergeRequest(actor: Actor | null, project: ProjectWithAccess, mr: MergeRequestWithAssignees): boolean {
  if (!actor) return false;
  if (allowed(actor, "update_merge_request", project)) return true;
  if (project.archived || !canReadMergeRequest(actor, project, mr)) return false;
  return mr.authorId === actor.user.id || mr.assigneeIds.includes(actor.user.id);
}

/**
 * MergeRequestPolicy `read_merge_request`: the project's rule (anyone who reads a public or internal
 * project, reporters and up of a private one), plus IssuablePolicy's `guest_access & assignee_or_author`:
 * a guest reads (and updates) the merge requests they wrote or are assigned to.
 */
export function canReadMergeRequest(actor: Actor | null, project: ProjectWithAccess, mr: { authorId: number | null; assigneeIds: number[] }): boolean {
  if (allowed(actor, "read_merge_request", project)) return true;
  if (!actor || !project.mergeRequestsEnabled || project.accessLevel < Access.GUEST) return false;
  return mr.authorId === actor.user.id || mr.assigneeIds.includes(actor.user.id);
}

/** Whether any merge request of the project may be readable, before loading one (a guest's own may be). */
export function mayReadSomeMergeRequest(actor: Actor | null, project: ProjectWithAccess): boolean {
  return allowed(actor, "read_merge_request", project) || (!!actor && project.mergeRequestsEnabled && project.accessLevel >= Access.GUEST);
}

/**
 * WHERE condition for issue lists across projects: the project is readable with issues enabled, and a
 * confidential issue only for reporters and up of its project, its author and its assignees.
 */
export function issueIsVisible(actor: Actor | null, issue = issues): SQL {
  return issueVisibleWhere(projectIsVisible(actor), whoIs(actor), issue);
}

/** `issueIsVisible` for a prepared query of the given actor shape (kernel/visibility.ts `actorPlaceholders`). */
export function issueIsVisibleForShape(shape: ActorShape, issue = issues): SQL {
  return issueVisibleWhere(projectIsVisibleForShape(shape), whoHasShape(shape), issue);
}

type Who = "admin" | "anonymous" | number | SQL;
const whoIs = (actor: Actor | null): Who => (actor?.isAdmin ? "admin" : actor ? actor.user.id : "anonymous");
const whoHasShape = (shape: ActorShape): Who => (shape === "user" ? userIdPlaceholder : shape);

/** The project is readable with its issues feature on. */
const issuesReadableIn = (projectId: SQLWrapper, projectVisible: SQL) =>
  sql`${projectId} IN (SELECT ${projects.id} FROM ${projects} WHERE ${projects.issuesEnabled} AND ${projectVisible})`;

function issueVisibleWhere(projectVisible: SQL, who: Who, issue: typeof issues): SQL {
  return visibleWhere(projectVisible, who, issue, (userId) =>
    sql`${issue.authorId} = ${userId}
    OR EXISTS (SELECT 1 FROM ${issueAssignees} WHERE ${issueAssignees.issueId} = ${issue.id} AND ${issueAssignees.userId} = ${userId})`,
  );
}

/**
 * The `issue_counts` rows whose every issue the actor reads by `issueIsVisible`'s project rules: the
 * project's issues are readable, and confidential ones count only for admins and the project's
 * reporters and up. A confidential issue its author or assignee reads is not in these rows, so their
 * sum is a lower bound of what the actor reads, never more.
 */
export function countedIssuesAreVisible(actor: Actor | null): SQL {
  return visibleWhere(projectIsVisible(actor), whoIs(actor), issueCounts, null);
}

/** `countedIssuesAreVisible` for a prepared query of the given actor shape. */
export function countedIssuesAreVisibleForShape(shape: ActorShape): SQL {
  return visibleWhere(projectIsVisibleForShape(shape), whoHasShape(shape), issueCounts, null);
}

/**
 * The rule of both, over rows with a project and a confidential flag (`issues` or `issue_counts`): the
 * project's issues are readable; a confidential row for admins, the project's reporters and up, and
 * whoever `own` admits (an issue's author and assignees; no one for counted rows).
 */
function visibleWhere(projectVisible: SQL, who: Who, rows: { projectId: SQLWrapper; confidential: SQLWrapper }, own: ((userId: number | SQL) => SQL) | null): SQL {
  const projectReadable = issuesReadableIn(rows.projectId, projectVisible);
  if (who === "admin") return projectReadable;
  if (who === "anonymous") return sql`(${projectReadable} AND NOT ${rows.confidential})`;
  const ownRows = own ? sql`
    OR ${own(who)}` : sql``;
  return sql`(${projectReadable} AND (NOT ${rows.confidential}${ownRows}
    OR ${rows.projectId} IN ${authorizedProjectIds(who, Access.REPORTER)}))`;
}

/**
 * ProjectSnippetPolicy: the project's snippets feature and the project must be readable; members
 * (and admins, and the author) read every snippet of the project, others the public ones and, when
 * signed in and not external, the internal ones.
 */
export function canReadSnippet(actor: Actor | null, project: ProjectWithAccess, snippet: Pick<Snippet, "authorId" | "visibilityLevel">): boolean {
  if (!allowed(actor, "read_snippet", project)) return false;
  if (actor?.isAdmin || project.accessLevel >= Access.GUEST) return true;
  if (actor && snippet.authorId === actor.user.id) return true;
  if (snippet.visibilityLevel >= Visibility.PUBLIC) return true;
  return snippet.visibilityLevel >= Visibility.INTERNAL && !!actor && !actor.user.external;
}

/** The same rule as SQL over `snippets` rows of one project (Snippet.for_project_with_user). */
export function snippetIsVisible(actor: Actor | null, project: ProjectWithAccess): SQL {
  if (actor?.isAdmin || project.accessLevel >= Access.GUEST) return sql`true`;
  const minimum = actor && !actor.user.external ? Visibility.INTERNAL : Visibility.PUBLIC;
  if (!actor) return sql`${snippets.visibilityLevel} >= ${minimum}`;
  return sql`(${snippets.visibilityLevel} >= ${minimum} OR ${snippets.authorId} = ${actor.user.id})`;
}

/**
 * PersonalSnippetPolicy (a snippet without a project): public ones for anyone, internal ones for signed-in
 * users who are not external, private ones for their author; admins read all.
 */
export function canReadPersonalSnippet(actor: Actor | null, snippet: Pick<Snippet, "authorId" | "visibilityLevel">): boolean {
  if (actor?.isAdmin) return true;
  if (actor && snippet.authorId === actor.user.id) return true;
  if (snippet.visibilityLevel >= Visibility.PUBLIC) return true;
  return snippet.visibilityLevel >= Visibility.INTERNAL && !!actor && !actor.user.external;
}

/**
 * Every snippet the actor may read, personal or of any project, as SQL over `snippets` (SnippetsFinder
 * without a project): PersonalSnippetPolicy for personal ones; for project ones the project must be
 * readable with its snippets feature on, then ProjectSnippetPolicy as `snippetIsVisible` says it.
 * The pair of `canReadPersonalSnippet` and `canReadSnippet`.
 */
export function anySnippetIsVisible(actor: Actor | null): SQL {
  if (actor?.isAdmin) return sql`true`;
  const minimum = actor && !actor.user.external ? Visibility.INTERNAL : Visibility.PUBLIC;
  const own = actor ? sql` OR ${snippets.authorId} = ${actor.user.id}` : sql``;
  const member = actor ? sql` OR sp.id IN ${authorizedProjectIds(actor.user.id)}` : sql``;
  return sql`(CASE WHEN ${snippets.projectId} IS NULL THEN (${snippets.visibilityLevel} >= ${minimum}${own})
    ELSE EXISTS (SELECT 1 FROM ${projects} sp WHERE sp.id = ${snippets.projectId} AND sp.snippets_enabled
      AND ${projectIsVisible(actor, alias(projects, "sp") as unknown as typeof projects)}
      AND (${snippets.visibilityLevel} >= ${minimum}${own}${member})) END)`;
}

/** EpicPolicy: `read_epic` on the group; a confidential epic only for reporters and up. */
export function canReadEpic(actor: Actor | null, group: GroupWithAccess, epic: Pick<Epic, "confidential">): boolean {
  if (!allowedOnGroup(actor, "read_epic", group)) return false;
  return !epic.confidential || allowedOnGroup(actor, "read_confidential_epic", group);
}
