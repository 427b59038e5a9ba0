import * as z from "zod";
import type { Namespace, Project, Todo as TodoModel } from "../../db/schema";
import { webUrl, isoTime, type PresentContext } from "../kernel/present";
import { Epic, epic, type EpicRow } from "./epics";
import { Issue, issue, type IssueRow } from "./issues";
import { MergeRequestEntity, mergeRequest, type MergeRequestRow } from "./merge_requests";
import { NamespaceBasic, namespaceBasic, ProjectIdentity, projectIdentity } from "./projects";
import { UserBasic, userBasic, type UserBasicRow } from "./users";

/** Todo::ACTION_NAMES (app/models/todo.rb, 15.4). */
export const ACTION_NAMES: Record<number, string> = {
  1: "assigned",
  2: "mentioned",
  3: "build_failed",
  4: "marked",
  5: "approval_required",
  6: "unmergeable",
  7: "directly_addressed",
  8: "merge_train_removed",
  9: "review_requested",
};

export type TodoTarget =
  | { type: "Issue"; row: IssueRow }
  | { type: "MergeRequest"; row: MergeRequestRow }
  | { type: "Epic"; row: EpicRow };

/** A to-do with what its entity shows: project, group, author, the note's text and the target. */
export type TodoRow = TodoModel & {
  project: Project | null;
  group: Namespace | null;
  author: UserBasicRow | null;
  noteBody: string | null;
  target: TodoTarget | null;
};

/** The target as Entities::Todo represents it: the full issue, merge request or epic entity, without `subscribed`. */
const TodoTargetEntity = z.union([Issue, MergeRequestEntity, Epic]);
function target(t: TodoTarget | null, ctx: PresentContext): z.output<typeof TodoTargetEntity> | null {
  if (!t) return null;
  if (t.type === "Issue") return issue(t.row, { ...ctx, from: null, includeSubscribed: false });
  if (t.type === "MergeRequest") return mergeRequest(t.row, { ...ctx, includeSubscribed: false });
  return epic(t.row, { ...ctx, group: { id: t.row.groupId, fullPath: t.row.groupFullPath } });
}

/** `todo_target_url`: the target's page, anchored on the note when there is one. */
function targetUrl(row: TodoRow, ctx: PresentContext): string | null {
  const t = row.target;
  if (!t) return null;
  const anchor = row.noteId !== null ? `#note_${row.noteId}` : "";
  if (t.type === "Issue") return webUrl(ctx, `${t.row.project.fullPath}/-/issues/${t.row.iid}${anchor}`);
  if (t.type === "MergeRequest") return webUrl(ctx, `${t.row.project.fullPath}/-/merge_requests/${t.row.iid}${anchor}`);
  return webUrl(ctx, `groups/${t.row.groupFullPath}/-/epics/${t.row.iid}${anchor}`);
}

/**
 * API::Entities::Todo (lib/api/entities/todo.rb): `project` (ProjectIdentity) only for project to-dos,
 * `group` (NamespaceBasic) only for group to-dos; `body` is the note's text, else the target's title
 * (Todo#body).
 */
export const Todo = z
  .object({
    id: z.int(),
    project: ProjectIdentity.optional(),
    group: NamespaceBasic.optional(),
    author: UserBasic.nullable(),
    action_name: z.string().nullable(),
    target_type: z.string(),
    target: TodoTargetEntity.nullable(),
    target_url: z.string().nullable(),
    body: z.string().nullable(),
    state: z.string(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: "Todo" });
export function todo(row: TodoRow, ctx: PresentContext): z.output<typeof Todo> {
  const title = row.target ? row.target.row.title : null;
  return {
    id: row.id,
    ...(row.projectId !== null && row.project ? { project: projectIdentity(row.project) } : {}),
    ...(row.groupId !== null && row.group ? { group: namespaceBasic(row.group, null, ctx) } : {}),
    author: row.author ? userBasic(row.author, ctx) : null,
    action_name: ACTION_NAMES[row.action] ?? null,
    target_type: row.targetType,
    target: target(row.target, ctx),
    target_url: targetUrl(row, ctx),
    body: row.noteBody ?? title,
    state: row.state,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  };
}
