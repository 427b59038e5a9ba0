import type { ProjectWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { apiError, validation } from "../kernel/errors";
import type { IssueRow } from "../shared/issuables/issue_preload";
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
