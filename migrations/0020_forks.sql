ALTER TABLE "projects" ADD COLUMN "forked_from_project_id" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "pool_id" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "mr_default_target_self" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_forked_from_project_id_projects_id_fk" FOREIGN KEY ("forked_from_project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "index_projects_on_forked_from_project_id" ON "projects" USING btree ("forked_from_project_id","id");