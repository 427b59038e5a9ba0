import * as z from "zod";
import { pageParams } from "../kernel/pagination";
import { p } from "../kernel/params";

/** `custom_attributes[key]=value` filters (CustomAttributesFilter): scalar values compared as strings. */
const customAttributes = () =>
  p.hash().transform((hash) =>
    Object.fromEntries(
      Object.entries(hash)
        .filter(([, v]) => ["string", "number", "boolean"].includes(typeof v))
        .map(([k, v]) => [k, String(v)]),
    ),
  );

/**
 * `group_list_params` (statistics … top_level_only, pagination) and `with_custom_attributes`, in Grape's
 * order: `GET /groups`. GroupsFinder's params (`find_groups`, lib/api/groups.rb), which the list
 * queries read as declared; `all_available` defaults to the caller's admin-ness there.
 */
export const ListGroups = z.object({
  statistics: p.bool().optional(),
  skip_groups: p.ints({ comma: true }).optional(),
  all_available: p.bool().optional(),
  search: p.string().optional(),
  owned: p.bool().optional(),
  // Differs from GitLab: 15.4 also takes `order_by=similarity`; the spec lists name, path and id only.
  order_by: p.oneOf("name", "path", "id").default("name"),
  sort: p.oneOf("asc", "desc").default("asc"),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional(),
  top_level_only: p.bool().optional(),
  ...pageParams.shape,
  with_custom_attributes: p.bool().optional(),
  custom_attributes: customAttributes().optional(),
});

/**
 * `GET /groups/:id/subgroups`, `GET /groups/:id/descendant_groups`.
 * Differs from GitLab: its subgroup lists also read `top_level_only` (and then ignore `:id`); the spec leaves it out.
 */
export const ListChildGroups = ListGroups.omit({ top_level_only: true });

export type ListParams = Partial<z.output<typeof ListGroups>>;
