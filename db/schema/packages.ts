// Packages: packages of a project, their files (bytes in R2 `BLOBS`), npm
// dist-tags and npm version metadata. GitLab's table names.
import { bigint, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { ciPipelines } from "./ci";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";
import { users } from "./users";

export const packages = pgTable(
  "packages_packages",
  {
    id: id(),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    creatorId: integer().references(() => users.id, { onDelete: "set null" }),
    name: text().notNull(),
    version: text(),
    packageType: text().notNull(), // generic | npm | …
    status: text().notNull().default("default"), // default | hidden | processing | error
    lastDownloadedAt: timestamptz(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("index_packages_on_project_id_and_created_at").on(t.projectId, t.createdAt, t.id),
    index("index_packages_on_project_id_and_name_and_version").on(t.projectId, t.packageType, t.name, t.version),
    uniqueIndex("index_packages_on_project_id_name_version_unique_npm")
      .on(t.projectId, t.name, t.version)
      .where(sql`package_type = 'npm' AND status <> 'pending_destruction'`),
    // One PyPI package per name and version (Packages::Pypi::CreatePackageService finds or creates it).
    uniqueIndex("index_packages_on_project_id_name_version_unique_pypi")
      .on(t.projectId, t.name, t.version)
      .where(sql`package_type = 'pypi' AND status <> 'pending_destruction'`),
  ],
);

export const packageFiles = pgTable(
  "packages_package_files",
  {
    id: id(),
    packageId: integer().notNull().references(() => packages.id, { onDelete: "cascade" }),
    fileName: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    fileMd5: text(),
    fileSha1: text(),
    fileSha256: text(),
    /** The object key in R2 (`BLOBS`). */
    fileStore: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_packages_package_files_on_package_id_and_file_name").on(t.packageId, t.fileName, t.id)],
);

/** npm dist-tags (`latest`, `beta` …), one package version each. */
export const packageTags = pgTable(
  "packages_tags",
  {
    id: id(),
    packageId: integer().notNull().references(() => packages.id, { onDelete: "cascade" }),
    projectId: integer().notNull().references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_packages_tags_on_package_id").on(t.packageId)],
);

/** The `package.json` of a published npm version, served back in the package metadata. */
export const npmMetadata = pgTable("packages_npm_metadata", {
  packageId: integer()
    .primaryKey()
    .references(() => packages.id, { onDelete: "cascade" }),
  packageJson: jsonb().$type<Record<string, unknown>>().notNull(),
});

/**
 * The pipelines that published a package (GitLab's `packages_build_infos`): one row per pipeline whose
 * job, authenticated by its CI job token, uploaded to the package. The pipeline goes when it is deleted.
 */
export const packageBuildInfos = pgTable(
  "packages_build_infos",
  {
    id: id(),
    packageId: integer()
      .notNull()
      .references(() => packages.id, { onDelete: "cascade" }),
    pipelineId: integer().references(() => ciPipelines.id, { onDelete: "set null" }),
  },
  (t) => [
    index("index_packages_build_infos_package_id_id").on(t.packageId, t.id),
    uniqueIndex("index_packages_build_infos_on_package_id_and_pipeline_id").on(t.packageId, t.pipelineId),
    index("index_packages_build_infos_on_pipeline_id").on(t.pipelineId),
  ],
);

export type Package = typeof packages.$inferSelect;
export type PackageFile = typeof packageFiles.$inferSelect;
export type PackageTag = typeof packageTags.$inferSelect;

/** PyPI metadata of a package version (GitLab's `packages_pypi_metadata`): `Requires-Python`, shown as `data-requires-python`. */
export const pypiMetadata = pgTable("packages_pypi_metadata", {
  packageId: integer()
    .primaryKey()
    .references(() => packages.id, { onDelete: "cascade" }),
  requiredPython: text().notNull().default(""),
});
