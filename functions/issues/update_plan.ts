import type { ProjectWithAccess } from "../kernel/abilities";
import type { Actor } from "../kernel/env";
import type { IssueRow } from "../shared/issuables/issue_preload";
import type { UpdateParams } from "./params";
import { noEffects, type IssueChanges, type IssueEffects, type WriteContext, type WriteContextAsk } from "./queries/write";
import {
  assigneesNote,
  castDate,
  confidentialityNote,
  DESCRIPTION_NOTE,
  dueDateNote,
  filterAssignees,
  issueErrors,
  issueTypeAllowed,
  labelTitles,
  lockNote,
  mentions,
  permissions,
  requestedAssignees,
  resolveLabels,
  titleNote,
  todosFor,
  userCanReadIssue,
} from "./rules";

/**
 * The planner of `PUT /projects/:id/issues/:issue_iid` (Issues::UpdateService with CloseService and
 * ReopenService, IssuableBaseService#update, CommonSystemNotesService, TodoService#update_issue). Pure:
 * no I/O and no clock. services.ts runs it as: `issueUpdateNeeds` (validation errors and what must be
 * read), one read (queries/write.ts#loadWriteContext), `planIssueUpdate`, one write (queries/write.ts#
 * updateIssue, which writes the notes, events and to-dos through functions/shared/issuables/).
 */

/** The request: the parsed parameters and which keys the client sent (a sent null differs from absent). */
export type IssueUpdateRequest = { params: UpdateParams; sent: (key: string) => boolean };

/** What the planner reads: the project (with the caller's access), what was loaded, the clock reading. */
export type IssueUpdateContext = { project: ProjectWithAccess; loaded: WriteContext; now: Date };

/** The columns to set, and everything written with them (labels, assignees, notes, events, to-dos). */
export type IssueUpdatePlan = { changes: IssueChanges; effects: IssueEffects };

export const EMPTY_CONTEXT: WriteContext = { users: [], milestoneId: null, iterationId: null, labels: [] };

/** The parts of the request the caller may apply, shared by both steps so they cannot disagree. */
function asks(current: IssueRow, { params, sent }: IssueUpdateRequest, actor: Actor, project: ProjectWithAccess) {
  const perms = permissions(actor, project, false);
  const title = params.title?.trim();
  const newTitle = title !== undefined && title !== current.title ? title : undefined;
  const newDescription = sent("description") && (params.description ?? null) !== current.description ? (params.description ?? null) : undefined;
  const replaceLabels = perms.metadata && params.labels !== undefined;
  return {
    perms,
    title,
    // EE filter_params: weight needs `admin_issue`.
    weight: perms.admin && sent("weight") ? (params.weight ?? null) : undefined,
    assignees: perms.metadata && (sent("assignee_ids") || sent("assignee_id")) ? requestedAssignees(params) : undefined,
    replaceLabels,
    setLabels: replaceLabels ? labelTitles(params.labels) : [],
    addLabels: perms.metadata ? labelTitles(params.add_labels) : [],
    removeLabels: perms.metadata ? labelTitles(params.remove_labels) : [],
    milestone: perms.metadata && sent("milestone_id") && params.milestone_id ? params.milestone_id : null,
    iteration: perms.metadata && sent("iteration_id") && params.iteration_id ? params.iteration_id : null,
    newTitle,
    newDescription,
    textChanged: newTitle !== undefined || newDescription !== undefined,
    text: { title: newTitle ?? current.title, description: newDescription !== undefined ? newDescription : current.description },
  };
}

/**
 * Step one: the model's validation errors (empty when valid), and what the plan needs loaded — null
 * when nothing, so an update of plain columns reads nothing more.
 */
export function issueUpdateNeeds(
  current: IssueRow,
  request: IssueUpdateRequest,
  actor: Actor,
  project: ProjectWithAccess,
): { errors: Record<string, string[]>; ask: WriteContextAsk | null } {
  const a = asks(current, request, actor, project);
  const errors = issueErrors({ title: a.title, description: request.params.description, weight: a.weight });
  const labelTitles = [...a.setLabels, ...a.addLabels, ...a.removeLabels];
  const needed = a.assignees !== undefined || labelTitles.length > 0 || a.milestone !== null || a.iteration !== null || a.textChanged;
  const ask = needed
    ? { userIds: a.assignees ?? [], usernames: a.textChanged ? mentions(a.text) : [], milestoneId: a.milestone, iterationId: a.iteration, labelTitles }
    : null;
  return { errors, ask };
}

/** Step two: what changes and what follows; null when nothing changes (GitLab then writes nothing). */
export function planIssueUpdate(
  current: IssueRow,
  request: IssueUpdateRequest,
  actor: Actor,
  { project, loaded: ctx, now }: IssueUpdateContext,
): IssueUpdatePlan | null {
  const { params, sent } = request;
  const a = asks(current, request, actor, project);
  const perms = a.perms;
  const changes: IssueChanges = {};
  const effects = noEffects();
  const notes: string[] = [];

  // IssuableBaseService#update then CommonSystemNotesService: title, description, lock, due date.
  if (a.newTitle !== undefined) {
    changes.title = a.newTitle;
    notes.push(titleNote(current.title, a.newTitle));
  }
  if (a.newDescription !== undefined) {
    changes.description = a.newDescription;
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
  if (a.weight !== undefined && a.weight !== current.weight) changes.weight = a.weight;
  // `set_confidentiality` on an existing issue: reporters and up (any creator may set it on create).
  if (perms.metadata && params.confidential !== undefined && params.confidential !== current.confidential)
    changes.confidential = params.confidential;
  if (issueTypeAllowed(params.issue_type, perms) && params.issue_type !== current.issueType) changes.issueType = params.issue_type;

  // Milestone: 0, null or a milestone the project cannot use removes it (`filter_milestone`).
  if (perms.metadata && sent("milestone_id")) {
    const milestoneId = a.milestone === null ? null : ctx.milestoneId;
    if (milestoneId !== current.milestoneId) {
      changes.milestoneId = milestoneId;
      effects.milestoneEvent =
        milestoneId === null ? { action: "remove", milestoneId: current.milestoneId! } : { action: "add", milestoneId };
    }
  }

  // Iteration: 0, null or an iteration outside the project's groups removes it (as milestones do).
  if (perms.metadata && sent("iteration_id")) {
    const iterationId = a.iteration === null ? null : ctx.iterationId;
    if (iterationId !== current.iterationId) changes.iterationId = iterationId;
  }

  // Labels: `labels` replaces, then `add_labels` adds and `remove_labels` removes (process_label_ids).
  if (perms.metadata && (a.replaceLabels || a.addLabels.length || a.removeLabels.length)) {
    const currentIds = current.labels.map((l) => l.id);
    const base = a.replaceLabels ? resolveLabels(a.setLabels, ctx, perms.createLabels) : { ids: currentIds, create: [] };
    const added = resolveLabels(a.addLabels, ctx, perms.createLabels);
    const removed = resolveLabels(a.removeLabels, ctx, false).ids;
    const wanted = [...new Set([...base.ids, ...added.ids])].filter((id) => !removed.includes(id));
    effects.createLabels = [...new Set([...base.create, ...added.create])].filter((t) => !a.removeLabels.includes(t));
    effects.addLabelIds = wanted.filter((id) => !currentIds.includes(id));
    effects.removeLabelIds = currentIds.filter((id) => !wanted.includes(id));
  }

  // Assignees: a system note and `assigned` to-dos for the new ones.
  const currentAssignees = current.assignees.map((x) => x.id);
  const readRule = {
    confidential: changes.confidential ?? current.confidential,
    authorId: current.authorId,
    assigneeIds: currentAssignees,
  };
  const assignees = filterAssignees(a.assignees, ctx, project, readRule);
  let newAssignees = currentAssignees;
  if (assignees !== undefined) {
    effects.addAssigneeIds = assignees.filter((id) => !currentAssignees.includes(id));
    effects.removeAssigneeIds = currentAssignees.filter((id) => !assignees.includes(id));
    newAssignees = [...currentAssignees.filter((id) => assignees.includes(id)), ...effects.addAssigneeIds];
    const names = new Map([...current.assignees.map((x) => [x.id, x.username] as const), ...ctx.users.map((u) => [u.id, u.username] as const)]);
    // `noteable.assignees - old_assignees`: in the order issues list their assignees (by user id).
    const byId = (ids: number[]) => [...ids].sort((x, y) => x - y).map((id) => names.get(id)!);
    const note = assigneesNote(byId(effects.addAssigneeIds), byId(effects.removeAssigneeIds));
    if (note) notes.push(note);
  }
  if (changes.confidential !== undefined) notes.push(confidentialityNote(changes.confidential));

  // State events (Issues::CloseService, Issues::ReopenService). One clock reading for the whole
  // update: closed_at equals updated_at, as the tests and clients expect.
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
  if (Object.keys(changes).length === 0 && !labelsChanged && !assigneesChanged) return null;

  const finalRule = { ...readRule, assigneeIds: newAssignees };
  effects.notes = notes;
  effects.todos = todosFor(
    { assigned: effects.addAssigneeIds, text: a.textChanged ? a.text : null, skipUsernames: mentions(current) },
    ctx,
    (u) => userCanReadIssue(u, project, finalRule),
  );
  // TodoService#resolve_todos_for_target on meaningful changes (`has_changes?`) and on close.
  effects.resolveActorTodos =
    a.textChanged || changes.milestoneId !== undefined || labelsChanged || assigneesChanged || effects.stateEvent === "closed";
  changes.updatedAt = perms.timestamps && params.updated_at ? params.updated_at : now;
  return { changes, effects };
}
