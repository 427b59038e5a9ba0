import * as z from "zod";
import { canReadUserProfile } from "../../kernel/abilities";
import type { Actor, Ctx } from "../../kernel/env";
import { paramsError } from "../../kernel/errors";
import { findGroup, findUserByIdOrUsername } from "../../kernel/lookup";
import { keysetLink, keysetUnavailable, pageOf, pageParams, paginate, refuseDeepOffset } from "../../kernel/pagination";
import { rawParams, readParams } from "../../kernel/params";
import { present } from "../../kernel/present";
import { router } from "../../kernel/router";
import { project, projectBasic, projectWithAccess, type ProjectRow, ProjectWithAccess, BasicProjectDetails, Project } from "../../entities/projects";
import { flipperId, isFeatureEnabled } from "../../shared/features";
import * as q from "../queries";
import { withStatistics } from "../statistics";
import { ListGroupProjects, ListProjects, ListSharedProjects, ListUserProjects, type ListParams } from "../params";

export const listRoutes = router();

const KEYSET_ORDERS = ["id", "name", "path", "created_at", "updated_at", "last_activity_at"] as const;
type KeysetOrder = (typeof KEYSET_ORDERS)[number];

/**
 * The `cursor` of GitLab's cursor-based keyset (Gitlab::Pagination::Keyset::Paginator): URL-safe
 * Base64 of `{"<order column>": "<value>", "id": "<id>", "_kd": "n"}`.
 */
function encodeCursor(column: KeysetOrder, row: ProjectRow): string {
  const values: Record<KeysetOrder, unknown> = {
    id: row.id,
    name: row.name,
    path: row.path,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    last_activity_at: row.lastActivityAt,
  };
  const value = values[column];
  const json = JSON.stringify({ [column]: value instanceof Date ? value.toISOString() : String(value), id: String(row.id), _kd: "n" });
  return btoa(String.fromCharCode(...new TextEncoder().encode(json))).replace(/\+/g, "-").replace(/\//g, "_");
}

function decodeCursor(cursor: string, column: KeysetOrder, sort: "asc" | "desc"): q.KeysetBound {
  try {
    const bytes = Uint8Array.from(atob(cursor.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
    const data = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    const id = Number(data.id);
    const value = data[column];
    if (Number.isSafeInteger(id) && typeof value === "string" && (!column.endsWith("_at") || !Number.isNaN(Date.parse(value))))
      return { column, sort, value, id };
  } catch {
    // fall through to the parameter error
  }
  // Differs from GitLab: GitLab fails with a 500 on a cursor it cannot parse.
  throw paramsError("cursor is invalid");
}

/**
 * Keyset pagination (docs/compat.md, P6): only `Link: rel="next"`, while more rows exist. `order_by=id`
 * continues with `id_after`/`id_before` as GitLab's Keyset::RequestContext does.
 * Differs from GitLab: 15.4 offers keyset on projects for `order_by=id` only (405 otherwise); the
 * other columns of the contract continue with GitLab's cursor-based `cursor` parameter.
 */
async function keysetPage(c: Ctx, params: z.output<typeof ListProjects>, source: Extract<q.ProjectSource, { kind: "all" }>, filters: ListParams) {
  const column = (params.order_by ?? "created_at") as KeysetOrder | "similarity";
  if (!(KEYSET_ORDERS as readonly string[]).includes(column)) throw keysetUnavailable();
  const order = { column: column as KeysetOrder, sort: params.sort ?? "desc" };
  const after = params.cursor && order.column !== "id" ? decodeCursor(params.cursor, order.column, order.sort) : null;
  const perPage = pageOf(params).perPage;
  const { rows, more } = await q.listProjectsKeyset(c.var.db(), c.var.actor, source, filters, order, after, perPage);
  const last = rows[rows.length - 1];
  if (more && last) {
    const next =
      order.column === "id"
        ? { [order.sort === "asc" ? "id_after" : "id_before"]: String(last.id) }
        : { cursor: encodeCursor(order.column, last) };
    keysetLink(c, next, perPage);
  }
  return rows;
}

/** `order_by` and `sort` as a column order (default `created_at desc`); `similarity` falls back to it. */
export function columnOrder(params: { order_by?: string; sort?: "asc" | "desc" }): Extract<q.ListOrder, { kind: "column" }> {
  const column = params.order_by && params.order_by !== "similarity" ? params.order_by : "created_at";
  return { kind: "column", column: column as Extract<q.ListOrder, { kind: "column" }>["column"], sort: params.sort ?? "desc" };
}

/**
 * support_order_by_similarity!: with a search and a caller, similarity ranks (and `GET /projects` keeps
 * the caller's projects); otherwise the column order, `created_at` by default.
 */
async function listOrder(c: Ctx, params: { order_by?: string; sort?: "asc" | "desc"; search?: string }, actor: Actor | null): Promise<q.ListOrder> {
  // Differs from GitLab: the similarity order can be turned off with the `similarity_search` instance
  // feature (on by default); off, it falls back like an anonymous caller's.
  if (params.order_by === "similarity" && !!params.search && !!actor && (await isFeatureEnabled(c, "similarity_search", flipperId("User", actor.user.id))))
    return { kind: "similarity", search: params.search };
  return columnOrder(params);
}

/** GET /projects (lib/api/projects.rb, app/finders/projects_finder.rb) */
listRoutes.get("/projects", { params: ListProjects, response: [z.union([ProjectWithAccess, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListProjects);
  const actor = c.var.actor;
  const source: Extract<q.ProjectSource, { kind: "all" }> = { kind: "all" };
  // CustomAttributesFilter (read from the raw params, undeclared in GitLab): a Hash, for admins only.
  const rawAttributes = actor?.isAdmin ? (await rawParams(c)).custom_attributes : undefined;
  if (rawAttributes && typeof rawAttributes === "object" && !Array.isArray(rawAttributes))
    source.customAttributes = Object.fromEntries(
      Object.entries(rawAttributes).filter((entry): entry is [string, string | number] => typeof entry[1] === "string" || typeof entry[1] === "number").map(([k, v]) => [k, String(v)]),
    );
  const order = await listOrder(c, params, actor);
  // The similarity order keeps the caller's projects (`support_order_by_similarity!`).
  const filters = order.kind === "similarity" ? { ...params, membership: true } : params;
  const entity = params.simple || !actor ? projectBasic : projectWithAccess;
  // `statistics` belongs to the full entity only (ProjectWithAccess); one statement for the page.
  const statistics = entity === projectWithAccess && params.statistics;
  if (params.pagination === "keyset") {
    const rows = await keysetPage(c, params, source, filters);
    return present(c, await withStatistics(c, rows, statistics), entity);
  }
  const page = pageOf(params);
  refuseDeepOffset(page, "Project");
  const { rows, total } = await q.listProjects(c.var.db(), actor, source, filters, order, page);
  paginate(c, page, total);
  return present(c, await withStatistics(c, rows, statistics), entity);
});

/** `reorder_projects_with_similarity_order_support` (lib/api/groups.rb). */
function groupOrder(params: { order_by?: string; sort?: "asc" | "desc"; search?: string }): q.ListOrder {
  if (params.order_by === "similarity") {
    if (params.search) return { kind: "similarity", search: params.search };
    return { kind: "name_then_id", idSort: params.sort ?? "desc" };
  }
  return { kind: "column", column: (params.order_by ?? "created_at") as Exclude<q.OrderBy, "similarity">, sort: params.sort ?? "desc" };
}

async function groupProjects(c: Ctx, params: z.output<typeof ListGroupProjects>, source: Omit<Extract<q.ProjectSource, { kind: "group" }>, "groupId" | "kind">) {
  const group = await findGroup(c, c.req.param("id")!);
  // Differs from GitLab: 15.4 ignores `pagination=keyset` here (plain offset pagination); the
  // contract (docs/compat.md, P6) refuses keyset where it is not offered.
  if (params.pagination === "keyset") throw keysetUnavailable();
  const page = pageOf(params);
  const { rows, total } = await q.listProjects(
    c.var.db(),
    c.var.actor,
    { kind: "group", groupId: group.id, ...source },
    params,
    groupOrder(params),
    page,
  );
  paginate(c, page, total);
  return present(c, await withStatistics(c, rows, !params.simple && params.statistics), params.simple ? projectBasic : project);
}

/** GET /groups/:id/projects (lib/api/groups.rb, app/finders/group_projects_finder.rb) */
listRoutes.get("/groups/:id/projects", { params: ListGroupProjects, response: [z.union([Project, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListGroupProjects);
  return groupProjects(c, params, {
    includeSubgroups: params.include_subgroups ?? false,
    withShared: params.with_shared ?? true,
    onlyShared: false,
  });
});

/** GET /groups/:id/projects/shared (lib/api/groups.rb) */
listRoutes.get("/groups/:id/projects/shared", { params: ListSharedProjects, response: [z.union([Project, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListSharedProjects);
  return groupProjects(c, { ...params, owned: undefined }, { includeSubgroups: false, withShared: true, onlyShared: true });
});

/**
 * GET /users/:user_id/projects (PersonalProjectsFinder): the projects in the user's personal namespace
 * the caller may see, with every filter of `GET /projects`; nothing when the caller may not read the
 * user's profile.
 * `:user_id` is the id or the username (`find_user`, as GitLab).
 * Differs from GitLab: `pagination=keyset` answers 405 (contract P6).
 */
listRoutes.get("/users/:user_id/projects", { params: ListUserProjects, response: [z.union([ProjectWithAccess, BasicProjectDetails])] }, async (c) => {
  const params = await readParams(c, ListUserProjects);
  return userProjects(c, params, (userId) => ({ kind: "all", personalOf: userId }), await listOrder(c, params, c.var.actor));
});

/**
 * A user's projects (PersonalProjectsFinder, StarredProjectsFinder): the projects `source` selects for
 * the user, filtered by the declared `params`, that the caller may see; nothing when the caller may not
 * read the user's profile.
 * `:user_id` is the id or the username (`requires :user_id, type: String`, `find_user`).
 * Differs from GitLab: `pagination=keyset` answers 405 (contract P6; 15.x answers offset pages).
 */
export async function userProjects(
  c: Ctx,
  params: ListParams,
  source: (userId: number) => q.ProjectSource,
  order: q.ListOrder,
) {
  const actor = c.var.actor;
  const user = await findUserByIdOrUsername(c, c.req.param("user_id")!);
  if (params.pagination === "keyset") throw keysetUnavailable();
  const entity = params.simple || !actor ? projectBasic : projectWithAccess;
  const page = pageOf(params);
  if (!canReadUserProfile(actor, user)) {
    paginate(c, page, 0);
    return present(c, [], entity);
  }
  const { rows, total } = await q.listProjects(c.var.db(), actor, source(user.id), params, order, page);
  paginate(c, page, total);
  const statistics = entity === projectWithAccess && "statistics" in params && params.statistics === true;
  return present(c, await withStatistics(c, rows, statistics), entity);
}
