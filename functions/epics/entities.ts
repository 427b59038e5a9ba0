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
 * Differs from GitLab: epics carry no labels nor milestone-inherited dates here, so `labels` is `[]`
 * and the dates are the fixed ones (none are set by the minimal create), `*_is_fixed` false.
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
    start_date: isoDate(row.startDate),
    start_date_is_fixed: false,
    start_date_fixed: isoDate(row.startDate),
    start_date_from_milestones: null,
    start_date_from_inherited_source: null,
    end_date: isoDate(row.dueDate),
    due_date: isoDate(row.dueDate),
    due_date_is_fixed: false,
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
    closed_at: null,
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
