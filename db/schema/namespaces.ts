import { boolean, date, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, updatedAt } from "./columns";
import { users } from "./users";

/**
 * Groups and personal (user) namespaces, as GitLab's `namespaces` table. `traversalIds` holds the ids
 * from the root group down to this one, so ancestry checks are `= ANY(traversal_ids)`.
 */
export const namespaces = pgTable(
  "namespaces",
  {
    id: id(),
    type: text().notNull(), // "Group" | "User"
    name: text().notNull(),
    path: text().notNull(),
    /** The full path, kept denormalised for lookups by path (`grp/sub`). */
    fullPath: text().notNull(),
    fullName: text().notNull(),
    ownerId: integer().references(() => users.id, { onDelete: "cascade" }),
    parentId: integer(),
    traversalIds: integer().array().notNull().default(sql`'{}'::integer[]`),
    visibilityLevel: integer().notNull().default(0),
    description: text().notNull().default(""),
    avatarUrl: text(),
    shareWithGroupLock: boolean().notNull().default(false),
    requireTwoFactorAuthentication: boolean().notNull().default(false),
    twoFactorGracePeriod: integer().notNull().default(48),
    projectCreationLevel: integer().notNull().default(2),
    subgroupCreationLevel: integer().notNull().default(1),
    autoDevopsEnabled: boolean(),
    emailsDisabled: boolean().notNull().default(false),
    mentionsDisabled: boolean().notNull().default(false),
    lfsEnabled: boolean().notNull().default(true),
    defaultBranchProtection: integer().notNull().default(2),
    requestAccessEnabled: boolean().notNull().default(true),
    fileTemplateProjectId: integer(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_namespaces_on_lower_full_path").on(sql`lower(${t.fullPath})`),
    index("index_namespaces_on_parent_id_and_id").on(t.parentId, t.id),
    index("index_namespaces_on_traversal_ids").using("gin", t.traversalIds),
    index("index_namespaces_on_type_and_name").on(t.type, t.name, t.id),
    uniqueIndex("index_namespaces_on_owner_id_for_users").on(t.ownerId).where(sql`type = 'User'`),
  ],
);

export const groupCustomAttributes = pgTable(
  "group_custom_attributes",
  {
    id: id(),
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    key: text().notNull(),
    value: text().notNull(),
  },
  (t) => [uniqueIndex("index_group_custom_attributes_on_group_id_and_key").on(t.groupId, t.key)],
);

/**
 * A group shared with another group (`POST /groups/:id/share`), GitLab's group_group_links: the members
 * of `sharedWithGroupId` (and of its ancestors) reach `sharedGroupId`, its subgroups and their projects,
 * capped at `groupAccess`.
 */
export const groupGroupLinks = pgTable(
  "group_group_links",
  {
    id: id(),
    sharedGroupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    sharedWithGroupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    groupAccess: integer().notNull().default(30),
    expiresAt: date({ mode: "string" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_group_group_links_on_shared_group_and_shared_with_group").on(t.sharedGroupId, t.sharedWithGroupId),
    index("index_group_group_links_on_shared_with_group_id").on(t.sharedWithGroupId),
  ],
);

export type Namespace = typeof namespaces.$inferSelect;
export type GroupGroupLink = typeof groupGroupLinks.$inferSelect;

/**
 * GitLab's `redirect_routes`: the old full paths of projects and namespaces, written by triggers on
 * `projects.full_path` and `namespaces.full_path` (every rename and transfer, in the moving
 * statement's transaction; see the migration). `GET /projects/old%2Fpath` follows a project's
 * (`find_by_full_path(id, follow_redirects: true)`); groups are not followed by the API, as in GitLab.
 */
export const redirectRoutes = pgTable(
  "redirect_routes",
  {
    id: id(),
    sourceType: text().notNull(), // "Project" | "Namespace"
    sourceId: integer().notNull(),
    path: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_redirect_routes_on_lower_path").on(sql`lower(${t.path})`),
    index("index_redirect_routes_on_lower_path_c").on(sql`(lower(${t.path}) COLLATE "C")`),
    index("index_redirect_routes_on_source_type_and_source_id").on(t.sourceType, t.sourceId),
  ],
);
