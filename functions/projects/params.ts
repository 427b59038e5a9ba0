import type * as z from "zod";
import { visibilityLevel } from "../kernel/access";
import { p } from "../kernel/params";
import type { ListOrder, ProjectFilters } from "./queries";

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

const collectionShape = { ...collectionFilters, ...collectionTail };
type CollectionParams = Partial<z.output<z.ZodObject<typeof collectionShape>>>;

/**
 * The ProjectsFinder filters `collection_params` name, read once for every project list (`/projects`,
 * `/users/:id/projects`, `/projects/:id/forks`, `/users/:id/starred_projects`, group projects).
 */
export function collectionFiltersOf(params: CollectionParams): ProjectFilters {
  return {
    archived: params.archived,
    visibilityLevel: params.visibility ? visibilityLevel(params.visibility) : undefined,
    search: params.search,
    searchNamespaces: params.search_namespaces,
    owned: params.owned,
    membership: params.membership,
    starred: params.starred,
    minAccessLevel: params.min_access_level,
    withIssuesEnabled: params.with_issues_enabled,
    withMergeRequestsEnabled: params.with_merge_requests_enabled,
    idAfter: params.id_after,
    idBefore: params.id_before,
  };
}

/** `order_by` and `sort` as a column order (default `created_at desc`); `similarity` falls back to it. */
export function columnOrder(params: { order_by?: string; sort?: "asc" | "desc" }): Extract<ListOrder, { kind: "column" }> {
  const column = params.order_by && params.order_by !== "similarity" ? params.order_by : "created_at";
  return { kind: "column", column: column as Extract<ListOrder, { kind: "column" }>["column"], sort: params.sort ?? "desc" };
}
