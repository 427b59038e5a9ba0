import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { INT32, p, type ParamRule } from "../kernel/params";

/**
 * Parameter schemas of the merge request lists (lib/api/merge_requests.rb,
 * lib/api/helpers/merge_requests_helpers.rb), in Grape's declaration order (messages are reported in
 * that order). The declared parameters are MergeRequestsFinder's params: the list query reads them as
 * they are (`ListParams`).
 */

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

const SCOPES = ["created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"] as const;
/** `scope`, its dashed spellings read as MergeRequestsFinder's underscored ones (`.underscore`). */
const scope = () => p.oneOf(...SCOPES).transform((s) => s.replace(/-/g, "_") as "created_by_me" | "assigned_to_me" | "all");

/**
 * `merge_requests_base_params` of 15.4 and pagination.
 * Differs from GitLab: EE's `approved_by_ids` / `approver_ids` are not taken (no approvals yet), and
 * `with_merge_status_recheck` changes nothing: a list always rechecks the rows whose heads moved
 * (merging.ts#refreshListed). `deployed_before`, `deployed_after` and `environment` match nothing: no
 * deployment exists yet.
 */
const base = {
  ...negatable,
  reviewer_id: intNoneAny().optional(),
  state: p.oneOf("opened", "closed", "locked", "merged", "all").default("all"),
  order_by: p.oneOf("created_at", "updated_at", "title").default("created_at"),
  sort: p.oneOf("asc", "desc").default("desc"),
  with_labels_details: p.bool().optional(),
  with_merge_status_recheck: p.bool().optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  view: p.oneOf("simple").optional(),
  scope: scope().optional(),
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

export const LIST_RULES: ParamRule[] = [
  { mutuallyExclusive: ["author_id", "author_username"], before: "assignee_id" },
  { mutuallyExclusive: ["assignee_id", "assignee_username"], before: "reviewer_username" },
  { mutuallyExclusive: ["reviewer_id", "reviewer_username"], before: "state" },
];

/** `GET /projects/:id/merge_requests`: `iids` too. */
export const ListProjectMergeRequests = z.object({ ...base, iids: p.ids({ comma: true }).optional() });
/** `GET /groups/:id/merge_requests`: the group and its subgroups, `non_archived` by default. */
export const ListGroupMergeRequests = z.object({ ...base, non_archived: p.bool().default(true) });
/** `GET /merge_requests`: `scope` defaults to `created_by_me`. */
export const ListMergeRequests = z.object({ ...base, scope: scope().default("created_by_me") });

/** What the list query reads: the declared parameters of any of the three lists (the negated ones included). */
export type ListParams = Partial<z.output<typeof ListProjectMergeRequests> & z.output<typeof ListGroupMergeRequests>>;
