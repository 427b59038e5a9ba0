import * as z from "zod";
import { authorize } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { unauthorized } from "../../kernel/errors";
import { findGroup, findProject } from "../../kernel/lookup";
import { pageOf, paginate } from "../../kernel/pagination";
import { readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { mergeRequestBasic, mergeRequestSimple, type MergeRequestContext, type MergeRequestRow, MergeRequestBasic, MergeRequestSimple } from "../../entities/merge_requests";
import { refreshListed } from "../merging";
import { LIST_RULES, ListGroupMergeRequests, ListMergeRequests, ListProjectMergeRequests, type ListParams } from "../params";
import * as q from "../queries";
import { labelDescriptionsHtml } from "../../shared/markdown/label_descriptions";
import type { MarkdownOptions } from "../../shared/markdown/render";

export const listRoutes = router();

/** `serializer_options_for`: MergeRequestBasic (or MergeRequestSimple with `view=simple`). */
export async function respond(c: Ctx, params: ListParams, owner: q.MergeRequestOwner, from: Partial<MergeRequestContext>, context: Pick<MarkdownOptions, "project" | "group"> = {}) {
  const page = pageOf(params);
  const { rows, total } = await q.listMergeRequests(c.var.db(), c.var.actor, owner, params, page);
  paginate(c, page, total);
  const simple = params.view === "simple";
  // The simple view shows no merge status; the basic one shows what the single GET would.
  const shown = simple ? rows : await refreshListed(c.var.db(), rows);
  const entity = simple ? mergeRequestSimple : mergeRequestBasic;
  // `with_labels_details`: the labels' description_html, rendered for the whole page at once.
  const labelHtml = params.with_labels_details && !simple ? await labelDescriptionsHtml(c, shown.flatMap((r) => r.labels), context) : {};
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, shown, entity, { ...from, withLabelsDetails: params.with_labels_details, ...labelHtml });
}

/** GET /merge_requests (lib/api/merge_requests.rb): `scope` defaults to created_by_me; `scope=all` works anonymously. */
listRoutes.get("/merge_requests", { description: "Get all merge requests the authenticated user has access to.", params: ListMergeRequests, response: [z.union([MergeRequestBasic, MergeRequestSimple])] }, async (c) => {
  const params = await readParams(c, ListMergeRequests, LIST_RULES);
  if (!c.var.actor && params.scope !== "all") throw unauthorized();
  return respond(c, params, {}, {});
});

/** GET /groups/:id/merge_requests (lib/api/merge_requests.rb): the group and its subgroups, `non_archived` by default. */
listRoutes.get("/groups/:id/merge_requests", { description: "Get all merge requests for this group and its subgroups.", params: ListGroupMergeRequests, response: [z.union([MergeRequestBasic, MergeRequestSimple])] }, async (c) => {
  const params = await readParams(c, ListGroupMergeRequests, LIST_RULES);
  const group = await findGroup(c, c.req.param("id"));
  return respond(c, params, { groupId: group.id }, { fromGroup: { id: group.id } }, { group });
});

/** GET /projects/:id/merge_requests (lib/api/merge_requests.rb) */
listRoutes.get("/projects/:id/merge_requests", { description: "Get all merge requests for this project.", params: ListProjectMergeRequests, response: [z.union([MergeRequestBasic, MergeRequestSimple])] }, async (c) => {
  const params = await readParams(c, ListProjectMergeRequests, LIST_RULES);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_merge_request", project);
  return respond(c, params, { projectId: project.id }, { fromProject: { id: project.id, namespaceId: project.namespaceId } }, { project });
});
