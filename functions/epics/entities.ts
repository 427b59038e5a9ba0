import type { Epic } from "../../db/schema";
import type { NoteUser } from "../shared/issuables/noteables";
import { isoDate, isoTime, webUrl, type PresentContext } from "../kernel/present";
import { userBasic } from "../users/entities";

/** An epic with its author, its group's full path, its parent's iid and its vote counts. */
export type EpicRow = Epic & {
  author: NoteUser | null;
  groupFullPath: string;
  parentIid: number | null;
  parentGroupId: number | null;
  upvotes: number;
  downvotes: number;
};

export type EpicContext = PresentContext & { group: { id: number; fullPath: string } };

/** Epic::DEFAULT_COLOR and its text colour. */
const DEFAULT_COLOR = "#1068bf";
const DEFAULT_TEXT_COLOR = "#FFFFFF";

/**
 * EE::API::Entities::Epic (ee/lib/api/entities/epic.rb, 15.4 fields).
 * Differs from GitLab: epics carry no labels nor dates inherited from milestones or child epics here, so
 * `labels` is `[]`, the `*_from_milestones` and `*_from_inherited_source` dates are null, and an epic's
 * `start_date`/`due_date` are its fixed dates when `*_is_fixed` is set, else null.
 */
export function epic(row: EpicRow, ctx: EpicContext) {
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
    start_date: row.startDateIsFixed ? isoDate(row.startDate) : null,
    start_date_is_fixed: row.startDateIsFixed,
    start_date_fixed: isoDate(row.startDate),
    start_date_from_milestones: null,
    start_date_from_inherited_source: null,
    end_date: row.dueDateIsFixed ? isoDate(row.dueDate) : null,
    due_date: row.dueDateIsFixed ? isoDate(row.dueDate) : null,
    due_date_is_fixed: row.dueDateIsFixed,
    due_date_fixed: isoDate(row.dueDate),
    due_date_from_milestones: null,
    due_date_from_inherited_source: null,
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
    labels: [],
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
export function linkedEpic(row: LinkedEpicRow, ctx: PresentContext) {
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
