import * as z from "zod";
import { levelDescription, ProtectedRefAccess, type ProtectionLevel } from "./protected_branches";

/** A protected tag with its create levels (a role, a user or a group, EE's ProtectedRefAccess). */
export type ProtectedTagRow = {
  id: number;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  levels: Omit<ProtectionLevel, "action">[];
};

/** API::Entities::ProtectedTag (lib/api/entities/protected_tag.rb, with EE's `user_id`/`group_id` per level). */
export const ProtectedTag = z
  .object({
    name: z.string(),
    create_access_levels: z.array(ProtectedRefAccess),
  })
  .meta({ id: "ProtectedTag" });
export function protectedTag(row: ProtectedTagRow): z.output<typeof ProtectedTag> {
  return {
    name: row.name,
    create_access_levels: row.levels.map((l) => ({
      id: l.id,
      access_level: l.accessLevel,
      access_level_description: levelDescription({ ...l, action: "push" }),
      user_id: l.userId ?? null,
      group_id: l.groupId ?? null,
    })),
  };
}
