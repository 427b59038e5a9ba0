import * as z from "zod";
import type { Namespace as NamespaceModel, User } from "../../db/schema";
import { Access } from "../kernel/access";
import type { PresentContext } from "../kernel/present";
import { NamespaceBasic, namespaceBasic } from "./projects";

/**
 * A namespace as the namespaces API loads it: the row, the owner of a personal namespace, the caller's
 * best membership in the group or an ancestor, and the distinct members of the group and its subgroups.
 */
export type NamespaceRow = NamespaceModel & { owner: User | null; memberLevel: number; membersCount: number | null };

/** `admin_group` on a group: owners and admins. */
function adminsGroup(row: NamespaceRow, ctx: PresentContext): boolean {
  return row.type === "Group" && (!!ctx.actor?.isAdmin || row.memberLevel >= Access.OWNER);
}

/**
 * API::Entities::Namespace (lib/api/entities/namespace.rb): NamespaceBasic, and for those who admin the
 * group its member count and repository size.
 * Differs from GitLab: the EE billing fields (`plan`, `billable_members_count`, `trial`, CI minutes) are
 * left out, and `root_repository_size` is null (no storage statistics are kept).
 */
export const Namespace = NamespaceBasic.extend({
  members_count_with_descendants: z.int().optional(),
  root_repository_size: z.int().nullable().optional(),
}).meta({ id: "Namespace" });
export function namespace(row: NamespaceRow, ctx: PresentContext): z.output<typeof Namespace> {
  return {
    ...namespaceBasic(row, row.owner, ctx),
    ...(adminsGroup(row, ctx) ? { members_count_with_descendants: row.membersCount ?? 0, root_repository_size: null } : {}),
  };
}

/** API::Entities::NamespaceExistence. */
export const NamespaceExistence = z.object({ exists: z.boolean(), suggests: z.array(z.string()) }).meta({ id: "NamespaceExistence" });
export function namespaceExistence(value: { exists: boolean; suggests: string[] }, _ctx?: PresentContext): z.output<typeof NamespaceExistence> {
  return { exists: value.exists, suggests: value.suggests };
}
