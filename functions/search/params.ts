import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * Helpers::SearchHelpers (lib/api/helpers/search_helpers.rb with ee/…): the scopes each level takes.
 * EE adds `wiki_blobs`, `blobs`, `commits` and `notes` to the global and group levels, where they need
 * Elasticsearch (`verify_search_scope!`).
 */
export const GLOBAL_SCOPES = ["wiki_blobs", "blobs", "commits", "notes", "projects", "issues", "merge_requests", "milestones", "snippet_titles", "users"] as const;
export const GROUP_SCOPES = ["wiki_blobs", "blobs", "commits", "notes", "projects", "issues", "merge_requests", "milestones", "users"] as const;
export const PROJECT_SCOPES = ["issues", "merge_requests", "milestones", "notes", "wiki_blobs", "commits", "blobs", "users"] as const;
/** ee/lib/ee/api/search.rb ELASTICSEARCH_SCOPES: refused at the global and group levels without Elasticsearch. */
export const ELASTICSEARCH_SCOPES = ["wiki_blobs", "blobs", "commits", "notes"];

/** `Helpers::SearchHelpers.search_states`. */
const state = p.oneOf("all", "opened", "closed", "merged");

/**
 * The declared parameters, in Grape's order. `order_by` and `sort` are not declared by GitLab (the
 * search reads them from `params`, so no value is refused); they are read here as strings.
 */
const common = {
  state: state.optional(),
  confidential: p.bool().optional(),
  ...pageParams.shape,
  order_by: p.string().optional(),
  sort: p.string().optional(),
};

export const GlobalSearch = z.object({ search: p.string(), scope: p.oneOf(...GLOBAL_SCOPES), ...common });
export const GroupSearch = z.object({ search: p.string(), scope: p.oneOf(...GROUP_SCOPES), ...common });
export const ProjectSearch = z.object({ search: p.string(), scope: p.oneOf(...PROJECT_SCOPES), ref: p.string().optional(), ...common });

export type SearchParams = z.output<typeof GlobalSearch> | z.output<typeof GroupSearch> | z.output<typeof ProjectSearch>;
