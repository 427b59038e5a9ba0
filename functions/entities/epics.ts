import * as z from "zod";
import type { Epic as EpicModel } from "../../db/schema";
import type { NoteUser } from "./notes";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { UserBasic, userBasic } from "./users";
import { LabelBasic, labelBasic, type LabelBasicRow } from "./labels";
import { IssuableReferences, Issue, issue, type IssueContext, type IssueRow } from "./issues";

/** An issue of an epic, with the link (GitLab's epic_issues row) it came through. */
export type EpicIssueRow = IssueRow & { epicIssue: { id: number; relativePosition: number | null } };

/** An epic with its author, its group's full path, its parent's iid and its vote counts. */
export type EpicRow = EpicModel & {
  author: NoteUser | null;
  groupFullPath: string;
  parentIid: number | null;
  parentGroupId: number | null;
  upvotes: number;
  downvotes: number;
  /** LabelBasic rows, by title. */
  labels: LabelBasicRow[];
  /** From the milestones of the epic's own issues. */
  startDateFromMilestones: string | null;
  dueDateFromMilestones: string | null;
  /** From the milestones of its issues and its child epics' dates (see queries.ts `inheritedDates`). */
  startDateInherited: string | null;
  dueDateInherited: string | null;
};

export type EpicContext = PresentContext & { group: { id: number; fullPath: string }; withLabelsDetails?: boolean };

/** Epic#start_date / #end_date: the fixed date when fixed, else the inherited one. */
export const effectiveStartDate = (row: Pick<EpicRow, "startDateIsFixed" | "startDate" | "startDateInherited">) =>
  row.startDateIsFixed ? row.startDate : row.startDateInherited;
export const effectiveDueDate = (row: Pick<EpicRow, "dueDateIsFixed" | "dueDate" | "dueDateInherited">) =>
  row.dueDateIsFixed ? row.dueDate : row.dueDateInherited;

/** Epic::DEFAULT_COLOR and its text colour. */
const DEFAULT_COLOR = "#1068bf";
const DEFAULT_TEXT_COLOR = "#FFFFFF";

/**
 * EE::API::Entities::Epic (ee/lib/api/entities/epic.rb, 15.4 fields). `labels` are titles, or LabelBasic
 * objects with `with_labels_details`. `*_from_milestones` (deprecated) come from the milestones of the
 * epic's own issues, `*_from_inherited_source` also from its child epics; `start_date`/`due_date` are
 * the fixed dates when `*_is_fixed`, else the inherited ones.
 */
export const Epic = z
  .object({
    id: z.int(),
    iid: z.int(),
    color: z.string(),
    text_color: z.string(),
    group_id: z.int(),
    parent_id: z.int().nullable(),
    parent_iid: z.int().nullable(),
    title: z.string(),
    description: z.string().nullable(),
    confidential: z.boolean(),
    author: UserBasic.nullable(),
    start_date: z.string().nullable(),
    start_date_is_fixed: z.boolean(),
    start_date_fixed: z.string().nullable(),
    start_date_from_milestones: z.string().nullable(),
    start_date_from_inherited_source: z.string().nullable(),
    end_date: z.string().nullable(),
    due_date: z.string().nullable(),
    due_date_is_fixed: z.boolean(),
    due_date_fixed: z.string().nullable(),
    due_date_from_milestones: z.string().nullable(),
    due_date_from_inherited_source: z.string().nullable(),
    state: z.string(),
    web_edit_url: z.string(),
    web_url: z.string(),
    references: IssuableReferences,
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    closed_at: z.string().nullable(),
    /** Names, or LabelBasic with `with_labels_details=true`. */
    labels: z.union([z.array(z.string()), z.array(LabelBasic)]),
    upvotes: z.int(),
    downvotes: z.int(),
    _links: z.object({ self: z.string(), epic_issues: z.string(), group: z.string(), parent: z.string().nullable() }),
  })
  .meta({ id: "Epic" });
export function epic(row: EpicRow, ctx: EpicContext): z.output<typeof Epic> {
  const reference = `&${row.iid}`;
  const full = `${row.groupFullPath}${reference}`;
  const api = `${ctx.baseUrl}/api/v4/groups/${row.groupId}`;
  return {
    id: row.id,
    iid: row.iid,
    color: DEFAULT_COLOR,
    text_color: DEFAULT_TEXT_COLOR,
    group_id: row.groupId,
    parent_id: row.parentId,
    parent_iid: row.parentIid,
    title: row.title,
    description: row.description,
    confidential: row.confidential,
    author: row.author ? userBasic(row.author, ctx) : null,
    start_date: isoDate(effectiveStartDate(row)),
    start_date_is_fixed: row.startDateIsFixed,
    start_date_fixed: isoDate(row.startDate),
    start_date_from_milestones: isoDate(row.startDateFromMilestones),
    start_date_from_inherited_source: isoDate(row.startDateInherited),
    end_date: isoDate(effectiveDueDate(row)),
    due_date: isoDate(effectiveDueDate(row)),
    due_date_is_fixed: row.dueDateIsFixed,
    due_date_fixed: isoDate(row.dueDate),
    due_date_from_milestones: isoDate(row.dueDateFromMilestones),
    due_date_from_inherited_source: isoDate(row.dueDateInherited),
    state: row.state,
    web_edit_url: `/groups/${row.groupFullPath}/-/epics/${row.iid}`,
    web_url: webUrl(ctx, `groups/${row.groupFullPath}/-/epics/${row.iid}`),
    references: {
      short: reference,
      relative: row.groupId === ctx.group.id ? reference : full,
      full,
    },
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    closed_at: isoTime(row.closedAt),
    labels: ctx.withLabelsDetails ? row.labels.map((l) => labelBasic(l, ctx)) : row.labels.map((l) => l.title),
    upvotes: row.upvotes,
    downvotes: row.downvotes,
    _links: {
      self: `${api}/epics/${row.iid}`,
      epic_issues: `${api}/epics/${row.iid}/issues`,
      group: api,
      parent: row.parentIid !== null ? `${ctx.baseUrl}/api/v4/groups/${row.parentGroupId}/epics/${row.parentIid}` : null,
    },
  };
}

/** For EE::API::Entities::LinkedEpic: the parent's group and iid, and the two existence flags. */
export type LinkedEpicRow = EpicRow & {
  parentGroup: { id: number; fullPath: string };
  parentIid: number;
  hasChildren: boolean;
  hasIssues: boolean;
};

/** EE::API::Entities::LinkedEpic: the compact answer of "create and relate a child epic". */
export const LinkedEpic = z
  .object({
    id: z.int(),
    iid: z.int(),
    title: z.string(),
    group_id: z.int(),
    parent_id: z.int().nullable(),
    has_children: z.boolean(),
    has_issues: z.boolean(),
    reference: z.string(),
    url: z.string(),
    relation_url: z.string(),
  })
  .meta({ id: "LinkedEpic" });
export function linkedEpic(row: LinkedEpicRow, ctx: PresentContext): z.output<typeof LinkedEpic> {
  const short = `&${row.iid}`;
  return {
    id: row.id,
    iid: row.iid,
    title: row.title,
    group_id: row.groupId,
    parent_id: row.parentId,
    has_children: row.hasChildren,
    has_issues: row.hasIssues,
    // `epic.to_reference(epic.parent.group)`: the full path only across groups.
    reference: row.groupId === row.parentGroup.id ? short : `${row.groupFullPath}${short}`,
    url: webUrl(ctx, `groups/${row.groupFullPath}/-/epics/${row.iid}`),
    relation_url: webUrl(ctx, `groups/${row.parentGroup.fullPath}/-/epics/${row.parentIid}/links/${row.id}`),
  };
}

/** EE::API::Entities::EpicIssue: the Issue entity with the link's id and position. */
export const EpicIssue = Issue.extend({ epic_issue_id: z.int(), relative_position: z.int().nullable() }).meta({ id: "EpicIssue" });
export function epicIssue(row: EpicIssueRow, ctx: IssueContext): z.output<typeof EpicIssue> {
  return { ...issue(row, ctx), epic_issue_id: row.epicIssue.id, relative_position: row.epicIssue.relativePosition };
}

/** EE::API::Entities::EpicIssueLink: the link with its epic and its issue. */
export const EpicIssueLink = z
  .object({ id: z.int(), relative_position: z.int().nullable(), epic: Epic, issue: Issue })
  .meta({ id: "EpicIssueLink" });
export function epicIssueLink(
  row: { id: number; relativePosition: number | null; epic: EpicRow; issue: IssueRow },
  ctx: EpicContext & IssueContext,
): z.output<typeof EpicIssueLink> {
  return { id: row.id, relative_position: row.relativePosition, epic: epic(row.epic, ctx), issue: issue(row.issue, ctx) };
}

// ---------------------------------------------------------------------------------------------
// Resource events of epics: the same entities as issues' (`resource_type` "Epic", `resource_id` the epic's id).

export { resourceLabelEvent as epicLabelEvent, resourceStateEvent as epicStateEvent } from "./issues";
