CREATE TABLE "container_registry_blob_reviews" (
	"digest" text PRIMARY KEY NOT NULL,
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "container_registry_manifest_reviews" (
	"manifest_id" integer PRIMARY KEY NOT NULL,
	"queued_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "container_manifests" ADD COLUMN "referenced_digests" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "index_container_registry_blob_reviews_on_queued_at" ON "container_registry_blob_reviews" USING btree ("queued_at");--> statement-breakpoint
CREATE INDEX "index_container_registry_manifest_reviews_on_queued_at" ON "container_registry_manifest_reviews" USING btree ("queued_at");--> statement-breakpoint
CREATE INDEX "index_container_manifests_on_referenced_digests" ON "container_manifests" USING gin ("referenced_digests");--> statement-breakpoint
-- Hand-written below the generated part (docs/database.md): the registry's online garbage collection
-- (docs/container_registry.md, "Garbage collection"). As GitLab's registry, triggers queue what may have
-- lost its last reference, in the transaction that removed the reference, whichever path removed it
-- (the API, the cleanup policies, a repository, project or group deleted by cascade). The sweep
-- (functions/container_registry/gc.ts) re-checks each review before deleting anything.
--
-- Manifests written before this migration: their references are every digest their payload names (a
-- superset of the config, layers or manifests: garbage collection keeps what it cannot tell unreferenced).
UPDATE container_manifests SET referenced_digests = ARRAY(
  SELECT DISTINCT m[1] FROM regexp_matches(payload, '"digest"\s*:\s*"(sha256:[0-9a-f]{64})"', 'g') AS m);
--> statement-breakpoint
-- A blob link deleted (DELETE /v2/<name>/blobs/<digest>, a repository, project or group deleted, the sweep).
CREATE OR REPLACE FUNCTION container_registry_gc_links_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO container_registry_blob_reviews (digest) SELECT DISTINCT digest FROM gone
    ON CONFLICT (digest) DO UPDATE SET queued_at = now();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER container_registry_gc_on_link_delete AFTER DELETE ON container_repository_blobs
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION container_registry_gc_links_deleted();
--> statement-breakpoint
-- A manifest deleted: an image manifest's blobs (config_digest set), an index's manifests that remain in
-- its repository (config_digest null). Reviews of the deleted manifests are left to the sweep, which
-- drops them: deleting them here would lock in the opposite order of the sweep.
CREATE OR REPLACE FUNCTION container_registry_gc_manifests_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO container_registry_blob_reviews (digest)
    SELECT DISTINCT d FROM gone CROSS JOIN LATERAL unnest(gone.referenced_digests) AS d WHERE gone.config_digest IS NOT NULL
    ON CONFLICT (digest) DO UPDATE SET queued_at = now();
  INSERT INTO container_registry_manifest_reviews (manifest_id)
    SELECT DISTINCT m.id FROM gone JOIN container_manifests m ON m.repository_id = gone.repository_id AND m.digest = ANY (gone.referenced_digests)
     WHERE gone.config_digest IS NULL
    ON CONFLICT (manifest_id) DO UPDATE SET queued_at = now();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER container_registry_gc_on_manifest_delete AFTER DELETE ON container_manifests
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION container_registry_gc_manifests_deleted();
--> statement-breakpoint
-- A tag deleted (not with its manifest: a manifest deleted takes its tags by cascade, and is gone).
CREATE OR REPLACE FUNCTION container_registry_gc_tags_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO container_registry_manifest_reviews (manifest_id)
    SELECT DISTINCT gone.manifest_id FROM gone WHERE EXISTS (SELECT 1 FROM container_manifests m WHERE m.id = gone.manifest_id)
    ON CONFLICT (manifest_id) DO UPDATE SET queued_at = now();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER container_registry_gc_on_tag_delete AFTER DELETE ON container_tags
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION container_registry_gc_tags_deleted();
--> statement-breakpoint
-- A tag moved to another manifest (pushed again): the manifest it left.
CREATE OR REPLACE FUNCTION container_registry_gc_tags_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO container_registry_manifest_reviews (manifest_id)
    SELECT DISTINCT o.manifest_id FROM old_tags o JOIN new_tags n ON n.repository_id = o.repository_id AND n.name = o.name
     WHERE n.manifest_id <> o.manifest_id
    ON CONFLICT (manifest_id) DO UPDATE SET queued_at = now();
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER container_registry_gc_on_tag_update AFTER UPDATE ON container_tags
  REFERENCING OLD TABLE AS old_tags NEW TABLE AS new_tags FOR EACH STATEMENT EXECUTE FUNCTION container_registry_gc_tags_moved();
