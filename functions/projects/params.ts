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
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity").optional().describe("Return projects ordered by field"),
  sort: p.oneOf("asc", "desc").optional().describe("Return projects sorted in ascending and descending order"),
  archived: p.bool().optional().describe("Limit by archived status"),
  visibility: p.oneOf("private", "internal", "public").optional().describe("Limit by visibility"),
  search: p.string().optional().describe("Return list of projects matching the search criteria"),
  search_namespaces: p.bool().optional().describe("Include ancestor namespaces when matching search criteria"),
  owned: p.bool().optional().describe("Limit by owned by authenticated user"),
  starred: p.bool().optional().describe("Limit by starred status"),
  membership: p.bool().optional().describe("Limit by projects that the current user is a member of"),
  with_issues_enabled: p.bool().optional().describe("Limit by enabled issues feature"),
  with_merge_requests_enabled: p.bool().optional().describe("Limit by enabled merge requests feature"),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional().describe("Limit by minimum access level of authenticated user"),
  id_after: p.int().optional().describe("Limit results to projects with IDs greater than the specified ID"),
  id_before: p.int().optional().describe("Limit results to projects with IDs less than the specified ID"),
};

/** `simple` and `pagination`, declared after the page parameters. */
const collectionTail = {
  simple: p.bool().optional().describe("Return only the ID, URL, name, and path of each project"),
  pagination: p.string().optional(),
};

/** `params :sort_params`, `:filter_params`, `:pagination`, `simple` of lib/api/projects.rb, in its order. */
export const ListProjects = z.object({
  ...collectionFilters,
  last_activity_after: p.datetime().optional().describe("Limit results to projects with last_activity after specified time. Format: ISO 8601 YYYY-MM-DDTHH:MM:SSZ"),
  last_activity_before: p.datetime().optional().describe("Limit results to projects with last_activity before specified time. Format: ISO 8601 YYYY-MM-DDTHH:MM:SSZ"),
  // Blank topics name nothing (ProjectsFinder#by_topics rejects them).
  topic: p
    .strings({ comma: true })
    .transform((topics) => topics.filter((t) => t !== ""))
    .optional(),
  topic_id: p.id().optional().describe("Limit results to projects with the assigned topic given by the topic ID"),
  ...pageParams.shape,
  ...collectionTail,
  cursor: p.string().optional(),
  statistics: p.bool().optional().describe("Include project statistics"),
});

/** `GET /projects/:id` (lib/api/projects.rb): `statistics`. */
export const GetProject = z.object({
  statistics: p.bool().optional().describe("Include project statistics"),
});

/** The parameters of `GET /users/:user_id/projects`: `collection_params` as `GET /projects` has them. */
export const ListUserProjects = ListProjects.omit({ cursor: true });

/** `params :collection_params` of lib/api/projects.rb (sort, filter, pagination, simple): `GET /projects/:id/forks`. */
export const ListForks = z.object({ ...collectionFilters, ...pageParams.shape, ...collectionTail });

/** `GET /users/:user_id/starred_projects`: `collection_params`, without the similarity order. */
export const ListStarredProjects = z.object({
  ...collectionFilters,
  // StarredProjectsFinder has no similarity order.
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at").optional().describe("Return projects ordered by field"),
  ...pageParams.shape,
  ...collectionTail,
});

/** The parameters of `GET /groups/:id/projects` (lib/api/groups.rb), in its order. */
export const ListGroupProjects = z.object({
  archived: p.bool().optional().describe("Limit by archived status"),
  visibility: p.oneOf("private", "internal", "public").optional().describe("Limit by visibility"),
  search: p.string().optional().describe("Return list of authorized projects matching the search criteria"),
  order_by: p.oneOf("id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity").optional().describe("Return projects ordered by field"),
  sort: p.oneOf("asc", "desc").optional().describe("Return projects sorted in ascending and descending order"),
  simple: p.bool().optional().describe("Return only the ID, URL, name, and path of each project"),
  owned: p.bool().optional().describe("Return only projects owned by the authenticated user"),
  starred: p.bool().optional().describe("Limit by starred status"),
  with_issues_enabled: p.bool().optional().describe("Limit by enabled issues feature"),
  with_merge_requests_enabled: p.bool().optional().describe("Limit by enabled merge requests feature"),
  with_shared: p.bool().optional().describe("Include projects shared to this group"),
  include_subgroups: p.bool().optional().describe("Includes projects in subgroups of this group"),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional().describe("Limit by minimum access level of authenticated user"),
  ...pageParams.shape,
  pagination: p.string().optional(),
  statistics: p.bool().optional().describe("Include project statistics"),
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
  search: p.string().optional().describe("Return list of users matching the search criteria"),
  skip_users: p.ints({ comma: true }).optional().describe("Filter out users with the specified IDs"),
  ...pageParams.shape,
});

/** `GET /projects/:id/groups` (lib/api/projects.rb): Projects::GroupsFinder's params, read by the query as declared. */
export const ListProjectGroups = z.object({
  search: p.string().optional().describe("Search for a specific group"),
  skip_groups: p.ints({ comma: true }).optional().describe("Array of group ids to exclude from list"),
  with_shared: p.bool().default(false).describe("Include shared groups"),
  shared_visible_only: p.bool().default(false).describe("Limit to shared groups user has access to"),
  shared_min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional().describe("Limit returned shared groups by minimum access level to the project"),
  ...pageParams.shape,
});
