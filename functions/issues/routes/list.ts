import { requireUser } from "../../kernel/auth";
import type { Ctx } from "../../kernel/env";
import { loadIssueRows } from "../../shared/issuables/issue_preload";
import { findGroup, findProject } from "../../kernel/lookup";
import { pageOf, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { issue, type ReferenceFrom } from "../../entities/issues";
import { ISSUE_TYPES, LIST_RULES, ListGroupIssues, ListIssues, splitLabels, type ListParams } from "../params";
import * as q from "../queries";

export const listRoutes = router();

type Scope = NonNullable<q.IssueFilters["scope"]>;

/** `issue_finder` (lib/api/helpers/issues_helpers.rb): the declared params as IssuesFinder reads them. */
export function filtersOf(params: Partial<ListParams>, defaults: { scope?: Scope; nonArchived: boolean }): q.IssueFilters {
  const scope = (params.scope?.replace(/-/g, "_") as Scope | undefined) ?? defaults.scope;
  const not = params.not;
  return {
    scope,
    state: params.state ?? "all",
    labels: splitLabels(params.labels)?.filter((l) => l !== ""),
    milestone: params.milestone,
    milestoneWildcard: params.milestone_id,
    iids: params.iids,
    search: params.search,
    in: params.in,
    authorId: params.author_id,
    authorUsername: params.author_username,
    assigneeId: params.assignee_id,
    assigneeUsernames: params.assignee_username,
    createdAfter: params.created_after,
    createdBefore: params.created_before,
    updatedAfter: params.updated_after,
    updatedBefore: params.updated_before,
    myReactionEmoji: params.my_reaction_emoji,
    confidential: params.confidential,
    dueDate: params.due_date,
    issueTypes: params.issue_type ? [params.issue_type] : ISSUE_TYPES,
    nonArchived: params.non_archived ?? defaults.nonArchived,
    weight: params.weight,
    epicId: params.epic_id,
    healthStatus: params.health_status,
    iterationId: params.iteration_id,
    iterationTitle: params.iteration_title,
    not: not && {
      labels: splitLabels(not.labels)?.filter((l) => l !== ""),
      milestone: not.milestone,
      milestoneWildcard: not.milestone_id,
      iids: not.iids,
      authorId: not.author_id,
      authorUsername: not.author_username,
      assigneeId: not.assignee_id,
      assigneeUsernames: not.assignee_username,
      weight: not.weight,
      iterationId: not.iteration_id,
      iterationTitle: not.iteration_title,
      myReactionEmoji: not.my_reaction_emoji,
    },
  };
}

/** Lists are paginated, with the page's relations in one statement, presented with Entities::Issue. */
async function listIssues(c: Ctx, owner: q.IssueOwner, params: Partial<ListParams>, filters: q.IssueFilters, from: ReferenceFrom) {
  const page = pageOf(params);
  const now = new Date();
  const sort = { orderBy: params.order_by ?? "created_at", sort: params.sort ?? "desc" } as const;
  const db = c.var.db();
  const { ids, total } = await q.listIssueIds(db, owner, filters, sort, c.var.actor, page, now);
  const rows = await loadIssueRows(db, ids, c.var.actor);
  paginate(c, page, total);
  return present(c, rows, issue, { from, withLabelsDetails: !!params.with_labels_details, includeSubscribed: false });
}

/** GET /issues (lib/api/issues.rb): `scope` defaults to `created_by_me`; `scope=all` works anonymously. */
listRoutes.get("/issues", { params: ListGroupIssues, paginated: true }, async (c) => {
  const params = await readParams(c, ListGroupIssues, LIST_RULES);
  if (params.scope !== "all") requireUser(c);
  const filters = filtersOf(params, { scope: "created_by_me", nonArchived: true });
  return listIssues(c, { kind: "all" }, params, filters, null);
});

/** GET /groups/:id/issues (lib/api/issues.rb): the group's and its subgroups' projects. */
listRoutes.get("/groups/:id/issues", { params: ListGroupIssues, paginated: true }, async (c) => {
  const params = await readParams(c, ListGroupIssues, LIST_RULES);
  const group = await findGroup(c, c.req.param("id"));
  const filters = filtersOf(params, { nonArchived: true });
  return listIssues(c, { kind: "group", groupId: group.id }, params, filters, { kind: "group", id: group.id });
});

/** GET /projects/:id/issues (lib/api/issues.rb) */
listRoutes.get("/projects/:id/issues", { params: ListIssues, paginated: true }, async (c) => {
  const params = await readParams(c, ListIssues, LIST_RULES);
  const project = await findProject(c, c.req.param("id"));
  const filters = filtersOf(params, { nonArchived: false });
  const from = { kind: "project", id: project.id, namespaceId: project.namespaceId } as const;
  return listIssues(c, { kind: "project", projectId: project.id }, params, filters, from);
});
