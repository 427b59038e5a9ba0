import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { projects } from "./projects";

/**
 * Projects::Topic (app/models/projects/topic.rb): names are unique case-insensitively.
 * `total_projects_count` and `non_private_projects_count` are counter caches kept by the triggers on
 * `project_topics` and `projects` (migration 0043, the one writer); `projects.tag_list` is the
 * project's topic names in `project_topics` order, kept by the same triggers.
 */
export const topics = pgTable(
  "topics",
  {
    id: id(),
    name: text().notNull(),
    title: text(),
    description: text(),
    avatarUrl: text(),
    totalProjectsCount: integer().notNull().default(0),
    nonPrivateProjectsCount: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_topics_on_lower_name").on(sql`lower(${t.name})`), index("index_topics_on_non_private_projects_count").on(t.nonPrivateProjectsCount.desc(), t.id)],
);

/** Projects::ProjectTopic: a project's topics, in the order they were given (by id). */
export const projectTopics = pgTable(
  "project_topics",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    topicId: integer().notNull().references(() => topics.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_project_topics_on_project_id_and_topic_id").on(t.projectId, t.topicId), index("index_project_topics_on_topic_id").on(t.topicId)],
);

export type Topic = typeof topics.$inferSelect;
