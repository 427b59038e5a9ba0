CREATE TABLE "web_hook_push_cursors" (
	"project_id" integer PRIMARY KEY NOT NULL,
	"last_push_event_id" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "web_hook_push_cursors" ADD CONSTRAINT "web_hook_push_cursors_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;