import { findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { baseUrl, present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { repoOf } from "../../shared/git";
import { findMergeRequest } from "../../shared/issuables/find";
import { issueBasic, type IssueContext, type IssueRow, IssueBasic } from "../../entities/issues";
import { userBasic, UserBasic } from "../../entities/users";
import { refreshMergeRequest } from "../merging";
import { closingIssueReferences, type IssueRef } from "../references";
import * as vq from "../version_queries";
import { versionCommits } from "../versions";
import { iidParam } from "./merge";

/** Who takes part in a merge request and what it closes (lib/api/merge_requests.rb, 15.x). */
export const peopleRoutes = router();

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/participants (lib/api/merge_requests.rb):
 * `visible_participants`, paginated as an array, as UserBasic.
 * Differs from GitLab: users @-mentioned in the description or in notes are not counted (only the
 * notes' authors are).
 */
peopleRoutes.get("/projects/:id/merge_requests/:merge_request_iid/participants", { params: pageParams, response: [UserBasic] }, async (c) => {
  const iid = iidParam(c);
  const params = await readParams(c, pageParams);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findMergeRequest(c, project, iid);
  const page = pageOf(params);
  const users = await vq.participants(c.var.db(), mr);
  paginate(c, page, users.length);
  return present(c, users.slice(page.offset, page.offset + page.limit), userBasic);
});

/**
 * GET /projects/:id/merge_requests/:merge_request_iid/closes_issues (lib/api/merge_requests.rb):
 * `visible_closing_issues_for(current_user)` as IssueBasic. The description's closing issues are
 * stored when it is written (`merge_requests_closing_issues`); those of the commit messages are read
 * from the newest version's commits, as `closes_issues` does, only towards the default branch.
 * Differs from GitLab: no external issue tracker, so no ExternalIssue entries.
 */
peopleRoutes.get("/projects/:id/merge_requests/:merge_request_iid/closes_issues", { params: pageParams, response: [IssueBasic] }, async (c) => {
  const iid = iidParam(c);
  const params = await readParams(c, pageParams);
  const project = await findProject(c, c.req.param("id"));
  const mr = await findMergeRequest(c, project, iid);
  const db = c.var.db();
  let refs: IssueRef[] = [];
  if (project.issuesEnabled && mr.targetBranch === (project.defaultBranch ?? "main")) {
    await refreshMergeRequest(db, project, mr);
    const commits = await versionCommits(db, repoOf(project), await vq.latestVersion(db, mr.id));
    const ctx = { projectPath: project.fullPath, namespacePath: project.namespace.fullPath, baseUrl: baseUrl(c) };
    refs = closingIssueReferences(commits.map((row) => row.message).join("\n"), ctx);
  }
  const page = pageOf(params);
  const issues = await vq.closingIssuesFor(db, c.var.actor, mr.id, refs);
  paginate(c, page, issues.length);
  return present<IssueRow, Partial<IssueContext>>(c, issues.slice(page.offset, page.offset + page.limit), issueBasic, {
    from: { kind: "project", id: project.id, namespaceId: project.namespaceId },
  });
});
