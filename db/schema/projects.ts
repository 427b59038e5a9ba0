import { boolean, date, index, integer, pgTable, text, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { namespaces } from "./namespaces";
import { users } from "./users";

export const projects = pgTable(
  "projects",
  {
    id: id(),
    name: text().notNull(),
    path: text().notNull(),
    namespaceId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    /** `namespace.full_path + "/" + path`, kept denormalised for lookups by path. */
    fullPath: text().notNull(),
    nameWithNamespace: text().notNull(),
    creatorId: integer().references(() => users.id, { onDelete: "set null" }),
    description: text(),
    visibilityLevel: integer().notNull().default(0),
    defaultBranch: text(),
    /** Set by the repository issue; until a first commit lands the repository is empty. */
    emptyRepo: boolean().notNull().default(true),
    initializeWithReadme: boolean().notNull().default(false),
    archived: boolean().notNull().default(false),
    issuesEnabled: boolean().notNull().default(true),
    mergeRequestsEnabled: boolean().notNull().default(true),
    wikiEnabled: boolean().notNull().default(true),
    jobsEnabled: boolean().notNull().default(true),
    snippetsEnabled: boolean().notNull().default(true),
    sharedRunnersEnabled: boolean().notNull().default(true),
    publicJobs: boolean().notNull().default(true),
    requestAccessEnabled: boolean().notNull().default(true),
    tagList: text().array().notNull().default(sql`'{}'::text[]`),
    starCount: integer().notNull().default(0),
    forksCount: integer().notNull().default(0),
    openIssuesCount: integer().notNull().default(0),
    avatarUrl: text(),
    /** Merge settings (Project#merge_method, squash_option, remove_source_branch_after_merge). */
    mergeMethod: text().notNull().default("merge"), // merge | rebase_merge | ff
    squashOption: text().notNull().default("default_off"), // never | always | default_on | default_off
    removeSourceBranchAfterMerge: boolean().notNull().default(true),
    onlyAllowMergeIfPipelineSucceeds: boolean().notNull().default(false),
    /** Project#lfs_enabled: null follows the namespace's `lfs_enabled` (Project#lfs_enabled?). */
    lfsEnabled: boolean(),
    /** Project#container_registry_enabled (the registry feature's access level, enabled or disabled). */
    containerRegistryEnabled: boolean().notNull().default(true),
    /**
     * GitLab's fork_network_members.forked_from_project_id: the project this one was forked from
     * (`forked_from_project`); null when not a fork, or after `DELETE /projects/:id/fork`.
     */
    forkedFromProjectId: integer().references((): AnyPgColumn => projects.id, { onDelete: "set null" }),
    /**
     * The object pool (docs/git.md, "Tables"): a fork shares the git objects of its fork network's root, so its
     * `git_objects`/`git_commits` rows are those of `pool_id`. Null: the project's own id.
     */
    poolId: integer(),
    /** `mr_default_target_self`: merge requests of a fork target the fork itself by default. */
    mrDefaultTargetSelf: boolean().notNull().default(false),
    /** ProjectFeature#pages_access_level: disabled | private | enabled (as the project) | public (docs/pages.md). */
    pagesAccessLevel: text().notNull().default("enabled"),
    lastActivityAt: timestamptz().notNull().defaultNow(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_projects_on_lower_full_path").on(sql`lower(${t.fullPath})`),
    index("index_projects_on_namespace_id_and_id").on(t.namespaceId, t.id),
    index("index_projects_on_visibility_level_and_id").on(t.visibilityLevel, t.id),
    index("index_projects_on_created_at_and_id").on(t.createdAt, t.id),
    index("index_projects_on_last_activity_at_and_id").on(t.lastActivityAt, t.id),
    index("index_projects_on_name_and_id").on(t.name, t.id),
    index("index_projects_on_path_and_id").on(t.path, t.id),
    index("index_projects_on_updated_at_and_id").on(t.updatedAt, t.id),
    index("index_projects_on_creator_id").on(t.creatorId),
    index("index_projects_on_forked_from_project_id").on(t.forkedFromProjectId, t.id),
  ],
);

/** A project shared with a group (`POST /projects/:id/share`), GitLab's project_group_links. */
export const projectGroupLinks = pgTable(
  "project_group_links",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    groupAccess: integer().notNull().default(30),
    expiresAt: date({ mode: "string" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_project_group_links_on_project_id_and_group_id").on(t.projectId, t.groupId),
    index("index_project_group_links_on_group_id").on(t.groupId),
  ],
);

export type Project = typeof projects.$inferSelect;
export type ProjectGroupLink = typeof projectGroupLinks.$inferSelect;
