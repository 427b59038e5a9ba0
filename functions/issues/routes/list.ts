import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { loadIssueRows } from "../../shared/issuables/issue_preload";
import { findGroup, findProject } from "../../kernel/lookup";
import { pageOf, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { issue, type ReferenceFrom, Issue } from "../../entities/issues";
import { LIST_RULES, ListAllIssues, ListGroupIssues, ListIssues, type ListParams } from "../params";
import * as q from "../queries";
import { labelDescriptionsHtml } from "../../shared/markdown/label_descriptions";
import type { MarkdownOptions } from "../../shared/markdown/render";

export const listRoutes = router();

/**
 * Lists are paginated, with the page's relations in one statement, presented with Entities::Issue. The
 * declared parameters are IssuesFinder's params (`issue_finder`, lib/api/helpers/issues_helpers.rb).
 */
async function listIssues(c: Ctx, owner: q.IssueOwner, params: ListParams, from: ReferenceFrom, context: Pick<MarkdownOptions, "project" | "group"> = {}) {
  const page = pageOf(params);
  const now = new Date();
  const sort = { orderBy: params.order_by ?? "created_at", sort: params.sort ?? "desc" } as const;
  const db = c.var.db();
  const { ids, total } = await q.listIssueIds(db, owner, params, sort, c.var.actor, page, now);
  const rows = await loadIssueRows(db, ids, c.var.actor);
  paginate(c, page, total);
  // `with_labels_details`: the labels' description_html, rendered for the whole page at once.
  const labelHtml = params.with_labels_details ? await labelDescriptionsHtml(c, rows.flatMap((r) => r.labels), context) : {};
  return present(c, rows, issue, { from, withLabelsDetails: !!params.with_labels_details, includeSubscribed: false, ...labelHtml });
}

/** GET /issues (lib/api/issues.rb): `scope` defaults to `created_by_me`; `scope=all` works anonymously. */
listRoutes.get("/issues", { params: ListAllIssues, response: [Issue] }, async (c) => {
  const params = await readParams(c, ListAllIssues, LIST_RULES);
  if (params.scope !== "all") requireUser(c);
  return listIssues(c, { kind: "all" }, params, null);
});

/** GET /groups/:id/issues (lib/api/issues.rb): the group's and its subgroups' projects. */
listRoutes.get("/groups/:id/issues", { params: ListGroupIssues, response: [Issue] }, async (c) => {
  const params = await readParams(c, ListGroupIssues, LIST_RULES);
  const group = await findGroup(c, c.req.param("id"));
  return listIssues(c, { kind: "group", groupId: group.id }, params, { kind: "group", id: group.id }, { group });
});

/** GET /projects/:id/issues (lib/api/issues.rb) */
listRoutes.get("/projects/:id/issues", { params: ListIssues, response: [Issue] }, async (c) => {
  const params = await readParams(c, ListIssues, LIST_RULES);
  const project = await findProject(c, c.req.param("id"));
  const from = { kind: "project", id: project.id, namespaceId: project.namespaceId } as const;
  return listIssues(c, { kind: "project", projectId: project.id }, params, from, { project });
});
