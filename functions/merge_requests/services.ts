import { sql, type SQL } from "drizzle-orm";
import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { apiError, isUniqueViolation, validation } from "../kernel/errors";
import { directlyAddressedUsernames, mentionedUsernames } from "../entities/mentions";
import { labelEventsCte, milestoneEventsCte, stateEventsCte } from "../shared/issuables/resource_events";
import { systemNotesCte } from "../shared/issuables/system_notes";
import { nextIidSql } from "../shared/issuables/iids";
import { deleteTargetTodosSql, resolveTodosSql, TodoAction, todosCte as writeTodosCte } from "../shared/issuables/todos";
import { type MergeRequestWithAssignees } from "../shared/issuables/policy";
import { lookupForWrite, type ResolvedIssue, type WriteContext, type WriteLookup } from "./queries";
import { closingIssueReferences, isDraftTitle, issueReferences, type IssueRef, type RefContext } from "./references";
import { updateNoteBodies } from "./system_notes";
import { getSettings } from "../shared/approvals/read";
import { canOverride } from "../shared/approvals/state";
import { Visibility } from "../kernel/access";
import { branchAccess, listProtections } from "../shared/protected_branches/access";

/**
 * Merge request writes (app/services/merge_requests/create_service.rb, update_service.rb,
 * close_service.rb, reopen_service.rb, Issuable::CommonSystemNotesService, TodoService). Each write is
 * ONE statement whose CTEs touch every table (the merge request, assignees, reviewers, labels, resource
 * events, closing issues, cross references, system notes, to-dos): a single statement is atomic, and a
 * request stays at five statements (project, lookup, write, reload, plus the merge request for updates).
 * As in GitLab, branches are validated by name (MergeRequest has no existence validation); diffs, the
 * head pipeline and the mergeability check come later, from merging.ts#refreshMergeRequest.
 */

export type WriteScope = { project: ProjectWithAccess; actor: Actor; baseUrl: string };

const DEFAULT_LABEL_COLOR = "#6699cc";
const DESCRIPTION_MAX = 1_048_576;

/** Gitlab::GitRefValidator.validate_merge_request_branch: a name git accepts under `refs/heads/`. */
export function validBranchName(name: string): boolean {
  if (name === "HEAD" || name.startsWith("-") || name.startsWith("refs/heads/") || name.startsWith("refs/remotes/")) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name) || name.includes("..") || name.includes("@{") || name === "@") return false;
  if (name.endsWith("/") || name.endsWith(".") || name.startsWith("/") || name.includes("//")) return false;
  return name.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}

/**
 * MergeRequest validations and `handle_merge_request_errors!` (lib/api/helpers/merge_requests_helpers.rb):
 * the same project and branch → 422 (`branch_conflict`); a source outside the target's fork network →
 * 422 (`validate_fork`); an open duplicate → 409; anything else → 400 with the model errors.
 */
function validate(
  attrs: { title: string; description: string | null; sourceBranch: string; targetBranch: string },
  lookup: { duplicateIid: number | null; sameProject: boolean; inForkNetwork: boolean },
  changed = { source: true, target: true },
) {
  const duplicateIid = lookup.duplicateIid;
  const errors: Record<string, string[]> = {};
  const add = (key: string, message: string) => (errors[key] ??= []).push(message);
  if (attrs.title.trim() === "") add("title", "can't be blank");
  if ([...attrs.title].length > 255) add("title", "is too long (maximum is 255 characters)");
  if (attrs.description && [...attrs.description].length > DESCRIPTION_MAX)
    add("description", `is too long (maximum is ${DESCRIPTION_MAX} characters)`);
  if (attrs.sourceBranch === "") add("source_branch", "can't be blank");
  if (attrs.targetBranch === "") add("target_branch", "can't be blank");
  // `validate_branches`: the same branch is fine between a fork and its source.
  if (lookup.sameProject && attrs.sourceBranch !== "" && attrs.sourceBranch === attrs.targetBranch)
    throw apiError(["You can't use same project/branch for source and target"], 422);
  if (!lookup.sameProject && !lookup.inForkNetwork) throw apiError(["Source project is not a fork of the target project"], 422);
  // `validate_branch_name` looks only at branches being changed.
  if (changed.source && attrs.sourceBranch !== "" && !validBranchName(attrs.sourceBranch)) add("source_branch", "is invalid");
  if (changed.target && attrs.targetBranch !== "" && !validBranchName(attrs.targetBranch)) add("target_branch", "is invalid");
  if (duplicateIid !== null) throw apiError([`Another open merge request already exists for this source branch: !${duplicateIid}`], 409);
  if (Object.keys(errors).length) throw validation(errors);
}

/** The issues a title and description reference and close (closing only towards the default branch). */
function references(scope: WriteScope, title: string, description: string | null, targetBranch: string) {
  const ctx: RefContext = { projectPath: scope.project.fullPath, namespacePath: scope.project.namespace.fullPath, baseUrl: scope.baseUrl };
  const text = `${title}\n${description ?? ""}`;
  // `closes_issues` counts only merge requests into the default branch; an empty repository's default
  // branch is the instance default, `main` (Project#default_branch_from_preferences).
  const defaultBranch = scope.project.defaultBranch ?? "main";
  const closing = scope.project.issuesEnabled && targetBranch === defaultBranch ? closingIssueReferences(text, ctx) : [];
  return { all: issueReferences(text, ctx), closing };
}

const refKey = (r: { path: string; iid: number }) => `${r.path.toLowerCase()}#${r.iid}`;

/** Mentions of a merge request's title and description (`attr_mentionable :title, :description`). */
function mentions(title: string, description: string | null) {
  return {
    mentioned: [...new Set([...mentionedUsernames(title), ...mentionedUsernames(description)])],
    direct: [...new Set([...directlyAddressedUsernames(title), ...directlyAddressedUsernames(description)])],
  };
}

type TodoRow = { userId: number; action: number };

/**
 * TodoService's order for one write: assignment, review request, direct address, mention. A user gets
 * at most one new to-do, and none while one is pending on the merge request (`create_todos` excludes
 * users with pending to-dos: the `multiple_todos` flag is off in 15.4).
 */
function plannedTodos(groups: [keyof typeof TodoAction, number[]][], pending: number[]): TodoRow[] {
  const taken = new Set(pending);
  const out: TodoRow[] = [];
  for (const [action, userIds] of groups) {
    for (const userId of userIds) {
      if (taken.has(userId)) continue;
      taken.add(userId);
      out.push({ userId, action: TodoAction[action] });
    }
  }
  return out;
}

/** "mentioned in merge request !1" on an issue: the merge request's reference as seen from the issue. */
function crossReferencePrefix(scope: WriteScope, issue: ResolvedIssue): string {
  if (issue.projectId === scope.project.id) return "";
  if (issue.namespaceId === scope.project.namespaceId) return scope.project.path;
  return scope.project.fullPath;
}

/** Label titles → ids: existing labels, and labels created in the project when the caller may admin labels. */
function labelPlan(scope: WriteScope, titles: string[], lookup: WriteContext["labels"], create: boolean) {
  const byTitle = new Map<string, number>();
  for (const label of lookup) if (!byTitle.has(label.title)) byTitle.set(label.title, label.id);
  const ids = titles.map((t) => byTitle.get(t)).filter((id): id is number => id !== undefined);
  const missing = create && allowed(scope.actor, "admin_label", scope.project) ? [...new Set(titles.filter((t) => !byTitle.has(t)))] : [];
  return { ids: [...new Set(ids)], missing };
}

/**
 * IssuableBaseService#process_label_ids: `labels` replaces the set, `add_labels` joins it, `remove_labels`
 * leaves it; missing titles are created when the caller may admin labels.
 */
function labelChanges(
  scope: WriteScope,
  input: { labels?: string[]; addLabels?: string[]; removeLabels?: string[] },
  known: WriteContext["labels"],
  currentIds: number[],
): { labelIds: number[]; newTitles: string[] } {
  if (input.labels === undefined && input.addLabels === undefined && input.removeLabels === undefined) return { labelIds: currentIds, newTitles: [] };
  const set = labelPlan(scope, input.labels ?? [], known, true);
  const add = labelPlan(scope, input.addLabels ?? [], known, true);
  const remove = labelPlan(scope, input.removeLabels ?? [], known, false);
  const labelIds = [...new Set([...(input.labels !== undefined ? set.ids : currentIds), ...add.ids])].filter((id) => !remove.ids.includes(id));
  const newTitles = [...new Set([...(input.labels !== undefined ? set.missing : []), ...add.missing])].filter(
    (t) => !(input.removeLabels ?? []).includes(t),
  );
  return { labelIds, newTitles };
}

// ---------------------------------------------------------------------------------------------
// SQL fragments shared by create and update: `$mr` is a CTE named `mr` with the merge request's id.

const ints = (values: number[]) => sql`${sql.param(values)}::int[]`;
const texts = (values: string[]) => sql`${sql.param(values)}::text[]`;

function labelsCtes(scope: WriteScope, addIds: number[], newTitles: string[], removeIds: number[]): SQL {
  const userId = scope.actor.user.id;
  return sql`
    new_labels AS (INSERT INTO labels (project_id, title, color)
      SELECT ${scope.project.id}::int, t, ${DEFAULT_LABEL_COLOR}::text FROM unnest(${texts(newTitles)}) t
      ON CONFLICT DO NOTHING RETURNING id),
    added_links AS (INSERT INTO label_links (label_id, target_type, target_id)
      SELECT x.id, 'MergeRequest', mr.id FROM mr, (SELECT id FROM new_labels UNION SELECT unnest(${ints(addIds)})) x
      ON CONFLICT DO NOTHING RETURNING label_id),
    removed_links AS (DELETE FROM label_links WHERE target_type = 'MergeRequest' AND target_id = (SELECT id FROM mr)
      AND label_id = ANY(${ints(removeIds)}) RETURNING label_id),
    ${labelEventsCte(
      "label_events",
      "MergeRequest",
      sql`SELECT 'add', mr.id, added_links.label_id FROM mr, added_links UNION ALL SELECT 'remove', mr.id, removed_links.label_id FROM mr, removed_links`,
      userId,
    )}`;
}

function notesCte(name: string, noteableType: "Issue" | "MergeRequest", notes: { noteableId: SQL | number; projectId: number; body: SQL | string }[], authorId: number): SQL {
  return systemNotesCte(name, notes.map((n) => ({ noteableType, ...n })), { authorId, from: sql`mr` });
}

function todosCte(scope: WriteScope, todos: TodoRow[]): SQL {
  return writeTodosCte("new_todos", {
    from: sql`mr, unnest(${ints(todos.map((t) => t.userId))}, ${ints(todos.map((t) => t.action))}) AS t(user_id, action)`,
    userId: sql`t.user_id`,
    action: sql`t.action`,
    targetType: "MergeRequest",
    targetId: sql`mr.id`,
    projectId: scope.project.id,
    authorId: scope.actor.user.id,
  });
}

/** Cross references (new ones only) and, for an open merge request, the rebuilt closing issues. */
function referenceCtes(scope: WriteScope, issues: ResolvedIssue[], known: Set<number>, closingIds: number[] | null): SQL {
  const fresh = issues.filter((i) => !known.has(i.id));
  const notes = fresh.map((issue) => ({
    noteableId: issue.id,
    projectId: issue.projectId,
    body: sql`${`mentioned in merge request ${crossReferencePrefix(scope, issue)}!`}::text || mr.iid`,
  }));
  return sql`
    refs AS (INSERT INTO issue_merge_request_references (issue_id, merge_request_id)
      SELECT i, mr.id FROM mr, unnest(${ints(fresh.map((i) => i.id))}) i ON CONFLICT DO NOTHING),
    ${notesCte("cross_notes", "Issue", notes, scope.actor.user.id)},
    ${
      closingIds === null
        ? sql`closing AS (SELECT 1)`
        : sql`closing_gone AS (DELETE FROM merge_requests_closing_issues WHERE merge_request_id = (SELECT id FROM mr)
              AND issue_id <> ALL(${ints(closingIds)})),
            closing AS (INSERT INTO merge_requests_closing_issues (merge_request_id, issue_id)
              SELECT mr.id, r.i FROM mr, unnest(${ints(closingIds)}) WITH ORDINALITY AS r(i, ord) ORDER BY r.ord ON CONFLICT DO NOTHING)`
    }`;
}

/** The referenced issues that exist, in reference order (ClosingIssueExtractor's order), each once. */
function resolveRefs(lookup: WriteContext, refs: IssueRef[]): ResolvedIssue[] {
  const byKey = new Map(lookup.issues.map((i) => [refKey({ path: i.fullPath, iid: i.iid }), i]));
  const out: ResolvedIssue[] = [];
  const seen = new Set<number>();
  for (const ref of refs) {
    const issue = byKey.get(refKey(ref));
    if (issue && !seen.has(issue.id)) {
      seen.add(issue.id);
      out.push(issue);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Create

export type CreateInput = {
  /** The project of the source branch: the target itself, or a project of its fork network. */
  sourceProjectId: number;
  title: string;
  description: string | null;
  sourceBranch: string;
  targetBranch: string;
  assigneeIds: number[] | undefined;
  reviewerIds: number[] | undefined;
  milestoneId: number | undefined;
  labels: string[] | undefined;
  forceRemoveSourceBranch: boolean | null;
  squash: boolean | undefined;
  /** EE `approvals_before_merge`, as `approvalsBeforeMerge` decided it (undefined: not stored). */
  approvalsBeforeMerge?: number;
  /** `allow_collaboration`, as `allowCollaboration` decided it (undefined: not stored). */
  allowCollaboration?: boolean;
};

/**
 * `allow_collaboration` (or its old name `allow_maintainer_to_push`) on create and update,
 * MergeRequests::BaseService#filter_params: dropped silently unless `can_allow_collaboration?`, that is
 * `collaborative_push_possible?` (a merge request from a fork, neither project private, the source
 * branch not protected in the fork) and `push_code` on the fork. Undefined: nothing to store.
 */
export async function allowCollaboration(
  db: Executor,
  actor: Actor,
  target: ProjectWithAccess,
  source: ProjectWithAccess | null,
  sourceBranch: string,
  requested: boolean | undefined,
): Promise<boolean | undefined> {
  if (requested === undefined || !source || source.id === target.id) return undefined;
  if (target.visibilityLevel <= Visibility.PRIVATE || source.visibilityLevel <= Visibility.PRIVATE) return undefined;
  if (!allowed(actor, "push_code", source)) return undefined;
  const protections = await listProtections(db, source.id);
  if (branchAccess(protections, sourceBranch, null, { emptyRepo: source.emptyRepo, defaultBranch: source.defaultBranch }).protected) return undefined;
  return requested;
}

/**
 * EE `approvals_before_merge` on create and update (ee/lib/ee/api/merge_requests.rb `optional_params_ee`,
 * EE MergeRequests::BaseService#filter_params, MergeRequest#validate_approvals_before_merge): kept only
 * for who has `update_approvers` (the project lets merge requests override its approvals, the merge
 * request is not merged; the caller may update it, which the routes checked), then never below the
 * project's own (400 `validate_approvals_before_merge`). Undefined: nothing to store.
 */
export async function approvalsBeforeMerge(db: Executor, projectId: number, value: number | undefined, merged: boolean): Promise<number | undefined> {
  if (value === undefined || merged) return undefined;
  const settings = await getSettings(db, projectId);
  if (!canOverride(settings)) return undefined;
  if (value < settings.approvalsBeforeMerge)
    throw validation({ validate_approvals_before_merge: ["Number of approvals must be at least that of approvals on the target project"] });
  return value;
}

/** MergeRequests::CreateService: the merge request and everything GitLab does after creating it. Returns the id. */
export async function createMergeRequest(db: Executor, scope: WriteScope, input: CreateInput): Promise<number> {
  const { project, actor } = scope;
  // IssuableBaseService#filter_params: assignees, reviewers, milestone and labels need admin_merge_request.
  const admin = allowed(actor, "admin_merge_request", project);
  const assigneeIds = admin ? (input.assigneeIds ?? []).filter((id) => id > 0) : [];
  const reviewerIds = admin ? (input.reviewerIds ?? []).filter((id) => id > 0) : [];
  const labelTitles = admin ? [...new Set((input.labels ?? []).map((l) => l.trim()).filter(Boolean))] : [];
  const refs = references(scope, input.title, input.description, input.targetBranch);
  const talk = mentions(input.title, input.description);
  const lookup = await lookupForWrite(db, {
    project: { id: project.id, namespaceTraversalIds: project.namespace.traversalIds },
    actor,
    mergeRequestId: null,
    sourceProjectId: input.sourceProjectId,
    branches: { source: input.sourceBranch, target: input.targetBranch },
    userIds: [...assigneeIds, ...reviewerIds],
    usernames: talk.mentioned,
    milestoneId: admin && input.milestoneId ? input.milestoneId : null,
    labelTitles,
    refs: refs.all,
  });
  validate(input, { ...lookup, sameProject: input.sourceProjectId === project.id });

  const readable = new Set(lookup.readableUserIds);
  const assignees = [...new Set(assigneeIds.filter((id) => readable.has(id)))];
  const reviewers = [...new Set(reviewerIds.filter((id) => readable.has(id)))];
  const labels = labelPlan(scope, labelTitles, lookup.labels, true);
  const issues = resolveRefs(lookup, refs.all);
  const closingIds = resolveRefs(lookup, refs.closing).map((i) => i.id);
  const byName = new Map(lookup.mentioned.map((m) => [m.username, m.id]));
  const todos = plannedTodos(
    [
      ["assigned", assignees],
      ["review_requested", reviewers],
      ["directly_addressed", talk.direct.map((u) => byName.get(u)).filter((id): id is number => id !== undefined)],
      ["mentioned", talk.mentioned.map((u) => byName.get(u)).filter((id): id is number => id !== undefined)],
    ],
    [],
  );

  const result = await openDuplicateIsConflict(db, project.id, input.sourceProjectId, input.sourceBranch, input.targetBranch, () => db.execute<{ id: number }>(sql`
    WITH iid AS (${nextIidSql("merge_requests", { projectId: project.id })}),
    mr AS (INSERT INTO merge_requests (iid, project_id, source_project_id, title, description, source_branch, target_branch,
        author_id, milestone_id, draft, squash, force_remove_source_branch, approvals_before_merge, allow_collaboration)
      SELECT iid.last_value, ${project.id}::int, ${input.sourceProjectId}::int, ${input.title}::text, ${input.description}::text,
        ${input.sourceBranch}::text, ${input.targetBranch}::text, ${actor.user.id}::int, ${lookup.milestoneId}::int,
        ${isDraftTitle(input.title)}::boolean, ${input.squash ?? false}::boolean, ${input.forceRemoveSourceBranch}::boolean,
        ${input.approvalsBeforeMerge ?? null}::int, ${input.allowCollaboration ?? false}::boolean
      FROM iid RETURNING id, iid),
    assignees AS (INSERT INTO merge_request_assignees (merge_request_id, user_id) SELECT mr.id, u FROM mr, unnest(${ints(assignees)}) u),
    reviewers AS (INSERT INTO merge_request_reviewers (merge_request_id, user_id) SELECT mr.id, u FROM mr, unnest(${ints(reviewers)}) u),
    ${labelsCtes(scope, labels.ids, labels.missing, [])},
    ${milestoneEventsCte(
      "milestone_event",
      "MergeRequest",
      sql`SELECT 'add', mr.id, ms.id, ms.state FROM mr JOIN milestones ms ON ms.id = ${lookup.milestoneId}::int`,
      actor.user.id,
    )},
    ${referenceCtes(scope, issues, new Set(), closingIds)},
    ${todosCte(scope, todos)}
    SELECT id FROM mr`));
  return Number(result.rows[0].id);
}

/**
 * Runs a write that may open a merge request (create, reopen, retarget). The check in `lookupForWrite`
 * answers the common case; two concurrent writes both pass it, and the partial unique index
 * `index_merge_requests_on_open_branches` refuses the loser, whose statement rolls back whole (its iid
 * included). The loser gets the 409 the check would have given, naming the winner.
 */
async function openDuplicateIsConflict<T>(db: Executor, projectId: number, sourceProjectId: number, source: string, target: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error, "index_merge_requests_on_open_branches")) throw error;
    const winner = await db.execute<{ iid: number }>(sql`
      SELECT iid FROM merge_requests WHERE project_id = ${projectId}::int AND source_project_id = ${sourceProjectId}::int
        AND source_branch = ${source} AND target_branch = ${target} AND state = 'opened' LIMIT 1`);
    const iid = winner.rows[0]?.iid;
    throw apiError([`Another open merge request already exists for this source branch: !${iid ?? ""}`], 409);
  }
}

// ---------------------------------------------------------------------------------------------
// Update, close, reopen

export type UpdateInput = {
  title?: string;
  description?: string | null;
  targetBranch?: string;
  stateEvent?: "close" | "reopen";
  assigneeIds?: number[];
  reviewerIds?: number[];
  milestoneId?: number;
  labels?: string[];
  addLabels?: string[];
  removeLabels?: string[];
  forceRemoveSourceBranch?: boolean | null;
  squash?: boolean;
  discussionLocked?: boolean;
  approvalsBeforeMerge?: number;
  allowCollaboration?: boolean;
};

/**
 * Planner of MergeRequests::UpdateService, step one (pure): the request as the caller may apply it, and
 * what the one read (`lookupForWrite`) must load for the plan.
 */
export function mergeRequestUpdateNeeds(mr: MergeRequestWithAssignees, input: UpdateInput, scope: WriteScope) {
  const { project, actor } = scope;
  const admin = allowed(actor, "admin_merge_request", project);
  const title = input.title ?? mr.title;
  const description = input.description !== undefined ? input.description : mr.description;
  const targetBranch = input.targetBranch ?? mr.targetBranch;
  const state =
    input.stateEvent === "close" && mr.state === "opened"
      ? "closed"
      : input.stateEvent === "reopen" && mr.state === "closed"
        ? "opened"
        : mr.state;
  const wantAssignees = admin && input.assigneeIds !== undefined ? input.assigneeIds.filter((id) => id > 0) : null;
  const wantReviewers = admin && input.reviewerIds !== undefined ? input.reviewerIds.filter((id) => id > 0) : null;
  const labelInput = admin ? [...(input.labels ?? []), ...(input.addLabels ?? []), ...(input.removeLabels ?? [])] : [];
  const textChanged = title !== mr.title || description !== mr.description;
  const refs = references(scope, title, description, targetBranch);
  const before = mentions(mr.title, mr.description);
  const after = mentions(title, description);

  const lookup: WriteLookup = {
    project: { id: project.id, namespaceTraversalIds: project.namespace.traversalIds },
    actor,
    mergeRequestId: mr.id,
    sourceProjectId: mr.sourceProjectId,
    branches: state === "opened" ? { source: mr.sourceBranch, target: targetBranch } : null,
    userIds: [...(wantAssignees ?? []), ...(wantReviewers ?? [])],
    usernames: [...new Set([...before.mentioned, ...after.mentioned])],
    milestoneId: admin && input.milestoneId ? input.milestoneId : null,
    labelTitles: [...new Set(labelInput.map((l) => l.trim()).filter(Boolean))],
    refs: refs.all,
  };
  return { admin, title, description, targetBranch, state, wantAssignees, wantReviewers, textChanged, refs, before, after, lookup };
}

/**
 * Step two (pure): what changes, and the system notes, events, to-dos and references that follow; the
 * write (`updateMergeRequest`) turns it into one statement through the shared writers.
 */
export function planMergeRequestUpdate(
  mr: MergeRequestWithAssignees,
  input: UpdateInput,
  scope: WriteScope,
  needs: ReturnType<typeof mergeRequestUpdateNeeds>,
  lookup: WriteContext,
) {
  const { actor } = scope;
  const { admin, title, description, targetBranch, state, wantAssignees, wantReviewers, textChanged, refs, before, after } = needs;
  const current = { ...mr, labelIds: lookup.labelIds, referencedIssueIds: lookup.referencedIssueIds };

  const readable = new Set(lookup.readableUserIds);
  const assignees = wantAssignees ? [...new Set(wantAssignees.filter((id) => readable.has(id)))] : current.assigneeIds;
  const reviewers = wantReviewers ? [...new Set(wantReviewers.filter((id) => readable.has(id)))] : current.reviewerIds;
  const milestoneId = admin && input.milestoneId !== undefined ? (input.milestoneId === 0 ? null : lookup.milestoneId) : current.milestoneId;

  const { labelIds, newTitles } = admin ? labelChanges(scope, input, lookup.labels, current.labelIds) : { labelIds: current.labelIds, newTitles: [] };
  const addLabelIds = labelIds.filter((id) => !current.labelIds.includes(id));
  const removeLabelIds = current.labelIds.filter((id) => !labelIds.includes(id));

  const lockChanged = admin && input.discussionLocked !== undefined && input.discussionLocked !== (current.discussionLocked ?? false);
  const notes = updateNoteBodies(
    { title: current.title, description: current.description, targetBranch: current.targetBranch, discussionLocked: !!current.discussionLocked },
    { title, description, targetBranch, discussionLocked: lockChanged ? !!input.discussionLocked : !!current.discussionLocked },
  );
  const addedAssignees = assignees.filter((id) => !current.assigneeIds.includes(id));
  const removedAssignees = current.assigneeIds.filter((id) => !assignees.includes(id));
  const addedReviewers = reviewers.filter((id) => !current.reviewerIds.includes(id));
  const removedReviewers = current.reviewerIds.filter((id) => !reviewers.includes(id));

  const closing = state === "closed" && current.state !== "closed";
  const reopening = state === "opened" && current.state === "closed";
  // TodoService#close_merge_request, and MergeRequests::UpdateService#resolve_todos on `has_changes?`
  // (title, description, assignees, reviewers, milestone, target branch, labels): the actor's pending
  // to-dos on the merge request are done.
  const meaningful =
    textChanged ||
    targetBranch !== current.targetBranch ||
    milestoneId !== current.milestoneId ||
    addLabelIds.length + removeLabelIds.length > 0 ||
    addedAssignees.length + removedAssignees.length + addedReviewers.length + removedReviewers.length > 0;
  const resolveOwn = closing || meaningful;
  const todos = plannedTodos(
    [
      ["assigned", addedAssignees],
      ["review_requested", addedReviewers],
      ...(textChanged
        ? ([
            ["directly_addressed", idsOf(lookup, after.direct.filter((u) => !before.mentioned.includes(u)))],
            ["mentioned", idsOf(lookup, after.mentioned.filter((u) => !before.mentioned.includes(u)))],
          ] as [keyof typeof TodoAction, number[]][])
        : []),
    ],
    resolveOwn ? lookup.pendingTodoUserIds.filter((id) => id !== actor.user.id) : lookup.pendingTodoUserIds,
  );
  const issues = resolveRefs(lookup, refs.all);
  const closingIds = state === "opened" ? resolveRefs(lookup, refs.closing).map((i) => i.id) : null;
  return { current, milestoneId, labelIds, newTitles, addLabelIds, removeLabelIds, lockChanged, notes, addedAssignees, removedAssignees, addedReviewers, removedReviewers, closing, reopening, resolveOwn, todos, issues, closingIds };
}

/** MergeRequests::UpdateService (with CloseService / ReopenService for `state_event`): plan, then one write. */
export async function updateMergeRequest(db: Executor, scope: WriteScope, mr: MergeRequestWithAssignees, input: UpdateInput): Promise<void> {
  const { project, actor } = scope;
  const needs = mergeRequestUpdateNeeds(mr, input, scope);
  const { title, description, targetBranch, state } = needs;
  const lookup = await lookupForWrite(db, needs.lookup);
  // `validate_fork` is skipped here: the source project was in the network when the merge request was made.
  validate({ title, description, sourceBranch: mr.sourceBranch, targetBranch }, { duplicateIid: lookup.duplicateIid, sameProject: mr.sourceProjectId === project.id, inForkNetwork: true }, {
    source: false,
    target: targetBranch !== mr.targetBranch,
  });
  const { current, milestoneId, labelIds, newTitles, addLabelIds, removeLabelIds, lockChanged, notes, addedAssignees, removedAssignees, addedReviewers, removedReviewers, closing, reopening, resolveOwn, todos, issues, closingIds } = planMergeRequestUpdate(mr, input, scope, needs, lookup);
  const userNotes = sql`(SELECT json_object_agg(u.id, '@' || u.username) FROM users u WHERE u.id = ANY(${ints([
    ...addedAssignees,
    ...removedAssignees,
    ...addedReviewers,
    ...removedReviewers,
  ])}))`;

  await openDuplicateIsConflict(db, project.id, mr.sourceProjectId, mr.sourceBranch, targetBranch, () => db.execute(sql`
    WITH names AS (SELECT ${userNotes} AS n),
    mr AS (UPDATE merge_requests SET
        title = ${title}::text, description = ${description}::text, target_branch = ${targetBranch}::text,
        draft = ${isDraftTitle(title)}::boolean, milestone_id = ${milestoneId}::int, state = ${state}::text,
        squash = ${input.squash ?? current.squash}::boolean,
        approvals_before_merge = ${input.approvalsBeforeMerge !== undefined ? sql`${input.approvalsBeforeMerge}::int` : sql`approvals_before_merge`},
        force_remove_source_branch = ${input.forceRemoveSourceBranch !== undefined ? input.forceRemoveSourceBranch : current.forceRemoveSourceBranch}::boolean,
        allow_collaboration = ${input.allowCollaboration !== undefined ? sql`${input.allowCollaboration}::boolean` : sql`allow_collaboration`},
        discussion_locked = ${lockChanged ? input.discussionLocked! : current.discussionLocked}::boolean,
        closed_at = ${closing ? sql`now()` : reopening ? sql`NULL` : sql`closed_at`},
        closed_by_id = ${closing ? sql`${actor.user.id}::int` : reopening ? sql`NULL` : sql`closed_by_id`},
        merge_status = ${reopening ? sql`'unchecked'` : sql`merge_status`},
        updated_at = now()
      WHERE id = ${current.id}::int RETURNING id, iid),
    assignees_gone AS (DELETE FROM merge_request_assignees WHERE merge_request_id = ${current.id}::int AND user_id = ANY(${ints(removedAssignees)})),
    assignees_new AS (INSERT INTO merge_request_assignees (merge_request_id, user_id) SELECT mr.id, u FROM mr, unnest(${ints(addedAssignees)}) u ON CONFLICT DO NOTHING),
    reviewers_gone AS (DELETE FROM merge_request_reviewers WHERE merge_request_id = ${current.id}::int AND user_id = ANY(${ints(removedReviewers)})),
    reviewers_new AS (INSERT INTO merge_request_reviewers (merge_request_id, user_id) SELECT mr.id, u FROM mr, unnest(${ints(addedReviewers)}) u ON CONFLICT DO NOTHING),
    ${labelsCtes(scope, addLabelIds, newTitles, removeLabelIds)},
    ${milestoneEventsCte(
      "milestone_events",
      "MergeRequest",
      sql`SELECT e.action, mr.id, ms.id, ms.state FROM mr,
        (VALUES ('remove', ${current.milestoneId !== milestoneId ? current.milestoneId : null}::int),
                ('add', ${current.milestoneId !== milestoneId ? milestoneId : null}::int)) AS e(action, milestone_id)
        JOIN milestones ms ON ms.id = e.milestone_id`,
      actor.user.id,
    )},
    ${stateEventsCte(
      "state_event",
      "MergeRequest",
      sql`SELECT s, mr.id FROM mr, (SELECT ${closing ? "closed" : reopening ? "reopened" : null}::text AS s) x WHERE x.s IS NOT NULL`,
      actor.user.id,
    )},
    done_todos AS (${resolveTodosSql(actor.user.id, "MergeRequest", current.id, { when: sql`${resolveOwn}::boolean` })}),
    ${notesCte("mr_notes", "MergeRequest", [
      ...notes.map((body) => ({ noteableId: current.id, projectId: project.id, body })),
      ...assigneeNote(addedAssignees, removedAssignees, "assigned to", "unassigned").map((body) => ({ noteableId: current.id, projectId: project.id, body })),
      ...assigneeNote(addedReviewers, removedReviewers, "requested review from", "removed review request for").map((body) => ({
        noteableId: current.id,
        projectId: project.id,
        body,
      })),
    ], actor.user.id)},
    ${referenceCtes(scope, issues, new Set(current.referencedIssueIds), closingIds)},
    ${todosCte(scope, todos)}
    SELECT id FROM mr`));
}

/**
 * SystemNotes::IssuablesService#change_issuable_assignees / change_issuable_reviewers:
 * "assigned to @a, @b and @c and unassigned @d" (`to_sentence`). The usernames come from the `names` CTE.
 */
function assigneeNote(added: number[], removed: number[], addVerb: string, removeVerb: string): SQL[] {
  if (!added.length && !removed.length) return [];
  const refs = (ids: number[]) => {
    const parts = ids.map((id) => sql`((SELECT n FROM names) ->> ${String(id)}::text)`);
    // toSentence (kernel/present.ts) in SQL, since the usernames are read in the same statement.
    if (parts.length === 1) return parts[0];
    if (parts.length === 2) return sql`${parts[0]} || ' and ' || ${parts[1]}`;
    const head = sql.join(parts.slice(0, -1), sql` || ', ' || `);
    return sql`${head} || ', and ' || ${parts[parts.length - 1]}`;
  };
  const pieces: SQL[] = [];
  if (added.length) pieces.push(sql`${`${addVerb} `}::text || ${refs(added)}`);
  if (removed.length) pieces.push(sql`${`${removeVerb} `}::text || ${refs(removed)}`);
  return [sql.join(pieces, sql` || ' and ' || `)];
}

function idsOf(lookup: WriteContext, usernames: string[]): number[] {
  const byName = new Map(lookup.mentioned.map((m) => [m.username, m.id]));
  return usernames.map((u) => byName.get(u)).filter((id): id is number => id !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Delete

/**
 * Issuable::DestroyService: the merge request with its polymorphic rows (notes and their award emoji,
 * award emoji, label links, to-dos); the rest goes by foreign key.
 */
export async function deleteMergeRequest(db: Executor, id: number): Promise<void> {
  await db.execute(sql`
    WITH gone_notes AS (DELETE FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ${id}::int RETURNING id),
    gone_note_awards AS (DELETE FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id IN (SELECT id FROM gone_notes)),
    gone_awards AS (DELETE FROM award_emoji WHERE awardable_type = 'MergeRequest' AND awardable_id = ${id}::int),
    gone_links AS (DELETE FROM label_links WHERE target_type = 'MergeRequest' AND target_id = ${id}::int),
    gone_todos AS (${deleteTargetTodosSql("MergeRequest", id)})
    DELETE FROM merge_requests WHERE id = ${id}::int`);
}
