import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import { Access } from "../kernel/access";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { apiError, validation } from "../kernel/errors";
import { directlyAddressedUsernames, mentionedUsernames } from "../shared/issuables/mentions";
import { TodoAction } from "../shared/issuables/todos";
import type { IssueRow } from "../shared/issuables/issue_preload";
import type { CreateParams, UpdateParams } from "./params";
import * as q from "./queries";
import type { ContextUser, IssueChanges, IssueEffects, WriteContext } from "./queries/write";
import {
  assigneesNote,
  castDate,
  confidentialityNote,
  DESCRIPTION_NOTE,
  dueDateNote,
  issueErrors,
  labelTitles,
  lockNote,
  titleNote,
  userCanReadIssue,
} from "./rules";

/**
 * Issues::CreateService, Issues::UpdateService (with CloseService and ReopenService) and
 * Issuable::DestroyService (app/services/issues/*, app/services/issuable_base_service.rb): decide what
 * changes here, then write it in one statement (queries/write.ts).
 */

type Permissions = { metadata: boolean; admin: boolean; timestamps: boolean; createLabels: boolean };

/**
 * IssuePolicy: `set_issue_metadata` (milestone, labels, assignees, due date, lock, confidentiality)
 * for reporters and up, and for any project member creating an issue (gitlab-org/gitlab#300100);
 * `admin_issue` (EE weight, issue types); `set_issue_created_at`/`_updated_at`/`_iid` (owners and
 * admins); `admin_label` (create missing labels).
 */
function permissions(actor: Actor, project: ProjectWithAccess, creating: boolean): Permissions {
  const admin = allowed(actor, "admin_issue", project);
  return {
    metadata: admin || (creating && project.accessLevel >= Access.GUEST),
    admin,
    timestamps: actor.isAdmin || project.accessLevel >= Access.OWNER,
    createLabels: allowed(actor, "admin_label", project),
  };
}

/** `create_issue_type_allowed?`: incidents, test cases and requirements need reporter access. */
function issueTypeAllowed(type: string | undefined, perms: Permissions): type is string {
  return type !== undefined && (type === "issue" || perms.admin);
}

function throwIfInvalid(errors: Record<string, string[]>) {
  if (Object.keys(errors).length) throw validation(errors);
}

/** `convert_parameters_from_legacy_format`: a present `assignee_id` replaces `assignee_ids`. */
function requestedAssignees(params: Pick<CreateParams, "assignee_ids" | "assignee_id">): number[] | null | undefined {
  if (params.assignee_id !== undefined && params.assignee_id !== null) return [params.assignee_id];
  return params.assignee_ids;
}

/**
 * `filter_assignees_using_checks`: `[0]` unassigns everyone; otherwise the ids of users who may read
 * the issue; when none may, the parameter is dropped (undefined: no change).
 */
function filterAssignees(
  ids: number[] | null | undefined,
  ctx: WriteContext,
  project: ProjectWithAccess,
  issue: { confidential: boolean; authorId: number | null; assigneeIds: number[] } | null,
): number[] | undefined {
  if (ids === undefined) return undefined;
  if (ids === null || ids.length === 0) return [];
  if (ids.length === 1 && ids[0] === 0) return [];
  const readers = ids.filter((id, i) => {
    const user = ctx.users.find((u) => u.id === id);
    return ids.indexOf(id) === i && !!user && userCanReadIssue(user, project, issue);
  });
  return readers.length ? readers : undefined;
}

/** `find_or_create_label_ids`: available labels by title (the project's first), else new project labels. */
function resolveLabels(titles: string[], ctx: WriteContext, canCreate: boolean): { ids: number[]; create: string[] } {
  const ids: number[] = [];
  const create: string[] = [];
  for (const title of titles) {
    const label = ctx.labels.find((l) => l.title === title);
    if (label) {
      if (!ids.includes(label.id)) ids.push(label.id);
    } else if (canCreate && [...title].length <= 255 && !create.includes(title)) create.push(title);
  }
  return { ids, create };
}

/**
 * TodoService#new_issuable / #reassigned_assignable / #update_issue: `assigned` to-dos for new
 * assignees, then `directly_addressed` and `mentioned` ones for users named in the title or
 * description who may read the issue; each user gets one (create_todos skips pending ones).
 */
function todosFor(
  opts: { assigned: number[]; text: MentionText | null; skipUsernames: string[] },
  ctx: WriteContext,
  canRead: (u: ContextUser) => boolean,
): IssueEffects["todos"] {
  const todos: IssueEffects["todos"] = opts.assigned.map((userId) => ({ userId, action: TodoAction.assigned }));
  if (opts.text === null) return todos;
  const taken = new Set(opts.assigned);
  const skip = new Set(opts.skipUsernames);
  // Each mentionable attribute (title, description) is scanned on its own for a leading address.
  const direct = new Set([...directlyAddressedUsernames(opts.text.title), ...directlyAddressedUsernames(opts.text.description)]);
  for (const name of mentions(opts.text)) {
    if (skip.has(name)) continue;
    const user = ctx.users.find((u) => u.username.toLowerCase() === name);
    if (!user || taken.has(user.id) || !canRead(user)) continue;
    taken.add(user.id);
    todos.push({ userId: user.id, action: direct.has(name) ? TodoAction.directly_addressed : TodoAction.mentioned });
  }
  // Directly addressed users get theirs before the mentioned ones, as GitLab creates them.
  return [...todos.filter((t) => t.action !== TodoAction.mentioned), ...todos.filter((t) => t.action === TodoAction.mentioned)];
}

/** The mentionable attributes of an issue (`attr_mentionable :title, :description`). */
type MentionText = { title: string; description: string | null };
const mentions = (t: MentionText) => [...new Set([...mentionedUsernames(t.title), ...mentionedUsernames(t.description)])];

export type RequestInfo = { userAgent: string | null; ipAddress: string };

/** `POST /projects/:id/issues`: creates the issue; returns its id (the route loads and presents it). */
export async function createIssue(
  db: Executor,
  project: ProjectWithAccess,
  actor: Actor,
  params: CreateParams,
  request: RequestInfo,
): Promise<number> {
  const perms = permissions(actor, project, true);
  const title = params.title.trim();
  // EE filter_params: weight needs `admin_issue`.
  const weight = perms.admin ? params.weight : undefined;
  throwIfInvalid(issueErrors({ title, description: params.description, weight }));

  const assigneeAsk = perms.metadata ? requestedAssignees(params) : undefined;
  const labelsAsk = perms.metadata ? labelTitles(params.labels ?? []).concat(labelTitles(params.add_labels)) : [];
  const removeAsk = perms.metadata ? labelTitles(params.remove_labels) : [];
  const text = { title, description: params.description ?? null };
  const milestoneAsk = perms.metadata && params.milestone_id ? params.milestone_id : null;
  const ctx = await q.loadWriteContext(db, project, {
    userIds: assigneeAsk ?? [],
    usernames: mentions(text),
    milestoneId: milestoneAsk,
    labelTitles: [...labelsAsk, ...removeAsk],
  });

  const confidential = params.confidential ?? false;
  const assignees = filterAssignees(assigneeAsk, ctx, project, null) ?? [];
  const removed = resolveLabels(removeAsk, ctx, false).ids;
  const labels = resolveLabels(labelsAsk.filter((t) => !removeAsk.includes(t)), ctx, perms.createLabels);
  const dueDate = perms.metadata ? castDate(params.due_date) : null;
  const milestoneId = milestoneAsk === null ? null : ctx.milestoneId;
  const issueType = issueTypeAllowed(params.issue_type, perms) ? params.issue_type : "issue";
  const usernames = new Map(ctx.users.map((u) => [u.id, u.username]));
  const readRule = { confidential, authorId: actor.user.id, assigneeIds: assignees };

  const effects = q.noEffects();
  effects.createLabels = labels.create;
  effects.addLabelIds = labels.ids.filter((id) => !removed.includes(id));
  effects.addAssigneeIds = assignees;
  if (milestoneId !== null) effects.milestoneEvent = { action: "add", milestoneId };
  if (dueDate) effects.notes.push(dueDateNote(dueDate));
  const assigneeNote = assigneesNote(
    [...assignees].sort((a, b) => a - b).map((id) => usernames.get(id)!),
    [],
  );
  if (assigneeNote) effects.notes.push(assigneeNote);
  effects.todos = todosFor({ assigned: assignees, text, skipUsernames: [] }, ctx, (u) => userCanReadIssue(u, project, readRule));
  effects.openIssuesDelta = 1;
  if (request.userAgent) effects.userAgent = { userAgent: request.userAgent, ipAddress: request.ipAddress };

  const now = new Date();
  try {
    return await q.insertIssue(
      db,
      {
        projectId: project.id,
        iid: perms.timestamps ? (params.iid ?? null) : null,
        title,
        description: params.description ?? null,
        confidential,
        authorId: actor.user.id,
        milestoneId,
        dueDate,
        weight: weight ?? null,
        issueType,
        discussionLocked: perms.metadata ? (params.discussion_locked ?? null) : null,
        createdAt: perms.timestamps && params.created_at ? params.created_at : now,
        updatedAt: now,
      },
      effects,
      now,
    );
  } catch (e) {
    // `rescue ::ActiveRecord::RecordNotUnique`: a chosen iid that is taken.
    if (q.uniqueViolation(e)) throw apiError("Duplicated issue", 409);
    throw e;
  }
}

/** `PUT /projects/:id/issues/:issue_iid`: applies what was sent and may be changed by the caller. */
export async function updateIssue(
  db: Executor,
  project: ProjectWithAccess,
  actor: Actor,
  current: IssueRow,
  params: UpdateParams,
  sent: (key: string) => boolean,
): Promise<boolean> {
  const perms = permissions(actor, project, false);
  const changes: IssueChanges = {};
  const effects = q.noEffects();
  const notes: string[] = [];

  const title = params.title?.trim();
  const weight = perms.admin && sent("weight") ? (params.weight ?? null) : undefined;
  throwIfInvalid(issueErrors({ title, description: params.description, weight }));

  const assigneeAsk = perms.metadata && (sent("assignee_ids") || sent("assignee_id")) ? requestedAssignees(params) : undefined;
  const replaceLabels = perms.metadata && params.labels !== undefined;
  const addAsk = perms.metadata ? labelTitles(params.add_labels) : [];
  const removeAsk = perms.metadata ? labelTitles(params.remove_labels) : [];
  const setAsk = replaceLabels ? labelTitles(params.labels) : [];
  const newTitle = title !== undefined && title !== current.title ? title : undefined;
  const newDescription = sent("description") && (params.description ?? null) !== current.description ? (params.description ?? null) : undefined;
  const textChanged = newTitle !== undefined || newDescription !== undefined;
  const text = { title: newTitle ?? current.title, description: newDescription !== undefined ? newDescription : current.description };
  const oldMentions = mentions(current);
  const milestoneAsk = perms.metadata && sent("milestone_id") && params.milestone_id ? params.milestone_id : null;
  const needsContext = assigneeAsk !== undefined || setAsk.length + addAsk.length + removeAsk.length > 0 || milestoneAsk !== null || textChanged;
  const ctx: WriteContext = needsContext
    ? await q.loadWriteContext(db, project, {
        userIds: assigneeAsk ?? [],
        usernames: textChanged ? mentions(text) : [],
        milestoneId: milestoneAsk,
        labelTitles: [...setAsk, ...addAsk, ...removeAsk],
      })
    : { users: [], milestoneId: null, labels: [] };

  // IssuableBaseService#update then CommonSystemNotesService: title, description, lock, due date.
  if (newTitle !== undefined) {
    changes.title = newTitle;
    notes.push(titleNote(current.title, newTitle));
  }
  if (newDescription !== undefined) {
    changes.description = newDescription;
    notes.push(DESCRIPTION_NOTE);
  }
  if (perms.metadata && sent("discussion_locked") && (params.discussion_locked ?? null) !== current.discussionLocked) {
    changes.discussionLocked = params.discussion_locked ?? null;
    notes.push(lockNote(!!params.discussion_locked));
  }
  if (perms.metadata && sent("due_date")) {
    const dueDate = castDate(params.due_date);
    if (dueDate !== current.dueDate) {
      changes.dueDate = dueDate;
      notes.push(dueDateNote(dueDate));
    }
  }
  if (weight !== undefined && weight !== current.weight) changes.weight = weight;
  // `set_confidentiality` on an existing issue: reporters and up (any creator may set it on create).
  if (perms.metadata && params.confidential !== undefined && params.confidential !== current.confidential)
    changes.confidential = params.confidential;
  if (issueTypeAllowed(params.issue_type, perms) && params.issue_type !== current.issueType) changes.issueType = params.issue_type;

  // Milestone: 0, null or a milestone the project cannot use removes it (`filter_milestone`).
  if (perms.metadata && sent("milestone_id")) {
    const milestoneId = milestoneAsk === null ? null : ctx.milestoneId;
    if (milestoneId !== current.milestoneId) {
      changes.milestoneId = milestoneId;
      effects.milestoneEvent =
        milestoneId === null ? { action: "remove", milestoneId: current.milestoneId! } : { action: "add", milestoneId };
    }
  }

  // Labels: `labels` replaces, then `add_labels` adds and `remove_labels` removes (process_label_ids).
  if (perms.metadata && (replaceLabels || addAsk.length || removeAsk.length)) {
    const currentIds = current.labels.map((l) => l.id);
    const base = replaceLabels ? resolveLabels(setAsk, ctx, perms.createLabels) : { ids: currentIds, create: [] };
    const added = resolveLabels(addAsk, ctx, perms.createLabels);
    const removed = resolveLabels(removeAsk, ctx, false).ids;
    const wanted = [...new Set([...base.ids, ...added.ids])].filter((id) => !removed.includes(id));
    effects.createLabels = [...new Set([...base.create, ...added.create])].filter((t) => !removeAsk.includes(t));
    effects.addLabelIds = wanted.filter((id) => !currentIds.includes(id));
    effects.removeLabelIds = currentIds.filter((id) => !wanted.includes(id));
  }

  // Assignees: a system note and `assigned` to-dos for the new ones.
  const currentAssignees = current.assignees.map((a) => a.id);
  const readRule = {
    confidential: changes.confidential ?? current.confidential,
    authorId: current.authorId,
    assigneeIds: currentAssignees,
  };
  const assignees = filterAssignees(assigneeAsk, ctx, project, readRule);
  let newAssignees = currentAssignees;
  if (assignees !== undefined) {
    effects.addAssigneeIds = assignees.filter((id) => !currentAssignees.includes(id));
    effects.removeAssigneeIds = currentAssignees.filter((id) => !assignees.includes(id));
    newAssignees = [...currentAssignees.filter((id) => assignees.includes(id)), ...effects.addAssigneeIds];
    const names = new Map([...current.assignees.map((a) => [a.id, a.username] as const), ...ctx.users.map((u) => [u.id, u.username] as const)]);
    // `noteable.assignees - old_assignees`: in the order issues list their assignees (by user id).
    const byId = (ids: number[]) => [...ids].sort((a, b) => a - b).map((id) => names.get(id)!);
    const note = assigneesNote(byId(effects.addAssigneeIds), byId(effects.removeAssigneeIds));
    if (note) notes.push(note);
  }
  if (changes.confidential !== undefined) notes.push(confidentialityNote(changes.confidential));

  // One clock reading for the whole update: closed_at equals updated_at, as the tests and clients expect.
  const now = new Date();
  // State events (Issues::CloseService, Issues::ReopenService).
  if (params.state_event === "close" && current.state === "opened") {
    Object.assign(changes, { state: "closed", closedAt: now, closedById: actor.user.id });
    effects.stateEvent = "closed";
    effects.openIssuesDelta = -1;
  } else if (params.state_event === "reopen" && current.state === "closed") {
    Object.assign(changes, { state: "opened", closedAt: null, closedById: null });
    effects.stateEvent = "reopened";
    effects.openIssuesDelta = 1;
  }

  const labelsChanged = effects.addLabelIds.length + effects.removeLabelIds.length + effects.createLabels.length > 0;
  const assigneesChanged = effects.addAssigneeIds.length + effects.removeAssigneeIds.length > 0;
  if (Object.keys(changes).length === 0 && !labelsChanged && !assigneesChanged) return false;

  const finalRule = { ...readRule, assigneeIds: newAssignees };
  effects.notes = notes;
  effects.todos = todosFor(
    { assigned: effects.addAssigneeIds, text: textChanged ? text : null, skipUsernames: oldMentions },
    ctx,
    (u) => userCanReadIssue(u, project, finalRule),
  );
  // TodoService#resolve_todos_for_target on meaningful changes (`has_changes?`) and on close.
  effects.resolveActorTodos =
    textChanged || changes.milestoneId !== undefined || labelsChanged || assigneesChanged || effects.stateEvent === "closed";
  changes.updatedAt = perms.timestamps && params.updated_at ? params.updated_at : now;
  await q.updateIssue(db, { id: current.id, projectId: project.id, state: current.state }, changes, effects, actor.user.id, now);
  return true;
}

/** Issuable::DestroyService: the issue and everything hanging on it, in one statement. */
export async function deleteIssue(db: Executor, found: { id: number; projectId: number; state: string }): Promise<void> {
  await q.deleteIssue(db, found);
}
