// Webhooks and integrations: project, group and system hooks (GitLab's
// `web_hooks` table with its STI `type`), and per-project integrations (GitLab's `integrations`).
import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { projects } from "./projects";

export const webHooks = pgTable(
  "web_hooks",
  {
    id: id(),
    type: text().notNull(), // ProjectHook | GroupHook | SystemHook
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    url: text().notNull(),
    /** The secret sent as `X-Gitlab-Token`; never returned by the API. */
    token: text(),
    pushEvents: boolean().notNull().default(true),
    pushEventsBranchFilter: text(),
    tagPushEvents: boolean().notNull().default(false),
    issuesEvents: boolean().notNull().default(false),
    confidentialIssuesEvents: boolean().notNull().default(false),
    mergeRequestsEvents: boolean().notNull().default(false),
    noteEvents: boolean().notNull().default(false),
    confidentialNoteEvents: boolean().notNull().default(false),
    jobEvents: boolean().notNull().default(false),
    pipelineEvents: boolean().notNull().default(false),
    wikiPageEvents: boolean().notNull().default(false),
    deploymentEvents: boolean().notNull().default(false),
    releasesEvents: boolean().notNull().default(false),
    subgroupEvents: boolean().notNull().default(false),
    repositoryUpdateEvents: boolean().notNull().default(false),
    enableSslVerification: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_web_hooks_on_project_id_and_id").on(t.projectId, t.id),
    index("index_web_hooks_on_group_id_and_id").on(t.groupId, t.id),
    index("index_web_hooks_on_type_and_id").on(t.type, t.id),
  ],
);

export const integrations = pgTable(
  "integrations",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    /** The neutral slug of the kind, GitLab's own slug being an alias. */
    slug: text().notNull(),
    active: boolean().notNull().default(false),
    /** The kind's own fields (`webhook`, `token`, `recipients`…), secrets included; entities filter them. */
    properties: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    commitEvents: boolean().notNull().default(true),
    pushEvents: boolean().notNull().default(true),
    issuesEvents: boolean().notNull().default(true),
    confidentialIssuesEvents: boolean().notNull().default(true),
    mergeRequestsEvents: boolean().notNull().default(true),
    tagPushEvents: boolean().notNull().default(true),
    noteEvents: boolean().notNull().default(true),
    confidentialNoteEvents: boolean().notNull().default(true),
    pipelineEvents: boolean().notNull().default(true),
    wikiPageEvents: boolean().notNull().default(true),
    jobEvents: boolean().notNull().default(true),
    commentOnEventEnabled: boolean().notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_integrations_on_project_id_and_slug").on(t.projectId, t.slug)],
);

/**
 * How far each project's `push_events` have been handed to hooks (functions/shared/webhooks): the CI
 * engine claims the same events through `processed_at`, so hooks keep their own cursor.
 */
export const webHookPushCursors = pgTable("web_hook_push_cursors", {
  projectId: integer()
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  lastPushEventId: bigint({ mode: "number" }).notNull().default(0),
});

export type WebHook = typeof webHooks.$inferSelect;
export type Integration = typeof integrations.$inferSelect;
