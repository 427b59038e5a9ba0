import { boolean, date, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { users } from "./users";

/**
 * Direct memberships of groups (`source_type = 'Namespace'`) and projects (`'Project'`), as GitLab's
 * `members` table. Inherited access is computed from `namespaces.traversal_ids`, never stored.
 */
export const members = pgTable(
  "members",
  {
    id: id(),
    sourceType: text().notNull(), // "Namespace" | "Project"
    sourceId: integer().notNull(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    accessLevel: integer().notNull(),
    expiresAt: date({ mode: "string" }),
    createdById: integer().references(() => users.id, { onDelete: "set null" }),
    /** GitLab's `members.ldap`: the membership was made by the LDAP group sync, which may change or remove it. */
    ldap: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_members_on_source_and_user_id").on(t.sourceType, t.sourceId, t.userId),
    index("index_members_on_user_id_and_source").on(t.userId, t.sourceType, t.sourceId),
  ],
);

export type Member = typeof members.$inferSelect;
