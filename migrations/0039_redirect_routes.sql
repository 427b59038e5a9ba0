CREATE TABLE "redirect_routes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "redirect_routes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source_type" text NOT NULL,
	"source_id" integer NOT NULL,
	"path" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "index_redirect_routes_on_lower_path" ON "redirect_routes" USING btree (lower("path"));--> statement-breakpoint
CREATE INDEX "index_redirect_routes_on_lower_path_c" ON "redirect_routes" USING btree ((lower("path") COLLATE "C"));--> statement-breakpoint
CREATE INDEX "index_redirect_routes_on_source_type_and_source_id" ON "redirect_routes" USING btree ("source_type","source_id");--> statement-breakpoint

-- hand-written: the one writer of `redirect_routes` (GitLab's Route#create_redirect_for_old_path and
-- Route#delete_conflicting_redirects): AFTER triggers on the two tables that hold full paths, so every
-- rename and transfer (projects, groups with everything below them, user namespaces) records the old
-- paths in the moving statement's own transaction. A new or moved full path removes the redirects at
-- it and below it; a deleted project or namespace takes its redirects along.
CREATE OR REPLACE FUNCTION redirect_routes_on_route_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  taken text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM redirect_routes WHERE source_type = TG_ARGV[0] AND source_id = OLD.id;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.full_path = NEW.full_path THEN
    RETURN NULL;
  END IF;
  taken := lower(NEW.full_path);
  DELETE FROM redirect_routes WHERE lower(path) = taken
    OR (lower(path) COLLATE "C" >= (taken || '/') COLLATE "C" AND lower(path) COLLATE "C" < (taken || '0') COLLATE "C");
  IF TG_OP = 'UPDATE' AND lower(OLD.full_path) <> taken THEN
    INSERT INTO redirect_routes (source_type, source_id, path) VALUES (TG_ARGV[0], NEW.id, OLD.full_path)
    ON CONFLICT ((lower(path))) DO UPDATE SET source_type = EXCLUDED.source_type, source_id = EXCLUDED.source_id, created_at = now();
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER projects_redirect_routes AFTER INSERT OR DELETE OR UPDATE OF full_path ON projects
  FOR EACH ROW EXECUTE FUNCTION redirect_routes_on_route_change('Project');
--> statement-breakpoint
CREATE TRIGGER namespaces_redirect_routes AFTER INSERT OR DELETE OR UPDATE OF full_path ON namespaces
  FOR EACH ROW EXECUTE FUNCTION redirect_routes_on_route_change('Namespace');
