import * as z from "zod";
import type { Board, BoardList, Namespace } from "../../db/schema";
import type { ProjectWithAccess } from "../kernel/abilities";
import type { PresentContext } from "../kernel/present";
import { BasicGroupDetails, groupBasic } from "./groups";
import type { IssueLabel, IssueUser } from "./issues";
import { LabelBasic, labelBasic } from "./labels";
import { Milestone, milestone, type IssueMilestone } from "./milestones";
import { Iteration, iteration, type IterationRow } from "./iterations";
import { BasicProjectDetails, projectBasic } from "./projects";
import { UserBasic, userBasic } from "./users";

/** GitLab's `List.list_types`. */
export const LIST_TYPES = { backlog: 0, label: 1, closed: 2, assignee: 3, milestone: 4, iteration: 5 } as const;

/** A list with what it lists by: its label, user or milestone (loaded as JSON with the list). */
export type BoardListRow = BoardList & { label: IssueLabel | null; assignee: IssueUser | null; milestone: IssueMilestone | null; iteration: IterationRow | null };

/** A board with its scope and its destroyable lists (label, assignee and milestone lists, by position). */
export type BoardRow = Board & {
  lists: BoardListRow[];
  scopeMilestone: IssueMilestone | null;
  scopeAssignee: IssueUser | null;
  scopeLabels: IssueLabel[];
};

/** Whose boards they are: the project (presented as BasicProjectDetails) or the group. */
export type BoardParent = { project?: ProjectWithAccess; group?: Namespace };
export type BoardParentContext = PresentContext & BoardParent;

/**
 * API::Entities::List (lib/api/entities/list.rb) with EE's fields (ee/lib/ee/api/entities/list.rb): the
 * assignee or milestone only on lists of that kind; the work-in-progress limits always (we are EE).
 */
export const List = z
  .object({
    id: z.int(),
    label: LabelBasic.nullable(),
    position: z.int().nullable(),
    milestone: Milestone.optional(),
    assignee: UserBasic.optional(),
    iteration: Iteration.optional(),
    max_issue_count: z.int(),
    max_issue_weight: z.int(),
    limit_metric: z.string().nullable(),
  })
  .meta({ id: "List" });
export function boardList(row: BoardListRow, ctx: PresentContext): z.output<typeof List> {
  return {
    id: row.id,
    label: row.label ? labelBasic(row.label, ctx) : null,
    position: row.position,
    ...(row.listType === LIST_TYPES.milestone && row.milestone ? { milestone: milestone(row.milestone, ctx) } : {}),
    ...(row.listType === LIST_TYPES.assignee && row.assignee ? { assignee: userBasic(row.assignee, ctx) } : {}),
    ...(row.listType === LIST_TYPES.iteration && row.iteration ? { iteration: iteration(row.iteration, ctx) } : {}),
    max_issue_count: row.maxIssueCount,
    max_issue_weight: row.maxIssueWeight,
    limit_metric: row.limitMetric,
  };
}

/**
 * API::Entities::Board (lib/api/entities/board.rb) with EE's group and scope
 * (ee/lib/ee/api/entities/board.rb): `project` is null on a group board, `group` on a project board.
 */
export const BoardEntity = z
  .object({
    id: z.int(),
    name: z.string(),
    hide_backlog_list: z.boolean(),
    hide_closed_list: z.boolean(),
    project: BasicProjectDetails.nullable(),
    lists: z.array(List),
    group: BasicGroupDetails.nullable(),
    milestone: Milestone.nullable(),
    assignee: UserBasic.nullable(),
    labels: z.array(LabelBasic),
    weight: z.int().nullable(),
  })
  .meta({ id: "Board" });
export function board(row: BoardRow, ctx: BoardParentContext): z.output<typeof BoardEntity> {
  return {
    id: row.id,
    name: row.name,
    hide_backlog_list: row.hideBacklogList,
    hide_closed_list: row.hideClosedList,
    project: ctx.project ? projectBasic({ ...ctx.project, owner: null, sharedWithGroups: [] }, ctx) : null,
    lists: row.lists.map((list) => boardList(list, ctx)),
    group: ctx.group ? groupBasic(ctx.group, ctx) : null,
    milestone: row.scopeMilestone ? milestone(row.scopeMilestone, ctx) : null,
    assignee: row.scopeAssignee ? userBasic(row.scopeAssignee, ctx) : null,
    labels: row.scopeLabels.map((label) => labelBasic(label, ctx)),
    weight: row.weight,
  };
}
