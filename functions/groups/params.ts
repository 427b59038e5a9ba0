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
  statistics: p.bool().optional().describe("Include project statistics"),
  skip_groups: p.ints({ comma: true }).optional().describe("Array of group ids to exclude from list"),
  all_available: p.bool().optional().describe("When `true`, returns all accessible groups. When `false`, returns only groups where the user is a member."),
  search: p.string().optional().describe("Search for a specific group"),
  owned: p.bool().optional().describe("Limit by owned by authenticated user"),
  // Differs from GitLab: 15.4 also takes `order_by=similarity`; the spec lists name, path and id only.
  order_by: p.oneOf("name", "path", "id").default("name").describe("Order by name, path or id"),
  sort: p.oneOf("asc", "desc").default("asc").describe("Sort by asc (ascending) or desc (descending)"),
  min_access_level: p.intOneOf(10, 20, 30, 40, 50).optional().describe("Minimum access level of authenticated user"),
  top_level_only: p.bool().optional().describe("Only include top-level groups"),
  ...pageParams.shape,
  with_custom_attributes: p.bool().optional().describe("Include custom attributes in the response"),
  custom_attributes: customAttributes().optional().describe("Filter by custom attributes"),
});

/**
 * `GET /groups/:id/subgroups`, `GET /groups/:id/descendant_groups`.
 * Differs from GitLab: its subgroup lists also read `top_level_only` (and then ignore `:id`); the spec leaves it out.
 */
export const ListChildGroups = ListGroups.omit({ top_level_only: true });

export type ListParams = Partial<z.output<typeof ListGroups>>;
