import * as z from "zod";
import { visibilityLevel } from "../kernel/access";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/**
 * The filters of `params :collection_params` (lib/api/projects.rb), shared by every project list
 * (`/projects`, `/projects/:id/forks`, `/users/:id/starred_projects`), in Grape's declaration order so
 * that their 400 messages come in GitLab's order. The list queries read them as declared (`ListParams`).
 */
const collectionFilters = {
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
const collectionTail = {
  simple: p.bool().optional(),
  pagination: p.string().optional(),
};

/** `params :sort_params`, `:filter_params`, `:pagination`, `simple` of lib/api/projects.rb, in its order. */
export const ListProjects = z.object({
  ...collectionFilters,
  last_activity_after: p.datetime().optional(),
  last_activity_before: p.datetime().optional(),
  // Blank topics name nothing (ProjectsFinder#by_topics rejects them).
  topic: p
    .strings({ comma: true })
    .transform((topics) => topics.filter((t) => t !== ""))
    .optional(),
  topic_id: p.id().optional(),
  ...pageParams.shape,
  ...collectionTail,
  cursor: p.string().optional(),
});

/** The parameters of `GET /users/:user_id/projects`: `collection_params` as `GET /projects` has them. */
export const ListUserProjects = ListProjects.omit({ cursor: true });

/** `params :collection_params` of lib/api/projects.rb (sort, filter, pagination, simple): `GET /projects/:id/forks`. */
export const ListForks = z.object({ ...collectionFilters, ...pageParams.shape, ...collectionTail });

/** `GET /users/:user_id/starred_projects`: `collection_params`, without the similarity order. */
export const ListStarredProjects = z.object({
  ...collectionFilters,
  // StarredProjectsFinder has no similarity order.
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at").optional(),
  ...pageParams.shape,
  ...collectionTail,
});

/** The parameters of `GET /groups/:id/projects` (lib/api/groups.rb), in its order. */
export const ListGroupProjects = z.object({
  archived: p.bool().optional(),
  visibility: p.oneOf("private", "internal", "public").optional(),
  search: p.string().optional(),
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  simple: p.bool().optional(),
  owned: p.bool().optional(),
  starred: p.bool().optional(),
  with_issues_enabled: p.bool().optional(),
  with_merge_requests_enabled: p.bool().optional(),
  with_shared: p.bool().optional(),
  include_subgroups: p.bool().optional(),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional(),
  ...pageParams.shape,
  pagination: p.string().optional(),
});

/** `GET /groups/:id/projects/shared`: the same without owned, with_shared, include_subgroups and similarity. */
export const ListSharedProjects = ListGroupProjects.omit({ owned: true, with_shared: true, include_subgroups: true }).extend({
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at").optional(),
});

/**
 * What the project list queries read (ProjectsFinder's and GroupProjectsFinder's params): the declared
 * parameters of any project list.
 */
export type ListParams = Partial<z.output<typeof ListProjects> & z.output<typeof ListGroupProjects>>;

/** `GET /projects/:id/users` (lib/api/projects.rb): the team's filters, read by the query as declared. */
export const ListProjectUsers = z.object({
  search: p.string().optional(),
  skip_users: p.ints({ comma: true }).optional(),
  ...pageParams.shape,
});

/** `GET /projects/:id/groups` (lib/api/projects.rb): Projects::GroupsFinder's params, read by the query as declared. */
export const ListProjectGroups = z.object({
  search: p.string().optional(),
  skip_groups: p.ints({ comma: true }).optional(),
  with_shared: p.bool().default(false),
  shared_visible_only: p.bool().default(false),
  shared_min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional(),
  ...pageParams.shape,
});
