import type { Epic } from "../../db/schema";
import type { GroupWithAccess } from "../kernel/abilities";
import type { Executor } from "../kernel/db";
import type { Actor } from "../kernel/env";
import { recordNotFound, validation } from "../kernel/errors";
import { DESCRIPTION_NOTE, titleNote, type SystemNote } from "../shared/issuables/system_notes";
import { effectiveDueDate, effectiveStartDate, type EpicRow } from "../entities/epics";
import { labelTitles } from "./params";
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

/**
 * IssuableBaseService#process_label_ids for an epic: `labels` replaces, then `add_labels` adds and
 * `remove_labels` removes. Titles are the labels of the epic's group and its ancestors; a title none
 * has becomes a new label of the epic's group (`find_or_create_label_ids`: the caller may admin epics,
 * hence labels, of the group: both are Reporter+). Null when no label parameter was sent.
 */
export async function planEpicLabels(
  db: Executor,
  group: GroupWithAccess,
  currentIds: number[],
  params: { labels?: string[]; add_labels?: string[]; remove_labels?: string[] },
): Promise<q.EpicLabelChanges | null> {
  if (params.labels === undefined && params.add_labels === undefined && params.remove_labels === undefined) return null;
  const setAsk = labelTitles(params.labels);
  const addAsk = labelTitles(params.add_labels);
  const removeAsk = labelTitles(params.remove_labels);
  const found = await q.availableLabels(db, group, [...setAsk, ...addAsk, ...removeAsk]);
  const resolve = (titles: string[], create: boolean) => {
    const ids: number[] = [];
    const missing: string[] = [];
    for (const title of titles) {
      const label = found.find((l) => l.title === title);
      if (label) {
        if (!ids.includes(label.id)) ids.push(label.id);
      } else if (create && [...title].length <= 255) missing.push(title);
    }
    return { ids, missing };
  };
  const base = params.labels !== undefined ? resolve(setAsk, true) : { ids: currentIds, missing: [] };
  const added = resolve(addAsk, true);
  const removed = resolve(removeAsk, false).ids;
  const wanted = [...new Set([...base.ids, ...added.ids])].filter((id) => !removed.includes(id));
  return {
    create: [...new Set([...base.missing, ...added.missing])].filter((t) => !removeAsk.includes(t)),
    addIds: wanted.filter((id) => !currentIds.includes(id)),
    removeIds: currentIds.filter((id) => !wanted.includes(id)),
  };
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** SystemNotes::EpicsService#change_epic_date_note: `date.strftime('%b %-d, %Y')`. */
export function epicDateNote(dateType: "start date" | "finish date", date: string | null): string {
  if (!date) return `removed the ${dateType}`;
  const [year, month, day] = date.split("-").map(Number);
  return `changed ${dateType} to ${MONTHS[month - 1]} ${day}, ${year}`;
}

/** `epic.to_reference(from_group)`: `&iid` inside the group, else `full/path&iid`. */
export const epicReference = (epic: { iid: number; groupId: number; groupFullPath: string }, fromGroupId: number) =>
  epic.groupId === fromGroupId ? `&${epic.iid}` : `${epic.groupFullPath}&${epic.iid}`;

type RelationEpic = { id: number; iid: number; groupId: number; groupFullPath: string };

/** SystemNotes::EpicsService#change_epics_relation: a note on the parent and one on the child. */
export function relationNotes(parent: RelationEpic, child: RelationEpic, type: "relate_epic" | "unrelate_epic"): SystemNote[] {
  const body = (direction: "child" | "parent", ref: string) =>
    type === "relate_epic" ? `added epic ${ref} as ${direction} epic` : `removed ${direction} epic ${ref}`;
  return [
    { noteableType: "Epic", noteableId: parent.id, projectId: null, body: body("child", epicReference(child, parent.groupId)) },
    { noteableType: "Epic", noteableId: child.id, projectId: null, body: body("parent", epicReference(parent, child.groupId)) },
  ];
}

/**
 * Epics::UpdateService#handle_changes: the system notes of an update (title, description, the start
 * and finish dates when the epic's effective date changes). Label changes are resource label events.
 * Closing and reopening are not notes: see `stateEventOf`.
 */
export function updateNotes(found: EpicRow, changes: q.EpicChanges): SystemNote[] {
  const bodies: string[] = [];
  if (changes.title !== undefined && changes.title !== found.title) bodies.push(titleNote(found.title, changes.title));
  if (changes.description !== undefined && changes.description !== found.description) bodies.push(DESCRIPTION_NOTE);
  const next = { ...found, ...changes };
  const [oldStart, newStart] = [effectiveStartDate(found), effectiveStartDate(next)];
  if (oldStart !== newStart) bodies.push(epicDateNote("start date", newStart));
  const [oldDue, newDue] = [effectiveDueDate(found), effectiveDueDate(next)];
  if (oldDue !== newDue) bodies.push(epicDateNote("finish date", newDue));
  return bodies.map((body) => ({ noteableType: "Epic", noteableId: found.id, projectId: null, body }));
}

/**
 * Epics::CloseService and ReopenService call `SystemNoteService.change_status`, which in GitLab 15.4
 * writes a resource state event (`closed`, `reopened`) and no note row: the "closed" / "opened" lines
 * of the epic's activity are rendered from those events (StateNote), and the notes API does not list
 * them. Null when the state does not change (closing a closed epic is a no-op, as in GitLab).
 */
export function stateEventOf(found: EpicRow, changes: q.EpicChanges): q.EpicStateEvent | null {
  if (changes.state === undefined || changes.state === found.state) return null;
  return changes.state === "closed" ? "closed" : "reopened";
}

type NoteIssue = { id: number; iid: number; projectId: number; project: { fullPath: string; namespaceId: number } };

/** `epic.to_reference(issue.project)`: `&iid` from a project of the epic's group, else the group's path. */
const epicRefFromProject = (epic: RelationEpic, issue: NoteIssue) =>
  issue.project.namespaceId === epic.groupId ? `&${epic.iid}` : `${epic.groupFullPath}&${epic.iid}`;
/** `issue.to_reference(group)`: from a group, always the project's full path. */
const issueRefFromGroup = (issue: NoteIssue) => `${issue.project.fullPath}#${issue.iid}`;

/**
 * SystemNotes::EpicsService#epic_issue and #issue_on_epic (an issue added to or removed from an epic),
 * or #epic_issue_moved and #issue_epic_change when it leaves `previous` for `epic`.
 */
export function epicIssueNotes(epic: RelationEpic, issue: NoteIssue, type: "added" | "removed", previous: RelationEpic | null = null): SystemNote[] {
  const onIssue = (body: string): SystemNote => ({ noteableType: "Issue", noteableId: issue.id, projectId: issue.projectId, body });
  const onEpic = (target: RelationEpic, body: string): SystemNote => ({ noteableType: "Epic", noteableId: target.id, projectId: null, body });
  if (previous && type === "added")
    return [
      onEpic(epic, `added issue ${issueRefFromGroup(issue)} from epic ${epicReference(previous, epic.groupId)}`),
      onEpic(previous, `moved issue ${issueRefFromGroup(issue)} to epic ${epicReference(epic, previous.groupId)}`),
      onIssue(`changed epic to ${epicRefFromProject(epic, issue)}`),
    ];
  return [
    onEpic(epic, `${type} issue ${issueRefFromGroup(issue)}`),
    onIssue(`${type} ${type === "added" ? "to" : "from"} epic ${epicRefFromProject(epic, issue)}`),
  ];
}
