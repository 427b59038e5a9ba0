// Wiki repositories (docs/git.md, "Tables"; GitLab's ProjectWiki and GroupWiki). A wiki is a git
// repository of its own, created on its first write (GitLab: `create_wiki_repository`). Its refs live in
// `git_refs` and its objects in `git_objects` under the repository key `-id` (never a project id, which
// is positive), so the git core reads and writes a wiki as any repository; `git_refs.project_id` has no
// foreign key since migration 0044 (the wiki's refs go with its row, a project's with the project, by trigger).
import { check, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";

export const wikis = pgTable(
  "wikis",
  {
    id: id(),
    /** The project of a project wiki (null for a group wiki). */
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    /** The group of a group wiki (null for a project wiki). */
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    /** The wiki's HEAD: the branch pages are read from and written to (Wiki#default_branch). */
    defaultBranch: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_wikis_on_project_id").on(t.projectId),
    uniqueIndex("index_wikis_on_group_id").on(t.groupId),
    check("wikis_one_container", sql`(${t.projectId} IS NULL) <> (${t.groupId} IS NULL)`),
  ],
);

export type WikiRow = typeof wikis.$inferSelect;
