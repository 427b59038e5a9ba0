import { z } from "zod";
import { authorize } from "../../kernel/abilities";
import type { Ctx } from "../../kernel/env";
import { unauthorized } from "../../kernel/errors";
import { findGroup, findProject } from "../../kernel/lookup";
import { pageOf, pageParams, paginate } from "../../kernel/pagination";
import { INT32, p, readParams, type ParamRule } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { mergeRequestBasic, mergeRequestSimple, type MergeRequestContext, type MergeRequestRow } from "../../entities/merge_requests";
import { refreshListed } from "../merging";
import * as q from "../queries";

export const listRoutes = router();

/**
 * `integer_none_any: true` (lib/api/validations/validators/integer_none_any.rb). An id past the
 * column's range refers to no row: 0, which matches nothing, as Rails turns it into an empty condition
 * (found by `npm run fuzz`: `assignee_id=99999999999` reached Postgres and answered 500).
 */
const rowRef = (n: number) => (n >= INT32.min && n <= INT32.max ? n : 0);
const intNoneAny = () =>
  z.any().transform((value, ctx): number | "None" | "Any" => {
    if (typeof value === "number" && Number.isInteger(value)) return rowRef(value);
    if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return rowRef(Number(value));
    if (typeof value === "string" && ["none", "any"].includes(value.toLowerCase())) return value.toLowerCase() === "none" ? "None" : "Any";
    ctx.addIssue({ code: "custom", message: "should be an integer, none or any" });
    return z.NEVER;
  });

/** `merge_requests_negatable_params` (lib/api/helpers/merge_requests_helpers.rb), in Grape's order. */
const negatable = {
  author_id: p.int().optional(),
  author_username: p.string().optional(),
  assignee_id: intNoneAny().optional(),
  assignee_username: p.strings().optional(),
  reviewer_username: p.string().optional(),
  labels: p.strings({ comma: true }).optional(),
  milestone: p.string().optional(),
  my_reaction_emoji: p.string().optional(),
};

/**
 * `merge_requests_base_params` of 15.4 and pagination.
 * Differs from GitLab: EE's `approved_by_ids` / `approver_ids` are not taken (no approvals yet), and
 * `with_merge_status_recheck` changes nothing: a list always rechecks the rows whose heads moved
 * (merging.ts#refreshListed).
 */
const base = {
  ...negatable,
  reviewer_id: intNoneAny().optional(),
  state: p.oneOf("opened", "closed", "locked", "merged", "all").optional(),
  order_by: p.oneOf("created_at", "updated_at", "title").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  with_labels_details: p.bool().optional(),
  with_merge_status_recheck: p.bool().optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  view: p.oneOf("simple").optional(),
  scope: p.oneOf("created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all").optional(),
  source_branch: p.string().optional(),
  source_project_id: p.int().optional(),
  target_branch: p.string().optional(),
  search: p.string().optional(),
  in: p.string().optional(),
  wip: p.oneOf("yes", "no").optional(),
  not: z.object({ ...negatable, reviewer_id: p.int().optional() }).optional(),
  deployed_before: p.string().optional(),
  deployed_after: p.string().optional(),
  environment: p.string().optional(),
  ...pageParams.shape,
};

const RULES: ParamRule[] = [
  { mutuallyExclusive: ["author_id", "author_username"], before: "assignee_id" },
  { mutuallyExclusive: ["assignee_id", "assignee_username"], before: "reviewer_username" },
  { mutuallyExclusive: ["reviewer_id", "reviewer_username"], before: "state" },
];

const ProjectList = z.object({ ...base, iids: p.ids({ comma: true }).optional() });
const GroupList = z.object({ ...base, non_archived: p.bool().optional() });
const AllList = z.object(base);
type ListInput = z.output<typeof AllList> & { iids?: number[]; non_archived?: boolean };

function negatableFilter(params: z.output<z.ZodObject<typeof negatable>> & { reviewer_id?: number | "None" | "Any" }): q.NegatableFilter {
  return {
    authorId: params.author_id,
    authorUsername: params.author_username,
    assigneeId: params.assignee_id,
    assigneeUsernames: params.assignee_username,
    reviewerId: params.reviewer_id,
    reviewerUsername: params.reviewer_username,
    labels: params.labels,
    milestone: params.milestone,
    myReactionEmoji: params.my_reaction_emoji,
  };
}

/** `find_merge_requests` (lib/api/merge_requests.rb): MergeRequestsFinder's arguments. */
function filterOf(c: Ctx, params: ListInput, scope: { projectId?: number; groupId?: number }, defaultScope: q.MergeRequestFilter["scope"]): q.MergeRequestFilter {
  const searchIn = params.in
    ?.split(",")
    .map((s) => s.trim())
    .filter((s): s is "title" | "description" => s === "title" || s === "description");
  return {
    ...negatableFilter(params),
    actor: c.var.actor,
    ...scope,
    nonArchived: params.non_archived,
    scope: (params.scope?.replace(/-/g, "_") as q.MergeRequestFilter["scope"] | undefined) ?? defaultScope,
    state: params.state ?? "all",
    orderBy: params.order_by ?? "created_at",
    sort: params.sort ?? "desc",
    search: params.search,
    searchIn,
    createdAfter: params.created_after,
    createdBefore: params.created_before,
    updatedAfter: params.updated_after,
    updatedBefore: params.updated_before,
    sourceBranch: params.source_branch,
    targetBranch: params.target_branch,
    sourceProjectId: params.source_project_id,
    wip: params.wip,
    iids: params.iids,
    deployments: params.deployed_before !== undefined || params.deployed_after !== undefined || params.environment !== undefined,
    not: params.not ? negatableFilter(params.not) : undefined,
  };
}

/** `serializer_options_for`: MergeRequestBasic (or MergeRequestSimple with `view=simple`). */
async function respond(c: Ctx, params: ListInput, filter: q.MergeRequestFilter, from: Partial<MergeRequestContext>) {
  const page = pageOf(params);
  const { rows, total } = await q.listMergeRequests(c.var.db(), filter, page);
  paginate(c, page, total);
  const simple = params.view === "simple";
  // The simple view shows no merge status; the basic one shows what the single GET would.
  const shown = simple ? rows : await refreshListed(c.var.db(), rows);
  const entity = simple ? mergeRequestSimple : mergeRequestBasic;
  return present<MergeRequestRow, Partial<MergeRequestContext>>(c, shown, entity, { ...from, withLabelsDetails: params.with_labels_details });
}

/** GET /merge_requests (lib/api/merge_requests.rb): `scope` defaults to created_by_me; `scope=all` works anonymously. */
listRoutes.get("/merge_requests", { params: AllList }, async (c) => {
  const params = await readParams(c, AllList, RULES);
  if (!c.var.actor && params.scope !== "all") throw unauthorized();
  return respond(c, params, filterOf(c, params, {}, "created_by_me"), {});
});

/** GET /groups/:id/merge_requests (lib/api/merge_requests.rb): the group and its subgroups, `non_archived` by default. */
listRoutes.get("/groups/:id/merge_requests", { params: GroupList }, async (c) => {
  const params = await readParams(c, GroupList, RULES);
  const group = await findGroup(c, c.req.param("id"));
  const filter = filterOf(c, { ...params, non_archived: params.non_archived ?? true }, { groupId: group.id }, "all");
  return respond(c, params, filter, { fromGroup: { id: group.id } });
});

/** GET /projects/:id/merge_requests (lib/api/merge_requests.rb) */
listRoutes.get("/projects/:id/merge_requests", { params: ProjectList }, async (c) => {
  const params = await readParams(c, ProjectList, RULES);
  const project = await findProject(c, c.req.param("id"));
  authorize(c, "read_merge_request", project);
  const filter = filterOf(c, params, { projectId: project.id }, "all");
  return respond(c, params, filter, { fromProject: { id: project.id, namespaceId: project.namespaceId } });
});
