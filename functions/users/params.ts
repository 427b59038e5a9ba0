import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /users` (lib/api/users.rb): the list's params, which UsersFinder (app/finders/users_finder.rb) reads. */
export const ListUsers = z.object({
  username: p.string().optional().describe("Get a single user with a specific username"),
  extern_uid: p.string().optional().describe("Get a single user with a specific external authentication provider UID"),
  provider: p.string().optional().describe("The external provider"),
  search: p.string().optional().describe("Search for a username"),
  active: p.bool().optional().describe("Filters only active users"),
  external: p.bool().optional().describe("Filters only external users"),
  exclude_external: p.bool().optional().describe("Filters only non external users"),
  blocked: p.bool().optional().describe("Filters only blocked users"),
  created_after: p.datetime().optional().describe("Return users created after the specified time"),
  created_before: p.datetime().optional().describe("Return users created before the specified time"),
  without_projects: p.bool().optional().describe("Filters only users without projects"),
  exclude_internal: p.bool().optional().describe("Filters only non internal users"),
  admins: p.bool().optional().describe("Filters only admin users"),
  order_by: p.oneOf("id", "name", "username", "created_at", "updated_at").optional().describe("Return users ordered by a field"),
  sort: p.oneOf("asc", "desc").optional().describe("Return users sorted in ascending and descending order"),
  ...pageParams.shape,
  with_custom_attributes: p.bool().optional().describe("Include custom attributes in the response"),
});

export type ListParams = z.output<typeof ListUsers>;

/**
 * UsersFinder's params: the declared ones, and two it reads undeclared from the raw params (administrators
 * only): `two_factor` and the `custom_attributes` hash.
 */
export type UserListFilter = ListParams & {
  two_factor?: "enabled" | "disabled";
  custom_attributes?: Record<string, string>;
  /** Set by the search API in a project, never by a request: the project's team (`project.team.members`). */
  teamOfProject?: number;
  /** Set by the search API in a group: `group.direct_and_indirect_users`. */
  usersOfGroup?: number;
};

/** What a non-administrator's list may filter by: GitLab drops the rest (`params.except!`, `by_admins`). */
export function withoutAdminFilters(params: ListParams): UserListFilter {
  const { admins, extern_uid, provider, created_after, created_before, without_projects, ...rest } = params;
  return rest;
}
