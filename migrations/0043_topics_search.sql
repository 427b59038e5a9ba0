CREATE TABLE "project_topics" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "project_topics_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"topic_id" integer NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "topics" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "topics_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"title" text,
	"description" text,
	"avatar_url" text,
	"total_projects_count" integer DEFAULT 0 NOT NULL,
	"non_private_projects_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "project_topics" ADD CONSTRAINT "project_topics_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_topics" ADD CONSTRAINT "project_topics_topic_id_topics_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."topics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_project_topics_on_project_id_and_topic_id" ON "project_topics" USING btree ("project_id","topic_id");--> statement-breakpoint
CREATE INDEX "index_project_topics_on_topic_id" ON "project_topics" USING btree ("topic_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_topics_on_lower_name" ON "topics" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "index_topics_on_non_private_projects_count" ON "topics" USING btree ("non_private_projects_count" DESC NULLS LAST,"id");--> statement-breakpoint

-- hand-written: topics (Projects::Topic) and their counters.
-- `project_topics_assign(project, names)` is the one writer of a project's topics (Project#topic_list=,
-- `save_topics`): names are trimmed, blanks and case-insensitive repeats dropped, each found by
-- lower(name) or created with its title, and the project's rows replaced in the given order. The
-- statement triggers below are the one writer of what derives from `project_topics`: `projects.tag_list`
-- (the names in row order, read by the project entities) and the topics' `total_projects_count` and
-- `non_private_projects_count`, whatever changed the rows (assign, topic merge or delete, a project's
-- cascade). Rows are updated in id order, so concurrent statements lock them in the same order.
CREATE OR REPLACE FUNCTION topics_refresh(project_ids integer[], topic_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(project_ids) > 0 THEN
    UPDATE projects p SET tag_list = ARRAY(
      SELECT t.name FROM project_topics pt JOIN topics t ON t.id = pt.topic_id WHERE pt.project_id = p.id ORDER BY pt.id)
    FROM (SELECT DISTINCT x FROM unnest(project_ids) AS x ORDER BY x) AS ids
    WHERE p.id = ids.x;
  END IF;
  IF cardinality(topic_ids) > 0 THEN
    UPDATE topics t SET
      total_projects_count = (SELECT count(*) FROM project_topics pt WHERE pt.topic_id = t.id),
      non_private_projects_count = (SELECT count(*) FROM project_topics pt JOIN projects p ON p.id = pt.project_id
        WHERE pt.topic_id = t.id AND p.visibility_level > 0)
    FROM (SELECT DISTINCT x FROM unnest(topic_ids) AS x ORDER BY x) AS ids
    WHERE t.id = ids.x;
  END IF;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION project_topics_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topics_refresh(ARRAY(SELECT project_id FROM new_rows), ARRAY(SELECT topic_id FROM new_rows));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION project_topics_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topics_refresh(ARRAY(SELECT project_id FROM old_rows), ARRAY(SELECT topic_id FROM old_rows));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION project_topics_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topics_refresh(
    ARRAY(SELECT project_id FROM old_rows UNION SELECT project_id FROM new_rows),
    ARRAY(SELECT topic_id FROM old_rows UNION SELECT topic_id FROM new_rows));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER project_topics_counted_insert AFTER INSERT ON project_topics REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION project_topics_after_insert();
--> statement-breakpoint
CREATE TRIGGER project_topics_counted_delete AFTER DELETE ON project_topics REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION project_topics_after_delete();
--> statement-breakpoint
CREATE TRIGGER project_topics_counted_update AFTER UPDATE ON project_topics REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION project_topics_after_update();
--> statement-breakpoint
-- A renamed topic renames itself in its projects' tag_list.
CREATE OR REPLACE FUNCTION topics_after_rename() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topics_refresh(ARRAY(SELECT pt.project_id FROM project_topics pt JOIN new_rows n ON n.id = pt.topic_id
    JOIN old_rows o ON o.id = n.id WHERE o.name IS DISTINCT FROM n.name), '{}'::integer[]);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER topics_renamed AFTER UPDATE ON topics REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION topics_after_rename();
--> statement-breakpoint
-- A project's visibility decides whether it counts in `non_private_projects_count`.
CREATE OR REPLACE FUNCTION projects_topic_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM topics_refresh('{}'::integer[], ARRAY(SELECT pt.topic_id FROM project_topics pt JOIN new_rows n ON n.id = pt.project_id
    JOIN old_rows o ON o.id = n.id WHERE (o.visibility_level > 0) IS DISTINCT FROM (n.visibility_level > 0)));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER projects_topic_visibility AFTER UPDATE ON projects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION projects_topic_visibility();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION project_topics_assign(p_project integer, p_names text[]) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  wanted text[];
BEGIN
  SELECT coalesce(array_agg(n ORDER BY i), '{}') INTO wanted FROM (
    SELECT DISTINCT ON (lower(btrim(n))) btrim(n) AS n, i
    FROM unnest(p_names) WITH ORDINALITY AS u(n, i) WHERE btrim(n) <> '' ORDER BY lower(btrim(n)), i) AS d;
  INSERT INTO topics (name, title) SELECT n, n FROM unnest(wanted) AS n ORDER BY lower(n)
    ON CONFLICT ((lower(name))) DO NOTHING;
  IF EXISTS (SELECT 1 FROM project_topics WHERE project_id = p_project) THEN
    DELETE FROM project_topics WHERE project_id = p_project;
  END IF;
  IF cardinality(wanted) > 0 THEN
    INSERT INTO project_topics (project_id, topic_id)
      SELECT p_project, t.id FROM unnest(wanted) WITH ORDINALITY AS u(n, i) JOIN topics t ON lower(t.name) = lower(u.n) ORDER BY u.i;
  END IF;
  RETURN (SELECT tag_list FROM projects WHERE id = p_project);
END
$$;
--> statement-breakpoint
-- The topics projects already had (projects.tag_list, which only the triggers write from now on).
INSERT INTO topics (name, title)
  SELECT DISTINCT ON (lower(btrim(n))) btrim(n), btrim(n)
  FROM projects p, unnest(p.tag_list) WITH ORDINALITY AS u(n, i) WHERE btrim(n) <> ''
  ORDER BY lower(btrim(n)), p.id, u.i;
--> statement-breakpoint
INSERT INTO project_topics (project_id, topic_id)
  SELECT p.id, t.id FROM projects p
  CROSS JOIN LATERAL (SELECT DISTINCT ON (lower(btrim(n))) btrim(n) AS n, i
    FROM unnest(p.tag_list) WITH ORDINALITY AS u(n, i) WHERE btrim(n) <> '' ORDER BY lower(btrim(n)), i) AS d
  JOIN topics t ON lower(t.name) = lower(d.n)
  ORDER BY p.id, d.i;
--> statement-breakpoint
-- hand-written: trigram indexes for search (Gitlab::SQL::Pattern's ILIKE '%term%', as GitLab's
-- index_issues_on_title_trigram and friends). pg_trgm ships with PostgreSQL, Neon and PGlite.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX index_issues_on_title_trigram ON issues USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_issues_on_description_trigram ON issues USING gin (description gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_merge_requests_on_title_trigram ON merge_requests USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_merge_requests_on_description_trigram ON merge_requests USING gin (description gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_milestones_on_title_trigram ON milestones USING gin (title gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_notes_on_note_trigram ON notes USING gin (note gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_projects_on_name_trigram ON projects USING gin (name gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX index_snippets_on_title_trigram ON snippets USING gin (title gin_trgm_ops);
--> statement-breakpoint
-- The search's orders (created_at, updated_at with id): a common word is found by walking them until a page is full
-- (issues/queries/list.ts `searchIssueIds`) instead of sorting every issue the trigram indexes find.
CREATE INDEX index_issues_on_created_at_and_id ON issues USING btree (created_at, id);
--> statement-breakpoint
CREATE INDEX index_issues_on_updated_at_and_id ON issues USING btree (updated_at, id);
