// Push mirrors (GitLab's `remote_mirrors`): a project's repository pushed to another git server over smart
// HTTP after each change (functions/remote_mirrors, functions/shared/remote_mirrors).
import { boolean, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";

export const remoteMirrors = pgTable(
  "remote_mirrors",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The URL without its user and password (Gitlab::UrlSanitizer#sanitized_url). */
    url: text().notNull(),
    /**
     * The URL's `user` and `password`, never returned by the API. Differs from GitLab: stored as they are
     * (GitLab encrypts them with `db_key_base`); the row is read only by the mirror's owner project.
     */
    credentials: jsonb().$type<{ user?: string; password?: string }>().notNull().default({}),
    enabled: boolean().notNull().default(false),
    onlyProtectedBranches: boolean().notNull().default(false),
    keepDivergentRefs: boolean().notNull().default(false),
    /** none | started | finished | failed | to_retry (RemoteMirror's state machine). */
    updateStatus: text().notNull().default("none"),
    lastUpdateAt: timestamptz(),
    lastUpdateStartedAt: timestamptz(),
    lastSuccessfulUpdateAt: timestamptz(),
    lastError: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_remote_mirrors_on_project_id").on(t.projectId)],
);

export type RemoteMirror = typeof remoteMirrors.$inferSelect;
