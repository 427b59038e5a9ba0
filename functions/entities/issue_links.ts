import * as z from "zod";
import type { IssueLink } from "../../db/schema";
import { isoTime } from "../kernel/present";
import { Issue, issue, IssueBasic, issueBasic, type IssueContext, type IssueRow } from "./issues";

/** GitLab stores `is_blocked_by` as `blocks` with source and target swapped (IssueLink::TYPE_IS_BLOCKED_BY). */
export type LinkType = "relates_to" | "blocks" | "is_blocked_by";

/** A related issue as `Issue#related_issues` selects it: the issue and the link, seen from the listed issue. */
export type RelatedIssueRow = IssueRow & {
  link: Pick<IssueLink, "id" | "createdAt" | "updatedAt">;
  /** The type from the perspective of the issue whose links are listed (`Issue#issue_link_type`). */
  linkType: LinkType;
};

/** A link with both issues loaded. */
export type IssueLinkRow = { linkType: string; source: IssueRow; target: IssueRow };

/** API::Entities::RelatedIssue (lib/api/entities/related_issue.rb): the issue plus the link's fields. */
export const RelatedIssue = Issue.extend({
  issue_link_id: z.int(),
  link_type: z.enum(["relates_to", "blocks", "is_blocked_by"]),
  link_created_at: z.string().nullable(),
  link_updated_at: z.string().nullable(),
}).meta({ id: "RelatedIssue" });
export function relatedIssue(row: RelatedIssueRow, ctx: IssueContext): z.output<typeof RelatedIssue> {
  return {
    ...issue(row, ctx),
    issue_link_id: row.link.id,
    link_type: row.linkType,
    link_created_at: isoTime(row.link.createdAt),
    link_updated_at: isoTime(row.link.updatedAt),
  };
}

/** API::Entities::IssueLink (lib/api/entities/issue_link.rb, 15.4): both issues as IssueBasic and the stored type. */
export const IssueLinkEntity = z.object({ source_issue: IssueBasic, target_issue: IssueBasic, link_type: z.string() }).meta({ id: "IssueLink" });
export function issueLink(row: IssueLinkRow, ctx: IssueContext): z.output<typeof IssueLinkEntity> {
  return {
    source_issue: issueBasic(row.source, ctx),
    target_issue: issueBasic(row.target, ctx),
    link_type: row.linkType,
  };
}
