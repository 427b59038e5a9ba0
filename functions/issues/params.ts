import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p, type ParamRule } from "../kernel/params";

/**
 * Parameter schemas of lib/api/issues.rb, lib/api/helpers/issues_helpers.rb and their EE prepends, in
 * Grape's declaration order (messages are reported in that order).
 */

/**
 * `types: [Integer, String]` with IntegerOrCustomValue (lib/api/validations/validators/
 * integer_or_custom_value.rb): an integer, or one of `custom` in any case; anything else is
 * `<param> should be an integer, None, or Any, however got <value>`.
 */
function intOr<const T extends string>(...custom: T[]) {
  const options = ["an integer", ...custom];
  const sentence = options.length === 2 ? options.join(" or ") : `${options.slice(0, -1).join(", ")}, or ${options[options.length - 1]}`;
  return z.any().transform((value, ctx): number | Lowercase<T> => {
    if (typeof value === "number" && Number.isInteger(value)) return value;
    const text = typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value);
    if (typeof value === "string" && /^\s*[-+]?\d+\s*$/.test(value) && Number.isSafeInteger(Number(value))) return Number(value);
    const match = custom.find((c) => c.toLowerCase() === text.toLowerCase());
    if (match) return match.toLowerCase() as Lowercase<T>;
    ctx.addIssue({ code: "custom", message: `should be ${sentence}, however got ${text}` });
    return z.NEVER;
  });
}

/** CheckAssigneesCount.coerce: a string or an array (never split on commas); EE allows several. */
const usernames = z.preprocess((v) => (typeof v === "string" ? [v] : Array.isArray(v) ? v : v === undefined ? v : []), p.strings());

/**
 * `labels` as IssuableFinder reads it: CommaSeparatedToArray (`a,b` and arrays alike, every element split
 * on commas and stripped), blank names dropped.
 */
const labelNames = () => p.strings({ comma: true }).transform((list) => list.flatMap((name) => name.split(",").map((s) => s.trim())).filter((l) => l !== ""));

const SCOPES = ["created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"] as const;
/** `scope`, its dashed spellings read as IssuableFinder's underscored ones. */
const scope = () => p.oneOf(...SCOPES).transform((s) => s.replace(/-/g, "_") as "created_by_me" | "assigned_to_me" | "all");

/** WorkItems::Type.allowed_types_for_issues in 15.4 (every base type but `task`). */
export const ISSUE_TYPES = ["issue", "incident", "test_case", "requirement"] as const;

/** Helpers::IssuesHelpers.sort_options plus EE `weight`. */
export const ORDER_BY = [
  "created_at",
  "due_date",
  "label_priority",
  "milestone_due",
  "popularity",
  "priority",
  "relative_position",
  "title",
  "updated_at",
  "weight",
] as const;

export const DUE_DATES = ["0", "any", "today", "tomorrow", "overdue", "week", "month", "next_month_and_previous_two_weeks", ""] as const;

/** `params :negatable_issue_filter_params` (with EE) inside `not`. */
const negatable = z.object(
  {
    labels: labelNames().optional(),
    milestone: p.string().optional(),
    milestone_id: p.oneOf("Any", "None", "Upcoming", "Started").optional(),
    iids: p.ids({ comma: true }).optional(),
    author_id: p.int().optional(),
    author_username: p.string().optional(),
    assignee_id: p.int().optional(),
    assignee_username: usernames.optional(),
    weight: p.int().optional(),
    iteration_id: intOr("none", "any", "current").optional(),
    iteration_title: p.string().optional(),
    // Not declared by 15.4's `not` hash, but IssuableFinder negates it and the spec lists it.
    my_reaction_emoji: p.string().optional(),
  },
  { error: "is invalid" },
);

/** `params :issues_stats_params` (with EE), the filters shared by every list. */
const statsShape = {
  labels: labelNames().optional(),
  milestone: p.string().optional(),
  milestone_id: p.oneOf("Any", "None", "Upcoming", "Started").optional(),
  iids: p.ids({ comma: true }).optional(),
  search: p.string().optional(),
  in: p.string().optional(),
  author_id: p.int().optional(),
  author_username: p.string().optional(),
  assignee_id: intOr("None", "Any").optional(),
  assignee_username: usernames.optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  not: negatable.optional(),
  scope: scope().optional(),
  my_reaction_emoji: p.string().optional(),
  confidential: p.bool().optional(),
  weight: intOr("None", "Any").optional(),
  epic_id: intOr("None", "Any").optional(),
  health_status: p.oneOf("at_risk", "needs_attention", "on_track", "none", "any", "None", "Any").optional(),
  iteration_id: intOr("none", "any", "current").optional(),
  iteration_title: p.string().optional(),
};

/** `GET /projects/:id/issues_statistics`, `GET /groups/:id/issues_statistics`: `params :issues_stats_params`. */
export const IssuesStatistics = z.object(statsShape);

/** `GET /issues_statistics`: `scope` defaults to `created_by_me` (lib/api/issues.rb). */
export const AllIssuesStatistics = IssuesStatistics.extend({ scope: scope().default("created_by_me") });

/** `params :issues_params`: the project list. */
export const ListIssues = z.object({
  with_labels_details: p.bool().optional(),
  state: p.oneOf("opened", "closed", "all").optional(),
  order_by: p.oneOf(...ORDER_BY).optional(),
  sort: p.oneOf("asc", "desc").optional(),
  due_date: p.oneOf(...DUE_DATES).optional(),
  issue_type: p.oneOf(...ISSUE_TYPES).optional(),
  ...statsShape,
  ...pageParams.shape,
});

/** `GET /groups/:id/issues` adds `non_archived` (default true). */
export const ListGroupIssues = ListIssues.extend({ non_archived: p.bool().default(true) });

/** `GET /issues`: `non_archived` too, and `scope` defaults to `created_by_me` (lib/api/issues.rb). */
export const ListAllIssues = ListGroupIssues.extend({ scope: scope().default("created_by_me") });

export const LIST_RULES: ParamRule[] = [
  { mutuallyExclusive: ["milestone_id", "milestone"] },
  { mutuallyExclusive: ["author_id", "author_username"] },
  { mutuallyExclusive: ["assignee_id", "assignee_username"] },
  { mutuallyExclusive: ["iteration_id", "iteration_title"] },
];

/**
 * What the list and statistics queries read (IssuesFinder's params): the declared parameters of any of
 * the lists, the project list's lacking `non_archived`, the statistics' lacking `state` and the sorts.
 */
export type ListParams = Partial<z.output<typeof ListAllIssues>>;

/** Date parameters arrive as strings (`type: String`) and are cast when assigned. */
const dateString = z.preprocess((v) => (v === "" ? null : v), p.string().nullable());

/** `params :issue_params` (with EE `optional_issue_params_ee`). */
const issueShape = {
  description: p.string().nullable().optional(),
  assignee_ids: p.ints({ comma: true }).nullable().optional(),
  assignee_id: p.int().nullable().optional(),
  milestone_id: p.int().nullable().optional(),
  labels: p.strings({ comma: true }).optional(),
  add_labels: p.strings({ comma: true }).optional(),
  remove_labels: p.strings({ comma: true }).optional(),
  due_date: dateString.optional(),
  confidential: p.bool().optional(),
  discussion_locked: p.bool().nullable().optional(),
  issue_type: p.oneOf(...ISSUE_TYPES).optional(),
  weight: p.int().nullable().optional(),
  epic_id: p.int().optional(),
  epic_iid: p.int().optional(),
};

const EPIC_RULE: ParamRule = { mutuallyExclusive: ["epic_id", "epic_iid"] };

export const CreateIssue = z.object({
  title: p.string(),
  created_at: p.datetime().optional(),
  merge_request_to_resolve_discussions_of: p.int().optional(),
  discussion_to_resolve: p.string().optional(),
  iid: p.int().optional(),
  ...issueShape,
});
export const CREATE_RULES: ParamRule[] = [EPIC_RULE];
export type CreateParams = z.output<typeof CreateIssue>;

export const UpdateIssue = z.object({
  issue_iid: p.id(),
  title: p.string().optional(),
  updated_at: p.datetime().optional(),
  state_event: p.oneOf("reopen", "close").optional(),
  ...issueShape,
});

/** Helpers::IssuesHelpers.update_params_at_least_one_of with the EE additions. */
export const UPDATE_AT_LEAST_ONE = [
  "assignee_id",
  "assignee_ids",
  "confidential",
  "created_at",
  "description",
  "discussion_locked",
  "due_date",
  "labels",
  "add_labels",
  "remove_labels",
  "milestone_id",
  "state_event",
  "title",
  "issue_type",
  "weight",
  "epic_id",
  "epic_iid",
];
export const UPDATE_RULES: ParamRule[] = [EPIC_RULE, { atLeastOneOf: UPDATE_AT_LEAST_ONE }];
export type UpdateParams = z.output<typeof UpdateIssue>;

/** Resource event lists: `eventable_id` (the issue iid) is `types: [Integer, String]`, found or 404. */
export const EventsList = pageParams;
