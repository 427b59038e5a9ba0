CREATE TABLE "wikis" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "wikis_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer,
	"group_id" integer,
	"default_branch" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wikis_one_container" CHECK (("wikis"."project_id" IS NULL) <> ("wikis"."group_id" IS NULL))
);
--> statement-breakpoint
ALTER TABLE "git_refs" DROP CONSTRAINT "git_refs_project_id_projects_id_fk";
--> statement-breakpoint
ALTER TABLE "wikis" ADD CONSTRAINT "wikis_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wikis" ADD CONSTRAINT "wikis_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_wikis_on_project_id" ON "wikis" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "index_wikis_on_group_id" ON "wikis" USING btree ("group_id");--> statement-breakpoint
-- A wiki's refs are stored under minus its id (db/schema/wikis.ts), so git_refs.project_id names either a
-- project or a wiki and can no longer reference projects. These triggers keep what the cascade did: a
-- project's refs go with the project, a wiki's with its row (which goes with its project or group).
CREATE OR REPLACE FUNCTION git_refs_delete_with_project() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM git_refs WHERE project_id = OLD.id;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER projects_delete_git_refs AFTER DELETE ON projects FOR EACH ROW EXECUTE FUNCTION git_refs_delete_with_project();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION git_refs_delete_with_wiki() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM git_refs WHERE project_id = -OLD.id;
  RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER wikis_delete_git_refs AFTER DELETE ON wikis FOR EACH ROW EXECUTE FUNCTION git_refs_delete_with_wiki();
