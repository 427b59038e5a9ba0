// GitLab Pages (docs/pages.md): a project's published sites (pages_deployments), the pointer to the one
// served (project_pages_metadata, GitLab's table of that name) and custom domains (pages_domains).
// The files live in R2 (`BLOBS`) under each deployment's own prefix; the rows only index them.
import { bigint, boolean, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { ciBuilds } from "./ci";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";

/** One published copy of a `pages` job's `public/` directory (app/models/pages_deployment.rb). */
export const pagesDeployments = pgTable(
  "pages_deployments",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    ciBuildId: integer().references(() => ciBuilds.id, { onDelete: "set null" }),
    /** The R2 prefix of its files, `pages/<project id>/<deployment id>/`. */
    r2Prefix: text().notNull(),
    fileCount: integer().notNull().default(0),
    size: bigint({ mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_pages_deployments_on_project_id").on(t.projectId, t.id)],
);

/**
 * The deployment a project's site serves (ProjectPagesMetadatum). Switched in one row update when a
 * publish has written every file, so a visitor sees the old site or the new one, never half of one.
 * Its one writer is functions/pages/queries.ts (test/node/one_writer.test.mjs).
 */
export const projectPagesMetadata = pgTable("project_pages_metadata", {
  projectId: integer()
    .primaryKey()
    .references(() => projects.id, { onDelete: "cascade" }),
  deployed: boolean().notNull().default(false),
  pagesDeploymentId: integer().references(() => pagesDeployments.id, { onDelete: "set null" }),
  updatedAt: updatedAt(),
});

/** A custom domain of a project's site (app/models/pages_domain.rb). */
export const pagesDomains = pgTable(
  "pages_domains",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    domain: text().notNull(),
    /** PEM, as given (`user_provided_certificate`, `user_provided_key`). */
    certificate: text(),
    key: text(),
    certificateSource: text().notNull().default("user_provided"),
    certificateValidNotBefore: timestamptz(),
    certificateValidNotAfter: timestamptz(),
    certificateSubject: text(),
    verificationCode: text().notNull(),
    verifiedAt: timestamptz(),
    enabledUntil: timestamptz(),
    autoSslEnabled: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_pages_domains_on_lower_domain").on(sql`lower(${t.domain})`),
    index("index_pages_domains_on_project_id").on(t.projectId),
  ],
);

export type PagesDeployment = typeof pagesDeployments.$inferSelect;
export type PagesDomain = typeof pagesDomains.$inferSelect;
