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
  labels: labelNames().optional().describe("Comma-separated list of label names"),
  milestone: p.string().optional().describe("Milestone title"),
  milestone_id: p.oneOf("Any", "None", "Upcoming", "Started").optional().describe("Return issues assigned to milestones with a specified timebox value (\"Any\", \"None\", \"Upcoming\" or \"Started\")"),
  iids: p.ids({ comma: true }).optional().describe("The IID array of issues"),
  search: p.string().optional().describe("Search issues for text present in the title, description, or any combination of these"),
  in: p.string().optional().describe("`title`, `description`, or a string joining them with comma"),
  author_id: p.int().optional().describe("Return issues which are authored by the user with the given ID"),
  author_username: p.string().optional().describe("Return issues which are authored by the user with the given username"),
  assignee_id: intOr("None", "Any").optional().describe("Return issues which are assigned to the user with the given ID"),
  assignee_username: usernames.optional().describe("Return issues which are assigned to the user with the given username"),
  created_after: p.datetime().optional().describe("Return issues created after the specified time"),
  created_before: p.datetime().optional().describe("Return issues created before the specified time"),
  updated_after: p.datetime().optional().describe("Return issues updated after the specified time"),
  updated_before: p.datetime().optional().describe("Return issues updated before the specified time"),
  not: negatable.optional().describe("Return issues that do not match the parameters supplied"),
  scope: scope().optional().describe("Return issues for the given scope: `created_by_me`, `assigned_to_me` or `all`"),
  my_reaction_emoji: p.string().optional().describe("Return issues reacted by the authenticated user by the given emoji"),
  confidential: p.bool().optional().describe("Filter confidential or public issues"),
  weight: intOr("None", "Any").optional().describe("The weight of the issue"),
  epic_id: intOr("None", "Any").optional().describe("The ID of an epic associated with the issues"),
  health_status: p.oneOf("at_risk", "needs_attention", "on_track", "none", "any", "None", "Any").optional().describe("The health status of the issue"),
  iteration_id: intOr("none", "any", "current").optional().describe("Return issues which are assigned to the iteration with the given ID"),
  iteration_title: p.string().optional().describe("Return issues which are assigned to the iteration with the given title"),
};

/** `GET /projects/:id/issues_statistics`, `GET /groups/:id/issues_statistics`: `params :issues_stats_params`. */
export const IssuesStatistics = z.object(statsShape);

/** `GET /issues_statistics`: `scope` defaults to `created_by_me` (lib/api/issues.rb). */
export const AllIssuesStatistics = IssuesStatistics.extend({ scope: scope().default("created_by_me") });

/** `params :issues_params`: the project list. */
export const ListIssues = z.object({
  with_labels_details: p.bool().optional().describe("Return titles of labels and other details"),
  state: p.oneOf("opened", "closed", "all").optional().describe("Return opened, closed, or all issues"),
  order_by: p.oneOf(...ORDER_BY).optional().describe("Return issues ordered by `created_at`, `due_date`, `label_priority`, `milestone_due`, `popularity`, `priority`, `relative_position`, `title`, or `updated_at` fields."),
  sort: p.oneOf("asc", "desc").optional().describe("Return issues sorted in `asc` or `desc` order."),
  due_date: p.oneOf(...DUE_DATES).optional().describe("Return issues that have no due date (`0`), or whose due date is this week, this month, between two weeks ago and next month, or which are overdue. Accepts: `overdue`, `week`, `month`, `next_month_and_previous_two_weeks`, `0`"),
  issue_type: p.oneOf(...ISSUE_TYPES).optional().describe("The type of the issue. Accepts: issue, incident, test_case"),
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
  description: p.string().nullable().optional().describe("The description of an issue"),
  assignee_ids: p.ints({ comma: true }).nullable().optional().describe("The array of user IDs to assign issue"),
  assignee_id: p.int().nullable().optional().describe("[Deprecated] The ID of a user to assign issue"),
  milestone_id: p.int().nullable().optional().describe("The ID of a milestone to assign issue"),
  // Deliberate difference from GitLab: GitLab 15.4 sets an issue's iteration through GraphQL only.
  iteration_id: p.int().nullable().optional().describe("The ID of an iteration of the project's groups to assign issue (0 or null removes it)"),
  labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  add_labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  remove_labels: p.strings({ comma: true }).optional().describe("Comma-separated list of label names"),
  due_date: dateString.optional().describe("Date string in the format YEAR-MONTH-DAY"),
  confidential: p.bool().optional().describe("Boolean parameter if the issue should be confidential"),
  discussion_locked: p.bool().nullable().optional().describe("Boolean parameter indicating if the issue's discussion is locked"),
  issue_type: p.oneOf(...ISSUE_TYPES).optional().describe("The type of the issue"),
  weight: p.int().nullable().optional().describe("The weight of the issue"),
  epic_id: p.int().optional().describe("The ID of an epic to associate the issue with"),
  epic_iid: p.int().optional().describe("The IID of an epic to associate the issue with (deprecated)"),
};

const EPIC_RULE: ParamRule = { mutuallyExclusive: ["epic_id", "epic_iid"] };

export const CreateIssue = z.object({
  title: p.string().describe("The title of an issue"),
  created_at: p.datetime().optional().describe("Date time when the issue was created. Available only for admins and project owners."),
  merge_request_to_resolve_discussions_of: p.int().optional().describe("The IID of a merge request for which to resolve discussions"),
  discussion_to_resolve: p.string().optional().describe("The ID of a discussion to resolve, also pass `merge_request_to_resolve_discussions_of`"),
  iid: p.int().optional().describe("The internal ID of a project issue. Available only for admins and project owners."),
  ...issueShape,
});
export const CREATE_RULES: ParamRule[] = [EPIC_RULE];
export type CreateParams = z.output<typeof CreateIssue>;

export const UpdateIssue = z.object({
  issue_iid: p.id().describe("The internal ID of a project issue"),
  title: p.string().optional().describe("The title of an issue"),
  updated_at: p.datetime().optional().describe("Date time when the issue was updated. Available only for admins and project owners."),
  state_event: p.oneOf("reopen", "close").optional().describe("State of the issue"),
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
  "iteration_id",
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
