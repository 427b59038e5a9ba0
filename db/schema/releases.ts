// Releases, protected tags and deploy tokens (GitLab 15.4's releases, release_links, milestone_releases,
// release_evidences (`evidences`), protected_tags, protected_tag_create_access_levels, deploy_tokens).
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { milestones } from "./issues";
import { namespaces } from "./namespaces";
import { projects } from "./projects";
import { users } from "./users";

/** A protected tag name: a tag name or a wildcard (`*` matches any characters, `/` included). */
export const protectedTags = pgTable(
  "protected_tags",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_protected_tags_on_project_id_and_name").on(t.projectId, t.name)],
);

/** Who may create a matching tag: a role (0, 30, 40, 60), one user, or the direct members of one group (EE). */
export const protectedTagCreateAccessLevels = pgTable(
  "protected_tag_create_access_levels",
  {
    id: id(),
    protectedTagId: integer()
      .notNull()
      .references(() => protectedTags.id, { onDelete: "cascade" }),
    accessLevel: smallint(),
    userId: integer().references(() => users.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_protected_tag_create_access_levels_on_tag").on(t.protectedTagId)],
);

export const releases = pgTable(
  "releases",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    tag: text().notNull(),
    name: text(),
    description: text(),
    authorId: integer().references(() => users.id, { onDelete: "set null" }),
    /** The commit the tag pointed at when the release was made. */
    sha: text(),
    releasedAt: timestamptz().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_releases_on_project_id_and_tag").on(t.projectId, t.tag),
    index("index_releases_on_project_id_and_released_at").on(t.projectId, t.releasedAt, t.id),
    index("index_releases_on_project_id_and_created_at").on(t.projectId, t.createdAt, t.id),
  ],
);

/** `Releases::Link`: `link_type` other, runbook, package or image; url and name unique per release. */
export const releaseLinks = pgTable(
  "release_links",
  {
    id: id(),
    releaseId: integer()
      .notNull()
      .references(() => releases.id, { onDelete: "cascade" }),
    url: text().notNull(),
    name: text().notNull(),
    filepath: text(),
    linkType: text().notNull().default("other"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_release_links_on_release_id_and_url").on(t.releaseId, t.url),
    uniqueIndex("index_release_links_on_release_id_and_name").on(t.releaseId, t.name),
  ],
);

export const milestoneReleases = pgTable(
  "milestone_releases",
  {
    milestoneId: integer()
      .notNull()
      .references(() => milestones.id, { onDelete: "cascade" }),
    releaseId: integer()
      .notNull()
      .references(() => releases.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.releaseId, t.milestoneId] }), index("index_milestone_releases_on_milestone_id").on(t.milestoneId)],
);

/** `Releases::Evidence`: the summary collected when the release was made, and its SHA-256. */
export const releaseEvidences = pgTable(
  "release_evidences",
  {
    id: id(),
    releaseId: integer()
      .notNull()
      .references(() => releases.id, { onDelete: "cascade" }),
    summary: jsonb().notNull(),
    summarySha: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("index_release_evidences_on_release_id").on(t.releaseId, t.id)],
);

/**
 * `DeployToken`: a project's (project_id), a group's (group_id) token. Scopes as GitLab's boolean columns,
 * kept as one array; the token itself is stored only as its SHA-256 digest.
 */
export const deployTokens = pgTable(
  "deploy_tokens",
  {
    id: id(),
    projectId: integer().references(() => projects.id, { onDelete: "cascade" }),
    groupId: integer().references(() => namespaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    username: text().notNull(),
    tokenDigest: text().notNull(),
    scopes: text().array().notNull(),
    expiresAt: timestamptz(),
    revoked: boolean().notNull().default(false),
    creatorId: integer().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_deploy_tokens_on_token_digest").on(t.tokenDigest),
    index("index_deploy_tokens_on_project_id").on(t.projectId, t.id).where(sql`project_id IS NOT NULL`),
    index("index_deploy_tokens_on_group_id").on(t.groupId, t.id).where(sql`group_id IS NOT NULL`),
  ],
);

export type ProtectedTag = typeof protectedTags.$inferSelect;
export type Release = typeof releases.$inferSelect;
export type ReleaseLink = typeof releaseLinks.$inferSelect;
export type ReleaseEvidence = typeof releaseEvidences.$inferSelect;
export type DeployToken = typeof deployTokens.$inferSelect;
