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
  author_id: p.int().optional().describe("Returns merge requests created by the given user `id`. Mutually exclusive with `author_username`. Combine with `scope=all` or `scope=assigned_to_me`."),
  author_username: p.string().optional().describe("Returns merge requests created by the given `username`. Mutually exclusive with `author_id`."),
  assignee_id: intNoneAny().optional().describe("Returns merge requests assigned to the given user `id`. `None` returns unassigned merge requests. `Any` returns merge requests with an assignee."),
  assignee_username: p.strings().optional().describe("Returns merge requests created by the given `username`. Mutually exclusive with `author_id`."),
  reviewer_username: p.string().optional().describe("Returns merge requests which have the user as a reviewer with the given `username`. `None` returns merge requests with no reviewers. `Any` returns merge requests with any reviewer. Mutually exclusive with `reviewer_id`."),
  labels: p.strings({ comma: true }).optional().describe("Returns merge requests matching a comma-separated list of labels. `None` lists all merge requests with no labels. `Any` lists all merge requests with at least one label. Predefined names are case-insensitive."),
  milestone: p.string().optional().describe("Returns merge requests for a specific milestone. `None` returns merge requests with no milestone. `Any` returns merge requests that have an assigned milestone."),
  my_reaction_emoji: p.string().optional().describe("Returns merge requests reacted by the authenticated user by the given `emoji`. `None` returns issues not given a reaction. `Any` returns issues given at least one reaction."),
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
  reviewer_id: intNoneAny().optional().describe("Returns merge requests which have the user as a reviewer with the given user `id`. `None` returns merge requests with no reviewers. `Any` returns merge requests with any reviewer. Mutually exclusive with `reviewer_username`."),
  state: p.oneOf("opened", "closed", "locked", "merged", "all").default("all").describe("Returns `all` merge requests or just those that are `opened`, `closed`, `locked`, or `merged`."),
  order_by: p.oneOf("created_at", "updated_at", "title").default("created_at").describe("Returns merge requests ordered by `created_at`, `title` or `updated_at` fields."),
  sort: p.oneOf("asc", "desc").default("desc").describe("Returns merge requests sorted in `asc` or `desc` order."),
  with_labels_details: p.bool().optional().describe("If `true`, response returns more details for each label in labels field: `:name`,`:color`, `:description`, `:description_html`, `:text_color`"),
  with_merge_status_recheck: p.bool().optional().describe("If `true`, this projection requests (but does not guarantee) that the `merge_status` field be recalculated asynchronously."),
  created_after: p.datetime().optional().describe("Returns merge requests created on or after the given time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  created_before: p.datetime().optional().describe("Returns merge requests created on or before the given time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  updated_after: p.datetime().optional().describe("Returns merge requests updated on or after the given time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  updated_before: p.datetime().optional().describe("Returns merge requests updated on or before the given time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  view: p.oneOf("simple").optional().describe("If simple, returns the `iid`, URL, title, description, and basic state of merge request"),
  scope: scope().optional().describe("Returns merge requests for the given scope: `created_by_me`, `assigned_to_me` or `all`"),
  source_branch: p.string().optional().describe("Returns merge requests with the given source branch"),
  source_project_id: p.int().optional().describe("Returns merge requests with the given source project id"),
  target_branch: p.string().optional().describe("Returns merge requests with the given target branch"),
  search: p.string().optional().describe("Search merge requests against their `title` and `description`."),
  in: p.string().optional().describe("Modify the scope of the search attribute. `title`, `description`, or a string joining them with comma."),
  wip: p.oneOf("yes", "no").optional().describe("Filter merge requests against their `wip` status. `yes` to return only draft merge requests, `no` to return non-draft merge requests."),
  not: z.object({ ...negatable, reviewer_id: p.int().optional() }).optional().describe("Returns merge requests that do not match the parameters supplied. Accepts: `author_id`, `author_username`, `assignee_id`, `assignee_username`, `reviewer_id`, `reviewer_username`, `labels`, `milestone`, `my_reaction_emoji`."),
  deployed_before: p.string().optional().describe("Returns merge requests deployed before the given date/time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  deployed_after: p.string().optional().describe("Returns merge requests deployed after the given date/time. Expected in ISO 8601 format (`2019-03-15T08:00:00Z`)."),
  environment: p.string().optional().describe("Returns merge requests deployed to the given environment."),
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
