// The container registry (docs/container_registry.md): repositories of a project (GitLab's
// `container_repositories`), and what GitLab's separate registry service keeps: blobs linked to a
// repository, manifests, tags and upload sessions. Bytes (layers, configs) are in R2 (`BLOBS`) under
// `registry/blobs/sha256/<hex>`, one object per digest shared by every repository that links it;
// manifests are small and stay in Postgres, byte for byte.
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, varchar } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, timestamptz, updatedAt } from "./columns";
import { projects } from "./projects";

/** An image repository: `<project full path>` (name "") or `<project full path>/<name>`. */
export const containerRepositories = pgTable(
  "container_repositories",
  {
    id: id(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    name: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("index_container_repositories_on_project_id_and_name").on(t.projectId, t.name)],
);

/** A blob a repository may serve (pushed to it or mounted into it); the bytes are shared by digest. */
export const containerRepositoryBlobs = pgTable(
  "container_repository_blobs",
  {
    repositoryId: integer()
      .notNull()
      .references(() => containerRepositories.id, { onDelete: "cascade" }),
    digest: text().notNull(),
    size: bigint({ mode: "number" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.repositoryId, t.digest] }), index("index_container_repository_blobs_on_digest").on(t.digest)],
);

/** A manifest (image manifest or index) of a repository, its exact bytes and media type. */
export const containerManifests = pgTable(
  "container_manifests",
  {
    id: id(),
    repositoryId: integer()
      .notNull()
      .references(() => containerRepositories.id, { onDelete: "cascade" }),
    digest: text().notNull(),
    mediaType: text().notNull(),
    payload: text().notNull(),
    /** Config and layer sizes summed (image manifests), for the REST API's `total_size`. */
    totalSize: bigint({ mode: "number" }).notNull().default(0),
    configDigest: text(),
    /**
     * What the manifest references, for garbage collection: an image manifest's config and local layers
     * (blobs of its repository), an index's manifests (of its repository). Backfilled by migration 0057
     * from the payload's digests.
     */
    referencedDigests: text()
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("index_container_manifests_on_repository_id_and_digest").on(t.repositoryId, t.digest),
    index("index_container_manifests_on_referenced_digests").using("gin", t.referencedDigests),
  ],
);

export const containerTags = pgTable(
  "container_tags",
  {
    repositoryId: integer()
      .notNull()
      .references(() => containerRepositories.id, { onDelete: "cascade" }),
    name: text().notNull(),
    manifestId: integer()
      .notNull()
      .references(() => containerManifests.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.repositoryId, t.name] }), index("index_container_tags_on_manifest_id").on(t.manifestId)],
);

/**
 * A blob upload session (`/v2/<name>/blobs/uploads/<uuid>`): the bytes received so far are R2
 * objects `registry/uploads/<uuid>/<n>` of at most 8 MiB each, whose sizes are `parts`. The project,
 * not a repository row, owns it, so that an upload that never finishes creates no repository.
 */
export const containerUploads = pgTable(
  "container_uploads",
  {
    uuid: text().primaryKey(),
    projectId: integer()
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    repositoryName: text().notNull(),
    parts: jsonb().$type<number[]>().notNull().default([]),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("index_container_uploads_on_created_at").on(t.createdAt)],
);

/**
 * A project's cleanup policy for its images (GitLab's container_expiration_policies, one per project,
 * made with the project by a trigger of migration 0051 and backfilled for the projects before it).
 * `next_run_at` is when the cron next runs it: set from `cadence` whenever the policy is saved and when
 * the cron claims it. Defaults are GitLab's column defaults.
 */
export const containerExpirationPolicies = pgTable(
  "container_expiration_policies",
  {
    projectId: integer()
      .primaryKey()
      .references(() => projects.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    nextRunAt: timestamptz(),
    nameRegex: varchar({ length: 255 }).default(".*"),
    cadence: varchar({ length: 12 }).notNull().default("1d"),
    olderThan: varchar({ length: 12 }).default("90d"),
    keepN: integer().default(10),
    enabled: boolean().notNull().default(false),
    nameRegexKeep: text(),
  },
  (t) => [index("index_container_expiration_policies_on_next_run_at_and_enabled").on(t.nextRunAt).where(sql`${t.enabled}`)],
);

/**
 * Online garbage collection (docs/container_registry.md, "Garbage collection"), as GitLab's registry's
 * `gc_blob_review_queue`: a digest whose blob may have lost its last reference (a link deleted, a
 * manifest referencing it deleted, or the blob just uploaded or mounted). Rows are written by the
 * triggers of migration 0057 and by the upload path (`holdBlob`); the sweep takes those queued longer
 * than the review delay ago.
 */
export const containerRegistryBlobReviews = pgTable(
  "container_registry_blob_reviews",
  {
    digest: text().primaryKey(),
    queuedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [index("index_container_registry_blob_reviews_on_queued_at").on(t.queuedAt)],
);

/**
 * GitLab's `gc_manifest_review_queue`: a manifest that may have lost its last reference (a tag deleted
 * or moved, an index referencing it deleted). No foreign key: a manifest deleted meanwhile leaves a row
 * the sweep drops, and a tag deleted while its manifest is never waits on the manifest's row lock.
 */
export const containerRegistryManifestReviews = pgTable(
  "container_registry_manifest_reviews",
  {
    manifestId: integer().primaryKey(),
    queuedAt: timestamptz().notNull().defaultNow(),
  },
  (t) => [index("index_container_registry_manifest_reviews_on_queued_at").on(t.queuedAt)],
);

/** The instance's key pair for registry tokens (ES256), made on first use. */
export const containerRegistryKeys = pgTable("container_registry_keys", {
  id: integer().primaryKey(),
  privateJwk: jsonb().$type<JsonWebKey>().notNull(),
  publicJwk: jsonb().$type<JsonWebKey>().notNull(),
  createdAt: createdAt(),
});

export type ContainerRepository = typeof containerRepositories.$inferSelect;
export type ContainerManifest = typeof containerManifests.$inferSelect;
export type ContainerTag = typeof containerTags.$inferSelect;
export type ContainerUpload = typeof containerUploads.$inferSelect;
export type ContainerExpirationPolicy = typeof containerExpirationPolicies.$inferSelect;
