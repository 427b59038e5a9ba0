import { p } from "../kernel/params";

/**
 * The filters of `params :collection_params` (lib/api/projects.rb), shared by every project list
 * (`/projects`, `/projects/:id/forks`, `/users/:id/starred_projects`), in Grape's declaration order so
 * that their 400 messages come in GitLab's order.
 */
export const collectionFilters = {
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  archived: p.bool().optional(),
  visibility: p.oneOf("private", "internal", "public").optional(),
  search: p.string().optional(),
  search_namespaces: p.bool().optional(),
  owned: p.bool().optional(),
  starred: p.bool().optional(),
  membership: p.bool().optional(),
  with_issues_enabled: p.bool().optional(),
  with_merge_requests_enabled: p.bool().optional(),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional(),
  id_after: p.int().optional(),
  id_before: p.int().optional(),
};

/** `simple` and `pagination`, declared after the page parameters. */
export const collectionTail = {
  simple: p.bool().optional(),
  pagination: p.string().optional(),
};
