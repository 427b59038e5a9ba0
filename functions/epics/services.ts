import type { Epic } from "../../db/schema";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { recordNotFound, validation } from "../kernel/errors";
import type { EpicRow } from "./entities";
import * as q from "./queries";
import type { HierarchyFacts } from "./queries";

/** Epic::MAX_HIERARCHY_DEPTH: an epic tree has at most 7 levels. */
export const MAX_HIERARCHY_DEPTH = 7;

export const DEPTH_EXCEEDED = `This epic cannot be added. One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`;

/**
 * Epic#validate_parent (ee/app/models/ee/epic.rb), in GitLab's order: the reason `child` may not get
 * `parent`, or null when it may. Pure: the caller loads the facts in one statement.
 */
export function parentError(parent: Epic, child: Epic, facts: HierarchyFacts): string | null {
  if (parent.id === child.id) return "This epic cannot be added. An epic cannot be added to itself.";
  if (child.parentId === parent.id) return "This epic cannot be added. It is already assigned to the parent epic.";
  if (facts.childIsAncestorOfParent) return "This epic cannot be added. It is already an ancestor of the parent epic.";
  if (!facts.childGroupInParentTree)
    return "This epic cannot be added. An epic must belong to the same group or subgroup as its parent epic.";
  if (parent.confidential && !child.confidential)
    return "This epic cannot be added. A non-confidential epic cannot be added to a confidential parent epic.";
  // `level_depth_exceeded?`: the child's subtree plus the parent's ancestors reach the limit.
  if (facts.childDepth + facts.parentAncestors >= MAX_HIERARCHY_DEPTH) return DEPTH_EXCEEDED;
  return null;
}

/**
 * `epic.move_between(before, after)`: the new order of a parent's children once `childId` sits right
 * after `beforeId` or right before `afterId` (`move_before_id` is the sibling positioned before it).
 * `siblings` is the current order without the child; null when a named sibling is not there.
 */
export function orderAfterMove(siblings: number[], childId: number, beforeId?: number, afterId?: number): number[] | null {
  if (beforeId !== undefined && !siblings.includes(beforeId)) return null;
  if (afterId !== undefined && !siblings.includes(afterId)) return null;
  const at = beforeId !== undefined ? siblings.indexOf(beforeId) + 1 : afterId !== undefined ? siblings.indexOf(afterId) : 0;
  return [...siblings.slice(0, at), childId, ...siblings.slice(at)];
}

/** Rails' date cast of a `*_date_fixed` string: a real calendar date, else nil. */
export function castDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const match = /^(\d{4})-(\d{1,2})-(\d{1,2})/.exec(value.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

export type EpicUpdateParams = {
  title?: string;
  description?: string;
  confidential?: boolean;
  updated_at?: Date;
  start_date_fixed?: string;
  start_date_is_fixed?: boolean;
  due_date_fixed?: string;
  due_date_is_fixed?: boolean;
  state_event?: "close" | "reopen";
  parent_id?: number;
};

/**
 * Epics::UpdateService's checks and changes (ee/app/services/epics/update_service.rb and the Epic
 * validations): the columns to write, or a 400 with GitLab's validation body.
 */
export async function planEpicUpdate(
  db: Executor,
  actor: Actor,
  group: GroupWithAccess,
  found: EpicRow,
  params: EpicUpdateParams,
  maySetUpdatedAt: boolean,
): Promise<q.EpicChanges> {
  const changes: q.EpicChanges = {};
  if (params.title !== undefined) {
    const title = params.title.trim();
    if (title === "") throw validation({ title: ["can't be blank"] });
    if ([...title].length > 255) throw validation({ title: ["is too long (maximum is 255 characters)"] });
    changes.title = title;
  }
  if (params.description !== undefined) changes.description = params.description;
  if (params.start_date_fixed !== undefined) changes.startDate = castDate(params.start_date_fixed);
  if (params.due_date_fixed !== undefined) changes.dueDate = castDate(params.due_date_fixed);
  if (params.start_date_is_fixed !== undefined) changes.startDateIsFixed = params.start_date_is_fixed;
  if (params.due_date_is_fixed !== undefined) changes.dueDateIsFixed = params.due_date_is_fixed;
  if (params.updated_at && maySetUpdatedAt) changes.updatedAt = params.updated_at;
  if (params.state_event === "close" && found.state === "opened") Object.assign(changes, { state: "closed", closedAt: new Date(), closedById: actor.user.id });
  if (params.state_event === "reopen" && found.state === "closed") Object.assign(changes, { state: "opened", closedAt: null, closedById: null });

  const confidential = params.confidential ?? found.confidential;
  let parent: q.EpicParent | null = null;
  if (params.parent_id !== undefined) {
    const next = await q.findEpicInGroupTree(db, group, actor, params.parent_id);
    if (!next) throw recordNotFound();
    const reason = next.id === found.parentId ? null : parentError(next, { ...found, confidential }, await q.hierarchyFacts(db, next, found));
    if (reason) throw validation({ parent: [reason] });
    changes.parentId = next.id;
    parent = next;
  } else if (found.parentId !== null && params.confidential === false) {
    parent = await q.parentOf(db, found.parentId);
  }
  if (params.confidential === true) {
    // Epic#validate_confidential_issues_and_subepics.
    const open = await q.openDescendants(db, found.id);
    if (open.issues) throw validation({ confidential: ["Cannot make the epic confidential if it contains non-confidential issues"] });
    if (open.children) throw validation({ confidential: ["Cannot make the epic confidential if it contains non-confidential child epics"] });
  } else if (params.confidential === false && parent?.confidential) {
    // Epic#validate_confidential_parent.
    throw validation({ confidential: ["A non-confidential epic cannot be assigned to a confidential parent epic"] });
  }
  if (params.confidential !== undefined) changes.confidential = params.confidential;
  return changes;
}
