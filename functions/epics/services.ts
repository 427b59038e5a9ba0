import type { Epic } from "../../db/schema";
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
