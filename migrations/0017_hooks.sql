CREATE TABLE "integrations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "integrations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"project_id" integer NOT NULL,
	"slug" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"properties" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"commit_events" boolean DEFAULT true NOT NULL,
	"push_events" boolean DEFAULT true NOT NULL,
	"issues_events" boolean DEFAULT true NOT NULL,
	"confidential_issues_events" boolean DEFAULT true NOT NULL,
	"merge_requests_events" boolean DEFAULT true NOT NULL,
	"tag_push_events" boolean DEFAULT true NOT NULL,
	"note_events" boolean DEFAULT true NOT NULL,
	"confidential_note_events" boolean DEFAULT true NOT NULL,
	"pipeline_events" boolean DEFAULT true NOT NULL,
	"wiki_page_events" boolean DEFAULT true NOT NULL,
	"job_events" boolean DEFAULT true NOT NULL,
	"comment_on_event_enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "web_hooks" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "web_hooks_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"project_id" integer,
	"group_id" integer,
	"url" text NOT NULL,
	"token" text,
	"push_events" boolean DEFAULT true NOT NULL,
	"push_events_branch_filter" text,
	"tag_push_events" boolean DEFAULT false NOT NULL,
	"issues_events" boolean DEFAULT false NOT NULL,
	"confidential_issues_events" boolean DEFAULT false NOT NULL,
	"merge_requests_events" boolean DEFAULT false NOT NULL,
	"note_events" boolean DEFAULT false NOT NULL,
	"confidential_note_events" boolean DEFAULT false NOT NULL,
	"job_events" boolean DEFAULT false NOT NULL,
	"pipeline_events" boolean DEFAULT false NOT NULL,
	"wiki_page_events" boolean DEFAULT false NOT NULL,
	"deployment_events" boolean DEFAULT false NOT NULL,
	"releases_events" boolean DEFAULT false NOT NULL,
	"subgroup_events" boolean DEFAULT false NOT NULL,
	"repository_update_events" boolean DEFAULT false NOT NULL,
	"enable_ssl_verification" boolean DEFAULT true NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_hooks" ADD CONSTRAINT "web_hooks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_hooks" ADD CONSTRAINT "web_hooks_group_id_namespaces_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."namespaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "index_integrations_on_project_id_and_slug" ON "integrations" USING btree ("project_id","slug");--> statement-breakpoint
CREATE INDEX "index_web_hooks_on_project_id_and_id" ON "web_hooks" USING btree ("project_id","id");--> statement-breakpoint
CREATE INDEX "index_web_hooks_on_group_id_and_id" ON "web_hooks" USING btree ("group_id","id");--> statement-breakpoint
CREATE INDEX "index_web_hooks_on_type_and_id" ON "web_hooks" USING btree ("type","id");