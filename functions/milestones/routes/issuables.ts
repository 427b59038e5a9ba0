import type { Ctx } from "../../kernel/env";
import { paginate, type Page } from "../../kernel/pagination";
import { present } from "../../kernel/present";
import { issueBasic, type IssueContext, type IssueRow, type ReferenceFrom } from "../../entities/issues";
import { mergeRequestBasic, type MergeRequestContext, type MergeRequestRow } from "../../entities/merge_requests";
import type { MilestoneRow } from "../../entities/milestones";
import * as q from "../queries";

/**
 * `milestone_issuables_for` (lib/api/milestone_responses.rb): the issues (IssueBasic) or merge requests
 * (MergeRequestBasic) the caller may read whose milestone has this milestone's title, in the project or
 * the group's own projects. Two statements for the page of ids and its total, one for the rows.
 */
export async function presentIssues(c: Ctx, row: MilestoneRow, scope: q.IssuableScope, page: Page, from: ReferenceFrom) {
  const db = c.var.db();
  const { ids, total } = await q.milestoneIssueIds(db, c.var.actor, row.title, scope, page);
  const issues = await q.loadIssueRows(db, ids, c.var.actor);
  paginate(c, page, total);
  return present<IssueRow, Partial<IssueContext>>(c, issues, issueBasic, { from });
}

export async function presentMergeRequests(c: Ctx, row: MilestoneRow, scope: q.IssuableScope, page: Page, from: Partial<MergeRequestContext>) {
  const db = c.var.db();
  const { ids, total } = await q.milestoneMergeRequestIds(db, c.var.actor, row.title, scope, page);
  const mergeRequests = await q.loadMergeRequestRows(db, ids, c.var.actor);
  paginate(c, page, total);
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, mergeRequests, mergeRequestBasic, from);
}
