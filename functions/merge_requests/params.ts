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
  author_id: p.int().optional().describe("Return merge requests which are authored by the user with the given ID"),
  author_username: p.string().optional().describe("Return merge requests which are authored by the user with the given username"),
  assignee_id: intNoneAny().optional().describe("Return merge requests which are assigned to the user with the given ID"),
  assignee_username: p.strings().optional().describe("Return merge requests which are assigned to the user with the given username"),
  reviewer_username: p.string().optional().describe("Return merge requests which have the user as a reviewer with the given username"),
  labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  milestone: p.string().optional().describe("Return merge requests for a specific milestone"),
  my_reaction_emoji: p.string().optional().describe("Return issues reacted by the authenticated user by the given emoji"),
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
  reviewer_id: intNoneAny().optional().describe("Return merge requests which have the user as a reviewer with the given user ID"),
  state: p.oneOf("opened", "closed", "locked", "merged", "all").default("all").describe("Return opened, closed, locked, merged, or all merge requests"),
  order_by: p.oneOf("created_at", "updated_at", "title").default("created_at").describe("Return merge requests ordered by `created_at`, `updated_at` or `title` fields."),
  sort: p.oneOf("asc", "desc").default("desc").describe("Return merge requests sorted in `asc` or `desc` order."),
  with_labels_details: p.bool().optional().describe("Return titles of labels and other details"),
  with_merge_status_recheck: p.bool().optional().describe("Request that stale merge statuses be rechecked asynchronously"),
  created_after: p.datetime().optional().describe("Return merge requests created after the specified time"),
  created_before: p.datetime().optional().describe("Return merge requests created before the specified time"),
  updated_after: p.datetime().optional().describe("Return merge requests updated after the specified time"),
  updated_before: p.datetime().optional().describe("Return merge requests updated before the specified time"),
  view: p.oneOf("simple").optional().describe("If simple, returns the `iid`, URL, title, description, and basic state of merge request"),
  scope: scope().optional().describe("Return merge requests for the given scope: `created_by_me`, `assigned_to_me` or `all`"),
  source_branch: p.string().optional().describe("Return merge requests with the given source branch"),
  source_project_id: p.int().optional().describe("Return merge requests with the given source project id"),
  target_branch: p.string().optional().describe("Return merge requests with the given target branch"),
  search: p.string().optional().describe("Search merge requests for text present in the title, description, or any combination of these"),
  in: p.string().optional().describe("`title`, `description`, or a string joining them with comma"),
  wip: p.oneOf("yes", "no").optional().describe("Search merge requests for WIP in the title"),
  not: z.object({ ...negatable, reviewer_id: p.int().optional() }).optional().describe("Parameters to negate"),
  deployed_before: p.string().optional().describe("Return merge requests deployed before the given date/time"),
  deployed_after: p.string().optional().describe("Return merge requests deployed after the given date/time"),
  environment: p.string().optional().describe("Returns merge requests deployed to the given environment"),
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
