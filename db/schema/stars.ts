import { index, integer, pgTable, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

/** UsersStarProject: who starred which project; `projects.star_count` is its counter cache. */
export const usersStarProjects = pgTable(
  "users_star_projects",
  {
    id: id(),
    userId: integer().notNull().references(() => users.id, { onDelete: "cascade" }),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_star_projects_user_project").on(t.userId, t.projectId), index("users_star_projects_project").on(t.projectId, t.id)],
);

export type UsersStarProject = typeof usersStarProjects.$inferSelect;
