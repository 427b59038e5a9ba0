import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `GET /users` (lib/api/users.rb): the list's params, which UsersFinder (app/finders/users_finder.rb) reads. */
export const ListUsers = z.object({
  username: p.string().optional(),
  extern_uid: p.string().optional(),
  provider: p.string().optional(),
  search: p.string().optional(),
  active: p.bool().optional(),
  external: p.bool().optional(),
  exclude_external: p.bool().optional(),
  blocked: p.bool().optional(),
  created_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  without_projects: p.bool().optional(),
  exclude_internal: p.bool().optional(),
  admins: p.bool().optional(),
  order_by: p.oneOf("id", "name", "username", "created_at", "updated_at").optional(),
  sort: p.oneOf("asc", "desc").optional(),
  ...pageParams.shape,
  with_custom_attributes: p.bool().optional(),
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
