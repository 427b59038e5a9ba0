// Badges: of a project (`ProjectBadge`) or a group (`GroupBadge`).
import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";

export const badges = pgTable(
  "badges",
  {
    id: id(),
    type: text().notNull(), // ProjectBadge | GroupBadge
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    name: text(),
    linkUrl: text().notNull(),
    imageUrl: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_badges_on_project_id_and_created_at").on(t.projectId, t.createdAt, t.id), index("index_badges_on_group_id_and_created_at").on(t.groupId, t.createdAt, t.id)],
);

export type Badge = typeof badges.$inferSelect;
