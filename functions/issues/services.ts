import { allowed, type ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { apiError, validation } from "../kernel/errors";
import type { IssueRow } from "../shared/issuables/issue_preload";
import { newDiscussionId } from "../shared/issuables/system_notes";
import { copyIssueAwards } from "../shared/issuables/award_writes";
import { copyIssueNotes } from "../shared/issuables/note_writes";
import type { CreateParams, UpdateParams } from "./params";
import * as q from "./queries";
import {
  assigneesNote,
  castDate,
  dueDateNote,
  filterAssignees,
  issueErrors,
  issueTypeAllowed,
  labelTitles,
  mentions,
  permissions,
  requestedAssignees,
  resolveLabels,
  todosFor,
  userCanReadIssue,
} from "./rules";
import { EMPTY_CONTEXT, issueUpdateNeeds, planIssueUpdate } from "./update_plan";

function throwIfInvalid(errors: Record<string, string[]>) {
  if (Object.keys(errors).length) throw validation(errors);
}

/**
 * Issues::CreateService, Issues::UpdateService (with CloseService and ReopenService) and
 * Issuable::DestroyService (app/services/issues/*, app/services/issuable_base_service.rb): decide what
 * changes here, then write it in one statement (queries/write.ts).
 */

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
    iterationId: perms.metadata && params.iteration_id ? params.iteration_id : null,
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
        iterationId: ctx.iterationId,
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

/**
 * `PUT /projects/:id/issues/:issue_iid`: applies what was sent and may be changed by the caller, in
 * three steps: what the plan needs (pure, update_plan.ts), one read of it, the plan (pure), one write.
 * Returns false when nothing changes (no write at all).
 */
export async function updateIssue(
  db: Executor,
  project: ProjectWithAccess,
  actor: Actor,
  current: IssueRow,
  params: UpdateParams,
  sent: (key: string) => boolean,
): Promise<boolean> {
  const request = { params, sent };
  const needs = issueUpdateNeeds(current, request, actor, project);
  throwIfInvalid(needs.errors);
  const loaded = needs.ask ? await q.loadWriteContext(db, project, needs.ask) : EMPTY_CONTEXT;
  const now = new Date();
  const plan = planIssueUpdate(current, request, actor, { project, loaded, now });
  if (!plan) return false;
  await q.updateIssue(db, { id: current.id, projectId: project.id, state: current.state }, plan.changes, plan.effects, actor.user.id, now);
  return true;
}

/** Issuable::DestroyService: the issue and everything hanging on it, in one statement. */
export async function deleteIssue(db: Executor, found: { id: number; projectId: number; state: string }): Promise<void> {
  await q.deleteIssue(db, found);
}

/** Issue types that may be moved or cloned (IssueAvailableFeatures `move_and_clone`). */
const MOVABLE_TYPES = ["issue", "incident"];

/** `Issue#to_reference(from_project)`: `#1`, `proj#1` in the same namespace, else `group/proj#1`. */
function issueReference(iid: number, project: { id: number; path: string; fullPath: string; namespaceId: number }, from: { id: number; namespaceId: number }): string {
  if (project.id === from.id) return `#${iid}`;
  return project.namespaceId === from.namespaceId ? `${project.path}#${iid}` : `${project.fullPath}#${iid}`;
}

export type CloneKind = "move" | "clone";

/**
 * Issues::MoveService and Issues::CloneService (Issuable::Clone::BaseService), in their order of
 * refusals (400 with the service's message), then one transaction: the new issue in `target` with the
 * next iid (labels and milestone matched by title there, assignees, confidentiality, dates, estimate
 * kept; a move keeps the author and the creation time, a clone is the caller's), award emoji and
 * (move, or clone `with_notes`) every note copied, the "moved/cloned from" system note on the new issue
 * and "moved/cloned to" on the original; a move also closes the original (state event, no note) and
 * sets its `moved_to_id`. Returns the new issue's id.
 */
export async function copyIssue(
  db: Executor,
  kind: CloneKind,
  source: ProjectWithAccess,
  target: ProjectWithAccess,
  actor: Actor,
  original: IssueRow,
  withNotes: boolean,
): Promise<number> {
  if (!MOVABLE_TYPES.includes(original.issueType))
    throw apiError(`Cannot ${kind} issues of '${original.issueType}' type.`, 400);
  // Issue#can_move? / #can_clone?: admin_issue on both projects, and a moved issue moves no more.
  const may = allowed(actor, "admin_issue", source) && allowed(actor, "admin_issue", target) && (kind === "clone" || original.movedToId === null);
  if (!may) throw apiError(`Cannot ${kind} issue due to insufficient permissions!`, 400);
  if (kind === "move" && source.id === target.id) throw apiError("Cannot move issue to project it originates from!", 400);
  // CloneService's "pending deletion" refusal cannot happen: projects are deleted at once here.

  const ctx = await q.loadCloneContext(db, original.id, target, {
    labelTitles: original.labels.map((l) => l.title),
    milestoneTitle: original.milestone?.title ?? null,
  });
  const now = new Date();
  // Issuable::Clone::BaseService#relative_position: kept inside the same top-level namespace only.
  const sameRoot = source.namespace.traversalIds[0] === target.namespace.traversalIds[0];
  const effects = q.noEffects();
  effects.addLabelIds = ctx.labelIds;
  effects.addAssigneeIds = original.assignees.map((a) => a.id);
  effects.openIssuesDelta = original.state === "opened" ? 1 : 0;
  const discussionIds = new Map(ctx.discussionIds.map((id) => [id, newDiscussionId()]));
  const copyNotes = kind === "move" || withNotes;
  const from = { id: source.id, path: source.path, fullPath: source.fullPath, namespaceId: source.namespaceId };
  const to = { id: target.id, path: target.path, fullPath: target.fullPath, namespaceId: target.namespaceId };
  const verb = kind === "move" ? "moved" : "cloned";

  return db.transaction(async (tx) => {
    const id = await q.insertIssue(
      tx,
      {
        projectId: target.id,
        iid: null,
        title: original.title,
        description: original.description,
        confidential: original.confidential,
        // A move keeps the author and, as `moved_issue`, the creation time; a clone is the caller's.
        authorId: kind === "move" ? (original.authorId ?? actor.user.id) : actor.user.id,
        milestoneId: ctx.milestoneId,
        dueDate: original.dueDate,
        weight: original.weight,
        issueType: original.issueType,
        discussionLocked: original.discussionLocked,
        createdAt: kind === "move" ? original.createdAt : now,
        updatedAt: kind === "move" ? original.updatedAt : now,
        copied: {
          state: original.state,
          closedAt: original.closedAt,
          closedById: original.closedById,
          relativePosition: sameRoot ? original.relativePosition : null,
          timeEstimate: original.timeEstimate,
          healthStatus: original.healthStatus,
        },
      },
      effects,
      now,
    );
    const newIid = (await q.issueIidById(tx, id))!;
    await copyIssueAwards(tx, original.id, id);
    if (copyNotes) await copyIssueNotes(tx, original.id, id, target.id, discussionIds);
    // The new issue's note comes after the copied ones (create_notes runs last).
    const toNew = q.noEffects();
    toNew.notes.push(`${verb} from ${issueReference(original.iid, original.project, to)}`);
    await q.updateIssue(tx, { id, projectId: target.id, state: original.state }, { updatedAt: now }, toNew, actor.user.id, now);

    const toOld = q.noEffects();
    toOld.notes.push(`${verb} to ${issueReference(newIid, to, from)}`);
    // The system note touches the original (Note#touch_noteable).
    const changes: q.IssueChanges = { updatedAt: now };
    if (kind === "move") {
      changes.movedToId = id;
      // Issues::CloseService (notifications and note off): only an open issue changes state.
      if (original.state === "opened") {
        Object.assign(changes, { state: "closed", closedAt: now, closedById: actor.user.id });
        toOld.stateEvent = "closed";
        toOld.openIssuesDelta = -1;
        toOld.resolveActorTodos = true;
      }
    }
    await q.updateIssue(tx, { id: original.id, projectId: source.id, state: original.state }, changes, toOld, actor.user.id, now);
    return id;
  });
}

/** RelativePositioning::IDEAL_DISTANCE: the gap left between issues placed at an end. */
const IDEAL_DISTANCE = 512;
const MAX_POSITION = 2147483647;

/**
 * Issues::ReorderService + IssuableBaseService#handle_move_between_ids + RelativePositioning#move_between:
 * ids of 0 or below count as absent; a named neighbour outside the positioning scope is a failure (the
 * route's 422). `move_before_id` is the neighbour the issue lands after and `move_after_id` the one it
 * lands before (GitLab's `move_between(issuable_before, issuable_after)`); with both, the issue goes
 * between them whatever their order. Too small a gap shifts the issues above. One transaction.
 */
export async function reorderIssue(
  db: Executor,
  project: ProjectWithAccess,
  issueId: number,
  ask: { moveAfterId: number | undefined; moveBeforeId: number | undefined },
): Promise<boolean> {
  const positive = (v: number | undefined) => (v !== undefined && v > 0 ? v : null);
  const afterId = positive(ask.moveAfterId);
  const beforeId = positive(ask.moveBeforeId);
  if (afterId === null && beforeId === null) return false;
  const scope = q.positioningScope(project);
  return db.transaction(async (tx) => {
    const ids = [afterId, beforeId].filter((v): v is number => v !== null);
    const found = await q.lockNeighbours(tx, scope, ids, IDEAL_DISTANCE);
    if (ids.some((id) => !found.has(id))) return false;
    let lhs = beforeId === null ? null : found.get(beforeId)!;
    let rhs = afterId === null ? null : found.get(afterId)!;
    if (lhs !== null && rhs !== null && lhs > rhs) [lhs, rhs] = [rhs, lhs];
    if (lhs !== null && rhs === null) rhs = await q.nextPosition(tx, scope, lhs, "after", issueId);
    else if (lhs === null && rhs !== null) lhs = await q.nextPosition(tx, scope, rhs, "before", issueId);
    let position: number;
    if (lhs !== null && rhs !== null) {
      if (rhs - lhs < 2) {
        // No room between equal or adjacent neighbours: the upper one and everything above move up.
        await q.shiftUp(tx, scope, rhs, IDEAL_DISTANCE * 2, issueId);
        rhs += IDEAL_DISTANCE * 2;
      }
      position = Math.floor((lhs + rhs) / 2);
    } else if (lhs !== null) position = Math.min(lhs + IDEAL_DISTANCE, MAX_POSITION);
    else position = rhs! - IDEAL_DISTANCE;
    await q.setPosition(tx, issueId, position);
    return true;
  });
}
